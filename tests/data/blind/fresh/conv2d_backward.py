"""Blind corpus: conv2d_backward (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_crop_uses_h_for_both_axes(x, w, dy, stride=1, padding=0):
    """Crops the padded dx canvas with H on both axes, so non-square inputs come back the wrong width."""
    N, C, H, W = x.shape
    F_out, _, K, _ = w.shape
    p = padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    db = np.zeros(F_out)
    for n in range(N):
        for o in range(F_out):
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    g = dy[n, o, i, j]
                    r, c = i * stride, j * stride
                    db[o] += g
                    dw[o] += g * xp[n, :, r:r + K, c:c + K]
                    dxp[n, :, r:r + K, c:c + K] += g * w[o]
    dx = dxp[:, :, p:p + H, p:p + H]
    return dx, dw, db


def wrong_dw_patch_from_unpadded_x(x, w, dy, stride=1, padding=0):
    """Takes dw's patches from x itself rather than the zero-padded input (dx is padded correctly)."""
    N, C, H, W = x.shape
    F_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    dxp = np.zeros((N, C, H + 2 * padding, W + 2 * padding))
    dw = np.zeros_like(w, dtype=float)
    db = np.zeros(F_out)
    for n in range(N):
        for o in range(F_out):
            for i in range(OH):
                for j in range(OW):
                    hs, ws = i * stride, j * stride
                    dw[o] += dy[n, o, i, j] * x[n, :, hs:hs + K, ws:ws + K]
                    dxp[n, :, hs:hs + K, ws:ws + K] += dy[n, o, i, j] * w[o]
                    db[o] += dy[n, o, i, j]
    dx = dxp[:, :, padding:padding + H, padding:padding + W]
    return dx, dw, db


def wrong_output_size_off_by_one(x, w, dy, stride=1, padding=0):
    """Recomputes OH, OW as (H + 2p - K) // s without the + 1, so the last row and column of windows are skipped."""
    N, C, H, W = x.shape
    F_out, _, K, _ = w.shape
    OH = (H + 2 * padding - K) // stride
    OW = (W + 2 * padding - K) // stride
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    for n in range(N):
        for o in range(F_out):
            for i in range(OH):
                for j in range(OW):
                    a, b = i * stride, j * stride
                    dw[o] += dy[n, o, i, j] * xp[n, :, a:a + K, b:b + K]
                    dxp[n, :, a:a + K, b:b + K] += dy[n, o, i, j] * w[o]
    db = dy.sum(axis=(0, 2, 3))
    dx = dxp[:, :, padding:padding + H, padding:padding + W]
    return dx, dw, db


def wrong_dx_canvas_has_out_channels(x, w, dy, stride=1, padding=0):
    """Allocates the dx canvas with F_out (output) channels instead of C, which breaks whenever C != F_out."""
    N, C, H, W = x.shape
    F_out, _, K, _ = w.shape
    p = padding
    dxp = np.zeros((N, F_out, H + 2 * p, W + 2 * p))
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    xp[:, :, p:p + H, p:p + W] = x
    dw = np.zeros(w.shape)
    db = np.zeros(F_out)
    for n in range(N):
        for o in range(F_out):
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    t, c0 = i * stride, j * stride
                    dxp[n, :, t:t + K, c0:c0 + K] += dy[n, o, i, j] * w[o]
                    dw[o] += dy[n, o, i, j] * xp[n, :, t:t + K, c0:c0 + K]
                    db[o] += dy[n, o, i, j]
    return dxp[:, :, p:p + H, p:p + W], dw, db
