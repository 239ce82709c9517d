"""Blind corpus: col2im (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_divides_by_overlap(col, input_size, kernel_size, stride=1, padding=0,
                             dilation=1):
    """Scatter-adds per tap correctly but then divides every pixel by how many windows covered it, treating col2im as the inverse of im2col (an average of the copies) instead of its adjoint (their sum)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    canvas = np.zeros((N, C, H + 2 * p, W + 2 * p))
    count = np.zeros((H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            canvas[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s] += col[:, :, ki, kj]
            count[h0:h0 + s * OH:s, w0:w0 + s * OW:s] += 1
    canvas = canvas / np.maximum(count, 1)
    return canvas[:, :, p:p + H, p:p + W]


def wrong_flat_index_unpadded_width(col, input_size, kernel_size, stride=1,
                                    padding=0, dilation=1):
    """Vectorised with np.add.at on a flattened padded canvas, but the flat index is built as h*W + w with the unpadded width W instead of W + 2p, so with padding the sums land on the wrong pixels."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    Hp, Wp = H + 2 * p, W + 2 * p
    ki, kj, oh, ow = np.meshgrid(np.arange(K), np.arange(K), np.arange(OH),
                                 np.arange(OW), indexing="ij")
    h = oh * s + ki * d
    w = ow * s + kj * d
    flat = (h * W + w).ravel()
    canvas = np.zeros((N, C, Hp * Wp))
    vals = col.reshape(N, C, -1)
    for n in range(N):
        for c in range(C):
            np.add.at(canvas[n, c], flat, vals[n, c])
    canvas = canvas.reshape(N, C, Hp, Wp)
    return canvas[:, :, p:p + H, p:p + W]


def wrong_ow_read_from_oh_axis(col, input_size, kernel_size, stride=1,
                               padding=0, dilation=1):
    """Reads both window counts from the same axis (OW = col.shape[4]), so when OH != OW the last window columns are never scattered (or too few are)."""
    N, C, K = col.shape[0], col.shape[1], col.shape[2]
    OH = col.shape[4]
    OW = col.shape[4]
    H, W = input_size
    s, p, d = stride, padding, dilation
    canvas = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = oh * s + ki * d
                    w = ow * s + kj * d
                    canvas[:, :, h, w] += col[:, :, ki, kj, oh, ow]
    return canvas[:, :, p:p + H, p:p + W]


def wrong_stride_dilation_swapped(col, input_size, kernel_size, stride=1,
                                  padding=0, dilation=1):
    """Mixes up the roles of stride and dilation: taps are placed stride apart and windows dilation apart (pixel = oh*d + ki*s)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    canvas = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = oh * d + ki * s
                    w = ow * d + kj * s
                    canvas[:, :, h, w] += col[:, :, ki, kj, oh, ow]
    return canvas[:, :, p:p + H, p:p + W]


def wrong_integer_canvas(col, input_size, kernel_size, stride=1, padding=0,
                         dilation=1):
    """Allocates the canvas with dtype=int, so every scalar += is truncated to an integer and the gradients lose their fractional parts."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    canvas = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=int)
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for oh in range(OH):
                        for ow in range(OW):
                            h = oh * s + ki * d
                            w = ow * s + kj * d
                            canvas[n, c, h, w] += col[n, c, ki, kj, oh, ow]
    return canvas[:, :, p:p + H, p:p + W]


def wrong_padding_subtracted_twice(col, input_size, kernel_size, stride=1,
                                   padding=0, dilation=1):
    """Uses the unpadded pixel coordinate oh*s - p + ki*d as an index into the already padded canvas, so everything is shifted up-left by p (negative indices wrap to the far edge) before the crop."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    canvas = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = oh * s - p + ki * d
                    w = ow * s - p + kj * d
                    canvas[:, :, h, w] += col[:, :, ki, kj, oh, ow]
    return canvas[:, :, p:p + H, p:p + W]
