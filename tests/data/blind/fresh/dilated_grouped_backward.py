"""Blind corpus: dilated_grouped_backward (fresh), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dilation_scales_stride(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Puts tap (ki, kj) of window (i, j) at (i*s + ki)*d, so the dilation also stretches the stride."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    cout_g = C_out // groups
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // cout_g) * cin_g
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    g = dy[n, o, i, j]
                    for ki in range(KH):
                        for kj in range(KW):
                            r, c = (i * s + ki) * d, (j * s + kj) * d
                            if r >= xp.shape[2] or c >= xp.shape[3]:
                                continue
                            dxp[n, c0:c0 + cin_g, r, c] += g * w[o, :, ki, kj]
                            dw[o, :, ki, kj] += g * xp[n, c0:c0 + cin_g, r, c]
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_dw_averaged_over_batch(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Divides dw by the batch size, as if the loss were a mean over images."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    cout_g = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    OH, OW = dy.shape[2:]
    for o in range(C_out):
        c0 = (o // cout_g) * cin_g
        for ki in range(KH):
            for kj in range(KW):
                r0, c0k = ki * dilation, kj * dilation
                rows = slice(r0, r0 + stride * (OH - 1) + 1, stride)
                cols = slice(c0k, c0k + stride * (OW - 1) + 1, stride)
                patch = xp[:, c0:c0 + cin_g, rows, cols]          # (N, cin_g, OH, OW)
                g = dy[:, o][:, None]                              # (N, 1, OH, OW)
                dw[o, :, ki, kj] = (g * patch).sum(axis=(0, 2, 3)) / N
                dxp[:, c0:c0 + cin_g, rows, cols] += g * w[o, :, ki, kj][None, :, None, None]
    return dxp[:, :, padding:padding + H, padding:padding + W], dw


def wrong_dx_to_every_channel(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Sends each output channel's dx to all input channels (w indexed by c % (C_in/groups)), not only its own group's."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    cout_g = C_out // groups
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // cout_g) * cin_g
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    for ki in range(KH):
                        for kj in range(KW):
                            r, c = i * s + ki * d, j * s + kj * d
                            for ci in range(C_in):
                                dxp[n, ci, r, c] += dy[n, o, i, j] * w[o, ci % cin_g, ki, kj]
                            for ci in range(cin_g):
                                dw[o, ci, ki, kj] += dy[n, o, i, j] * xp[n, c0 + ci, r, c]
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_crop_uses_h_for_w(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Crops the padded dx with H on both axes, [p:p+H, p:p+H]."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    cout_g = C_out // groups
    xp = np.pad(x, [(0, 0), (0, 0), (padding, padding), (padding, padding)])
    dx_pad = np.zeros(xp.shape)
    dw = np.zeros(w.shape)
    for n in range(N):
        for o in range(C_out):
            grp = o // cout_g
            chans = slice(grp * cin_g, (grp + 1) * cin_g)
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    hs, ws = i * stride, j * stride
                    he, we = hs + dilation * (KH - 1) + 1, ws + dilation * (KW - 1) + 1
                    dx_pad[n, chans, hs:he:dilation, ws:we:dilation] += dy[n, o, i, j] * w[o]
                    dw[o] += dy[n, o, i, j] * xp[n, chans, hs:he:dilation, ws:we:dilation]
    return dx_pad[:, :, padding:padding + H, padding:padding + H], dw
