"""Blind corpus: conv2d_backward (tune), written without reading the checker."""

import numpy as np


def wrong_crop_slice_empty_without_padding(x, w, dy, stride=1, padding=0):
    """Crops the padded canvas with dxp[:, :, p:-p, p:-p], which is empty when padding is 0."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p = padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(Co)
    for n in range(N):
        for o in range(Co):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    r, c = i * stride, j * stride
                    db[o] += g
                    dw[o] += g * xp[n, :, r:r + K, c:c + K]
                    dxp[n, :, r:r + K, c:c + K] += g * w[o]
    return dxp[:, :, p:-p, p:-p], dw, db


def wrong_oh_used_for_both_loops(x, w, dy, stride=1, padding=0):
    """Loops over the output columns with range(OH) too, so non-square outputs lose columns or crash."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    OH = dy.shape[2]
    p = padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(Co)
    for n in range(N):
        for o in range(Co):
            for i in range(OH):
                for j in range(OH):
                    g = dy[n, o, i, j]
                    r, c = i * stride, j * stride
                    db[o] += g
                    dw[o] += g * xp[n, :, r:r + K, c:c + K]
                    dxp[n, :, r:r + K, c:c + K] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_dx_and_dw_pieces_swapped(x, w, dy, stride=1, padding=0):
    """Mixed up the two pieces: dx's window gets dy times the input patch and dw gets dy times the kernel."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p = padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    db = np.zeros(Co)
    for n in range(N):
        for o in range(Co):
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    r, c = i * stride, j * stride
                    db[o] += g
                    dw[o] += g * w[o]
                    dxp[n, :, r:r + K, c:c + K] += g * xp[n, :, r:r + K, c:c + K]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_dx_added_to_every_image(x, w, dy, stride=1, padding=0):
    """Forgot the image index on dx: each dy is added to the window of every image in the batch."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
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
                    dxp[:, :, i * s:i * s + K, j * s:j * s + K] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_canvas_padded_on_one_side_only(x, w, dy, stride=1, padding=0):
    """Makes the dx canvas (H + p, W + p) instead of (H + 2p, W + 2p): windows at the bottom/right get cut off or crash."""
    N, C, H, W = x.shape
    Co, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros((N, C, H + p, W + p))
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
