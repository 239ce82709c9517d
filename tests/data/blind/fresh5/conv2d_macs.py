"""Blind corpus: conv2d_macs (fresh5), written without reading the checker."""
# ruff: noqa: E501

import math

import numpy as np


def wrong_one_sided_padding(x_shape, w_shape, stride=1, padding=0):
    """Adds the padding to the height and width only once, as if the image were padded on one side, so OH and OW are too small whenever padding > 0."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + padding - kh) // stride + 1
    ow = (w + padding - kw) // stride + 1
    return n * c_out * (c_in * kh * kw) * (oh * ow)


def wrong_ow_from_height(x_shape, w_shape, stride=1, padding=0):
    """Computes the output width from the input height (copy-paste of the OH line), so non-square inputs get the wrong number of output columns."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (h + 2 * padding - kw) // stride + 1
    return n * c_out * c_in * kh * kw * oh * ow


def wrong_ceil_output_size(x_shape, w_shape, stride=1, padding=0):
    """Rounds the number of strided window steps up with math.ceil instead of down, counting a partial window that conv2d never computes."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = math.ceil((h + 2 * padding - kh) / stride) + 1
    ow = math.ceil((w + 2 * padding - kw) / stride) + 1
    return int(n * c_out * c_in * kh * kw * oh * ow)


def wrong_per_channel_kernel(x_shape, w_shape, stride=1, padding=0):
    """Counts only KH*KW multiply-adds per output value, as if each output channel read a single input channel (forgets the C_in in the GEMM's inner dimension)."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    inner = kh * kw
    return n * c_out * inner * oh * ow


def wrong_counts_flops(x_shape, w_shape, stride=1, padding=0):
    """Counts a multiply and an add as two operations (FLOPs), returning twice the number of multiply-adds."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    gemm = np.int64(c_out) * (c_in * kh * kw) * (oh * ow)
    return int(2 * n * gemm)


def wrong_window_loop_bound(x_shape, w_shape, stride=1, padding=0):
    """Counts window positions with range(0, H + 2p - KH, stride), whose exclusive end drops the last window whenever (H + 2p - KH) is a multiple of the stride."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    positions = 0
    for top in range(0, h + 2 * padding - kh, stride):
        for left in range(0, w + 2 * padding - kw, stride):
            positions += 1
    return n * c_out * c_in * kh * kw * positions
