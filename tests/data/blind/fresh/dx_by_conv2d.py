"""Blind corpus: dx_by_conv2d (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np

import convgrad.functional as F


def wrong_no_output_padding(dy, w, input_size, stride=1, padding=0):
    """Stuffed, padded by k - 1 - p on every side and flipped, but never added the output_padding rows and columns."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    s = stride
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    q = k - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q), (q, q)))
    back = w[..., ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, np.ascontiguousarray(back)).data


def wrong_channels_not_swapped(dy, w, input_size, stride=1, padding=0):
    """Flipped the kernel but forgot to swap its input and output channels."""
    H, W = input_size
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    extra_h = H + 2 * p - k - (OH - 1) * s
    extra_w = W + 2 * p - k - (OW - 1) * s
    q = k - 1 - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + extra_h), (q, q + extra_w)))
    return F.conv2d(padded, w[:, :, ::-1, ::-1].copy()).data


def wrong_pad_k_minus_p_then_crop(dy, w, input_size, stride=1, padding=0):
    """Padded the stuffed dy by k - p instead of k - 1 - p, then cut the too-big result down to input_size from the top-left."""
    H, W = input_size
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    for i in range(OH):
        for j in range(OW):
            stuffed[:, :, i * s, j * s] = dy[:, :, i, j]
    q = k - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + s), (q, q + s)))
    flipped = np.flip(np.flip(w, 2), 3).transpose(1, 0, 2, 3).copy()
    out = F.conv2d(padded, flipped).data
    return out[:, :, :H, :W]


def wrong_np_flip_all_axes(dy, w, input_size, stride=1, padding=0):
    """Flipped the kernel with np.flip(w) with no axis, which also reverses the order of both channel axes."""
    H, W = input_size
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    op_h = (H + 2 * p - k) % s
    op_w = (W + 2 * p - k) % s
    q = k - 1 - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + op_h), (q, q + op_w)))
    back = np.flip(w).transpose(1, 0, 2, 3).copy()
    return F.conv2d(padded, back).data
