"""Blind corpus: dilated_grouped_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_round_robin_groups(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Assigns output channel o to group o % groups (round robin) instead of o // (C_out/groups), so the filters of a group read the wrong block of input channels."""
    n_, c_in, h, wd = x.shape
    c_out, cg, k, _ = w.shape
    _, _, oh, ow = dy.shape
    s, p, d = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    reach = d * (k - 1) + 1
    for n in range(n_):
        for o in range(c_out):
            g = o % groups
            c0 = g * cg
            for i in range(oh):
                for j in range(ow):
                    r, q = i * s, j * s
                    grad = dy[n, o, i, j]
                    dw[o] += grad * xp[n, c0:c0 + cg, r:r + reach:d, q:q + reach:d]
                    dxp[n, c0:c0 + cg, r:r + reach:d, q:q + reach:d] += grad * w[o]
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_stride_dilation_swapped(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Starts window (i, j) at i*dilation and spaces its taps by stride (the two arguments exchanged), which only agrees when stride == dilation (and can run off the padded input)."""
    n_, c_in, h, wd = x.shape
    c_out, cg, k, _ = w.shape
    _, _, oh, ow = dy.shape
    p = padding
    per_group = c_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    for n in range(n_):
        for o in range(c_out):
            c0 = (o // per_group) * cg
            for i in range(oh):
                for j in range(ow):
                    for c in range(cg):
                        for ki in range(k):
                            for kj in range(k):
                                r = i * dilation + ki * stride
                                q = j * dilation + kj * stride
                                dw[o, c, ki, kj] += dy[n, o, i, j] * xp[n, c0 + c, r, q]
                                dxp[n, c0 + c, r, q] += dy[n, o, i, j] * w[o, c, ki, kj]
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_dw_group_offset_missing(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Sends dx to the right channel block c0 = g*C_in/groups but reads dw's input patch from channels 0..C_in/groups-1 of every group (the offset only added on one side)."""
    n_, c_in, h, wd = x.shape
    c_out, cg, k, _ = w.shape
    _, _, oh, ow = dy.shape
    s, p, d = stride, padding, dilation
    og = c_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    for g in range(groups):
        outs = slice(g * og, (g + 1) * og)
        ins = slice(g * cg, (g + 1) * cg)
        for ki in range(k):
            for kj in range(k):
                r0, q0 = ki * d, kj * d
                rows = slice(r0, r0 + s * (oh - 1) + 1, s)
                cols = slice(q0, q0 + s * (ow - 1) + 1, s)
                taps = xp[:, :cg, rows, cols]  # (N, Cg, OH, OW)
                dw[outs, :, ki, kj] += np.einsum("nohw,nchw->oc", dy[:, outs], taps)
                dxp[:, ins, rows, cols] += np.einsum("nohw,oc->nchw", dy[:, outs], w[outs, :, ki, kj])
    return dxp[:, :, p:p + h, p:p + wd], dw


def wrong_padding_times_dilation(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Pads (and crops) by dilation*padding, believing the padding is dilated along with the taps, so every window sits (d-1)*p pixels off."""
    n_, c_in, h, wd = x.shape
    c_out, cg, k, _ = w.shape
    _, _, oh, ow = dy.shape
    s, d = stride, dilation
    p = dilation * padding
    og = c_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    ii, jj = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    for o in range(c_out):
        c0 = (o // og) * cg
        for c in range(cg):
            for ki in range(k):
                for kj in range(k):
                    rr = ii * s + ki * d
                    qq = jj * s + kj * d
                    vals = xp[:, c0 + c, rr, qq]  # (N, OH, OW)
                    dw[o, c, ki, kj] += np.sum(dy[:, o] * vals)
                    plane = dxp[:, c0 + c]
                    for n in range(n_):
                        np.add.at(plane[n], (rr, qq), dy[n, o] * w[o, c, ki, kj])
    return dxp[:, :, p:p + h, p:p + wd], dw
