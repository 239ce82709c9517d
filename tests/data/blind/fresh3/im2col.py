"""Blind corpus: im2col (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_stride_dilation_swapped(x, kernel_size, stride=1, padding=0, dilation=1):
    """Steps the windows by the dilation and the taps by the stride (h = oh*d + ki*s), swapping the roles of the two."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = oh * d + ki * s
                    w = ow * d + kj * s
                    if h < xp.shape[2] and w < xp.shape[3]:
                        col[:, :, ki, kj, oh, ow] = xp[:, :, h, w]
    return col


def wrong_out_size_without_dilation(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes OH and OW with the undilated formula (H + 2p - K)//s + 1, so with dilation there are too many windows and the last ones run off the image."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.empty((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * s + ki * d, ow * s + kj * d]
    return col


def wrong_padding_subtracted_twice(x, kernel_size, stride=1, padding=0, dilation=1):
    """Pads the image and then still uses the unpadded-coordinate formula h = oh*s - p + ki*d on the padded array, so windows are shifted up-left by p and negative indices wrap around."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW))
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for oh in range(OH):
                        for ow in range(OW):
                            h = oh * s - p + ki * d
                            w = ow * s - p + kj * d
                            col[n, c, ki, kj, oh, ow] = xp[n, c, h, w]
    return col


def wrong_width_from_height(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes OW from H as well as OH (assumes a square image), so non-square images get the wrong number of window columns."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = OH
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            hs = ki * d
            ws = kj * d
            col[:, :, ki, kj] = xp[:, :, hs:hs + s * OH:s, ws:ws + s * OW:s][:, :, :OH, :OW]
    return col


def wrong_reshape_not_transpose(x, kernel_size, stride=1, padding=0, dilation=1):
    """Gathers patches as (N, C, OH, OW, K, K) and then reshapes to (N, C, K, K, OH, OW) instead of transposing, scrambling taps and windows."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    patches = np.zeros((N, C, OH, OW, K, K), dtype=x.dtype)
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s, ow * s
            patches[:, :, oh, ow] = xp[:, :, h0:h0 + d * (K - 1) + 1:d, w0:w0 + d * (K - 1) + 1:d]
    return patches.reshape(N, C, K, K, OH, OW)


def wrong_pads_every_axis(x, kernel_size, stride=1, padding=0, dilation=1):
    """Calls np.pad(x, padding), which pads the batch and channel axes too, so with padding > 0 every column reads the wrong image and channel."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, p)
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for oh in range(OH):
                        for ow in range(OW):
                            col[n, c, ki, kj, oh, ow] = xp[n, c, oh * s + ki * d, ow * s + kj * d]
    return col
