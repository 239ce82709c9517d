"""Blind corpus: conv_matrix (tune), written without reading the checker."""
import math

import numpy as np


def wrong_returns_transpose(w, input_size, stride=1, padding=0):
    """Builds C with rows as pixels and columns as outputs (returns C transposed, H*W x OH*OW)."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((H * W, OH * OW))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h, c = i * s - p + ki, j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[h * W + c, i * OW + j] = w[ki, kj]
    return C


def wrong_pixel_row_length_is_height(w, input_size, stride=1, padding=0):
    """Numbers pixels p = h*H + w (the row length taken as H instead of W): wrong columns for non-square images."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h, c = i * s - p + ki, j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * H + c] = w[ki, kj]
    return C


def wrong_bounds_check_off_by_one(w, input_size, stride=1, padding=0):
    """Bounds test 0 <= h <= H and 0 <= w <= W: taps one past the bottom/right edge land on the next row's pixel or crash."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            k = i * OW + j
            for ki in range(KH):
                for kj in range(KW):
                    h = i * s - p + ki
                    c = j * s - p + kj
                    if 0 <= h <= H and 0 <= c <= W:
                        C[k, h * W + c] = w[ki, kj]
    return C


def wrong_taps_spaced_by_stride(w, input_size, stride=1, padding=0):
    """Places tap (ki, kj) at ((i + ki) * s - p, (j + kj) * s - p): the taps are spread out by the stride too."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h, c = (i + ki) * s - p, (j + kj) * s - p
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C


def wrong_square_output_assumed(w, input_size, stride=1, padding=0):
    """Two bugs: OW computed from H, and output row k = i*OH + j: both only right when the image is square."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (H + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h, c = i * s - p + ki, j * s - p + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OH + j, h * W + c] = w[ki, kj]
    return C
