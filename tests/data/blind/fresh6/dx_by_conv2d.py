"""Blind corpus: dx_by_conv2d (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_output_padding_top_left(dy, w, input_size, stride=1, padding=0):
    """Puts the output_padding rows and columns at the top and left of the stuffed dy instead of at the bottom and right."""
    N, C_out, OH, OW = dy.shape
    K = w.shape[2]
    H, W = input_size
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    oph = H - ((OH - 1) * s - 2 * p + K)
    opw = W - ((OW - 1) * s - 2 * p + K)
    q = K - 1 - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q + oph, q), (q + opw, q)))
    back = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_channels_swapped_by_reshape(dy, w, input_size, stride=1, padding=0):
    """Swaps the kernel's in/out channels with reshape(C_in, C_out, K, K) instead of transpose(1, 0, 2, 3), scrambling the filters."""
    N, C_out, OH, OW = dy.shape
    _, C_in, K, _ = w.shape
    H, W = input_size
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    q = K - 1 - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + H - (stuffed.shape[2] + 2 * q - K + 1)), (q, q + W - (stuffed.shape[3] + 2 * q - K + 1))))
    back = w[:, :, ::-1, ::-1].reshape(C_in, C_out, K, K)
    return F.conv2d(padded, back).data


def wrong_flip_all_axes(dy, w, input_size, stride=1, padding=0):
    """Flips the kernel with np.flip(w) and no axis, which also reverses the order of the input and output channels."""
    N, C_out, OH, OW = dy.shape
    K = w.shape[2]
    H, W = input_size
    s, p = stride, padding
    stuffed = np.zeros((N, C_out, (OH - 1) * s + 1, (OW - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = dy
    q = K - 1 - p
    extra_h = H - (stuffed.shape[2] + 2 * q - K + 1)
    extra_w = W - (stuffed.shape[3] + 2 * q - K + 1)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + extra_h), (q, q + extra_w)))
    back = np.flip(w).transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_stuffs_by_repeating(dy, w, input_size, stride=1, padding=0):
    """Upsamples dy by repeating each entry stride times (nearest-neighbour) instead of inserting zeros between entries."""
    N, C_out, OH, OW = dy.shape
    K = w.shape[2]
    H, W = input_size
    s, p = stride, padding
    stuffed = np.repeat(np.repeat(dy, s, axis=2), s, axis=3)
    stuffed = stuffed[:, :, :(OH - 1) * s + 1, :(OW - 1) * s + 1]
    q = K - 1 - p
    extra_h = H - (stuffed.shape[2] + 2 * q - K + 1)
    extra_w = W - (stuffed.shape[3] + 2 * q - K + 1)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + extra_h), (q, q + extra_w)))
    back = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data
