"""Blind corpus: dilated_grouped_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_groups_round_robin(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Assigns output channel o to group o % groups (round robin) instead of o // (C_out/groups)."""
    N, C_in, H, W = x.shape
    C_out, C_in_g, K, _ = w.shape
    s, p, d = stride, padding, dilation
    OH, OW = dy.shape[2:]
    span = d * (K - 1) + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o % groups) * C_in_g
            for i in range(OH):
                for j in range(OW):
                    hs, ws = i * s, j * s
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, c0:c0 + C_in_g, hs:hs + span:d, ws:ws + span:d]
                    dxp[n, c0:c0 + C_in_g, hs:hs + span:d, ws:ws + span:d] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_dw_averaged_over_batch(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Vectorised per tap with einsum; divides dw by the batch size as if the loss were a batch mean, though dy already carries the loss's scale."""
    N, C_in, H, W = x.shape
    C_out, C_in_g, K, _ = w.shape
    s, p, d, G = stride, padding, dilation, groups
    C_out_g = C_out // G
    OH, OW = dy.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    dy_g = dy.reshape(N, G, C_out_g, OH, OW)
    w_g = w.reshape(G, C_out_g, C_in_g, K, K)
    for ki in range(K):
        for kj in range(K):
            rs = slice(ki * d, ki * d + s * (OH - 1) + 1, s)
            cs = slice(kj * d, kj * d + s * (OW - 1) + 1, s)
            xs = xp[:, :, rs, cs].reshape(N, G, C_in_g, OH, OW)
            dw[:, :, ki, kj] = np.einsum("ngchw,ngohw->goc", xs, dy_g).reshape(C_out, C_in_g)
            dxs = np.einsum("ngohw,goc->ngchw", dy_g, w_g[:, :, :, ki, kj])
            dxp[:, :, rs, cs] += dxs.reshape(N, C_in, OH, OW)
    dw /= N
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_local_channel_index(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Loops over groups and then o in range(C_out/groups), but indexes dy and w with the local o, so every group reuses the first group's output channels."""
    N, C_in, H, W = x.shape
    C_out, C_in_g, K, _ = w.shape
    s, p, d = stride, padding, dilation
    C_out_g = C_out // groups
    OH, OW = dy.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for grp in range(groups):
            c0 = grp * C_in_g
            for o in range(C_out_g):
                for i in range(OH):
                    for j in range(OW):
                        for ki in range(K):
                            for kj in range(K):
                                h = i * s + ki * d
                                ww = j * s + kj * d
                                for c in range(C_in_g):
                                    dw[o, c, ki, kj] += dy[n, o, i, j] * xp[n, c0 + c, h, ww]
                                    dxp[n, c0 + c, h, ww] += dy[n, o, i, j] * w[o, c, ki, kj]
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_crop_h_w_swapped(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Crops the padded dx with the height and width swapped (rows p:p+W, columns p:p+H)."""
    N, C_in, H, W = x.shape
    C_out, C_in_g, K, _ = w.shape
    s, p, d = stride, padding, dilation
    C_out_g = C_out // groups
    OH, OW = dy.shape[2:]
    span = d * (K - 1) + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // C_out_g) * C_in_g
            for i in range(OH):
                for j in range(OW):
                    win = (n, slice(c0, c0 + C_in_g), slice(i * s, i * s + span, d), slice(j * s, j * s + span, d))
                    dw[o] += dy[n, o, i, j] * xp[win]
                    dxp[win] += dy[n, o, i, j] * w[o]
    return dxp[:, :, p:p + W, p:p + H], dw


def wrong_window_start_uses_dilation(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Swaps the roles of stride and dilation: windows start at i*dilation and the taps are stride apart."""
    N, C_in, H, W = x.shape
    C_out, C_in_g, K, _ = w.shape
    s, p, d = stride, padding, dilation
    C_out_g = C_out // groups
    OH, OW = dy.shape[2:]
    span = s * (K - 1) + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // C_out_g) * C_in_g
            for i in range(OH):
                for j in range(OW):
                    hs, ws = i * d, j * d
                    g = dy[n, o, i, j]
                    dw[o] += g * xp[n, c0:c0 + C_in_g, hs:hs + span:s, ws:ws + span:s]
                    dxp[n, c0:c0 + C_in_g, hs:hs + span:s, ws:ws + span:s] += g * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_dw_taps_not_dilated(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Vectorised per tap; dx's taps are dilation apart but dw reads its tap slices at ki, kj (adjacent), so dw is wrong whenever dilation > 1."""
    N, C_in, H, W = x.shape
    C_out, C_in_g, K, _ = w.shape
    s, p, d, G = stride, padding, dilation, groups
    C_out_g = C_out // G
    OH, OW = dy.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for grp in range(G):
        cin = slice(grp * C_in_g, (grp + 1) * C_in_g)
        cout = slice(grp * C_out_g, (grp + 1) * C_out_g)
        for ki in range(K):
            for kj in range(K):
                x_tap = xp[:, cin, ki:ki + s * (OH - 1) + 1:s, kj:kj + s * (OW - 1) + 1:s]
                dw[cout, :, ki, kj] = np.einsum("nchw,nohw->oc", x_tap, dy[:, cout])
                rs = slice(ki * d, ki * d + s * (OH - 1) + 1, s)
                cs = slice(kj * d, kj * d + s * (OW - 1) + 1, s)
                dxp[:, cin, rs, cs] += np.einsum("nohw,oc->nchw", dy[:, cout], w[cout, :, ki, kj])
    return dxp[:, :, p:p + H, p:p + W], dw
