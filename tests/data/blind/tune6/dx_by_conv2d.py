"""Blind corpus: dx_by_conv2d (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_output_padding_top_left(dy, w, input_size, stride=1, padding=0):
    """Adds the output_padding rows and columns at the top and left of the stuffed dy instead of at the bottom and right."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[2]
    H, W = input_size
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    op_h = H - ((OH - 1) * s - 2 * p + k)
    op_w = W - ((OW - 1) * s - 2 * p + k)
    q = k - 1 - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q + op_h, q), (q + op_w, q)))
    w_back = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, np.ascontiguousarray(w_back)).data


def wrong_channels_swapped_by_reshape(dy, w, input_size, stride=1, padding=0):
    """Swaps the kernel's in/out channels with reshape(C_in, C_out, k, k) instead of a transpose, which scrambles which filter goes with which channel."""
    N, C_out, OH, OW = dy.shape
    _, C_in, k, _ = w.shape
    H, W = input_size
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    q = k - 1 - p
    op_h = H - ((OH - 1) * s - 2 * p + k)
    op_w = W - ((OW - 1) * s - 2 * p + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + op_h), (q, q + op_w)))
    w_back = w[:, :, ::-1, ::-1].reshape(C_in, C_out, k, k)
    return F.conv2d(padded, w_back.copy()).data


def wrong_stride_zeros_between(dy, w, input_size, stride=1, padding=0):
    """Places dy on a padded canvas with stride zeros between entries (a step of stride + 1) instead of stride - 1 zeros."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[2]
    H, W = input_size
    s, p = stride, padding
    step = s + 1  # "stride zeros between the entries"
    q = k - 1 - p
    canvas = np.zeros((N, C_out, H + k - 1, W + k - 1))
    for i in range(OH):
        for j in range(OW):
            r, c = q + i * step, q + j * step
            if r < canvas.shape[2] and c < canvas.shape[3]:
                canvas[:, :, r, c] = dy[:, :, i, j]
    w_back = np.flip(w, axis=(2, 3)).transpose(1, 0, 2, 3).copy()
    return F.conv2d(canvas, w_back).data
