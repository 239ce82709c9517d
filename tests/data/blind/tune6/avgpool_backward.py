"""Blind corpus: avgpool_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_divisor_unclipped_end(dy, input_shape, kernel_size, stride=None,
                                padding=0, count_include_pad=True):
    """With count_include_pad=False it clips the window start to 0 but not the end to H (or W), so the divisor still counts the bottom and right padding."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0 = i * s - p
            w0 = j * s - p
            h1 = min(h0 + k, H + p)
            w1 = min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h0 = max(h0, 0)
            w0 = max(w0, 0)
            real = (h1 - h0) * (w1 - w0)
            div = full if count_include_pad else real
            dx[:, :, h0:h1, w0:w1] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dx


def wrong_floor_window_count(dy, input_shape, kernel_size, stride=None,
                             padding=0, count_include_pad=True):
    """Recomputes the number of windows with the floor formula (H + 2p - k)//s + 1 instead of reading dy's shape, so ceil-mode windows never send their gradient back."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s - p, j * s - p
                    h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
                    size = (h1 - h0) * (w1 - w0)
                    h0, w0 = max(h0, 0), max(w0, 0)
                    h1, w1 = min(h1, H), min(w1, W)
                    if not count_include_pad:
                        size = (h1 - h0) * (w1 - w0)
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            dx[n, c, h, w] += dy[n, c, i, j] / size
    return dx


def wrong_clip_start_first(dy, input_shape, kernel_size, stride=None,
                           padding=0, count_include_pad=True):
    """Clips the window start to 0 before computing the end as start + k, so border windows slide inward onto pixels they never covered (and their sizes change)."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    H, W = input_shape[2], input_shape[3]
    OH, OW = dy.shape[-2:]
    dx = np.zeros(input_shape, dtype=float)
    for i in range(OH):
        h0 = max(i * s - p, 0)
        h1 = min(h0 + k, H + p)
        for j in range(OW):
            w0 = max(j * s - p, 0)
            w1 = min(w0 + k, W + p)
            pool = (h1 - h0) * (w1 - w0)
            hh, ww = min(h1, H), min(w1, W)
            div = pool if count_include_pad else (hh - h0) * (ww - w0)
            dx[..., h0:hh, w0:ww] += dy[..., i:i + 1, j:j + 1] / div
    return dx
