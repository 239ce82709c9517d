"""Blind corpus: conv2d_backward (right), written without reading the checker."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def right_loop_over_taps(x, w, dy, stride=1, padding=0):
    """Loops over the K*K kernel taps instead of the output pixels, each tap a strided slice."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    dy = np.asarray(dy, dtype=float)
    N, C, H, W = x.shape
    _, _, OH, OW = dy.shape
    K = w.shape[-1]
    s, p = stride, padding
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    xp[:, :, p:p + H, p:p + W] = x
    dxp = np.zeros_like(xp)
    dw = np.zeros(w.shape)
    for ki in range(K):
        for kj in range(K):
            rows = slice(ki, ki + s * (OH - 1) + 1, s)
            cols = slice(kj, kj + s * (OW - 1) + 1, s)
            seen = xp[:, :, rows, cols]                   # (N, C, OH, OW)
            dw[:, :, ki, kj] = np.tensordot(dy, seen, axes=([0, 2, 3], [0, 2, 3]))
            dxp[:, :, rows, cols] += np.tensordot(dy, w[:, :, ki, kj], axes=([1], [0])).transpose(0, 3, 1, 2)
    db = dy.sum(axis=(0, 2, 3))
    return dxp[:, :, p:p + H, p:p + W], dw, db


def right_sliding_window_einsum(x, w, dy, stride=1, padding=0):
    """dw from sliding_window_view + einsum, dx scattered tap by tap with np.add.at."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    dy = np.asarray(dy, dtype=float)
    N, C, H, W = x.shape
    _, _, OH, OW = dy.shape
    K = w.shape[-1]
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    win = sliding_window_view(xp, (K, K), axis=(2, 3))[:, :, ::s, ::s][:, :, :OH, :OW]
    dw = np.einsum("noij,ncijab->ocab", dy, win)
    dwin = np.einsum("noij,ocab->ncijab", dy, w)     # gradient of each window entry
    dxp = np.zeros_like(xp)
    ii = np.arange(OH) * s
    jj = np.arange(OW) * s
    for a in range(K):
        for b in range(K):
            R, Q = np.meshgrid(ii + a, jj + b, indexing="ij")
            np.add.at(dxp, (slice(None), slice(None), R, Q), dwin[..., a, b])
    return dxp[:, :, p:p + H, p:p + W], dw, np.einsum("noij->o", dy)


def right_im2col_bincount(x, w, dy, stride=1, padding=0):
    """Builds im2col index tables by hand; dw is a matrix product, dx a bincount (col2im)."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    dy = np.asarray(dy, dtype=float)
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    Hp, Wp = H + 2 * p, W + 2 * p
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))).reshape(N, C * Hp * Wp)
    c, ki, kj = np.meshgrid(np.arange(C), np.arange(K), np.arange(K), indexing="ij")
    oi, oj = np.meshgrid(np.arange(OH), np.arange(OW), indexing="ij")
    # flat index into one padded image, rows (c, ki, kj), columns (oi, oj)
    idx = (c.reshape(-1, 1) * Hp * Wp
           + (ki.reshape(-1, 1) + s * oi.reshape(1, -1)) * Wp
           + (kj.reshape(-1, 1) + s * oj.reshape(1, -1)))
    Wm = w.reshape(Co, -1)
    dw = np.zeros_like(Wm)
    dxp = np.zeros((N, C * Hp * Wp))
    for n in range(N):
        col = xp[n][idx]                           # (C*K*K, OH*OW)
        g = dy[n].reshape(Co, -1)                  # (Co, OH*OW)
        dw += g @ col.T
        dcol = Wm.T @ g
        dxp[n] = np.bincount(idx.ravel(), weights=dcol.ravel(), minlength=C * Hp * Wp)
    dx = dxp.reshape(N, C, Hp, Wp)[:, :, p:p + H, p:p + W]
    return dx, dw.reshape(w.shape), dy.sum(axis=(0, 2, 3))
