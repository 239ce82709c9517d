"""Blind corpus: conv2d_macs (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_padding_ignored(x_shape, w_shape, stride=1, padding=0):
    """Computes the output size from the unpadded input, (H - K) // s + 1, so padded convolutions are undercounted."""
    N, C_in, H, W = x_shape
    C_out, _, KH, KW = w_shape
    OH = (H - KH) // stride + 1
    OW = (W - KW) // stride + 1
    return int(N * C_out * (C_in * KH * KW) * (OH * OW))


def wrong_ow_from_height(x_shape, w_shape, stride=1, padding=0):
    """Assumes a square image and computes both OH and OW from the height H, so non-square inputs get the wrong number of columns."""
    N, C_in, H, W = x_shape
    C_out, _, K, _ = w_shape
    OH = (H + 2 * padding - K) // stride + 1
    OW = OH
    rows, inner, cols = C_out, C_in * K * K, OH * OW
    total = 0
    for _ in range(N):
        total += rows * inner * cols
    return total


def wrong_counts_flops(x_shape, w_shape, stride=1, padding=0):
    """Counts a multiply and an add as two operations (GEMM FLOPs, 2*M*K*N) instead of one multiply-add each."""
    N, C_in, H, W = x_shape
    C_out, _, KH, KW = w_shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    gemm = np.prod([C_out, C_in * KH * KW, OH * OW], dtype=np.int64)
    return int(2 * N * gemm)
