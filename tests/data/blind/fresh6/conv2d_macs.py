"""Blind corpus: conv2d_macs (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_width_from_height(x_shape, w_shape, stride=1, padding=0):
    """Computes the output height once and reuses it for the width, so OW is taken from H on non-square images."""
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = (h + 2 * padding - k) // stride + 1
    ow = oh  # square output, same formula
    return n * c_out * (c_in * k * k) * (oh * ow)


def wrong_padding_forgotten(x_shape, w_shape, stride=1, padding=0):
    """Computes the output size as (H - K) // s + 1, leaving out the 2*padding rows and columns the windows also visit."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h - kh) // stride + 1
    ow = (w - kw) // stride + 1
    rows_w = c_out
    inner = c_in * kh * kw
    cols = oh * ow
    return int(n * rows_w * inner * cols)


def wrong_counts_flops(x_shape, w_shape, stride=1, padding=0):
    """Counts a multiply and an add as two operations, returning 2*M*K*N flops per image instead of the multiply-add count."""
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = (h + 2 * padding - k) // stride + 1
    ow = (w + 2 * padding - k) // stride + 1
    m, kk, cols = c_out, c_in * k * k, oh * ow
    per_image = 2 * m * kk * cols  # GEMM cost: 2*M*K*N
    return n * per_image


def wrong_no_input_channels(x_shape, w_shape, stride=1, padding=0):
    """Counts K*K taps per output element and forgets that each tap runs over all C_in input channels (as if the conv were depthwise)."""
    n, _, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    outputs = np.prod([n, c_out, oh, ow])
    return int(outputs * kh * kw)
