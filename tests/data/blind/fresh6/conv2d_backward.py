"""Blind corpus: conv2d_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dx_all_images(x, w, dy, stride=1, padding=0):
    """Adds each window's kernel stamp into dxp[:, ...] (a colon where the image index n belongs), so every image's dx receives every image's gradient."""
    n_, c_, h, wd = x.shape
    o_, _, k, _ = w.shape
    _, _, oh, ow = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(o_)
    for n in range(n_):
        for o in range(o_):
            for i in range(oh):
                for j in range(ow):
                    g = dy[n, o, i, j]
                    h0, w0 = i * s, j * s
                    db[o] += g
                    dw[o] += g * xp[n, :, h0:h0 + k, w0:w0 + k]
                    dxp[:, :, h0:h0 + k, w0:w0 + k] += g * w[o]
    dx = dxp[:, :, p:p + h, p:p + wd]
    return dx, dw, db


def wrong_pads_bottom_right(x, w, dy, stride=1, padding=0):
    """Puts all 2*padding zeros at the bottom and right (np.pad with (0, 2p)) and crops [:H, :W], so every window is shifted by p from where the forward pass put it."""
    n_, c_, h, wd = x.shape
    o_, _, k, _ = w.shape
    _, _, oh, ow = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (0, 2 * p), (0, 2 * p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    db = np.zeros(o_)
    for n in range(n_):
        for o in range(o_):
            for i in range(oh):
                for j in range(ow):
                    g = dy[n, o, i, j]
                    db[o] += g
                    dw[o] += g * xp[n, :, i * s:i * s + k, j * s:j * s + k]
                    dxp[n, :, i * s:i * s + k, j * s:j * s + k] += g * w[o]
    return dxp[:, :, :h, :wd], dw, db


def wrong_output_size_off_by_one(x, w, dy, stride=1, padding=0):
    """Recomputes the output size as (H + 2p - K) // s without the + 1 instead of reading dy.shape, so the last row and column of windows never send their gradient."""
    n_, c_, h, wd = x.shape
    o_, _, k, _ = w.shape
    p, s = padding, stride
    oh = (h + 2 * p - k) // s
    ow = (wd + 2 * p - k) // s
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    db = np.zeros(o_)
    for n in range(n_):
        for o in range(o_):
            for i in range(oh):
                for j in range(ow):
                    g = dy[n, o, i, j]
                    r, q = i * s, j * s
                    db[o] += g
                    dw[o] += g * xp[n, :, r:r + k, q:q + k]
                    dxp[n, :, r:r + k, q:q + k] += g * w[o]
    return dxp[:, :, p:p + h, p:p + wd], dw, db


def wrong_bias_reshape(x, w, dy, stride=1, padding=0):
    """Gets db from dy.reshape(C_out, -1).sum(1) (a reshape where a transpose to (C_out, N, OH, OW) is needed), which mixes images and channels when C_out > 1."""
    n_, c_, h, wd = x.shape
    o_, _, k, _ = w.shape
    _, _, oh, ow = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    for i in range(oh):
        for j in range(ow):
            r, q = i * s, j * s
            g = dy[:, :, i, j]  # (N, C_out)
            patch = xp[:, :, r:r + k, q:q + k]  # (N, C, k, k)
            for n in range(n_):
                for o in range(o_):
                    dw[o] += g[n, o] * patch[n]
                    dxp[n, :, r:r + k, q:q + k] += g[n, o] * w[o]
    db = dy.reshape(o_, -1).sum(axis=1)
    return dxp[:, :, p:p + h, p:p + wd], dw, db
