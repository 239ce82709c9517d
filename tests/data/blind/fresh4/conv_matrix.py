"""Blind corpus: conv_matrix (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_returns_transpose(w, input_size, stride=1, padding=0):
    """Builds C correctly but returns C.T, thinking the backward matrix is the one asked for."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * stride - padding + ki
                    c = j * stride - padding + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C.T


def wrong_column_major_pixels(w, input_size, stride=1, padding=0):
    """Numbers the pixels column by column, p = c*H + h, instead of row by row as ravel does."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            row = i * OW + j
            for ki in range(K):
                for kj in range(K):
                    h = i * stride - padding + ki
                    c = j * stride - padding + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[row, c * H + h] = w[ki, kj]
    return C


def wrong_window_start_unpadded(w, input_size, stride=1, padding=0):
    """Sizes the output with the padding but starts window (i, j) at (i*s, j*s), forgetting the - p."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * stride + ki
                    c = j * stride + kj
                    if h < H and c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C


def wrong_square_output_grid(w, input_size, stride=1, padding=0):
    """Computes OH from H and reuses it for OW, so non-square images get the wrong number of output columns."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = OH
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * stride - padding + ki
                    c = j * stride - padding + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C


def wrong_rows_flipped_vertically(w, input_size, stride=1, padding=0):
    """Puts w[K-1-ki, kj] at tap (ki, kj), flipping the kernel upside down (one axis) as if a convolution needed a flip."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    wf = w[::-1, :]
    C = np.zeros((OH * OW, H * W))
    k = 0
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * stride - padding + ki
                    c = j * stride - padding + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[k, h * W + c] = wf[ki, kj]
            k += 1
    return C


def wrong_padding_taps_wrap(w, input_size, stride=1, padding=0):
    """Checks only h < H and c < W, so a tap on the top/left padding gets a negative flat index and lands on a pixel at the other end."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * stride - padding + ki
                    c = j * stride - padding + kj
                    if h < H and c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C
