"""Blind corpus: conv2d_macs (fresh3), written without reading the checker."""
# ruff: noqa: E501

import math

import numpy as np


def wrong_output_size_rounds_up(x_shape, w_shape, stride=1, padding=0):
    """Computes the output size with math.ceil of the division, counting a partial window at the edge as a position."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = math.ceil((h + 2 * padding - kh) / stride) + 1
    ow = math.ceil((w + 2 * padding - kw) / stride) + 1
    return n * c_out * (c_in * kh * kw) * (oh * ow)


def wrong_padding_one_side(x_shape, w_shape, stride=1, padding=0):
    """Adds the padding once to the size instead of on both sides when computing OH and OW."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + padding - kh) // stride + 1
    ow = (w + padding - kw) // stride + 1
    return n * c_out * c_in * kh * kw * oh * ow


def wrong_channels_from_input(x_shape, w_shape, stride=1, padding=0):
    """Takes both channel counts from x_shape, using C_in where the GEMM's row count C_out belongs."""
    n, c, h, w = x_shape
    kh, kw = w_shape[2], w_shape[3]
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    return n * c * (c * kh * kw) * (oh * ow)


def wrong_no_plus_one(x_shape, w_shape, stride=1, padding=0):
    """Leaves the + 1 out of the output size, so one row and one column of windows are not counted."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride
    ow = (w + 2 * padding - kw) // stride
    return int(np.prod([n, c_out, c_in, kh, kw, oh, ow]))


def wrong_counts_flops(x_shape, w_shape, stride=1, padding=0):
    """Counts a multiply and an add as two operations, returning the FLOPs (twice the multiply-adds)."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    return 2 * n * c_out * c_in * kh * kw * oh * ow


def wrong_same_padding_size(x_shape, w_shape, stride=1, padding=0):
    """Assumes the output is the input divided by the stride, OH = H // stride, as if the padding always kept the size."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = h // stride
    ow = w // stride
    return n * c_out * c_in * kh * kw * oh * ow
