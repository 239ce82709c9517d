"""Blind corpus: dilated_grouped_backward (heldout), written without reading the checker."""

import numpy as np


def wrong_dw_averaged_over_batch(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Divides dw by the batch size N, averaging the examples' gradients."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    per = C_out // groups
    for o in range(C_out):
        c0 = (o // per) * Cg
        for i in range(OH):
            for j in range(OW):
                for ki in range(KH):
                    for kj in range(KW):
                        r, c = i * s + ki * d, j * s + kj * d
                        dw[o, :, ki, kj] += dy[:, o, i, j] @ xp[:, c0 : c0 + Cg, r, c]
                        dxp[:, c0 : c0 + Cg, r, c] += np.outer(
                            dy[:, o, i, j], w[o, :, ki, kj]
                        )
    return dxp[:, :, p : p + H, p : p + W], dw / N


def wrong_dx_from_x_not_w(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Builds dx from the input (dy times x) instead of from the weights."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    Og = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // Og) * Cg
            for i in range(OH):
                for j in range(OW):
                    for ki in range(KH):
                        for kj in range(KW):
                            r, c = i * s + ki * d, j * s + kj * d
                            dw[o, :, ki, kj] += (
                                dy[n, o, i, j] * xp[n, c0 : c0 + Cg, r, c]
                            )
                            dxp[n, c0 : c0 + Cg, r, c] += (
                                dy[n, o, i, j] * xp[n, c0 : c0 + Cg, r, c]
                            )
    return dxp[:, :, p : p + H, p : p + W], dw


def wrong_height_used_for_width(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Two bugs: the output's columns counted from H, and dx's width cropped by H."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    s, p, d = stride, padding, dilation
    OH = (H + 2 * p - d * (KH - 1) - 1) // s + 1
    OW = (H + 2 * p - d * (KW - 1) - 1) // s + 1
    Og = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // Og) * Cg
            for i in range(OH):
                for j in range(OW):
                    for ki in range(KH):
                        for kj in range(KW):
                            r, c = i * s + ki * d, j * s + kj * d
                            dw[o, :, ki, kj] += (
                                dy[n, o, i, j] * xp[n, c0 : c0 + Cg, r, c]
                            )
                            dxp[n, c0 : c0 + Cg, r, c] += (
                                dy[n, o, i, j] * w[o, :, ki, kj]
                            )
    return dxp[:, :, p : p + H, p : p + H], dw
