"""Blind corpus: col2im_gather (tune9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_modulus_without_padding(cols, output_size, kernel_size, stride=1, padding=0, dilation=1):
    """Tests divisibility on r - ki*d (the padding left out of the % s test only), while the window index uses r + p - ki*d."""
    H, W = output_size
    K, s, p, d = kernel_size, stride, padding, dilation
    n, ckk, L = cols.shape
    C = ckk // (K * K)
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    out = np.zeros((n, C, H, W), dtype=cols.dtype)
    for c in range(C):
        for r in range(H):
            for q in range(W):
                total = np.zeros(n, dtype=cols.dtype)
                for ki in range(K):
                    if (r - ki * d) % s != 0:
                        continue
                    i = (r + p - ki * d) // s
                    if i < 0 or i >= OH:
                        continue
                    for kj in range(K):
                        if (q - kj * d) % s != 0:
                            continue
                        j = (q + p - kj * d) // s
                        if j < 0 or j >= OW:
                            continue
                        total += cols[:, c * K * K + ki * K + kj, i * OW + j]
                out[:, c, r, q] = total
    return out


def wrong_padding_sign(cols, output_size, kernel_size, stride=1, padding=0, dilation=1):
    """Builds 0/1 selection matrices with r - p == i*s + ki*d (the padding subtracted instead of added), so with padding every pixel reads windows shifted by 2p."""
    H, W = output_size
    K, s, p, d = kernel_size, stride, padding, dilation
    n, ckk, L = cols.shape
    C = ckk // (K * K)
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    k = np.arange(K)
    sel_h = (np.arange(H)[:, None, None] - p == np.arange(OH)[None, None, :] * s + k[None, :, None] * d).astype(cols.dtype)
    sel_w = (np.arange(W)[:, None, None] - p == np.arange(OW)[None, None, :] * s + k[None, :, None] * d).astype(cols.dtype)
    c6 = cols.reshape(n, C, K, K, OH, OW)
    return np.einsum("ncabij,rai,qbj->ncrq", c6, sel_h, sel_w)


def wrong_extent_d_times_k(cols, output_size, kernel_size, stride=1, padding=0, dilation=1):
    """Computes the window count with a kernel extent of d*K instead of d*(K-1)+1, so with dilation OH and OW come out one too small and the flat column index i*OW + j is off."""
    H, W = output_size
    K, s, p, d = kernel_size, stride, padding, dilation
    n, ckk, L = cols.shape
    C = ckk // (K * K)
    OH = (H + 2 * p - d * K) // s + 1
    OW = (W + 2 * p - d * K) // s + 1
    out = np.zeros((n, C, H, W), dtype=cols.dtype)
    rows = np.arange(C) * K * K
    for r in range(H):
        for q in range(W):
            for ki in range(K):
                a = r + p - ki * d
                if a % s or a < 0 or a // s >= OH:
                    continue
                for kj in range(K):
                    e = q + p - kj * d
                    if e % s or e < 0 or e // s >= OW:
                        continue
                    out[:, :, r, q] += cols[:, rows + ki * K + kj, (a // s) * OW + e // s]
    return out

