"""Blind corpus: dilated_grouped_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_round_robin_groups(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Assigns output channel o to group o % groups (round robin) instead of the contiguous block o // (C_out/groups)."""
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    OH, OW = dy.shape[2:]
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(O):
            g = o % groups
            c0 = g * Cg
            for i in range(OH):
                for j in range(OW):
                    g_ = dy[n, o, i, j]
                    for c in range(Cg):
                        for kh in range(KH):
                            for kw in range(KW):
                                r = i * s + kh * d
                                q = j * s + kw * d
                                dxp[n, c0 + c, r, q] += w[o, c, kh, kw] * g_
                                dw[o, c, kh, kw] += xp[n, c0 + c, r, q] * g_
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw


def wrong_dilation_times_stride(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Puts the dilation on the whole window position, r = (i*s + kh) * d, instead of only on the tap offset, r = i*s + kh*d."""
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    OH, OW = dy.shape[2:]
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    big = np.zeros((N, C, (OH * s + KH) * d + 1, (OW * s + KW) * d + 1))
    big[:, :, :xp.shape[2], :xp.shape[3]] = xp
    dbig = np.zeros_like(big)
    dw = np.zeros_like(w)
    og = O // groups
    for n in range(N):
        for o in range(O):
            c0 = (o // og) * Cg
            for i in range(OH):
                for j in range(OW):
                    for c in range(Cg):
                        for kh in range(KH):
                            for kw in range(KW):
                                r = (i * s + kh) * d
                                q = (j * s + kw) * d
                                dbig[n, c0 + c, r, q] += w[o, c, kh, kw] * dy[n, o, i, j]
                                dw[o, c, kh, kw] += big[n, c0 + c, r, q] * dy[n, o, i, j]
    dx = dbig[:, :, p:p + H, p:p + W]
    return dx, dw


def wrong_slice_assign_per_tap(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Vectorised per tap, but writes each tap's contribution into dx with '=' on the strided slice, so a later tap overwrites an earlier one where they land on the same pixel."""
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    OH, OW = dy.shape[2:]
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    og = O // groups
    for g in range(groups):
        cs = slice(g * Cg, (g + 1) * Cg)
        os_ = slice(g * og, (g + 1) * og)
        for kh in range(KH):
            for kw in range(KW):
                r0, q0 = kh * d, kw * d
                patch = xp[:, cs, r0:r0 + s * (OH - 1) + 1:s, q0:q0 + s * (OW - 1) + 1:s]
                dw[os_, :, kh, kw] = np.einsum("nchw,nohw->oc", patch, dy[:, os_])
                dxp[:, cs, r0:r0 + s * (OH - 1) + 1:s, q0:q0 + s * (OW - 1) + 1:s] = np.einsum("oc,nohw->nchw", w[os_, :, kh, kw], dy[:, os_])
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw


def wrong_negative_crop(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Crops the padded gradient with dxp[:, :, p:-p, p:-p], which is empty when padding is 0."""
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    OH, OW = dy.shape[2:]
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    og = O // groups
    for n in range(N):
        for o in range(O):
            c0 = (o // og) * Cg
            for i in range(OH):
                for j in range(OW):
                    for kh in range(KH):
                        for kw in range(KW):
                            r, q = i * s + kh * d, j * s + kw * d
                            dxp[n, c0:c0 + Cg, r, q] += w[o, :, kh, kw] * dy[n, o, i, j]
                            dw[o, :, kh, kw] += xp[n, c0:c0 + Cg, r, q] * dy[n, o, i, j]
    dx = dxp[:, :, p:-p, p:-p]
    return dx, dw


def wrong_flipped_kernel_in_dx(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Scatters dx with the 180-degree-flipped kernel (remembering 'dx is a full conv with the flipped kernel') while still scattering tap by tap."""
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    OH, OW = dy.shape[2:]
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    wf = w[:, :, ::-1, ::-1]
    og = O // groups
    for n in range(N):
        for o in range(O):
            c0 = (o // og) * Cg
            for i in range(OH):
                for j in range(OW):
                    for kh in range(KH):
                        for kw in range(KW):
                            r, q = i * s + kh * d, j * s + kw * d
                            dxp[n, c0:c0 + Cg, r, q] += wf[o, :, kh, kw] * dy[n, o, i, j]
                            dw[o, :, kh, kw] += xp[n, c0:c0 + Cg, r, q] * dy[n, o, i, j]
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw


def wrong_dw_reads_unpadded_x(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Reads dw's input values from the unpadded x at padded coordinates (x[r, q] instead of x[r-p, q-p]), skipping out-of-range ones."""
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    OH, OW = dy.shape[2:]
    p, s, d = padding, stride, dilation
    dxp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    dw = np.zeros_like(w)
    og = O // groups
    for n in range(N):
        for o in range(O):
            c0 = (o // og) * Cg
            for i in range(OH):
                for j in range(OW):
                    for kh in range(KH):
                        for kw in range(KW):
                            r, q = i * s + kh * d, j * s + kw * d
                            dxp[n, c0:c0 + Cg, r, q] += w[o, :, kh, kw] * dy[n, o, i, j]
                            if r < H and q < W:
                                dw[o, :, kh, kw] += x[n, c0:c0 + Cg, r, q] * dy[n, o, i, j]
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw
