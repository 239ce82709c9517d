"""Blind corpus: conv_matrix (heldout), written without reading the checker."""
import math

import numpy as np


def wrong_out_size_missing_plus_one(w, input_size, stride=1, padding=0):
    """OH = (H + 2p - K) // s without the + 1: the last row and column of windows are missing."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s
    OW = (W + 2 * p - KW) // s
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h, c = i * s - p + ki, j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C


def wrong_out_size_rounded_up(w, input_size, stride=1, padding=0):
    """OH = ceil((H + 2p - K) / s) + 1: when the stride does not divide evenly, an extra window hangs past the image."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = math.ceil((H + 2 * p - KH) / s) + 1
    OW = math.ceil((W + 2 * p - KW) / s) + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h, c = i * s - p + ki, j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C


def wrong_integer_matrix(w, input_size, stride=1, padding=0):
    """Allocates C with dtype=int (like an overlap-count map), so the kernel's values are truncated toward zero."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W), dtype=int)
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h, c = i * s - p + ki, j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C
