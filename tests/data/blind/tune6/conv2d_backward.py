"""Blind corpus: conv2d_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dw_patch_dilated(x, w, dy, stride=1, padding=0):
    """Takes the dw patch as `xp[n, :, i:i+s*K:s, j:j+s*K:s]`, spacing the taps by the stride (as if it were a dilation) instead of starting the window at `i*s`."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(C_out)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    db[o] += g
                    dw[o] += g * xp[n, :, i:i + s * K:s, j:j + s * K:s]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw, db


def wrong_crop_uses_h_twice(x, w, dy, stride=1, padding=0):
    """Crops the padded dx canvas with `p:p+H` on both axes, so a non-square input with padding comes back with the wrong width."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = dy.sum(axis=(0, 2, 3))
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    hs, ws = i * s, j * s
                    dw[o] += dy[n, o, i, j] * xp[n, :, hs:hs + K, ws:ws + K]
                    dxp[n, :, hs:hs + K, ws:ws + K] += dy[n, o, i, j] * w[o]
    if p > 0:
        dx = dxp[:, :, p:p + H, p:p + H]
    else:
        dx = dxp
    return dx, dw, db


def wrong_np_pad_all_axes(x, w, dy, stride=1, padding=0):
    """Pads with `np.pad(x, padding)`, which pads the batch and channel axes too, so with padding the image and channel indices point at the wrong (often all-zero) slices and dx comes back too big."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    xp = np.pad(x, p)
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(C_out)
    for n in range(N):
        for o in range(C_out):
            for c in range(C):
                for i in range(OH):
                    for j in range(OW):
                        g = dy[n, o, i, j]
                        hs, ws = i * s, j * s
                        dw[o, c] += g * xp[n, c, hs:hs + K, ws:ws + K]
                        dxp[n, c, hs:hs + K, ws:ws + K] += g * w[o, c]
            db[o] += dy[n, o].sum()
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw, db
