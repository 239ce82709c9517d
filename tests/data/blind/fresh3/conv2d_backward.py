"""Blind corpus: conv2d_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dw_window_not_strided(x, w, dy, stride=1, padding=0):
    """Takes the dw patch at (i, j) instead of (i*s, j*s); dx and db use the right windows."""
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


def wrong_dw_reset_per_image(x, w, dy, stride=1, padding=0):
    """Initialises dw = zeros inside the loop over images, so dw keeps only the last image's contribution."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    db = np.zeros(C_out)
    for n in range(N):
        dw = np.zeros(w.shape)
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s, j * s
                    db[o] += dy[n, o, i, j]
                    dw[o] += dy[n, o, i, j] * xp[n, :, h0:h0 + K, w0:w0 + K]
                    dxp[n, :, h0:h0 + K, w0:w0 + K] += dy[n, o, i, j] * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_crop_end_unshifted(x, w, dy, stride=1, padding=0):
    """Crops the padded dx canvas as [p:H, p:W] (the end not shifted by p), so with padding the last rows and columns are cut off."""
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
                    h0, w0 = i * s, j * s
                    db[o] += dy[n, o, i, j]
                    dw[o] += dy[n, o, i, j] * xp[n, :, h0:h0 + K, w0:w0 + K]
                    dxp[n, :, h0:h0 + K, w0:w0 + K] += dy[n, o, i, j] * w[o]
    dx = dxp[:, :, p:H, p:W]
    return dx, dw, db


def wrong_dx_batch_index_dropped(x, w, dy, stride=1, padding=0):
    """Adds each dx piece into dxp[:, :, window] (no image index), so every image's dx receives the pieces of all images."""
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
                    h0, w0 = i * s, j * s
                    db[o] += dy[n, o, i, j]
                    dw[o] += dy[n, o, i, j] * xp[n, :, h0:h0 + K, w0:w0 + K]
                    dxp[:, :, h0:h0 + K, w0:w0 + K] += dy[n, o, i, j] * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_width_loop_uses_height(x, w, dy, stride=1, padding=0):
    """Loops j over range(OH) as well as i (assumes square outputs), so on a wide output the right-hand windows never contribute to dx, dw or db."""
    N, C, H, W = x.shape
    C_out, _, K, _ = w.shape
    OH = (H + 2 * padding - K) // stride + 1
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    db = np.zeros(C_out)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OH):
                    h0, w0 = i * s, j * s
                    g = dy[n, o, i, j]
                    db[o] += g
                    dw[o] += g * xp[n, :, h0:h0 + K, w0:w0 + K]
                    dxp[n, :, h0:h0 + K, w0:w0 + K] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw, db


def wrong_dw_mean_over_windows(x, w, dy, stride=1, padding=0):
    """Divides dw by the number of window positions OH*OW, as if the shared kernel's gradient were an average over windows rather than a sum."""
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
                    h0, w0 = i * s, j * s
                    db[o] += dy[n, o, i, j]
                    dw[o] += dy[n, o, i, j] * xp[n, :, h0:h0 + K, w0:w0 + K]
                    dxp[n, :, h0:h0 + K, w0:w0 + K] += dy[n, o, i, j] * w[o]
    dw /= OH * OW
    return dxp[:, :, p:p + H, p:p + W], dw, db
