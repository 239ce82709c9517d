"""Blind corpus: dx_by_conv2d (tune), written without reading the checker."""

import numpy as np
import convgrad.functional as F


def wrong_transpose_also_swaps_taps(dy, w, input_size, stride=1, padding=0):
    """Swapped the channels with w.transpose(1, 0, 3, 2), which also transposes each kernel, then flipped it."""
    H, W = input_size
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    st = np.zeros((N, Co, (OH - 1) * s + 1, (OW - 1) * s + 1))
    st[:, :, ::s, ::s] = dy
    q = k - 1 - p
    oph = H + 2 * p - k - (OH - 1) * s
    opw = W + 2 * p - k - (OW - 1) * s
    st = np.pad(st, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    back = w.transpose(1, 0, 3, 2)[:, :, ::-1, ::-1]
    return F.conv2d(st, back.copy()).data


def wrong_channels_not_swapped(dy, w, input_size, stride=1, padding=0):
    """Flips the kernel but keeps it (C_out, C_in, k, k): in and out channels are not swapped (crashes when C_in != C_out)."""
    H, W = input_size
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    st = np.zeros((N, Co, (OH - 1) * s + 1, (OW - 1) * s + 1))
    st[:, :, ::s, ::s] = dy
    q = k - 1 - p
    oph = H + 2 * p - k - (OH - 1) * s
    opw = W + 2 * p - k - (OW - 1) * s
    st = np.pad(st, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    return F.conv2d(st, np.flip(w, (2, 3)).copy()).data


def wrong_kron_stuffing_and_no_output_padding(dy, w, input_size, stride=1, padding=0):
    """Two bugs: np.kron stuffing leaves s-1 extra zeros after the last row/column, and the output_padding is never added."""
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    unit = np.zeros((s, s))
    unit[0, 0] = 1
    st = np.kron(dy, unit)
    q = k - 1 - p
    st = np.pad(st, ((0, 0), (0, 0), (q, q), (q, q)))
    return F.conv2d(st, np.flip(w, (2, 3)).transpose(1, 0, 2, 3).copy()).data


def wrong_output_padding_width_from_height(dy, w, input_size, stride=1, padding=0):
    """Computes one output_padding from H and OH and uses it for the columns too: wrong when the image is not square."""
    H, W = input_size
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    st = np.zeros((N, Co, (OH - 1) * s + 1, (OW - 1) * s + 1))
    st[:, :, ::s, ::s] = dy
    q = k - 1 - p
    op = H + 2 * p - k - (OH - 1) * s
    st = np.pad(st, ((0, 0), (0, 0), (q, q + op), (q, q + op)))
    return F.conv2d(st, w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).copy()).data


def wrong_output_padding_forgets_padding(dy, w, input_size, stride=1, padding=0):
    """Computes output_padding as H - ((OH - 1)*s + k), forgetting the + 2p: too few (or negative) extra rows when padding > 0."""
    H, W = input_size
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    st = np.zeros((N, Co, (OH - 1) * s + 1, (OW - 1) * s + 1))
    st[:, :, ::s, ::s] = dy
    q = k - 1 - p
    oph = H - ((OH - 1) * s + k)
    opw = W - ((OW - 1) * s + k)
    st = np.pad(st, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    return F.conv2d(st, w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).copy()).data
