"""Blind corpus: dilated_grouped_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_round_robin_groups(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Deals the output channels to the groups in turn (group o % groups) instead of in consecutive blocks (group o // (C_out/groups))."""
    n, c_in, h, wd = x.shape
    c_out, cg, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    s, p, d = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for b in range(n):
        for o in range(c_out):
            c0 = (o % groups) * cg
            for i in range(oh):
                for j in range(ow):
                    g = dy[b, o, i, j]
                    for c in range(cg):
                        for ki in range(kh):
                            for kj in range(kw):
                                r, q = i * s + ki * d, j * s + kj * d
                                dxp[b, c0 + c, r, q] += g * w[o, c, ki, kj]
                                dw[o, c, ki, kj] += g * xp[b, c0 + c, r, q]
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_padding_times_dilation(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Dilates the padding too, padding and cropping by padding*dilation, as if the zero border were spread like the taps."""
    n, c_in, h, wd = x.shape
    c_out, cg, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    s, d = stride, dilation
    p = padding * dilation
    per_group = c_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for b in range(n):
        for o in range(c_out):
            c0 = (o // per_group) * cg
            for i in range(oh):
                for j in range(ow):
                    rows = slice(i * s, i * s + d * (kh - 1) + 1, d)
                    cols = slice(j * s, j * s + d * (kw - 1) + 1, d)
                    dxp[b, c0:c0 + cg, rows, cols] += dy[b, o, i, j] * w[o]
                    dw[o] += dy[b, o, i, j] * xp[b, c0:c0 + cg, rows, cols]
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_dx_ignores_groups(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Confines dw to each group but lets every output channel send dx to every input channel, using filter slot c % (C_in/groups)."""
    n, c_in, h, wd = x.shape
    c_out, cg, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    s, p, d = stride, padding, dilation
    per_group = c_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for ki in range(kh):
        for kj in range(kw):
            r0, q0 = ki * d, kj * d
            taps = xp[:, :, r0:r0 + s * (oh - 1) + 1:s, q0:q0 + s * (ow - 1) + 1:s]
            for o in range(c_out):
                c0 = (o // per_group) * cg
                dw[o, :, ki, kj] = np.einsum("nij,ncij->c", dy[:, o], taps[:, c0:c0 + cg])
            w_full = w[:, np.arange(c_in) % cg, ki, kj]
            dxp[:, :, r0:r0 + s * (oh - 1) + 1:s, q0:q0 + s * (ow - 1) + 1:s] += np.einsum("noij,oc->ncij", dy, w_full)
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_column_order_mismatch(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Builds each group's columns in (ki, kj, c) order but reshapes the weight and dw in (c, ki, kj) order, so the channel and tap indices get mixed when C_in/groups > 1."""
    n, c_in, h, wd = x.shape
    c_out, cg, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    s, p, d = stride, padding, dilation
    per_group = c_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for g in range(groups):
        cs = slice(g * cg, (g + 1) * cg)
        os_ = slice(g * per_group, (g + 1) * per_group)
        col = np.empty((n, kh, kw, cg, oh * ow))
        for ki in range(kh):
            for kj in range(kw):
                patch = xp[:, cs, ki * d:ki * d + s * (oh - 1) + 1:s, kj * d:kj * d + s * (ow - 1) + 1:s]
                col[:, ki, kj] = patch.reshape(n, cg, oh * ow)
        col = col.reshape(n, kh * kw * cg, oh * ow)
        dyg = dy[:, os_].reshape(n, per_group, oh * ow)
        wg = w[os_].reshape(per_group, cg * kh * kw)
        dw[os_] = np.einsum("nol,nkl->ok", dyg, col).reshape(per_group, cg, kh, kw)
        dcol = np.einsum("ok,nol->nkl", wg, dyg).reshape(n, kh, kw, cg, oh, ow)
        for ki in range(kh):
            for kj in range(kw):
                dxp[:, cs, ki * d:ki * d + s * (oh - 1) + 1:s, kj * d:kj * d + s * (ow - 1) + 1:s] += dcol[:, ki, kj]
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_dw_taps_not_dilated(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Spreads the taps by the dilation for dx but reads dw's taps from adjacent pixels, i*s + ki, forgetting the dilation in the second loop."""
    n, c_in, h, wd = x.shape
    c_out, cg, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    s, p, d = stride, padding, dilation
    per_group = c_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for b in range(n):
        for o in range(c_out):
            c0 = (o // per_group) * cg
            for i in range(oh):
                for j in range(ow):
                    for ki in range(kh):
                        for kj in range(kw):
                            dxp[b, c0:c0 + cg, i * s + ki * d, j * s + kj * d] += dy[b, o, i, j] * w[o, :, ki, kj]
    for b in range(n):
        for o in range(c_out):
            c0 = (o // per_group) * cg
            for i in range(oh):
                for j in range(ow):
                    for ki in range(kh):
                        for kj in range(kw):
                            dw[o, :, ki, kj] += dy[b, o, i, j] * xp[b, c0:c0 + cg, i * s + ki, j * s + kj]
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_dw_from_unpadded_x(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Scatters dx on the padded canvas but reads dw's taps from the unpadded x at the padded coordinates, skipping taps past the edge, so with padding the windows are shifted."""
    n, c_in, h, wd = x.shape
    c_out, cg, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    s, p, d = stride, padding, dilation
    per_group = c_out // groups
    dxp = np.zeros((n, c_in, h + 2 * p, wd + 2 * p))
    dw = np.zeros_like(w)
    for b in range(n):
        for o in range(c_out):
            g0 = (o // per_group) * cg
            for i in range(oh):
                for j in range(ow):
                    for ki in range(kh):
                        for kj in range(kw):
                            r, q = i * s + ki * d, j * s + kj * d
                            dxp[b, g0:g0 + cg, r, q] += dy[b, o, i, j] * w[o, :, ki, kj]
                            if r < h and q < wd:
                                dw[o, :, ki, kj] += dy[b, o, i, j] * x[b, g0:g0 + cg, r, q]
    return dxp[:, :, p:p + h, p:p + wd], dw
