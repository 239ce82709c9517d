"""Blind corpus: dx_by_conv2d (heldout), written without reading the checker."""

import numpy as np
import convgrad.functional as F


def wrong_stuffs_rows_only(dy, w, input_size, stride=1, padding=0):
    """Inserts the stride - 1 zeros between rows but forgot the columns (np.insert along axis 2 only)."""
    H, W = input_size
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    st = dy
    if s > 1:
        where = np.repeat(np.arange(1, OH), s - 1)
        st = np.insert(dy, where, 0.0, axis=2)
    oph = H + 2 * p - k - (OH - 1) * s
    opw = W + 2 * p - k - (OW - 1) * s
    q = k - 1 - p
    st = np.pad(st, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    return F.conv2d(st, w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).copy()).data


def wrong_pad_k_minus_p_then_crop(dy, w, input_size, stride=1, padding=0):
    """Pads by k - p instead of k - 1 - p (one too many), then crops the result to input_size from the top-left: off by one pixel."""
    H, W = input_size
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    st = np.zeros((N, Co, (OH - 1) * s + 1, (OW - 1) * s + 1))
    st[:, :, ::s, ::s] = dy
    q = k - p
    oph = H + 2 * p - k - (OH - 1) * s
    opw = W + 2 * p - k - (OW - 1) * s
    st = np.pad(st, ((0, 0), (0, 0), (q, q + oph), (q, q + opw)))
    out = F.conv2d(st, w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).copy()).data
    return out[:, :, :H, :W]


def wrong_flips_rows_only(dy, w, input_size, stride=1, padding=0):
    """Flipped the kernel upside down only (w[..., ::-1, :]), not left-right: a flip on one axis instead of a 180° rotation."""
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
    return F.conv2d(st, w[:, :, ::-1, :].transpose(1, 0, 2, 3).copy()).data
