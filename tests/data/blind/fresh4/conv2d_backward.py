"""Blind corpus: conv2d_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_bias_first_image(x, w, dy, stride=1, padding=0):
    """Loops are right for dx and dw, but db is taken as dy[0].sum(axis=(1, 2)), the first image only."""
    N, C, H, W = x.shape
    O, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, :, i * s : i * s + K, j * s : j * s + K]
                    dxp[n, :, i * s : i * s + K, j * s : j * s + K] += g * w[o]
    db = dy[0].sum(axis=(1, 2))
    return dxp[:, :, p : p + H, p : p + W], dw, db


def wrong_averaged_over_batch(x, w, dy, stride=1, padding=0):
    """Divides dw and db by the batch size N, as if the loss were a mean over images."""
    N, C, H, W = x.shape
    O, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(O)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    hs, ws = i * s, j * s
                    dw[o] += g * xp[n, :, hs : hs + K, ws : ws + K]
                    dxp[n, :, hs : hs + K, ws : ws + K] += g * w[o]
                    db[o] += g
    return dxp[:, :, p : p + H, p : p + W], dw / N, db / N


def wrong_dx_window_assigned(x, w, dy, stride=1, padding=0):
    """Writes each window's dx piece with = instead of +=, so overlapping windows and other output channels are overwritten."""
    N, C, H, W = x.shape
    O, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(O)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    hs, ws = i * s, j * s
                    dw[o] += g * xp[n, :, hs : hs + K, ws : ws + K]
                    dxp[n, :, hs : hs + K, ws : ws + K] = g * w[o]
                    db[o] += g
    return dxp[:, :, p : p + H, p : p + W], dw, db


def wrong_crop_uses_height_twice(x, w, dy, stride=1, padding=0):
    """Crops the padded canvas as [p:p+H, p:p+H], using the height for the width too."""
    N, C, H, W = x.shape
    O, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    db = np.zeros(O)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, :, i * s : i * s + K, j * s : j * s + K]
                    dxp[n, :, i * s : i * s + K, j * s : j * s + K] += g * w[o]
                    db[o] += g
    return dxp[:, :, p : p + H, p : p + H], dw, db


def wrong_dx_window_not_strided(x, w, dy, stride=1, padding=0):
    """Strides the window for dw but places dx's piece at (i, j) instead of (i*s, j*s)."""
    N, C, H, W = x.shape
    O, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(O)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, :, i * s : i * s + K, j * s : j * s + K]
                    dxp[n, :, i : i + K, j : j + K] += g * w[o]
                    db[o] += g
    return dxp[:, :, p : p + H, p : p + W], dw, db


def wrong_kernel_taps_transposed(x, w, dy, stride=1, padding=0):
    """Stamps each kernel transposed (rows and columns of w[o] swapped) onto dx's window."""
    N, C, H, W = x.shape
    O, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(O)
    for n in range(N):
        for o in range(O):
            wt = np.swapaxes(w[o], -1, -2)
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, :, i * s : i * s + K, j * s : j * s + K]
                    dxp[n, :, i * s : i * s + K, j * s : j * s + K] += g * wt
                    db[o] += g
    return dxp[:, :, p : p + H, p : p + W], dw, db
