"""Blind corpus: im2col (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_width_from_height(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computed the number of window positions from H only and used it for both axes."""
    N, C, H, W = x.shape
    k = kernel_size
    out = (H + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    col = np.zeros((N, C, k, k, out, out))
    for ki in range(k):
        for kj in range(k):
            for oh in range(out):
                for ow in range(out):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * stride + ki * dilation, ow * stride + kj * dilation]
    return col


def wrong_padding_subtracted_on_padded_image(x, kernel_size, stride=1, padding=0, dilation=1):
    """Used the formula h = oh*s - p + ki*d but indexed the already padded image with it."""
    N, C, H, W = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (k - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (k - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, k, k, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(k):
                for kj in range(k):
                    h = oh * s - p + ki * d
                    w = ow * s - p + kj * d
                    col[:, :, ki, kj, oh, ow] = xp[:, :, h, w]
    return col


def wrong_reshape_instead_of_transpose(x, kernel_size, stride=1, padding=0, dilation=1):
    """Stacked the patches window by window as (N, C, OH, OW, K, K) and reshaped to (N, C, K, K, OH, OW) without moving the axes."""
    N, C, H, W = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (k - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (k - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    patches = np.zeros((N, C, OH, OW, k, k))
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s, j * s
            patches[:, :, i, j] = xp[:, :, h0:h0 + d * (k - 1) + 1:d, w0:w0 + d * (k - 1) + 1:d]
    return patches.reshape(N, C, k, k, OH, OW)


def wrong_tap_rows_along_columns(x, kernel_size, stride=1, padding=0, dilation=1):
    """In the one-slice-per-tap version, let ki move along the columns and kj along the rows."""
    N, C, H, W = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (k - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (k - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.empty((N, C, k, k, OH, OW), dtype=x.dtype)
    for ki in range(k):
        for kj in range(k):
            r0, c0 = kj * d, ki * d
            col[:, :, ki, kj] = xp[:, :, r0:r0 + s * OH:s, c0:c0 + s * OW:s]
    return col
