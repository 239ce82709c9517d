"""Blind corpus: race_map (fresh), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_split_row_inclusive(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 0 the rows i <= split instead of i < split."""
    H, W = (input_size, input_size) if np.isscalar(input_size) else input_size
    K = kernel_size if np.isscalar(kernel_size) else kernel_size[0]
    Hp, Wp = H + 2 * padding, W + 2 * padding
    OH = (Hp - K) // stride + 1
    OW = (Wp - K) // stride + 1
    t0 = np.zeros((Hp, Wp), dtype=bool)
    t1 = np.zeros((Hp, Wp), dtype=bool)
    for i in range(OH):
        mine = t0 if i <= split else t1
        for j in range(OW):
            mine[i * stride:i * stride + K, j * stride:j * stride + K] = True
    both = (t0 & t1).astype(int)
    return both[padding:padding + H, padding:padding + W]


def wrong_crop_minus_padding(input_size, kernel_size, stride=1, padding=0, split=1):
    """Crops the padded canvas with [p:-p], which returns an empty map when padding is 0."""
    H, W = (input_size, input_size) if np.isscalar(input_size) else input_size
    K = kernel_size if np.isscalar(kernel_size) else kernel_size[0]
    p, s = padding, stride
    canvas = [np.zeros((H + 2 * p, W + 2 * p), dtype=int) for _ in range(2)]
    for i in range((H + 2 * p - K) // s + 1):
        for j in range((W + 2 * p - K) // s + 1):
            canvas[0 if i < split else 1][i * s:i * s + K, j * s:j * s + K] = 1
    race = canvas[0] * canvas[1]
    return race[p:-p, p:-p]


def wrong_counts_not_binarised(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts how many windows each thread adds into a pixel and returns the product of the counts, not a 0/1 map."""
    H, W = (input_size, input_size) if np.isscalar(input_size) else input_size
    K = kernel_size if np.isscalar(kernel_size) else kernel_size[0]
    Hp, Wp = H + 2 * padding, W + 2 * padding
    counts = np.zeros((2, Hp, Wp))
    for i in range((Hp - K) // stride + 1):
        t = 0 if i < split else 1
        for j in range((Wp - K) // stride + 1):
            counts[t, i * stride:i * stride + K, j * stride:j * stride + K] += 1
    race = counts[0] * counts[1]
    return race[padding:padding + H, padding:padding + W]


def wrong_ow_from_height(input_size, kernel_size, stride=1, padding=0, split=1):
    """Computes the number of window columns from H instead of W."""
    H, W = (input_size, input_size) if np.isscalar(input_size) else input_size
    K = kernel_size if np.isscalar(kernel_size) else kernel_size[0]
    n_pos = (H + 2 * padding - K) // stride + 1
    top = np.zeros((H + 2 * padding, W + 2 * padding), dtype=np.int64)
    bottom = np.zeros_like(top)
    for i in range(n_pos):
        for j in range(n_pos):
            r, c = i * stride, j * stride
            if i < split:
                top[r:r + K, c:c + K] = 1
            else:
                bottom[r:r + K, c:c + K] = 1
    out = np.logical_and(top, bottom).astype(np.int64)
    return out[padding:padding + H, padding:padding + W]
