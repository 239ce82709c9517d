"""Blind corpus: conv_matrix (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_square_output(w, input_size, stride=1, padding=0):
    """Computes OW from H as well as OH, assuming a square image, so a non-square input gets the wrong number of rows (outputs)."""
    H, W = input_size
    K = w.shape[0]
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = OH
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = i * s - p + ki
                    x = j * s - p + kj
                    if 0 <= h < H and 0 <= x < W:
                        C[i * OW + j, h * W + x] = w[ki, kj]
    return C


def wrong_row_length_is_height(w, input_size, stride=1, padding=0):
    """Numbers pixels p = h*H + w (the image height used as the row length), which only agrees with ravel order on square images."""
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
                    x = j * s - p + kj
                    if 0 <= h < H and 0 <= x < W:
                        col = h * H + x
                        if col < H * W:
                            C[i * OW + j, col] = w[ki, kj]
    return C


def wrong_no_lower_bound(w, input_size, stride=1, padding=0):
    """Skips taps past the bottom/right edge but forgets h < 0 and w < 0, so taps on the top/left padding get negative column numbers that wrap onto real pixels."""
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
                    x = j * s - p + kj
                    if h < H and x < W:
                        C[i * OW + j, h * W + x] = w[ki, kj]
    return C


def wrong_padding_added(w, input_size, stride=1, padding=0):
    """Starts window (i, j) at (i*s + p, j*s + p) instead of (i*s - p, j*s - p): the padding shifts the windows the wrong way."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for k in range(OH * OW):
        i, j = divmod(k, OW)
        for ki in range(KH):
            for kj in range(KW):
                h = i * s + p + ki
                x = j * s + p + kj
                if 0 <= h < H and 0 <= x < W:
                    C[k, h * W + x] = w[ki, kj]
    return C


def wrong_stride_on_taps(w, input_size, stride=1, padding=0):
    """Spaces the kernel taps by the stride as well (h = i*s - p + ki*s), as if stride were also a dilation."""
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
                    h = i * s - p + ki * s
                    x = j * s - p + kj * s
                    if 0 <= h < H and 0 <= x < W:
                        C[i * OW + j, h * W + x] = w[ki, kj]
    return C


def wrong_padding_counted_once(w, input_size, stride=1, padding=0):
    """Uses OH = (H + p - K)//s + 1, counting the padding on one side only, so padded convolutions lose their last row and column of windows."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + p - KH) // s + 1
    OW = (W + p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    h = i * s - p + ki
                    x = j * s - p + kj
                    if 0 <= h < H and 0 <= x < W:
                        C[i * OW + j, h * W + x] = w[ki, kj]
    return C
