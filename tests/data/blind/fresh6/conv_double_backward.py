"""Blind corpus: conv_double_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_stride_as_tap_spacing(w, dy, v, stride=1, padding=0):
    """Puts the stride between the taps (rows i + ki*s) instead of between the windows (rows i*s + ki), for both ddy and dw."""
    O, C, K, _ = w.shape
    N, _, OH, OW = dy.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for ki in range(K):
        for kj in range(K):
            patch = vp[:, :, ki * s:ki * s + OH, kj * s:kj * s + OW]
            ddy += np.einsum("nchw,oc->nohw", patch, w[:, :, ki, kj])
            dw[:, :, ki, kj] = np.einsum("nchw,nohw->oc", patch, dy)
    return ddy, dw


def wrong_padding_offset_sign(w, dy, v, stride=1, padding=0):
    """Handles padding with a bounds check but starts window (i, j) at i*s + p instead of i*s - p on the unpadded v."""
    O, C, K, _ = w.shape
    N, _, OH, OW = dy.shape
    H, W = v.shape[2:]
    s, p = stride, padding
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    for c in range(C):
                        for ki in range(K):
                            for kj in range(K):
                                h = i * s + p + ki
                                q = j * s + p + kj
                                if 0 <= h < H and 0 <= q < W:
                                    ddy[n, o, i, j] += w[o, c, ki, kj] * v[n, c, h, q]
                                    dw[o, c, ki, kj] += dy[n, o, i, j] * v[n, c, h, q]
    return ddy, dw


def wrong_ddy_padding_forgotten(w, dy, v, stride=1, padding=0):
    """Gets dw right but computes ddy as conv2d(v, w, stride) without the padding, so ddy is too small when padding > 0."""
    K = w.shape[2]
    N, O, OH, OW = dy.shape
    s, p = stride, padding
    ddy = F.conv2d(v, w, stride=s).data
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    dw = np.zeros(w.shape)
    for ki in range(K):
        for kj in range(K):
            patch = vp[:, :, ki:ki + s * (OH - 1) + 1:s, kj:kj + s * (OW - 1) + 1:s]
            dw[:, :, ki, kj] = np.einsum("nohw,nchw->oc", dy, patch)
    return ddy, dw


def wrong_dw_from_ddy(w, dy, v, stride=1, padding=0):
    """Computes ddy = conv2d(v, w) correctly, then correlates v with that ddy instead of the given dy to get dw."""
    O, C, K, _ = w.shape
    s, p = stride, padding
    ddy = F.conv2d(v, w, stride=s, padding=p).data
    N, _, OH, OW = ddy.shape
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    dw = np.zeros(w.shape)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    window = vp[n, :, i * s:i * s + K, j * s:j * s + K]
                    dw[o] += ddy[n, o, i, j] * window
    return ddy, dw
