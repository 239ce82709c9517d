"""Blind corpus: conv_double_backward (fresh), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad.functional as F


def wrong_dw_in_out_swapped(w, dy, v, stride=1, padding=0):
    """Swaps dw's in/out channel axes, as dx's kernel is swapped, returning (C_in, C_out, K, K)."""
    C_out, C_in, K, _ = w.shape
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    col = F.unfold(v, K, padding=padding, stride=stride).data      # (N, C_in*K*K, L)
    g = dy.reshape(dy.shape[0], C_out, -1)                          # (N, C_out, L)
    dw = np.einsum("nol,nkl->ok", g, col).reshape(C_out, C_in, K, K)
    return ddy, dw.transpose(1, 0, 2, 3)


def wrong_negative_index_wraps(w, dy, v, stride=1, padding=0):
    """Reads v at h - padding without padding it, so negative rows wrap around to the far edge instead of being 0."""
    N, C_in, H, W = v.shape
    C_out, _, K, _ = w.shape
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    dw = np.zeros(w.shape)
    for n in range(N):
        for o in range(C_out):
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    for ki in range(K):
                        for kj in range(K):
                            h = i * stride + ki - padding
                            ww = j * stride + kj - padding
                            if h < H and ww < W:
                                dw[o, :, ki, kj] += dy[n, o, i, j] * v[n, :, h, ww]
    return ddy, dw


def wrong_dw_assigned_not_added(w, dy, v, stride=1, padding=0):
    """Writes dw[o] = dy * patch at each window instead of +=, keeping only the last window's term."""
    N, C_in, H, W = v.shape
    C_out, _, K, _ = w.shape
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    OH, OW = dy.shape[2], dy.shape[3]
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for n in range(N):
        for i in range(OH):
            for j in range(OW):
                patch = vp[n, :, i * stride:i * stride + K, j * stride:j * stride + K]
                for o in range(C_out):
                    ddy[n, o, i, j] = np.sum(w[o] * patch)
                    dw[o] = dy[n, o, i, j] * patch
    return ddy, dw


def wrong_ddy_ignores_padding(w, dy, v, stride=1, padding=0):
    """Computes ddy as conv2d(v, w) with the stride but without the padding; dw is right."""
    C_out, C_in, K, _ = w.shape
    ddy = F.conv2d(v, w, stride=stride).data
    col = F.unfold(v, K, padding=padding, stride=stride).data
    dw = np.einsum("nol,nkl->ok", dy.reshape(dy.shape[0], C_out, -1), col)
    return ddy, dw.reshape(w.shape)
