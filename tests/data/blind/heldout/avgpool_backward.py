"""Blind corpus: avgpool_backward (heldout), written without reading the checker."""

import numpy as np


def wrong_real_count_not_clipped_at_far_edge(dy, input_shape, kernel_size, stride=None,
                                            padding=0, count_include_pad=True):
    """With count_include_pad=False, clips the window start to 0 but not its end to H (or W), so bottom/right padding is still counted."""
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
            if count_include_pad:
                div = (h1 - h0) * (w1 - w0)
            else:
                div = (h1 - max(h0, 0)) * (w1 - max(w0, 0))
            dx[:, :, max(h0, 0):min(h1, H), max(w0, 0):min(w1, W)] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_window_end_off_by_one(dy, input_shape, kernel_size, stride=None,
                                padding=0, count_include_pad=True):
    """Takes the window end as h0 + k - 1 (as if it were inclusive) but slices with it: every window loses its last row and column."""
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
                    h1, w1 = min(h0 + k - 1, H + p), min(w0 + k - 1, W + p)
                    a0, a1 = max(h0, 0), min(h1, H)
                    b0, b1 = max(w0, 0), min(w1, W)
                    div = (h1 - h0) * (w1 - w0) if count_include_pad else (a1 - a0) * (b1 - b0)
                    dx[n, c, a0:a1, b0:b1] += dy[n, c, i, j] / div
    return dx


def wrong_width_clipped_with_height(dy, input_shape, kernel_size, stride=None,
                                    padding=0, count_include_pad=True):
    """Copy-pasted the row clipping for the columns: w1 = min(w0 + k, H + p) and the real end min(w1, H), using H for W."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, H + p)
            a0, a1, b0, b1 = max(h0, 0), min(h1, H), max(w0, 0), min(w1, H)
            div = (h1 - h0) * (w1 - w0) if count_include_pad else (a1 - a0) * (b1 - b0)
            dx[:, :, a0:a1, b0:b1] += dy[:, :, i, j][:, :, None, None] / div
    return dx
