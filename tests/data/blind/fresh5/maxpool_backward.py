"""Blind corpus: maxpool_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_global_flat_index(dy, argmax, input_shape):
    """Treats argmax as a flat index into the whole dx tensor (np.add.at on dx.ravel()) instead of into plane (n, c), so every gradient lands in the first plane."""
    dx = np.zeros(input_shape)
    flat = dx.reshape(-1)
    np.add.at(flat, argmax.ravel(), dy.ravel())
    return flat.reshape(input_shape)


def wrong_average_overlaps(dy, argmax, input_shape):
    """Divides each pixel's summed gradient by the number of windows that picked it, averaging the overlapping windows' dy instead of adding them."""
    N, C, H, W = input_shape
    dx = np.zeros((N * C, H * W))
    count = np.zeros((N * C, H * W))
    idx = argmax.reshape(N * C, -1)
    g = dy.reshape(N * C, -1)
    for p in range(N * C):
        np.add.at(dx[p], idx[p], g[p])
        np.add.at(count[p], idx[p], 1.0)
    dx = np.where(count > 0, dx / np.maximum(count, 1), 0.0)
    return dx.reshape(input_shape)


def wrong_repeat_times_mask(dy, argmax, input_shape):
    """Assumes non-overlapping windows of size H//OH by W//OW: upsamples dy with np.repeat and multiplies by a 0/1 mask of the winners, so a pixel that wins several windows gets only one of their dy (and windows are guessed from the shapes)."""
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    kh, kw = H // OH, W // OW
    up = np.repeat(np.repeat(dy, kh, axis=2), kw, axis=3)
    grid = np.zeros(input_shape)
    grid[:, :, :up.shape[2], :up.shape[3]] = up
    mask = np.zeros((N * C, H * W))
    rows = np.arange(N * C)[:, None]
    mask[rows, argmax.reshape(N * C, -1)] = 1.0
    return grid * mask.reshape(input_shape)


def wrong_only_positive_dy(dy, argmax, input_shape):
    """Routes only the positive part of dy (np.maximum(dy, 0)), mixing max-pool up with ReLU, so negative upstream gradients are dropped."""
    N, C, H, W = input_shape
    dx = np.zeros((N, C, H * W))
    g = np.maximum(dy, 0)
    for n in range(N):
        for c in range(C):
            np.add.at(dx[n, c], argmax[n, c].ravel(), g[n, c].ravel())
    return dx.reshape(input_shape)


def wrong_integer_canvas(dy, argmax, input_shape):
    """Creates dx with argmax's integer dtype, so each += of a float dy is truncated toward zero."""
    N, C, OH, OW = dy.shape
    W = input_shape[3]
    dx = np.zeros(input_shape, dtype=argmax.dtype)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    r, q = divmod(int(argmax[n, c, i, j]), W)
                    dx[n, c, r, q] += dy[n, c, i, j]
    return dx


def wrong_plane_offset_order(dy, argmax, input_shape):
    """Flattens all planes into one vector but gives plane (n, c) the offset (c*N + n)*H*W, the batch and channel order swapped, so gradients go to the wrong image/channel."""
    N, C, H, W = input_shape
    n = np.arange(N)[:, None, None, None]
    c = np.arange(C)[None, :, None, None]
    glob = (c * N + n) * H * W + argmax
    out = np.zeros(N * C * H * W)
    np.add.at(out, glob.ravel(), dy.ravel())
    return out.reshape(input_shape)
