"""Blind corpus: dx_by_conv2d (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_no_output_padding(dy, w, input_size, stride=1, padding=0):
    """Pads the stuffed dy by k-1-p on every side but never adds the output_padding rows, so dx is too small whenever the last window did not reach the bottom/right of the input."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    s = stride
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    p = k - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (p, p), (p, p)))
    back = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, np.ascontiguousarray(back)).data


def wrong_flip_rows_only(dy, w, input_size, stride=1, padding=0):
    """Flips the kernel upside down (rows only) instead of rotating it 180 degrees, so the columns of the taps stay in their original order."""
    N, C_out, OH, OW = dy.shape
    H, W = input_size
    k = w.shape[-1]
    s = stride
    sh, sw = (OH - 1) * s + 1, (OW - 1) * s + 1
    stuffed = np.zeros((N, C_out, sh, sw))
    stuffed[:, :, ::s, ::s] = dy
    p = k - 1 - padding
    extra_h = H + k - 1 - (sh + 2 * p)
    extra_w = W + k - 1 - (sw + 2 * p)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (p, p + extra_h), (p, p + extra_w)))
    back = np.ascontiguousarray(w[:, :, ::-1, :].transpose(1, 0, 2, 3))
    return F.conv2d(padded, back).data


def wrong_reshape_not_transpose(dy, w, input_size, stride=1, padding=0):
    """Swaps the in/out channels of the kernel with reshape(C_in, C_out, k, k) instead of transpose(1, 0, 2, 3), which scrambles which filter goes with which channel."""
    N, C_out, OH, OW = dy.shape
    C_out_w, C_in, k, _ = w.shape
    H, W = input_size
    s = stride
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    p = k - 1 - padding
    op_h = H + 2 * padding - k - (OH - 1) * s
    op_w = W + 2 * padding - k - (OW - 1) * s
    padded = np.pad(stuffed, ((0, 0), (0, 0), (p, p + op_h), (p, p + op_w)))
    flipped = w[:, :, ::-1, ::-1].copy()
    back = flipped.reshape(C_in, C_out_w, k, k)
    return F.conv2d(padded, back).data


def wrong_output_padding_from_height(dy, w, input_size, stride=1, padding=0):
    """Computes output_padding from the input height only and uses it for both axes, so a non-square input gets the wrong number of extra columns."""
    N, C_out, OH, OW = dy.shape
    H = input_size[0]
    k = w.shape[-1]
    s = stride
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    op = H + 2 * padding - k - (OH - 1) * s
    p = k - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (p, p + op), (p, p + op)))
    back = np.ascontiguousarray(np.flip(w, axis=(2, 3)).transpose(1, 0, 2, 3))
    return F.conv2d(padded, back).data


def wrong_output_padding_top_left(dy, w, input_size, stride=1, padding=0):
    """Adds the output_padding rows and columns at the top and left of the stuffed dy instead of the bottom and right, shifting dx by one pixel when they are needed."""
    N, C_out, OH, OW = dy.shape
    H, W = input_size
    k = w.shape[-1]
    s = stride
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    for i in range(OH):
        for j in range(OW):
            stuffed[:, :, i * s, j * s] = dy[:, :, i, j]
    op_h = H + 2 * padding - k - (OH - 1) * s
    op_w = W + 2 * padding - k - (OW - 1) * s
    p = k - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (p + op_h, p), (p + op_w, p)))
    back = np.ascontiguousarray(np.rot90(w, 2, axes=(2, 3)).swapaxes(0, 1))
    return F.conv2d(padded, back).data


def wrong_repeat_instead_of_stuff(dy, w, input_size, stride=1, padding=0):
    """Upsamples dy by repeating each entry stride times (np.repeat) instead of putting stride-1 zeros between the entries, so the gaps are filled with copies of dy."""
    N, C_out, OH, OW = dy.shape
    H, W = input_size
    k = w.shape[-1]
    s = stride
    sh, sw = (OH - 1) * s + 1, (OW - 1) * s + 1
    stuffed = np.repeat(np.repeat(dy, s, axis=2), s, axis=3)[:, :, :sh, :sw]
    p = k - 1 - padding
    op_h = H + 2 * padding - k - (OH - 1) * s
    op_w = W + 2 * padding - k - (OW - 1) * s
    padded = np.pad(stuffed, ((0, 0), (0, 0), (p, p + op_h), (p, p + op_w)))
    back = np.ascontiguousarray(w[..., ::-1, ::-1].transpose(1, 0, 2, 3))
    return F.conv2d(padded, back).data
