"""Blind corpus: col2im_gather (fresh9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_averages_overlaps(cols, output_size, kernel_size, stride=1, padding=0, dilation=1):
    """Divides each pixel's sum by the number of taps that land on it, treating col2im as the inverse of im2col instead of its adjoint."""
    H, W = output_size
    K, s, p, d = kernel_size, stride, padding, dilation
    n, ckk, L = cols.shape
    C = ckk // (K * K)
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    c6 = cols.reshape(n, C, K, K, OH, OW)
    out = np.zeros((n, C, H, W), dtype=cols.dtype)
    for r in range(H):
        for q in range(W):
            acc = 0.0
            hits = 0
            for ki in range(K):
                a = r + p - ki * d
                if a % s or not 0 <= a // s < OH:
                    continue
                for kj in range(K):
                    b = q + p - kj * d
                    if b % s or not 0 <= b // s < OW:
                        continue
                    acc = acc + c6[:, :, ki, kj, a // s, b // s]
                    hits += 1
            out[:, :, r, q] = acc / max(hits, 1)
    return out


def wrong_channel_offset_forgotten(cols, output_size, kernel_size, stride=1, padding=0, dilation=1):
    """Reads row ki*K + kj for every channel (the c*K*K offset forgotten), so all channels get channel 0's taps."""
    H, W = output_size
    K, s, p, d = kernel_size, stride, padding, dilation
    n, ckk, L = cols.shape
    C = ckk // (K * K)
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    out = np.zeros((n, C, H, W), dtype=cols.dtype)
    for b in range(n):
        for r in range(H):
            for q in range(W):
                for ki in range(K):
                    a = r + p - ki * d
                    if a % s != 0 or a < 0 or a // s >= OH:
                        continue
                    for kj in range(K):
                        e = q + p - kj * d
                        if e % s != 0 or e < 0 or e // s >= OW:
                            continue
                        out[b, :, r, q] += cols[b, ki * K + kj, (a // s) * OW + e // s]
    return out


def wrong_skips_first_window(cols, output_size, kernel_size, stride=1, padding=0, dilation=1):
    """Uses a strict lower bound 0 < i (and 0 < j), so the first window row and column never contribute."""
    H, W = output_size
    K, s, p, d = kernel_size, stride, padding, dilation
    n, ckk, L = cols.shape
    C = ckk // (K * K)
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    c6 = cols.reshape(n, C, K, K, OH, OW)
    out = np.zeros((n, C, H, W), dtype=cols.dtype)
    for r in range(H):
        for q in range(W):
            for ki in range(K):
                a = r + p - ki * d
                i = a // s
                if a % s != 0 or not 0 < i < OH:
                    continue
                for kj in range(K):
                    e = q + p - kj * d
                    j = e // s
                    if e % s != 0 or not 0 < j < OW:
                        continue
                    out[:, :, r, q] += c6[:, :, ki, kj, i, j]
    return out

