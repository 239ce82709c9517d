"""Blind corpus: im2col (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_windows_not_strided(x, kernel_size, stride=1, padding=0, dilation=1):
    """Sizes OH, OW with the stride but starts window (i, j) at (i, j) instead of (i*s, j*s)."""
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
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh + ki * d, ow + kj * d]
    return col


def wrong_dilation_rows_only(x, kernel_size, stride=1, padding=0, dilation=1):
    """One strided slice per tap, but the column offset uses kj instead of kj*d (dilation applied to rows only)."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.empty((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            col[:, :, ki, kj] = xp[:, :, ki * d : ki * d + s * OH : s, kj : kj + s * OW : s]
    return col


def wrong_taps_transposed(x, kernel_size, stride=1, padding=0, dilation=1):
    """Stores tap (ki, kj) at col[:, :, kj, ki], so each window's patch comes out transposed."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            col[:, :, kj, ki] = xp[:, :, h0 : h0 + s * (OH - 1) + 1 : s, w0 : w0 + s * (OW - 1) + 1 : s]
    return col


def wrong_column_offset_no_padding(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes h = oh*s - p + ki*d but forgets the - p in w = ow*s + kj*d, so padded windows are shifted right."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = oh * s - p + ki * d
                    w = ow * s + kj * d
                    if 0 <= h < H and 0 <= w < W:
                        col[:, :, ki, kj, oh, ow] = x[:, :, h, w]
    return col


def wrong_negative_index_wraps(x, kernel_size, stride=1, padding=0, dilation=1):
    """Reads the unpadded x and checks only the upper bound, so taps on the top/left padding wrap around to the far edge instead of reading 0."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = oh * s - p + ki * d
                    w = ow * s - p + kj * d
                    if h < H and w < W:
                        col[:, :, ki, kj, oh, ow] = x[:, :, h, w]
    return col


def wrong_out_size_without_dilation(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes OH = (H + 2p - K)//s + 1 without the dilation, so dilated convs get too many windows (extra ones partly zero)."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = oh * s - p + ki * d
                    w = ow * s - p + kj * d
                    if 0 <= h < H and 0 <= w < W:
                        col[:, :, ki, kj, oh, ow] = x[:, :, h, w]
    return col
