"""Blind corpus: conv_double_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_padding_ignored(w, dy, v, stride=1, padding=0):
    """Never pads v: windows start at (i*s, j*s) of the unpadded v, so with padding every window is shifted by p and the last ones run off the edge."""
    N, C_in, H, W = v.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for i in range(OH):
        for j in range(OW):
            win = v[:, :, i * stride:i * stride + K, j * stride:j * stride + K]
            kh, kw = win.shape[2], win.shape[3]
            ddy[:, :, i, j] = np.einsum("nckl,ockl->no", win, w[:, :, :kh, :kw])
            dw[:, :, :kh, :kw] += np.einsum("no,nckl->ockl", dy[:, :, i, j], win)
    return ddy, dw


def wrong_weight_channels_transposed(w, dy, v, stride=1, padding=0):
    """Swaps the weight's channel axes (w.transpose(1, 0, 2, 3)) as in the transposed convolution that made dx, although <v, dx> = <conv2d(v, w), dy> uses w as it is."""
    N, C_in, H, W = v.shape
    _, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    wt = w.transpose(1, 0, 2, 3)  # (C_in, C_out, K, K)
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros(dy.shape)
    dwt = np.zeros(wt.shape)
    for i in range(OH):
        for j in range(OW):
            win = vp[:, :, i * s:i * s + K, j * s:j * s + K]
            ddy[:, :, i, j] = np.einsum("nckl,ockl->no", win, wt)
            dwt += np.einsum("no,nckl->ockl", dy[:, :, i, j], win)
    return ddy, dwt.transpose(1, 0, 2, 3)


def wrong_taps_loop_one_short(w, dy, v, stride=1, padding=0):
    """Loops the kernel taps with range(K - 1), so the last row and column of taps never contribute to ddy and get no dw."""
    N, C_in, H, W = v.shape
    C_out, _, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros_like(dy)
    dw = np.zeros_like(w)
    for ki in range(KH - 1):
        for kj in range(KW - 1):
            patch = vp[:, :, ki:ki + s * (OH - 1) + 1:s, kj:kj + s * (OW - 1) + 1:s]  # (N, C_in, OH, OW)
            ddy += np.einsum("nchw,oc->nohw", patch, w[:, :, ki, kj])
            dw[:, :, ki, kj] = np.einsum("nohw,nchw->oc", dy, patch)
    return ddy, dw


def wrong_columns_tap_major(w, dy, v, stride=1, padding=0):
    """Builds im2col of v with the rows in (ki, kj, c) order but flattens w and reshapes dw in (c, ki, kj) order, so taps and channels are paired wrongly when C_in > 1."""
    N, C_in, H, W = v.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, K, K, C_in, OH * OW))
    for ki in range(K):
        for kj in range(K):
            patch = vp[:, :, ki:ki + s * (OH - 1) + 1:s, kj:kj + s * (OW - 1) + 1:s]
            col[:, ki, kj] = patch.reshape(N, C_in, OH * OW)
    col = col.reshape(N, K * K * C_in, OH * OW)
    wm = w.reshape(C_out, -1)
    ddy = (wm @ col).reshape(dy.shape)
    dym = dy.reshape(N, C_out, OH * OW)
    dw = np.einsum("nop,nrp->or", dym, col).reshape(w.shape)
    return ddy, dw


def wrong_dw_batch_mean(w, dy, v, stride=1, padding=0):
    """Divides dw by the batch size, averaging the per-image weight gradients instead of summing them."""
    N = v.shape[0]
    C_out, C_in, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    win = vp[n, :, i * s:i * s + K, j * s:j * s + K]
                    ddy[n, o, i, j] = np.sum(win * w[o])
                    dw[o] += dy[n, o, i, j] * win
    return ddy, dw / N


def wrong_stride_spreads_taps(w, dy, v, stride=1, padding=0):
    """Confuses stride with dilation: window (i, j) starts at (i, j) and its taps are stride apart (i + ki*s), instead of starting at (i*s, j*s) with adjacent taps."""
    N, C_in, H, W = v.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    p, s = padding, stride
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for ki in range(K):
        for kj in range(K):
            patch = vp[:, :, ki * s:ki * s + OH, kj * s:kj * s + OW]
            ddy += np.einsum("nchw,oc->nohw", patch, w[:, :, ki, kj])
            dw[:, :, ki, kj] += np.einsum("nohw,nchw->oc", dy, patch)
    return ddy, dw
