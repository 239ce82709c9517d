"""Blind corpus: dx_by_conv2d (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_no_output_padding(dy, w, input_size, stride=1, padding=0):
    """Pads the stuffed dy by k-1-p on every side but never adds the output_padding rows, so dx comes out short when the stride skipped the last rows."""
    N, O, OH, OW = dy.shape
    k = w.shape[2]
    stuffed = np.zeros((N, O, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    stuffed[:, :, ::stride, ::stride] = dy
    q = k - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q), (q, q)))
    back = w[..., ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_reshape_not_transpose(dy, w, input_size, stride=1, padding=0):
    """Swaps the in/out channels of the flipped kernel with reshape(C, C_out, k, k) instead of transpose, which scrambles which filter goes with which channel."""
    N, O, OH, OW = dy.shape
    C_out, C, k, _ = w.shape
    H, W = input_size
    stuffed = np.zeros((N, O, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    stuffed[:, :, ::stride, ::stride] = dy
    q = k - 1 - padding
    oph = H - ((OH - 1) * stride - 2 * padding + k)
    opw = W - ((OW - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    back = np.ascontiguousarray(w[..., ::-1, ::-1]).reshape(C, C_out, k, k)
    return F.conv2d(padded, back).data


def wrong_repeat_instead_of_stuff(dy, w, input_size, stride=1, padding=0):
    """Upsamples dy with np.repeat (copies of each entry) instead of inserting zeros between entries, then trims to the stuffed size."""
    N, O, OH, OW = dy.shape
    k = w.shape[2]
    H, W = input_size
    up = np.repeat(np.repeat(dy, stride, axis=2), stride, axis=3)
    stuffed = up[:, :, : (OH - 1) * stride + 1, : (OW - 1) * stride + 1]
    q = k - 1 - padding
    oph = H - ((OH - 1) * stride - 2 * padding + k)
    opw = W - ((OW - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    back = w[..., ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_output_padding_top_left(dy, w, input_size, stride=1, padding=0):
    """Adds the output_padding rows and columns at the top and left of the padded dy instead of the bottom and right."""
    N, O, OH, OW = dy.shape
    k = w.shape[2]
    H, W = input_size
    stuffed = np.zeros((N, O, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    for i in range(OH):
        for j in range(OW):
            stuffed[:, :, i * stride, j * stride] = dy[:, :, i, j]
    q = k - 1 - padding
    oph = H - ((OH - 1) * stride - 2 * padding + k)
    opw = W - ((OW - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q + oph, q), (q + opw, q)))
    back = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_flip_rows_only(dy, w, input_size, stride=1, padding=0):
    """Flips the kernel upside down (w[..., ::-1, :]) but not left to right, so it is not rotated by 180 degrees."""
    N, O, OH, OW = dy.shape
    k = w.shape[2]
    H, W = input_size
    stuffed = np.zeros((N, O, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    stuffed[:, :, ::stride, ::stride] = dy
    q = k - 1 - padding
    oph = H - ((OH - 1) * stride - 2 * padding + k)
    opw = W - ((OW - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    back = w[..., ::-1, :].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_output_padding_hw_swapped(dy, w, input_size, stride=1, padding=0):
    """Computes the row output_padding from the input width and the column one from the input height (H and W mixed up)."""
    N, O, OH, OW = dy.shape
    k = w.shape[2]
    W, H = input_size
    stuffed = np.zeros((N, O, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    stuffed[:, :, ::stride, ::stride] = dy
    q = k - 1 - padding
    oph = max(H - ((OH - 1) * stride - 2 * padding + k), 0)
    opw = max(W - ((OW - 1) * stride - 2 * padding + k), 0)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    back = w[..., ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data
