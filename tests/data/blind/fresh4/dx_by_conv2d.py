"""Blind corpus: dx_by_conv2d (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import functional as F


def _stuff(dy, stride):
    n, c, oh, ow = dy.shape
    out = np.zeros((n, c, (oh - 1) * stride + 1, (ow - 1) * stride + 1))
    out[:, :, ::stride, ::stride] = dy
    return out


def wrong_output_padding_forgotten(dy, w, input_size, stride=1, padding=0):
    """Pads the stuffed dy by k-1-p on every side but never adds the output_padding rows, so dx comes out smaller than input_size when the stride drops rows."""
    k = w.shape[2]
    q = k - 1 - padding
    stuffed = _stuff(dy, stride)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q), (q, q)))
    back = w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]
    return F.conv2d(padded, np.ascontiguousarray(back)).data


def wrong_channels_reshaped(dy, w, input_size, stride=1, padding=0):
    """Swaps the in/out channel axes with reshape instead of transpose, so the filters are scrambled across channels."""
    c_out, c_in, k, _ = w.shape
    H, W = input_size
    stuffed = _stuff(dy, stride)
    q = k - 1 - padding
    eh = H - ((dy.shape[2] - 1) * stride - 2 * padding + k)
    ew = W - ((dy.shape[3] - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + eh), (q, q + ew)))
    back = w.reshape(c_in, c_out, k, k)[:, :, ::-1, ::-1]
    return F.conv2d(padded, np.ascontiguousarray(back)).data


def wrong_rows_only_flipped(dy, w, input_size, stride=1, padding=0):
    """Flips the kernel upside down (rows) but not left-right, so it is not the 180-degree rotation."""
    k = w.shape[2]
    H, W = input_size
    stuffed = _stuff(dy, stride)
    q = k - 1 - padding
    eh = H - ((dy.shape[2] - 1) * stride - 2 * padding + k)
    ew = W - ((dy.shape[3] - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + eh), (q, q + ew)))
    back = w.transpose(1, 0, 2, 3)[:, :, ::-1, :]
    return F.conv2d(padded, np.ascontiguousarray(back)).data


def wrong_pad_k_minus_p(dy, w, input_size, stride=1, padding=0):
    """Pads by k-p instead of k-1-p (off by one), then crops the result to input_size from the top-left, so dx is shifted by one pixel."""
    k = w.shape[2]
    H, W = input_size
    q = k - padding
    stuffed = _stuff(dy, stride)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + stride), (q, q + stride)))
    back = w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]
    out = F.conv2d(padded, np.ascontiguousarray(back)).data
    return out[:, :, :H, :W]


def wrong_stuffs_stride_zeros(dy, w, input_size, stride=1, padding=0):
    """Inserts `stride` zeros between entries instead of stride-1 (so even stride 1 gets gaps), then crops to input_size."""
    n, c, oh, ow = dy.shape
    k = w.shape[2]
    H, W = input_size
    step = stride + 1
    stuffed = np.zeros((n, c, (oh - 1) * step + 1, (ow - 1) * step + 1))
    stuffed[:, :, ::step, ::step] = dy
    q = k - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + stride), (q, q + stride)))
    back = w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]
    out = F.conv2d(padded, np.ascontiguousarray(back)).data
    return out[:, :, :H, :W]


def wrong_output_padding_top_left(dy, w, input_size, stride=1, padding=0):
    """Adds the output_padding rows and columns at the top and left instead of the bottom and right, shifting dx down and right."""
    k = w.shape[2]
    H, W = input_size
    stuffed = _stuff(dy, stride)
    q = k - 1 - padding
    eh = H - ((dy.shape[2] - 1) * stride - 2 * padding + k)
    ew = W - ((dy.shape[3] - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q + eh, q), (q + ew, q)))
    back = w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]
    return F.conv2d(padded, np.ascontiguousarray(back)).data
