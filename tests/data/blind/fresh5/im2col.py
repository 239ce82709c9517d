"""Blind corpus: im2col (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_int_dtype_columns(x, kernel_size, stride=1, padding=0, dilation=1):
    """Allocates the columns with dtype=int, so every copied pixel is truncated toward zero."""
    N, C, H, W = x.shape
    K = kernel_size
    OH = (H + 2 * padding - dilation * (K - 1) - 1) // stride + 1
    OW = (W + 2 * padding - dilation * (K - 1) - 1) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    col = np.zeros((N, C, K, K, OH, OW), dtype=int)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = oh * stride + ki * dilation
                    w = ow * stride + kj * dilation
                    col[:, :, ki, kj, oh, ow] = xp[:, :, h, w]
    return col


def wrong_out_size_drops_minus_one(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes OH as (H + 2p - d*(K-1)) // s, without the '- 1 ... + 1', so strided cases lose the last window."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1)) // s
    OW = (W + 2 * p - d * (K - 1)) // s
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW))
    for ki in range(K):
        for kj in range(K):
            col[:, :, ki, kj] = xp[:, :, ki * d: ki * d + s * OH: s, kj * d: kj * d + s * OW: s]
    return col


def wrong_ow_from_height(x, kernel_size, stride=1, padding=0, dilation=1):
    """Assumes a square image and uses the number of vertical positions OH for OW as well."""
    N, C, H, W = x.shape
    K = kernel_size
    OH = (H + 2 * padding - dilation * (K - 1) - 1) // stride + 1
    OW = OH
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    col = np.zeros((N, C, K, K, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * stride + ki * dilation, ow * stride + kj * dilation]
    return col


def wrong_dilation_as_gap_count(x, kernel_size, stride=1, padding=0, dilation=1):
    """Reads dilation d as 'd holes between taps', placing taps (d+1) apart (and sizing OH with that span)."""
    N, C, H, W = x.shape
    K = kernel_size
    gap = dilation + 1 if dilation > 1 else 1
    span = gap * (K - 1) + 1
    OH = (H + 2 * padding - span) // stride + 1
    OW = (W + 2 * padding - span) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    col = np.zeros((N, C, K, K, OH, OW))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * stride + ki * gap, ow * stride + kj * gap]
    return col


def wrong_np_pad_all_axes(x, kernel_size, stride=1, padding=0, dilation=1):
    """Pads with np.pad(x, padding), which also pads the batch and channel axes, so with padding every (n, c) reads a shifted image."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, p)
    col = np.zeros((N, C, K, K, OH, OW))
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for oh in range(OH):
                        for ow in range(OW):
                            col[n, c, ki, kj, oh, ow] = xp[n, c, oh * s + ki * d, ow * s + kj * d]
    return col


def wrong_reshape_instead_of_transpose(x, kernel_size, stride=1, padding=0, dilation=1):
    """Gathers one (C, K, K) patch per window into (N, OH, OW, C, K, K), then reshapes (not transposes) to (N, C, K, K, OH, OW)."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    span = d * (K - 1) + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    patches = np.zeros((N, OH, OW, C, K, K))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s, ow * s
            patches[:, oh, ow] = xp[:, :, h0:h0 + span:d, w0:w0 + span:d]
    return patches.reshape(N, C, K, K, OH, OW)
