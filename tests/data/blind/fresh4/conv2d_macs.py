"""Blind corpus: conv2d_macs (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_one_sided_padding(x_shape, w_shape, stride=1, padding=0):
    """Adds the padding only once per axis (H + p instead of H + 2p) in the output size."""
    N, C, H, W = x_shape
    O, Ci, KH, KW = w_shape
    OH = (H + padding - KH) // stride + 1
    OW = (W + padding - KW) // stride + 1
    return N * O * Ci * KH * KW * OH * OW


def wrong_float_division(x_shape, w_shape, stride=1, padding=0):
    """Computes the output size with true division (no floor), giving a fractional count when the stride does not divide evenly."""
    N, C, H, W = x_shape
    O, Ci, KH, KW = w_shape
    OH = (H + 2 * padding - KH) / stride + 1
    OW = (W + 2 * padding - KW) / stride + 1
    return N * O * Ci * KH * KW * OH * OW


def wrong_input_pixels(x_shape, w_shape, stride=1, padding=0):
    """Counts one window per input pixel (H*W) rather than per output pixel (OH*OW)."""
    N, C, H, W = x_shape
    O, Ci, KH, KW = w_shape
    return N * O * Ci * KH * KW * H * W


def wrong_h_for_w(x_shape, w_shape, stride=1, padding=0):
    """Uses the height for both output dimensions, OW computed from H."""
    N, C, H, W = x_shape
    O, Ci, KH, KW = w_shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (H + 2 * padding - KW) // stride + 1
    return N * O * Ci * KH * KW * OH * OW


def wrong_stride_squared_missing(x_shape, w_shape, stride=1, padding=0):
    """Divides the stride-1 output count by the stride once (not per axis): OH*OW // stride."""
    N, C, H, W = x_shape
    O, Ci, KH, KW = w_shape
    OH = H + 2 * padding - KH + 1
    OW = W + 2 * padding - KW + 1
    return N * O * Ci * KH * KW * (OH * OW // stride)


def wrong_no_kernel_area(x_shape, w_shape, stride=1, padding=0):
    """Counts GEMM rows as C_out*C_in but forgets the kernel area (only one tap per channel pair)."""
    N, C, H, W = x_shape
    O, Ci, KH, KW = w_shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    return int(np.prod([N, O, Ci, OH, OW]))
