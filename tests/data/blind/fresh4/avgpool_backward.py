"""Blind corpus: avgpool_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_count_include_pad_inverted(dy, input_shape, kernel_size, stride=None,
                                     padding=0, count_include_pad=True):
    """Reads count_include_pad backwards: divides by the real-pixel count when it is True and by the padded window size when it is False."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
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
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_window_start_without_padding(dy, input_shape, kernel_size, stride=None,
                                       padding=0, count_include_pad=True):
    """Starts window (i, j) at i*s on the input, forgetting to subtract the padding, so every window is shifted down-right by p."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s, j * s
                    h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
                    full = (h1 - h0) * (w1 - w0)
                    h1, w1 = min(h1, H), min(w1, W)
                    real = (h1 - h0) * (w1 - w0)
                    div = full if count_include_pad else real
                    if div > 0:
                        dx[n, c, h0:h1, w0:w1] += dy[n, c, i, j] / div
    return dx


def wrong_window_count_from_formula(dy, input_shape, kernel_size, stride=None,
                                    padding=0, count_include_pad=True):
    """Recomputes the number of windows with the floor formula instead of reading it from dy's shape, so ceil-mode windows get no gradient."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0 = max(h0, 0), max(w0, 0)
            h1, w1 = min(h1, H), min(w1, W)
            real = (h1 - h0) * (w1 - w0)
            div = full if count_include_pad else real
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_divides_by_k(dy, input_shape, kernel_size, stride=None,
                       padding=0, count_include_pad=True):
    """Divides by the window's side length (about k) instead of its area (k*k) when the padding counts; the real-pixel count is right."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = max(h1 - h0, w1 - w0)
            h0, w0 = max(h0, 0), max(w0, 0)
            h1, w1 = min(h1, H), min(w1, W)
            real = (h1 - h0) * (w1 - w0)
            div = full if count_include_pad else real
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_real_count_not_clipped_at_end(dy, input_shape, kernel_size, stride=None,
                                        padding=0, count_include_pad=True):
    """Clips the window's start to the image but not its end before counting real pixels, so windows hanging over the bottom/right padding divide by too much when count_include_pad is False."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0 = max(h0, 0), max(w0, 0)
            real = (h1 - h0) * (w1 - w0)
            div = full if count_include_pad else real
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_repeat_upsample(dy, input_shape, kernel_size, stride=None,
                          padding=0, count_include_pad=True):
    """Upsamples dy with np.repeat by k and divides by k*k, which is only right for non-overlapping, unpadded windows that tile the input; then pads/crops to the input shape."""
    k = kernel_size
    N, C, H, W = input_shape
    up = np.repeat(np.repeat(dy, k, axis=2), k, axis=3) / (k * k)
    up = up[:, :, :H, :W]
    dh, dw = H - up.shape[2], W - up.shape[3]
    return np.pad(up, ((0, 0), (0, 0), (0, max(dh, 0)), (0, max(dw, 0))))
