"""Blind corpus: col2im (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_padding_subtracted_twice(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Adds into the padded canvas but still starts window (i, j) at i*s - p, so the padding is subtracted twice (and negative rows wrap to the bottom)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    img = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for i in range(OH):
                        for j in range(OW):
                            h = i * s - p + ki * d
                            w = j * s - p + kj * d
                            img[n, c, h, w] += col[n, c, ki, kj, i, j]
    return img[:, :, p:p + H, p:p + W]


def wrong_square_output_grid(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Reads the number of window positions once (OH = col.shape[4]) and uses it for both axes, so non-square grids lose (or misplace) window columns."""
    N, C, K = col.shape[:3]
    OH = col.shape[4]
    OW = OH
    H, W = input_size
    s, p, d = stride, padding, dilation
    img = np.zeros((N, C, H + 2 * p, W + 2 * p))
    ki, kj, i, j = np.meshgrid(np.arange(K), np.arange(K), np.arange(OH), np.arange(OW), indexing="ij")
    rows = (i * s + ki * d).ravel()
    cols_ = (j * s + kj * d).ravel()
    vals = col[:, :, ki, kj, i, j]
    for n in range(N):
        for c in range(C):
            np.add.at(img[n, c], (rows, cols_), vals[n, c].ravel())
    return img[:, :, p:p + H, p:p + W]


def wrong_batch_channel_swapped(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Writes plane (n, c) of the columns into img[c, n], mixing up the batch and channel indices."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    img = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    for ki in range(K):
                        for kj in range(K):
                            img[c, n, i * s + ki * d, j * s + kj * d] += col[n, c, ki, kj, i, j]
    return img[:, :, p:p + H, p:p + W]


def wrong_window_count_without_padding(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Recomputes the number of windows from input_size as (H - d*(K-1) - 1)//s + 1, forgetting the 2p, so with padding the last windows are never scattered."""
    N, C = col.shape[:2]
    H, W = input_size
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H - d * (K - 1) - 1) // s + 1
    OW = (W - d * (K - 1) - 1) // s + 1
    img = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            h0 = ki * d
            w0 = kj * d
            img[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s] += col[:, :, ki, kj, :OH, :OW]
    return img[:, :, p:p + H, p:p + W]
