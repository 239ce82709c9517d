"""Blind corpus: col2im (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_crop_h_w_swapped(col, input_size, kernel_size, stride=1, padding=0,
                           dilation=1):
    """Scatter-adds correctly onto the padded canvas, then crops it with [p:p+W, p:p+H], H and W exchanged, which is wrong for non-square images."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    img = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            h0 = ki * d
            w0 = kj * d
            img[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s] += col[:, :, ki, kj]
    return img[:, :, p:p + W, p:p + H]


def wrong_padding_scaled_by_dilation(col, input_size, kernel_size, stride=1,
                                     padding=0, dilation=1):
    """Thinks a dilated kernel needs padding*dilation on each side: pads the canvas and crops by p*d instead of p, shifting every window when both are above 1."""
    N, C = col.shape[:2]
    OH, OW = col.shape[-2:]
    H, W = input_size
    K, s, d = kernel_size, stride, dilation
    pad = padding * d
    img = np.zeros((N, C, H + 2 * pad, W + 2 * pad))
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    for ki in range(K):
                        for kj in range(K):
                            h = i * s + ki * d
                            x = j * s + kj * d
                            if h < img.shape[2] and x < img.shape[3]:
                                img[n, c, h, x] += col[n, c, ki, kj, i, j]
    return img[:, :, pad:pad + H, pad:pad + W]


def wrong_averages_like_inverse(col, input_size, kernel_size, stride=1,
                                padding=0, dilation=1):
    """Treats col2im as the inverse of im2col: scatter-adds with np.add.at, then divides each pixel by how many windows covered it (the mean instead of the sum)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    ki = np.arange(K)[:, None, None, None]
    kj = np.arange(K)[None, :, None, None]
    i = np.arange(OH)[None, None, :, None]
    j = np.arange(OW)[None, None, None, :]
    rows = np.broadcast_to(i * s + ki * d, (K, K, OH, OW))
    cols = np.broadcast_to(j * s + kj * d, (K, K, OH, OW))
    img = np.zeros((N, C, H + 2 * p, W + 2 * p))
    count = np.zeros((H + 2 * p, W + 2 * p))
    np.add.at(img, (slice(None), slice(None), rows, cols), col)
    np.add.at(count, (rows, cols), 1)
    img = img / np.maximum(count, 1)
    return img[:, :, p:p + H, p:p + W]
