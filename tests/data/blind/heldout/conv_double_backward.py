"""Blind corpus: conv_double_backward (heldout), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad.functional as F


def wrong_dw_divided_by_batch(w, dy, v, stride=1, padding=0):
    """Averages dw over the batch (divides the sum over images by N)."""
    n = v.shape[0]
    k = w.shape[-1]
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    col = F.unfold(v, k, padding=padding, stride=stride).data
    dw = np.einsum("nol,nkl->ok", dy.reshape(n, w.shape[0], -1), col)
    return ddy, dw.reshape(w.shape) / n


def wrong_dw_overwrites(w, dy, v, stride=1, padding=0):
    """Loops over windows and assigns dw[o] = ... with = instead of +=, so only the last window and image survive."""
    n, c, h, wd = v.shape
    o_ch, _, k, _ = w.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    oh, ow = dy.shape[2], dy.shape[3]
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for b in range(n):
        for o in range(o_ch):
            for i in range(oh):
                for j in range(ow):
                    win = vp[b, :, i * s:i * s + k, j * s:j * s + k]
                    ddy[b, o, i, j] = np.sum(win * w[o])
                    dw[o] = dy[b, o, i, j] * win
    return ddy, dw


def wrong_dw_reshape_without_transpose(w, dy, v, stride=1, padding=0):
    """Builds dw as the (C_in*K*K, C_out) product col @ dyᵀ and reshapes it to w's shape without transposing first."""
    n = v.shape[0]
    o = w.shape[0]
    k = w.shape[-1]
    col = F.unfold(v, k, padding=padding, stride=stride).data      # (N, CKK, L)
    d = dy.reshape(n, o, -1)                                        # (N, O, L)
    ddy = (w.reshape(o, -1) @ col).reshape(dy.shape)
    dw = sum(col[b] @ d[b].T for b in range(n))                     # (CKK, O)
    return ddy, dw.reshape(w.shape)
