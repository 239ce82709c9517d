"""Blind corpus: dilated_grouped_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_interleaved_groups(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Assigns output channel o to group o % groups (round-robin) instead of o // (C_out/groups), so output channels are wired to the wrong input block whenever a group holds more than one filter."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    p, s, d = padding, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            g = o % groups
            c0 = g * cin_g
            for i in range(OH):
                for j in range(OW):
                    for c in range(cin_g):
                        for ki in range(KH):
                            for kj in range(KW):
                                r = i * s + ki * d
                                q = j * s + kj * d
                                dxp[n, c0 + c, r, q] += dy[n, o, i, j] * w[o, c, ki, kj]
                                dw[o, c, ki, kj] += dy[n, o, i, j] * xp[n, c0 + c, r, q]
    dx = dxp[:, :, p:p + H, p:p + W]
    return dx, dw


def wrong_crop_minus_p(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Crops the padded gradient canvas with [p:-p], which is an empty slice when padding is 0, so dx comes back with zero rows and columns on the unpadded cases."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    p, s, d = padding, stride, dilation
    cout_g = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for o in range(C_out):
        c0 = (o // cout_g) * cin_g
        for i in range(OH):
            for j in range(OW):
                rows = slice(i * s, i * s + d * (KH - 1) + 1, d)
                cols = slice(j * s, j * s + d * (KW - 1) + 1, d)
                g = dy[:, o, i, j][:, None, None, None]  # (N, 1, 1, 1)
                dxp[:, c0:c0 + cin_g, rows, cols] += g * w[o][None]
                dw[o] += (g * xp[:, c0:c0 + cin_g, rows, cols]).sum(axis=0)
    dx = dxp[:, :, p:-p, p:-p]
    return dx, dw


def wrong_dw_batch_mean(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Averages dw over the batch (divides the einsum sum by N), as if the weight gradient were a mean over images rather than a sum."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    p, s, d = padding, stride, dilation
    cout_g = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for g in range(groups):
        oc = slice(g * cout_g, (g + 1) * cout_g)
        ic = slice(g * cin_g, (g + 1) * cin_g)
        for ki in range(KH):
            for kj in range(KW):
                r0, q0 = ki * d, kj * d
                patch = xp[:, ic, r0:r0 + s * (OH - 1) + 1:s, q0:q0 + s * (OW - 1) + 1:s]  # (N, cin_g, OH, OW)
                dw[oc, :, ki, kj] = np.einsum("nohw,nchw->oc", dy[:, oc], patch) / N
                dxp[:, ic, r0:r0 + s * (OH - 1) + 1:s, q0:q0 + s * (OW - 1) + 1:s] += np.einsum(
                    "nohw,oc->nchw", dy[:, oc], w[oc, :, ki, kj])
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_start_times_dilation(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Multiplies the window's start by the dilation as well as the taps (window i starts at i*stride*dilation), so dilated windows march off the padded input."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    p, s, d = padding, stride, dilation
    cout_g = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // cout_g) * cin_g
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s * d, j * s * d
                    win = xp[n, c0:c0 + cin_g, h0:h0 + d * (KH - 1) + 1:d, w0:w0 + d * (KW - 1) + 1:d]
                    dw[o] += dy[n, o, i, j] * win
                    dxp[n, c0:c0 + cin_g, h0:h0 + d * (KH - 1) + 1:d, w0:w0 + d * (KW - 1) + 1:d] += dy[n, o, i, j] * w[o]
    return dxp[:, :, p:p + H, p:p + W], dw


def wrong_transposed_no_output_padding(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Computes dx as the transposed convolution (stuff dy with stride-1 zeros, pad by d*(k-1)-p, correlate with the flipped kernel per group) but never adds the rows and columns the forward's floor division dropped, so dx is too small when (H + 2p - d(k-1) - 1) % stride != 0."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    p, s, d = padding, stride, dilation
    cout_g = C_out // groups
    # dw: correlate the padded input with dy
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dw = np.zeros_like(w)
    for ki in range(KH):
        for kj in range(KW):
            for o in range(C_out):
                c0 = (o // cout_g) * cin_g
                patch = xp[:, c0:c0 + cin_g, ki * d:ki * d + s * (OH - 1) + 1:s, kj * d:kj * d + s * (OW - 1) + 1:s]
                dw[o, :, ki, kj] = np.einsum("nhw,nchw->c", dy[:, o], patch)
    # dx: transposed convolution
    stuffed = np.zeros((N, C_out, s * (OH - 1) + 1, s * (OW - 1) + 1))
    stuffed[:, :, ::s, ::s] = dy
    eh, ew = d * (KH - 1) - p, d * (KW - 1) - p
    big = np.pad(stuffed, ((0, 0), (0, 0), (eh, eh), (ew, ew)))
    wf = w[:, :, ::-1, ::-1]
    HO = big.shape[2] - d * (KH - 1)
    WO = big.shape[3] - d * (KW - 1)
    dx = np.zeros((N, C_in, HO, WO))
    for o in range(C_out):
        c0 = (o // cout_g) * cin_g
        for ki in range(KH):
            for kj in range(KW):
                sl = big[:, o, ki * d:ki * d + HO, kj * d:kj * d + WO]
                dx[:, c0:c0 + cin_g] += sl[:, None] * wf[o, :, ki, kj][None, :, None, None]
    return dx, dw


def wrong_crop_uses_height_twice(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Crops the padded canvas as [p:p+H, p:p+H], using the height for the width too, so non-square padded inputs come back with the wrong width."""
    N, C_in, H, W = x.shape
    C_out, cin_g, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    p, s, d = padding, stride, dilation
    cout_g = C_out // groups
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(C_out):
            c0 = (o // cout_g) * cin_g
            for c in range(cin_g):
                for ki in range(KH):
                    for kj in range(KW):
                        r = ki * d
                        q = kj * d
                        sub_dy = dy[n, o]
                        rs = slice(r, r + s * (OH - 1) + 1, s)
                        qs = slice(q, q + s * (OW - 1) + 1, s)
                        np.add.at(dxp[n, c0 + c], (rs, qs), sub_dy * w[o, c, ki, kj])
                        dw[o, c, ki, kj] += np.sum(sub_dy * xp[n, c0 + c, rs, qs])
    return dxp[:, :, p:p + H, p:p + H], dw
