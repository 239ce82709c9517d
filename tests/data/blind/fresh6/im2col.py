"""Blind corpus: im2col (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_pads_every_axis(x, kernel_size, stride=1, padding=0, dilation=1):
    """Pads with np.pad(x, padding), which also pads the batch and channel axes, so xp[n, c] reads a shifted (partly all-zero) image."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, p)
    col = np.zeros((N, C, K, K, OH, OW))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    col[:, :, ki, kj, oh, ow] = xp[:N, :C, oh * s + ki * d, ow * s + kj * d]
    return col


def wrong_width_count_from_height(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes OW from the image height H instead of the width W, so non-square images get the wrong number of window columns."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (H + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW))
    for ki in range(K):
        for kj in range(K):
            patch = xp[:, :, ki * d::s, kj * d::s][:, :, :OH, :OW]
            col[:, :, ki, kj, :patch.shape[2], :patch.shape[3]] = patch
    return col


def wrong_window_major_reshaped(x, kernel_size, stride=1, padding=0, dilation=1):
    """Gathers patches window by window into (N, C, OH, OW, K, K) and then reshapes (instead of transposing) to (N, C, K, K, OH, OW)."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    patches = np.zeros((N, C, OH, OW, K, K))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s, ow * s
            patches[:, :, oh, ow] = xp[:, :, h0:h0 + d * (K - 1) + 1:d, w0:w0 + d * (K - 1) + 1:d]
    return patches.reshape(N, C, K, K, OH, OW)


def wrong_negative_index_wraps(x, kernel_size, stride=1, padding=0, dilation=1):
    """Reads x directly without padding and only checks the upper bounds h < H, w < W, so taps on the top/left padding wrap around to the last rows/columns via negative indexing."""
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
