"""Blind corpus: conv_double_backward (tune), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad.functional as F


def wrong_kernel_flipped(w, dy, v, stride=1, padding=0):
    """Carries dx's flipped kernel over: ddy correlates v with w[..., ::-1, ::-1] and dw is flipped too."""
    k = w.shape[-1]
    wf = w[..., ::-1, ::-1].copy()
    ddy = F.conv2d(v, wf, stride=stride, padding=padding).data
    col = F.unfold(v, k, padding=padding, stride=stride).data
    n, o = dy.shape[:2]
    dw = np.einsum("nol,nkl->ok", dy.reshape(n, o, -1), col).reshape(w.shape)
    return ddy, dw[..., ::-1, ::-1]


def wrong_ddy_by_conv_transpose(w, dy, v, stride=1, padding=0):
    """Computes ddy with conv_transpose2d(v, w), the op that made dx, instead of conv2d(v, w)."""
    k = w.shape[-1]
    ddy = F.conv_transpose2d(v, w, stride=stride, padding=padding).data
    col = F.unfold(v, k, padding=padding, stride=stride).data
    n, o = dy.shape[:2]
    dw = np.einsum("nol,nkl->ok", dy.reshape(n, o, -1), col).reshape(w.shape)
    return ddy, dw


def wrong_dw_misses_last_row(w, dy, v, stride=1, padding=0):
    """dw's loop runs over range(OH - 1) and range(OW - 1): the last row and column of windows are left out."""
    n, c, h, wd = v.shape
    o_ch, _, k, _ = w.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    oh, ow = dy.shape[2], dy.shape[3]
    ddy = F.conv2d(v, w, stride=s, padding=p).data
    dw = np.zeros_like(w, dtype=float)
    for b in range(n):
        for i in range(oh - 1):
            for j in range(ow - 1):
                win = vp[b, :, i * s:i * s + k, j * s:j * s + k]
                for o in range(o_ch):
                    dw[o] += dy[b, o, i, j] * win
    return ddy, dw


def wrong_dw_from_unpadded_v(w, dy, v, stride=1, padding=0):
    """Takes dw's windows straight from v, forgetting to pad it (ddy uses padding through F.conv2d)."""
    k = w.shape[-1]
    s = stride
    ddy = F.conv2d(v, w, stride=s, padding=padding).data
    dw = np.zeros(w.shape)
    for b in range(v.shape[0]):
        for i in range(dy.shape[2]):
            for j in range(dy.shape[3]):
                patch = v[b, :, i * s:i * s + k, j * s:j * s + k]
                dw += dy[b, :, i, j][:, None, None, None] * patch[None]
    return ddy, dw


def wrong_returns_dw_then_ddy(w, dy, v, stride=1, padding=0):
    """Computes both gradients correctly but returns them as (dw, ddy)."""
    n, o = dy.shape[:2]
    k = w.shape[-1]
    col = F.unfold(v, k, padding=padding, stride=stride).data
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    dw = np.einsum("nol,nkl->ok", dy.reshape(n, o, -1), col).reshape(w.shape)
    return dw, ddy
