"""Blind corpus: dw_by_correlation (tune7), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_reshape_channels_back(x, dy, kernel_size, stride=1, padding=0):
    """Brings the (C, C_out) correlation back to (C_out, C) with reshape instead of a transpose, so the filters and input channels are scrambled."""
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    c, c_out = x.shape[1], dy.shape[1]
    x_t = x.transpose(1, 0, 2, 3)
    dy_t = dy.transpose(1, 0, 2, 3)
    corr = F.conv2d(x_t, dy_t, padding=padding, dilation=stride).data
    return corr[:, :, :k, :k].reshape(c_out, c, k, k)


def wrong_dx_rule_padding(x, dy, kernel_size, stride=1, padding=0):
    """Pads x by k - 1 - p as in the dx-by-conv2d rule of exercise 4.5, instead of by the forward's padding p."""
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    pad = k - 1 - padding
    x_t = x.transpose(1, 0, 2, 3)
    dy_t = dy.transpose(1, 0, 2, 3)
    if pad < 0:
        x_t = x_t[:, :, -pad:pad, -pad:pad]
        pad = 0
    corr = F.conv2d(x_t, dy_t, padding=pad, dilation=stride).data
    return corr[:, :, :k, :k].transpose(1, 0, 2, 3)


def wrong_batch_summed_first(x, dy, kernel_size, stride=1, padding=0):
    """Sums x and dy over the batch before correlating them, i.e. computes (sum_n x)*(sum_n dy) instead of sum_n (x*dy)."""
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    xs = x.sum(axis=0, keepdims=True).transpose(1, 0, 2, 3)    # (C, 1, H, W)
    dys = dy.sum(axis=0, keepdims=True).transpose(1, 0, 2, 3)  # (C_out, 1, OH, OW)
    corr = F.conv2d(xs, dys, padding=padding, dilation=stride).data
    return corr[:, :, :k, :k].transpose(1, 0, 2, 3)

