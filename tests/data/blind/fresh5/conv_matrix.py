"""Blind corpus: conv_matrix (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_row_index_uses_oh(w, input_size, stride=1, padding=0):
    """Numbers the output rows k = i*OH + j instead of i*OW + j, so when the output is not square some windows share a row and others are left empty."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            row = i * OH + j
            if row >= OH * OW:
                continue
            for ki in range(K):
                for kj in range(K):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[row, h * W + c] = w[ki, kj]
    return C


def wrong_pixel_index_uses_height(w, input_size, stride=1, padding=0):
    """Numbers the pixels p = h*H + w with the image height instead of its width, which only works for square images (and runs off the end of C for tall ones)."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * H + c] = w[ki, kj]
    return C


def wrong_only_upper_bound_checked(w, input_size, stride=1, padding=0):
    """Skips taps past the bottom/right edge but forgets the top/left padding: taps at h = -1 or w = -1 give a negative column index that wraps around to the far end of the row of C."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if h < H and c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C


def wrong_taps_stepped_by_stride(w, input_size, stride=1, padding=0):
    """Vectorised over the taps, but spaces the kernel's taps by the stride as well as the windows (h = i*s - p + ki*s), so stride-2 windows read a spread-out kernel."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    C = np.zeros((OH * OW, H * W))
    i, j, ki, kj = np.meshgrid(np.arange(OH), np.arange(OW), np.arange(K),
                               np.arange(K), indexing="ij")
    h = i * s - p + ki * s
    c = j * s - p + kj * s
    inside = (h >= 0) & (h < H) & (c >= 0) & (c < W)
    rows = (i * OW + j)[inside]
    cols = (h * W + c)[inside]
    vals = np.broadcast_to(w, i.shape)[inside]
    np.add.at(C, (rows, cols), vals)
    return C


def wrong_clamps_to_edge(w, input_size, stride=1, padding=0):
    """Treats a tap on the padding as reading the nearest edge pixel (np.clip on h and w, i.e. replicate padding) instead of a zero, so it adds w[ki, kj] to border columns."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = int(np.clip(i * s - p + ki, 0, H - 1))
                    c = int(np.clip(j * s - p + kj, 0, W - 1))
                    C[i * OW + j, h * W + c] += w[ki, kj]
    return C


def wrong_output_size_without_padding(w, input_size, stride=1, padding=0):
    """Computes OH and OW as (H - K)//s + 1, leaving the padding out, so with padding C has too few rows and the windows that hang over the edge are missing."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H - K) // s + 1
    OW = (W - K) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C
