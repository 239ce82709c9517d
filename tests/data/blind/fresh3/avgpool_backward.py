"""Blind corpus: avgpool_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_always_real_pixels(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Always divides by the number of real pixels in the clipped window, as if count_include_pad were False."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    _, _, OH, OW = dy.shape
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = max(i * s - p, 0), max(j * s - p, 0)
            h1, w1 = min(i * s - p + k, H), min(j * s - p + k, W)
            dx[:, :, h0:h1, w0:w1] += (dy[:, :, i, j] / ((h1 - h0) * (w1 - w0)))[:, :, None, None]
    return dx


def wrong_full_kernel_when_counting_pad(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """With count_include_pad uses k*k for every window, forgetting that a ceil-mode window hanging past H + p is clipped there too."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    _, _, OH, OW = dy.shape
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            a0, b0 = max(h0, 0), max(w0, 0)
            a1, b1 = min(h0 + k, H), min(w0 + k, W)
            div = k * k if count_include_pad else (a1 - a0) * (b1 - b0)
            dx[:, :, a0:a1, b0:b1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_assign_not_add(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Writes each window's share with = instead of +=, so where windows overlap only the last window's share survives."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    _, _, OH, OW = dy.shape
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            div = full if count_include_pad else (h1 - h0) * (w1 - w0)
            dx[:, :, h0:h1, w0:w1] = dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_window_not_shifted_by_padding(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Starts window (i, j) at (i*s, j*s) of the input, forgetting to subtract the padding, so with padding every share lands p pixels too far down and right."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    _, _, OH, OW = dy.shape
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s, j * s
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            h1, w1 = min(h1, H), min(w1, W)
            div = full if count_include_pad else max((h1 - h0) * (w1 - w0), 1)
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_clip_hw_swapped(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Clips the window rows to the image width and the columns to the image height (H and W swapped in the clipping), wrong on non-square inputs."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = input_shape
    _, _, OH, OW = dy.shape
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, W + p), min(w0 + k, H + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, W), min(w1, H)
            div = full if count_include_pad else (h1 - h0) * (w1 - w0)
            if h1 > h0 and w1 > w0:
                dx[:, :, h0:h1, w0:w1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def wrong_stride_default_one(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Replaces a missing stride by 1 (stride or 1) instead of kernel_size, so default-stride windows are placed one pixel apart."""
    k, s, p = kernel_size, stride or 1, padding
    N, C, H, W = input_shape
    _, _, OH, OW = dy.shape
    dx = np.zeros((N, C, H + 2 * p, W + 2 * p))
    div = np.zeros((OH, OW))
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            real = (min(h1, H) - max(h0, 0)) * (min(w1, W) - max(w0, 0))
            div[i, j] = full if count_include_pad else real
            dx[:, :, h0 + p:h1 + p, w0 + p:w1 + p] += dy[:, :, i:i + 1, j:j + 1] / div[i, j]
    return dx[:, :, p:p + H, p:p + W]
