"""Blind corpus: conv2d_macs (right), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad.functional as F


def right_len_of_range(x_shape, w_shape, stride=1, padding=0):
    """Counts window positions as len(range(...)) of the top-left corners on the padded image."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = len(range(0, h + 2 * padding - kh + 1, stride))
    ow = len(range(0, w + 2 * padding - kw + 1, stride))
    return n * c_out * c_in * kh * kw * oh * ow


def right_ceil_division(x_shape, w_shape, stride=1, padding=0):
    """Output sides by ceiling division, ceil((H + 2p - K + 1) / s), and np.prod over the GEMM's three sizes."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = -(-(h + 2 * padding - kh + 1) // stride)
    ow = -(-(w + 2 * padding - kw + 1) // stride)
    rows, inner, cols = c_out, c_in * kh * kw, oh * ow
    return int(n * np.prod([rows, inner, cols], dtype=np.int64))


def right_unfold_shape(x_shape, w_shape, stride=1, padding=0):
    """Reads OH*OW off the shape of F.unfold on a tiny one-channel zero image, then counts the GEMM."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    col = F.unfold(np.zeros((1, 1, h, w)), (kh, kw), padding=padding, stride=stride)
    _, taps, positions = col.shape
    return n * c_out * (c_in * taps) * positions
