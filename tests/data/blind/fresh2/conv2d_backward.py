"""Blind corpus: conv2d_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_db_mean(x, w, dy, stride=1, padding=0):
    """Averages dy for the bias, db = dy.mean(axis=(0, 2, 3)), instead of summing it over N, OH and OW."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    db = dy.mean(axis=(0, 2, 3))
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw, db


def wrong_crop_uses_h(x, w, dy, stride=1, padding=0):
    """Crops the padded dx canvas with p:p+H on both axes, so a non-square image loses columns (or keeps padding) when p > 0."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
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
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    dx = dxp[:, :, p:p + H, p:p + H] if p > 0 else dxp
    return dx, dw, db


def wrong_dw_patch_unstrided(x, w, dy, stride=1, padding=0):
    """Takes the input patch for dw at (i, j) instead of (i*s, j*s); dx uses the stride correctly."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
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
                    dw[o] += g * xp[n, :, i:i + K, j:j + K]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_dx_after_o_loop(x, w, dy, stride=1, padding=0):
    """Puts the dx update after the loop over output channels, so dx only gets the last filter's piece (o left at C_out - 1)."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(C_out)
    for n in range(N):
        for i in range(OH):
            for j in range(OW):
                for o in range(C_out):
                    g = dy[n, o, i, j]
                    db[o] += g
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                dxp[n, :, i * s:i * s + K, j * s:j * s + K] += dy[n, o, i, j] * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_dx_window_assigned(x, w, dy, stride=1, padding=0):
    """Assigns each window's piece into dx with = instead of +=, so overlapping windows and other filters overwrite each other."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = dy.sum(axis=(0, 2, 3))
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] = g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_dw_dy_transposed(x, w, dy, stride=1, padding=0):
    """Reads dy[n, o, j, i] (rows and columns swapped) when accumulating dw; dx and db read dy correctly."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
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
                    dw[o] += dy[n, o, j, i] * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db
