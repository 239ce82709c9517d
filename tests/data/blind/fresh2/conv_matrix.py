"""Blind corpus: conv_matrix (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_outputs_by_column(w, input_size, stride=1, padding=0):
    """Numbers the output rows column by column, k = j*OH + i, instead of row by row as ravel does."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            k = j * OH + i
            for ki in range(KH):
                for kj in range(KW):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[k, h * W + c] = w[ki, kj]
    return C


def wrong_size_without_padding(w, input_size, stride=1, padding=0):
    """Starts windows at i*s - p but counts the outputs as (H - K)//s + 1, forgetting the 2p in the output size."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H - KH) // s + 1
    OW = (W - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C


def wrong_clamped_to_border(w, input_size, stride=1, padding=0):
    """Clips taps that fall on the padding onto the nearest border pixel with np.clip instead of dropping them, so border columns collect extra weights."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h = int(np.clip(i * s - p + ki, 0, H - 1))
                    c = int(np.clip(j * s - p + kj, 0, W - 1))
                    C[i * OW + j, h * W + c] += w[ki, kj]
    return C


def wrong_true_convolution(w, input_size, stride=1, padding=0):
    """Builds C with the mathematical convolution, w[K-1-ki, K-1-kj] at tap (ki, kj), instead of the correlation that conv2d computes."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[KH - 1 - ki, KW - 1 - kj]
    return C


def wrong_taps_strided(w, input_size, stride=1, padding=0):
    """Spaces the taps inside a window by the stride too (h = i*s - p + ki*s), as if stride were a dilation."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    rows = []
    for i in range(OH):
        for j in range(OW):
            row = np.zeros(H * W)
            for ki in range(KH):
                for kj in range(KW):
                    h = i * s - p + ki * s
                    c = j * s - p + kj * s
                    if 0 <= h < H and 0 <= c < W:
                        row[h * W + c] = w[ki, kj]
            rows.append(row)
    C[:] = np.array(rows)
    return C


def wrong_pixel_index_uses_h(w, input_size, stride=1, padding=0):
    """Numbers pixel (h, c) as h*H + c instead of h*W + c, mixing up the row length with the image height."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * H + c] = w[ki, kj]
    return C
