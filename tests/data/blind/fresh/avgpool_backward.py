"""Blind corpus: avgpool_backward (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_negative_start_not_clipped(dy, input_shape, kernel_size, stride=None,
                                     padding=0, count_include_pad=True):
    """Sliced dx[h0:h1] with h0 = i*s - p left negative, so border windows wrap into an empty slice and lose their gradient."""
    k = kernel_size
    s = stride or k
    p = padding
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            if count_include_pad:
                div = (h1 - h0) * (w1 - w0)
            else:
                div = (min(h1, H) - max(h0, 0)) * (min(w1, W) - max(w0, 0))
            dx[:, :, h0:min(h1, H), w0:min(w1, W)] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_window_count_from_floor_formula(dy, input_shape, kernel_size, stride=None,
                                          padding=0, count_include_pad=True):
    """Recomputed OH, OW with the floor formula instead of reading dy's shape, so the extra ceil-mode window is never spread."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    dx = np.zeros((N, C, H, W))
    for i in range(OH):
        for j in range(OW):
            hs, ws = i * s - p, j * s - p
            he, we = min(hs + k, H + p), min(ws + k, W + p)
            full = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, H), min(we, W)
            div = full if count_include_pad else (he - hs) * (we - ws)
            dx[:, :, hs:he, ws:we] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dx


def wrong_dy_indices_swapped(dy, input_shape, kernel_size, stride=None,
                             padding=0, count_include_pad=True):
    """Read dy[n, c, j, i] for window (i, j): the two output axes swapped (an IndexError when OH != OW)."""
    k = kernel_size
    s = stride if stride is not None else k
    N, C, H, W = input_shape
    OH, OW = dy.shape[-2:]
    dx = np.zeros(input_shape, dtype=float)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    top, left = i * s - padding, j * s - padding
                    bottom, right = min(top + k, H + padding), min(left + k, W + padding)
                    r0, c0 = max(top, 0), max(left, 0)
                    r1, c1 = min(bottom, H), min(right, W)
                    if count_include_pad:
                        size = (bottom - top) * (right - left)
                    else:
                        size = (r1 - r0) * (c1 - c0)
                    dx[n, c, r0:r1, c0:c1] += dy[n, c, j, i] / size
    return dx


def wrong_channel_loop_over_batch(dy, input_shape, kernel_size, stride=None,
                                  padding=0, count_include_pad=True):
    """Looped the channels with range(N) (a typo for range(C)), so channels past N get no gradient, or it fails when N > C."""
    k = kernel_size
    if stride is None:
        stride = k
    N, C, H, W = input_shape
    dx = np.zeros((N, C, H, W))
    for n in range(N):
        for c in range(N):
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    h0 = i * stride - padding
                    w0 = j * stride - padding
                    h1 = min(h0 + k, H + padding)
                    w1 = min(w0 + k, W + padding)
                    hh0, ww0, hh1, ww1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
                    if count_include_pad:
                        d = (h1 - h0) * (w1 - w0)
                    else:
                        d = (hh1 - hh0) * (ww1 - ww0)
                    dx[n, c, hh0:hh1, ww0:ww1] += dy[n, c, i, j] / d
    return dx
