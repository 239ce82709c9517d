"""Blind corpus: avgpool_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_flag_inverted(dy, input_shape, kernel_size, stride=None,
                        padding=0, count_include_pad=True):
    """Reads count_include_pad backwards: divides by the real-pixel count when it is True and by the padded window size when it is False."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0 = max(h0, 0), max(w0, 0)
            h1, w1 = min(h1, H), min(w1, W)
            real = (h1 - h0) * (w1 - w0)
            div = real if count_include_pad else full
            dx[:, :, h0:h1, w0:w1] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dx


def wrong_full_size_clipped_at_image(dy, input_shape, kernel_size, stride=None,
                                     padding=0, count_include_pad=True):
    """Clips the window end at H (not H + p) before counting the full size, so the top/left padding is counted but the bottom/right padding is not."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s - p, j * s - p
                    h1, w1 = min(h0 + k, H), min(w0 + k, W)
                    full = (h1 - h0) * (w1 - w0)
                    a, b = max(h0, 0), max(w0, 0)
                    real = (h1 - a) * (w1 - b)
                    div = full if count_include_pad else real
                    dx[n, c, a:h1, b:w1] += dy[n, c, i, j] / div
    return dx


def wrong_default_stride_one(dy, input_shape, kernel_size, stride=None,
                             padding=0, count_include_pad=True):
    """Replaces stride=None by 1 rather than kernel_size, so default-stride pools spread each dy onto overlapping, wrongly placed windows."""
    if stride is None:
        stride = 1
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            if h1 <= h0 or w1 <= w0:
                continue
            div = full if count_include_pad else (h1 - h0) * (w1 - w0)
            dx[:, :, h0:h1, w0:w1] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dx


def wrong_window_start_ignores_padding(dy, input_shape, kernel_size, stride=None,
                                       padding=0, count_include_pad=True):
    """Starts window (i, j) at i*s instead of i*s - p, so with padding every window is shifted down and right by p."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s, j * s
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h1, w1 = min(h1, H), min(w1, W)
            if h1 <= h0 or w1 <= w0:
                continue
            div = full if count_include_pad else (h1 - h0) * (w1 - w0)
            dx[:, :, h0:h1, w0:w1] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dx


def wrong_width_clipped_with_height(dy, input_shape, kernel_size, stride=None,
                                    padding=0, count_include_pad=True):
    """Clips the column range with H and H + p (copy-pasted from the row code) instead of W and W + p, so non-square inputs get the wrong columns and divisors."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, H + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, H)
            div = full if count_include_pad else (h1 - h0) * (w1 - w0)
            if div <= 0:
                continue
            dx[:, :, h0:h1, w0:w1] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dx


def wrong_floor_window_count(dy, input_shape, kernel_size, stride=None,
                             padding=0, count_include_pad=True):
    """Recomputes the number of windows with the floor formula (H + 2p - k) // s + 1 instead of reading it off dy, so the extra ceil-mode windows are never spread."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = input_shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    dxp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    ones = np.zeros((H + 2 * p, W + 2 * p))
    ones[p:p + H, p:p + W] = 1
    for i in range(OH):
        for j in range(OW):
            r, q = i * s, j * s
            div = k * k if count_include_pad else ones[r:r + k, q:q + k].sum()
            dxp[:, :, r:r + k, q:q + k] += (dy[:, :, i, j] / div)[:, :, None, None]
    return dxp[:, :, p:p + H, p:p + W]
