"""Blind corpus: conv_matrix (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_output_size_without_padding(w, input_size, stride=1, padding=0):
    """Shifts the windows by -p but counts the outputs as (H - K)//s + 1, forgetting the 2p in the output size, so padded cases lose rows of C."""
    H, W = input_size
    KH, KW = w.shape
    OH = (H - KH) // stride + 1
    OW = (W - KW) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h = i * stride - padding + ki
                    x = j * stride - padding + kj
                    if 0 <= h < H and 0 <= x < W:
                        C[i * OW + j, h * W + x] = w[ki, kj]
    return C


def wrong_bounds_h_w_swapped(w, input_size, stride=1, padding=0):
    """Tests the row index against W and the column index against H when skipping padding taps, so non-square inputs drop real taps or wrap taps into the next row."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for k in range(OH * OW):
        i, j = divmod(k, OW)
        for ki in range(K):
            for kj in range(K):
                r = i * stride - padding + ki
                c = j * stride - padding + kj
                if 0 <= r < W and 0 <= c < H:
                    C[k, r * W + c] = w[ki, kj]
    return C


def wrong_integer_matrix(w, input_size, stride=1, padding=0):
    """Allocates C with dtype=int, so every kernel value written into it is truncated toward zero."""
    H, W = input_size
    KH, KW = w.shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    C = np.zeros((OH * OW, H * W), dtype=int)
    for i in range(OH):
        for j in range(OW):
            row = i * OW + j
            for ki in range(KH):
                h = i * stride - padding + ki
                if h < 0 or h >= H:
                    continue
                for kj in range(KW):
                    x = j * stride - padding + kj
                    if 0 <= x < W:
                        C[row, h * W + x] = w[ki, kj]
    return C
