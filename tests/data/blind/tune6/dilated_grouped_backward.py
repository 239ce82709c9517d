"""Blind corpus: dilated_grouped_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_groups_interleaved(x, w, dy, stride=1, padding=0, dilation=1,
                             groups=1):
    """Assigns output channel o to group o % groups (interleaved) instead of o // (C_out/groups), so filters read and feed the other group's channels."""
    N, C_in, H, W = x.shape
    C_out, Cg, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o % groups) * Cg
            for i in range(OH):
                for j in range(OW):
                    rows = slice(i * s, i * s + d * (K - 1) + 1, d)
                    cols = slice(j * s, j * s + d * (K - 1) + 1, d)
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, c0:c0 + Cg, rows, cols]
                    dxp[n, c0:c0 + Cg, rows, cols] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_crop_minus_p(x, w, dy, stride=1, padding=0, dilation=1,
                       groups=1):
    """Crops the padded canvas with [p:-p, p:-p], which is empty when padding is 0."""
    N, C_in, H, W = x.shape
    C_out, Cg, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    Og = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for g in range(groups):
        oc = slice(g * Og, (g + 1) * Og)
        ic = slice(g * Cg, (g + 1) * Cg)
        dyg = dy[:, oc]
        for ki in range(K):
            for kj in range(K):
                r0, c0 = ki * d, kj * d
                xs = xp[:, ic, r0:r0 + s * (OH - 1) + 1:s, c0:c0 + s * (OW - 1) + 1:s]
                dw[oc, :, ki, kj] += np.einsum("nohw,nchw->oc", dyg, xs)
                dxp[:, ic, r0:r0 + s * (OH - 1) + 1:s, c0:c0 + s * (OW - 1) + 1:s] += np.einsum("nohw,oc->nchw", dyg, w[oc, :, ki, kj])
    return dxp[:, :, p:-p, p:-p], dw


def wrong_origin_scaled_by_dilation(x, w, dy, stride=1, padding=0,
                                    dilation=1, groups=1):
    """Multiplies the whole tap position by the dilation, (i*stride + ki)*dilation, so the windows themselves also move dilation times too far."""
    N, C_in, H, W = x.shape
    C_out, Cg, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    Og = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    Hp, Wp = xp.shape[2:]
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for o in range(C_out):
        c0 = (o // Og) * Cg
        for i in range(OH):
            for j in range(OW):
                for ki in range(K):
                    for kj in range(K):
                        r = (i * s + ki) * d
                        c = (j * s + kj) * d
                        if r >= Hp or c >= Wp:
                            continue
                        dw[o, :, ki, kj] += dy[:, o, i, j] @ xp[:, c0:c0 + Cg, r, c]
                        dxp[:, c0:c0 + Cg, r, c] += np.outer(dy[:, o, i, j], w[o, :, ki, kj])
    return dxp[:, :, p:p + H, p:p + W], dw
