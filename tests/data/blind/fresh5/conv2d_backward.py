"""Blind corpus: conv2d_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_db_mean_over_pixels(x, w, dy, stride=1, padding=0):
    """Loops are right for dx and dw, but db averages dy over the output pixels of each image (then sums the images) instead of summing every dy entry."""
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
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
    db = dy.mean(axis=(2, 3)).sum(axis=0)
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw, db


def wrong_dx_missing_image_index(x, w, dy, stride=1, padding=0):
    """Adds dx's pieces with dxp[:, :, rows, cols] (no image index n), so every image's dx receives the kernel stamps of all the images in the batch."""
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
                    r, c = i * s, j * s
                    dxp[:, :, r:r + K, c:c + K] += g * w[o]
                    dw[o] += g * xp[n, :, r:r + K, c:c + K]
                    db[o] += g
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_crop_uses_height_twice(x, w, dy, stride=1, padding=0):
    """Crops the padded dx canvas with [p:p+H, p:p+H], using the height for the width too, so non-square inputs come back with the wrong width."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    db = np.zeros(C_out)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    db[o] += g
    dx = dxp[:, :, p:p + H, p:p + H]
    return dx, dw, db


def wrong_loop_bounds_without_padding(x, w, dy, stride=1, padding=0):
    """Recomputes the loop bounds as OH = (H - K)//s + 1 from x, forgetting the padding, so with padding the windows at the bottom and right never send their gradient."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    s, p = stride, padding
    OH = (H - K) // s + 1
    OW = (W - K) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(C_out)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    db[o] += g
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_pads_every_axis(x, w, dy, stride=1, padding=0):
    """Pads with np.pad(x, padding), which pads the batch and channel axes too, so with padding the patches come from the wrong (zero) images and channels and the shapes no longer fit."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, p)
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(C_out)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    dxp[n, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
                    dw[o] += g * xp[n, :, i * s:i * s + K, j * s:j * s + K]
                    db[o] += g
    dx = dxp[:N, :C, p:p + H, p:p + W]
    return dx, dw, db


def wrong_reshape_not_transpose(x, w, dy, stride=1, padding=0):
    """Vectorised over the kernel taps with np.tensordot; dw and db are right, but dx's per-tap block (N, OH, OW, C) is put back with .reshape(N, C, OH, OW) instead of .transpose(0, 3, 1, 2), scrambling channels and pixels whenever C > 1."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for ki in range(K):
        for kj in range(K):
            rows = slice(ki, ki + s * OH, s)
            cols = slice(kj, kj + s * OW, s)
            patch = xp[:, :, rows, cols]  # (N, C, OH, OW)
            dw[:, :, ki, kj] = np.tensordot(dy, patch, axes=([0, 2, 3], [0, 2, 3]))
            piece = np.tensordot(dy, w[:, :, ki, kj], axes=([1], [0]))  # (N, OH, OW, C)
            dxp[:, :, rows, cols] += piece.reshape(N, C, OH, OW)
    db = dy.sum(axis=(0, 2, 3))
    return dxp[:, :, p:p + H, p:p + W], dw, db
