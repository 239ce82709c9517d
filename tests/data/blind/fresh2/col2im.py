"""Blind corpus: col2im (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_crop_top_left(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Crops the padded canvas as [:H, :W] instead of [p:p+H, p:p+W], keeping the top/left padding and dropping the real bottom/right pixels."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    xp[:, :, oh * s + ki * d, ow * s + kj * d] += col[:, :, ki, kj, oh, ow]
    return xp[:, :, :H, :W]


def wrong_slice_assign(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Writes each tap's strided slice with = instead of +=, so where windows overlap only the last tap's value is kept."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            xp[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s] = col[:, :, ki, kj]
    return xp[:, :, p:p + H, p:p + W]


def wrong_averages_overlaps(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Treats col2im as the inverse of im2col and divides every pixel by the number of windows that cover it."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    count = np.zeros((H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            xp[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s] += col[:, :, ki, kj]
            count[h0:h0 + s * OH:s, w0:w0 + s * OW:s] += 1
    xp = xp / np.maximum(count, 1)
    return xp[:, :, p:p + H, p:p + W]


def wrong_stride_dilation_swapped(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Places entry (ki, kj, oh, ow) at oh*d + ki*s, mixing up which of stride and dilation spaces the windows and which spaces the taps."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    out = np.zeros((N, C, H, W), dtype=col.dtype)
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                for ow in range(OW):
                    for ki in range(K):
                        for kj in range(K):
                            h = oh * d + ki * s - p
                            w = ow * d + kj * s - p
                            if 0 <= h < H and 0 <= w < W:
                                out[n, c, h, w] += col[n, c, ki, kj, oh, ow]
    return out


def wrong_square_canvas(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Builds the padded canvas and the crop from input_size[0] for both axes, as if every image were square."""
    N, C, K, _, OH, OW = col.shape
    H = input_size[0]
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, H + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    xp[:, :, oh * s + ki * d, ow * s + kj * d] += col[:, :, ki, kj, oh, ow]
    return xp[:, :, p:p + H, p:p + H]


def wrong_flipped_taps(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Scatters tap (ki, kj) of the columns to the position of tap (K-1-ki, K-1-kj), flipping the kernel because 'the backward pass flips it'."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            xp[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s] += col[:, :, K - 1 - ki, K - 1 - kj]
    return xp[:, :, p:p + H, p:p + W]
