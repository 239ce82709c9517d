"""Blind corpus: conv2d_macs (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_padding_ignored(x_shape, w_shape, stride=1, padding=0):
    """Leaves the padding out of the output size: OH = (H - K) // s + 1."""
    N, C_in, H, W = x_shape
    C_out, _, KH, KW = w_shape
    OH = (H - KH) // stride + 1
    OW = (W - KW) // stride + 1
    return N * C_out * C_in * KH * KW * OH * OW


def wrong_counts_flops(x_shape, w_shape, stride=1, padding=0):
    """Counts a multiply and an add separately (FLOPs, 2 per multiply-add) instead of multiply-adds."""
    N, C_in, H, W = x_shape
    C_out, _, KH, KW = w_shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    return 2 * N * C_out * (C_in * KH * KW) * (OH * OW)


def wrong_square_output(x_shape, w_shape, stride=1, padding=0):
    """Assumes a square image and uses OH for both output axes (OH * OH)."""
    N, C_in, H, W = x_shape
    C_out, _, K, _ = w_shape
    OH = (H + 2 * padding - K) // stride + 1
    return N * C_out * C_in * K * K * OH ** 2


def wrong_no_plus_one(x_shape, w_shape, stride=1, padding=0):
    """Forgets the + 1 in the output size, counting the steps between windows instead of the windows."""
    N, C_in, H, W = x_shape
    C_out, _, KH, KW = w_shape
    OH = (H + 2 * padding - KH) // stride
    OW = (W + 2 * padding - KW) // stride
    return int(np.prod([N, C_out, C_in * KH * KW, OH * OW]))


def wrong_cin_from_weight_dim0(x_shape, w_shape, stride=1, padding=0):
    """Reads C_in from w_shape[0] (which is C_out), so the GEMM is counted as C_out x (C_out*K*K)."""
    N = x_shape[0]
    H, W = x_shape[2], x_shape[3]
    C_out, K = w_shape[0], w_shape[2]
    C_in = w_shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    return N * C_out * C_in * K * K * OH * OW


def wrong_true_division(x_shape, w_shape, stride=1, padding=0):
    """Uses / instead of // in the output size, so a stride that does not divide evenly gives a fractional count."""
    N, C_in, H, W = x_shape
    C_out, _, KH, KW = w_shape
    OH = (H + 2 * padding - KH) / stride + 1
    OW = (W + 2 * padding - KW) / stride + 1
    return N * C_out * C_in * KH * KW * OH * OW
