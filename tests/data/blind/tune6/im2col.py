"""Blind corpus: im2col (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_negative_index_wraps(x, kernel_size, stride=1, padding=0, dilation=1):
    """Reads x[h, w] directly with `h = oh*s - p + ki*d` and only checks `h < H and w < W`, so taps on the top/left padding wrap around to the last rows/columns instead of reading 0."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    col = np.zeros((N, C, K, K, OH, OW))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = oh * s - p + ki * d
                    w = ow * s - p + kj * d
                    if h < H and w < W:
                        col[:, :, ki, kj, oh, ow] = x[:, :, h, w]
    return col


def wrong_out_size_from_height(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes the number of window positions once, from H, and uses it for both OH and OW, so non-square images get the wrong number of columns of windows."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    out = (H + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, out, out))
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            col[:, :, ki, kj] = xp[:, :, h0:h0 + s * out:s, w0:w0 + s * out:s]
    return col


def wrong_patches_reshaped(x, kernel_size, stride=1, padding=0, dilation=1):
    """Gathers the patches as (N, OH, OW, C, K, K) and then `.reshape`s them to (N, C, K, K, OH, OW) instead of transposing the axes, so the entries land in the wrong places."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    patches = np.zeros((N, OH, OW, C, K, K))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s, ow * s
            patches[:, oh, ow] = xp[:, :, h0:h0 + d * (K - 1) + 1:d, w0:w0 + d * (K - 1) + 1:d]
    return patches.reshape(N, C, K, K, OH, OW)
