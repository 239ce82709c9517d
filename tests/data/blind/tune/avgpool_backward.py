"""Blind corpus: avgpool_backward (tune), written without reading the checker."""

import numpy as np


def wrong_negative_start_not_clipped(dy, input_shape, kernel_size, stride=None,
                                     padding=0, count_include_pad=True):
    """Slices dx[h0:h1] with the unclipped start h0 = i*s - p: a negative start wraps around and the border windows' gradient vanishes."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s - p, j * s - p
                    h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
                    if count_include_pad:
                        div = (h1 - h0) * (w1 - w0)
                    else:
                        div = (min(h1, H) - max(h0, 0)) * (min(w1, W) - max(w0, 0))
                    dx[n, c, h0:min(h1, H), w0:min(w1, W)] += dy[n, c, i, j] / div
    return dx


def wrong_window_count_from_floor_formula(dy, input_shape, kernel_size, stride=None,
                                          padding=0, count_include_pad=True):
    """Recomputes OH, OW with the floor formula instead of reading dy's shape, so ceil mode's extra windows are dropped."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            a0, a1, b0, b1 = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
            div = (h1 - h0) * (w1 - w0) if count_include_pad else (a1 - a0) * (b1 - b0)
            dx[:, :, a0:a1, b0:b1] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dx


def wrong_dy_slice_not_broadcast(dy, input_shape, kernel_size, stride=None,
                                 padding=0, count_include_pad=True):
    """Adds dy[:, :, i, j] / div to a (N, C, h, w) window without [..., None, None]: crashes, or broadcasts onto the wrong axes."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            a0, a1, b0, b1 = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
            div = (h1 - h0) * (w1 - w0) if count_include_pad else (a1 - a0) * (b1 - b0)
            dx[:, :, a0:a1, b0:b1] += dy[:, :, i, j] / div
    return dx


def wrong_floor_division_by_count(dy, input_shape, kernel_size, stride=None,
                                  padding=0, count_include_pad=True):
    """Divides with // because the divisor is a pixel count, which floors every share (negative ones to -1)."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s - p, j * s - p
                    h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
                    a0, a1, b0, b1 = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
                    div = (h1 - h0) * (w1 - w0) if count_include_pad else (a1 - a0) * (b1 - b0)
                    dx[n, c, a0:a1, b0:b1] += dy[n, c, i, j] // div
    return dx


def wrong_dy_read_transposed(dy, input_shape, kernel_size, stride=None,
                             padding=0, count_include_pad=True):
    """Reads dy[n, c, j, i] for window (i, j): the upstream gradient's rows and columns are swapped."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s - p, j * s - p
                    h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
                    a0, a1, b0, b1 = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
                    div = (h1 - h0) * (w1 - w0) if count_include_pad else (a1 - a0) * (b1 - b0)
                    dx[n, c, a0:a1, b0:b1] += dy[n, c, j, i] / div
    return dx
