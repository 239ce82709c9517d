"""Blind corpus: avgpool_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_divisor_height_squared(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Computes the real-pixel divisor as (h-extent)*(h-extent), using the clipped row span for both axes instead of rows times columns."""
    if stride is None:
        stride = kernel_size
    N, C, H, W = input_shape
    k, s, p = kernel_size, stride, padding
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            hs, ws = max(h0, 0), max(w0, 0)
            he, we = min(h1, H), min(w1, W)
            real = (he - hs) * (he - hs)
            div = full if count_include_pad else real
            dx[:, :, hs:he, ws:we] += dy[:, :, i, j][:, :, None, None] / div
    return dx


def wrong_nearest_upsample(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Spreads dy by repeating each entry over a k-by-k block (nearest-neighbour upsampling of dy / k^2), which is only right when stride == kernel and there is no padding."""
    if stride is None:
        stride = kernel_size
    k = kernel_size
    N, C, H, W = input_shape
    up = np.repeat(np.repeat(dy / (k * k), k, axis=2), k, axis=3)
    dx = np.zeros(input_shape)
    hh, ww = min(H, up.shape[2]), min(W, up.shape[3])
    dx[:, :, :hh, :ww] = up[:, :, :hh, :ww]
    return dx


def wrong_window_start_ignores_padding(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Starts window (i, j) at (i*s, j*s), forgetting to subtract the padding, so padded windows land one step too far down and right."""
    if stride is None:
        stride = kernel_size
    N, C, H, W = input_shape
    k, s, p = kernel_size, stride, padding
    dx = np.zeros(input_shape)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            h0, w0 = i * s, j * s
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            hs, ws, he, we = h0, w0, min(h1, H), min(w1, W)
            if count_include_pad:
                div = (h1 - h0) * (w1 - w0)
            else:
                div = max((he - hs) * (we - ws), 1)
            if he > hs and we > ws:
                dx[:, :, hs:he, ws:we] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_window_count_from_formula(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Recomputes the number of windows with the floor formula (H + 2p - k)//s + 1 instead of reading it from dy, so ceil-mode's extra windows are never spread."""
    if stride is None:
        stride = kernel_size
    N, C, H, W = input_shape
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            hs, ws, he, we = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            if count_include_pad:
                div = (h1 - h0) * (w1 - w0)
            else:
                div = (he - hs) * (we - ws)
            dx[:, :, hs:he, ws:we] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx
