"""Blind corpus: conv_matrix (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_pixel_index_uses_height(w, input_size, stride=1, padding=0):
    """Numbers the pixels p = h*H + w (the image height as the row length) instead of h*W + w."""
    H, W = input_size
    K1, K2 = w.shape
    OH = (H + 2 * padding - K1) // stride + 1
    OW = (W + 2 * padding - K2) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K1):
                for kj in range(K2):
                    h = i * stride - padding + ki
                    c = j * stride - padding + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * H + c] = w[ki, kj]
    return C


def wrong_stride_spaces_taps(w, input_size, stride=1, padding=0):
    """Multiplies the tap offsets by the stride too (h = i*s - p + ki*s), as if the stride were a dilation."""
    H, W = input_size
    K1, K2 = w.shape
    OH = (H + 2 * padding - K1) // stride + 1
    OW = (W + 2 * padding - K2) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            row = i * OW + j
            for ki in range(K1):
                for kj in range(K2):
                    h = i * stride - padding + ki * stride
                    c = j * stride - padding + kj * stride
                    if 0 <= h < H and 0 <= c < W:
                        C[row, h * W + c] = w[ki, kj]
    return C


def wrong_clamps_padding_to_edge(w, input_size, stride=1, padding=0):
    """Clamps taps that fall on the padding onto the nearest edge pixel (replicate padding) instead of dropping them."""
    H, W = input_size
    K1, K2 = w.shape
    OH = (H + 2 * padding - K1) // stride + 1
    OW = (W + 2 * padding - K2) // stride + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K1):
                for kj in range(K2):
                    h = min(max(i * stride - padding + ki, 0), H - 1)
                    c = min(max(j * stride - padding + kj, 0), W - 1)
                    C[i * OW + j, h * W + c] += w[ki, kj]
    return C


def wrong_output_count_ignores_stride(w, input_size, stride=1, padding=0):
    """Counts the windows as H + 2p - K + 1 (the stride-1 formula), so a strided conv gets extra rows for windows past the image."""
    H, W = input_size
    K1, K2 = w.shape
    OH = H + 2 * padding - K1 + 1
    OW = W + 2 * padding - K2 + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K1):
                for kj in range(K2):
                    h = i * stride - padding + ki
                    c = j * stride - padding + kj
                    if 0 <= h < H and 0 <= c < W:
                        C[i * OW + j, h * W + c] = w[ki, kj]
    return C
