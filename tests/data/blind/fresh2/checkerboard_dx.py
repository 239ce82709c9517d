"""Blind corpus: checkerboard_dx (fresh2), written without reading the checker."""
# ruff: noqa: E501

import math

import numpy as np


def wrong_overlap_count_only(w, input_size, stride=1, padding=0):
    """Takes the lesson's 'it is the overlap count' literally: adds 1 per covering window instead of the kernel's weights, so only an all-ones w comes out right."""
    H, W = input_size
    K = w.shape[0]
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j * s:j * s + K] += 1
    return canvas[p:p + H, p:p + W]


def wrong_window_count_no_plus_one(w, input_size, stride=1, padding=0):
    """Counts the windows as (H + 2p - K) // s, without the + 1, so the last row and column of windows never stamp."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s
    OW = (W + 2 * p - KW) // s
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + KH, j * s:j * s + KW] += w
    return canvas[p:p + H, p:p + W]


def wrong_crop_top_left(w, input_size, stride=1, padding=0):
    """Crops the padded canvas with canvas[:H, :W] instead of canvas[p:p+H, p:p+W], so with padding the result is shifted by p."""
    H, W = input_size
    K = w.shape[0]
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            for a in range(K):
                for b in range(K):
                    canvas[i * s + a, j * s + b] += w[a, b]
    return canvas[:H, :W]


def wrong_height_width_swapped(w, input_size, stride=1, padding=0):
    """Unpacks input_size as (W, H), so non-square inputs get a transposed-shape canvas and the wrong number of windows per axis."""
    W, H = input_size
    K = w.shape[0]
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j * s:j * s + K] += w
    return canvas[p:p + H, p:p + W]


def wrong_stride_on_kernel_index(w, input_size, stride=1, padding=0):
    """Scatters with np.add.at at rows i + s*ki instead of i*s + ki, spacing the kernel taps by the stride and the windows by 1."""
    H, W = input_size
    K = w.shape[0]
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    i, j, a, b = np.meshgrid(np.arange(OH), np.arange(OW), np.arange(K), np.arange(K), indexing="ij")
    rows = i + s * a
    cols = j + s * b
    np.add.at(canvas, (rows.ravel(), cols.ravel()), w[a, b].ravel())
    return canvas[p:p + H, p:p + W]


def wrong_ceil_windows_clipped(w, input_size, stride=1, padding=0):
    """Counts the windows with math.ceil and stamps the windows that hang past the edge with a clipped kernel, adding gradient from windows the conv never has."""
    H, W = input_size
    K = w.shape[0]
    s, p = stride, padding
    Hp, Wp = H + 2 * p, W + 2 * p
    OH = math.ceil((Hp - K) / s) + 1
    OW = math.ceil((Wp - K) / s) + 1
    canvas = np.zeros((Hp, Wp))
    for i in range(OH):
        for j in range(OW):
            r, q = i * s, j * s
            h, v = min(K, Hp - r), min(K, Wp - q)
            canvas[r:r + h, q:q + v] += w[:h, :v]
    return canvas[p:p + H, p:p + W]
