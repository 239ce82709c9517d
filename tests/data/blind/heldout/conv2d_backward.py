"""Blind corpus: conv2d_backward (heldout), written without reading the checker."""

import numpy as np


def wrong_output_size_missing_plus_one(x, w, dy, stride=1, padding=0):
    """Recomputes OH, OW as (H + 2p - K) // s without the + 1, so the last row and column of windows are skipped."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    p, s = padding, stride
    OH = (H + 2 * p - K) // s
    OW = (W + 2 * p - K) // s
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(Co)
    for n in range(N):
        for o in range(Co):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    db[o] += g
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_crop_from_top_left_corner(x, w, dy, stride=1, padding=0):
    """Crops the padded dx with [:H, :W] (top-left corner) instead of [p:p+H, p:p+W]."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    for n in range(N):
        for i in range(OH):
            for j in range(OW):
                patch = xp[n, :, i * s:i * s + K, j * s:j * s + K]
                for o in range(Co):
                    dw[o] += dy[n, o, i, j] * patch
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += dy[n, o, i, j] * w[o]
    db = dy.sum(axis=(0, 2, 3))
    return dxp[:, :, :H, :W], dw, db


def wrong_shared_grads_averaged_over_positions(x, w, dy, stride=1, padding=0):
    """Thought shared parameters get the mean over window positions: db and dw are divided by OH*OW."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(Co):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    dw = dw / (OH * OW)
    db = dy.mean(axis=(2, 3)).sum(axis=0)
    return dxp[:, :, p:p + H, p:p + W], dw, db
