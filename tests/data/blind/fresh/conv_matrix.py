"""Blind corpus: conv_matrix (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_output_width_from_height(w, input_size, stride=1, padding=0):
    """Computed OW from the image height (H used twice), so non-square images get the wrong number of windows per row."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    k = w.shape[0]
    OH = (H + 2 * padding - k) // stride + 1
    OW = (H + 2 * padding - k) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for a in range(k):
                for b in range(k):
                    r = i * stride - padding + a
                    c = j * stride - padding + b
                    if 0 <= r < H and 0 <= c < W:
                        C[i * OW + j, r * W + c] = w[a, b]
    return C


def wrong_inclusive_upper_bound(w, input_size, stride=1, padding=0):
    """Tested the tap with 0 <= h <= H and 0 <= w <= W, so a tap one past the right edge wraps onto the next row (or past the end)."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            row = i * OW + j
            for ki in range(KH):
                for kj in range(KW):
                    h = i * stride - padding + ki
                    x = j * stride - padding + kj
                    if 0 <= h <= H and 0 <= x <= W:
                        C[row, h * W + x] = w[ki, kj]
    return C


def wrong_integer_matrix(w, input_size, stride=1, padding=0):
    """Made C with dtype=int, so every kernel value is truncated toward zero when it is stored."""
    H, W = input_size
    KH, KW = np.shape(w)
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    C = np.zeros((OH * OW, H * W), dtype=int)
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h = i * stride + ki - padding
                    c = j * stride + kj - padding
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki][kj]
    return C


def wrong_row_index_uses_oh(w, input_size, stride=1, padding=0):
    """Numbered output (i, j) as row i*OH + j instead of i*OW + j, which collides or overflows when OH != OW."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * stride - padding, j * stride - padding
            for ki in range(KH):
                for kj in range(KW):
                    if 0 <= h0 + ki < H and 0 <= w0 + kj < W:
                        C[i * OH + j, (h0 + ki) * W + (w0 + kj)] = w[ki, kj]
    return C
