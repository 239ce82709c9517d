"""Blind corpus: conv_double_backward (right), written without reading the checker."""
# ruff: noqa: E501

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import convgrad.functional as F


def right_loops_over_taps(w, dy, v, stride=1, padding=0):
    """Loops over the kernel taps (a, b) instead of the windows: each tap is one strided slice of the padded v."""
    s, p = stride, padding
    kh, kw = w.shape[2], w.shape[3]
    oh, ow = dy.shape[2], dy.shape[3]
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for a in range(kh):
        for b in range(kw):
            tap = vp[:, :, a:a + s * (oh - 1) + 1:s, b:b + s * (ow - 1) + 1:s]   # (N, C, OH, OW)
            ddy += np.tensordot(tap, w[:, :, a, b], axes=([1], [1])).transpose(0, 3, 1, 2)
            dw[:, :, a, b] = np.tensordot(dy, tap, axes=([0, 2, 3], [0, 2, 3]))
    return ddy, dw


def right_sliding_window_einsum(w, dy, v, stride=1, padding=0):
    """sliding_window_view of the padded v, strided, then one einsum for each gradient."""
    s, p = stride, padding
    kh, kw = w.shape[2], w.shape[3]
    oh, ow = dy.shape[2], dy.shape[3]
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    win = sliding_window_view(vp, (kh, kw), axis=(2, 3))[:, :, ::s, ::s][:, :, :oh, :ow]
    ddy = np.einsum("ncijab,ocab->noij", win, w)
    dw = np.einsum("noij,ncijab->ocab", dy, win)
    return ddy, dw


def right_conv2d_with_dilation(w, dy, v, stride=1, padding=0):
    """ddy as conv2d(v, w); dw as a conv2d of the padded v (batch and channels swapped) by dy dilated by the stride, cropped to K."""
    s, p = stride, padding
    kh, kw = w.shape[2], w.shape[3]
    ddy = F.conv2d(v, w, stride=s, padding=p).data
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    out = F.conv2d(vp.transpose(1, 0, 2, 3).copy(), dy.transpose(1, 0, 2, 3).copy(),
                   dilation=s).data                                  # (C_in, C_out, ., .)
    dw = out[:, :, :kh, :kw].transpose(1, 0, 2, 3)
    return ddy, dw
