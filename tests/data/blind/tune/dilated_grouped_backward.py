"""Blind corpus: dilated_grouped_backward (tune), written without reading the checker."""

import numpy as np


def wrong_group_number_as_first_channel(
    x, w, dy, stride=1, padding=0, dilation=1, groups=1
):
    """Uses the group number o // (C_out/g) as first channel, not times C_in/g."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = o // (C_out // groups)
            for i in range(OH):
                for j in range(OW):
                    g = dy[n, o, i, j]
                    for ki in range(KH):
                        for kj in range(KW):
                            r, c = i * s + ki * d, j * s + kj * d
                            dw[o, :, ki, kj] += g * xp[n, c0 : c0 + Cg, r, c]
                            dxp[n, c0 : c0 + Cg, r, c] += g * w[o, :, ki, kj]
    return dxp[:, :, p : p + H, p : p + W], dw


def wrong_channel_slice_uses_out_group_size(
    x, w, dy, stride=1, padding=0, dilation=1, groups=1
):
    """Slices the group's input channels with C_out/groups, not C_in/groups."""
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
                                dy[n, o, i, j] * xp[n, c0 : c0 + Og, r, c]
                            )
                            dxp[n, c0 : c0 + Og, r, c] += (
                                dy[n, o, i, j] * w[o, :, ki, kj]
                            )
    return dxp[:, :, p : p + H, p : p + W], dw


def wrong_dilation_scales_window_start(
    x, w, dy, stride=1, padding=0, dilation=1, groups=1
):
    """Multiplies the whole position (i*s + ki) by d, so window starts move too."""
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
                            r, c = (i * s + ki) * d, (j * s + kj) * d
                            if r >= xp.shape[2] or c >= xp.shape[3]:
                                continue
                            dw[o, :, ki, kj] += (
                                dy[n, o, i, j] * xp[n, c0 : c0 + Cg, r, c]
                            )
                            dxp[n, c0 : c0 + Cg, r, c] += (
                                dy[n, o, i, j] * w[o, :, ki, kj]
                            )
    return dxp[:, :, p : p + H, p : p + W], dw


def wrong_bounds_check_off_by_one(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Skips taps with r > H instead of r >= H: a tap on row H raises IndexError."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    Og = C_out // groups
    dx = np.zeros_like(x)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // Og) * Cg
            for i in range(OH):
                for j in range(OW):
                    for ki in range(KH):
                        for kj in range(KW):
                            r = i * s + ki * d - p
                            c = j * s + kj * d - p
                            if r < 0 or c < 0 or r > H or c > W:
                                continue
                            dw[o, :, ki, kj] += (
                                dy[n, o, i, j] * x[n, c0 : c0 + Cg, r, c]
                            )
                            dx[n, c0 : c0 + Cg, r, c] += (
                                dy[n, o, i, j] * w[o, :, ki, kj]
                            )
    return dx, dw


def wrong_one_input_channel_per_output(
    x, w, dy, stride=1, padding=0, dilation=1, groups=1
):
    """Treats every grouped conv as depthwise: one input channel per output."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    s, p, d = stride, padding, dilation
    mult = C_out // C_in
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for o in range(C_out):
        ch = o // mult
        for ki in range(KH):
            for kj in range(KW):
                r0, c0 = ki * d, kj * d
                patch = xp[
                    :,
                    ch,
                    r0 : r0 + s * (OH - 1) + 1 : s,
                    c0 : c0 + s * (OW - 1) + 1 : s,
                ]
                dw[o, 0, ki, kj] += np.sum(dy[:, o] * patch)
                dxp[
                    :,
                    ch,
                    r0 : r0 + s * (OH - 1) + 1 : s,
                    c0 : c0 + s * (OW - 1) + 1 : s,
                ] += dy[:, o] * w[o, 0, ki, kj]
    return dxp[:, :, p : p + H, p : p + W], dw
