"""Blind corpus: maxpool_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_fancy_plus_equals(dy, argmax, input_shape):
    """Builds global flat indices correctly but scatters with fancy-indexed += (dx.flat[idx] += dy), so a pixel that wins several windows keeps only one dy."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    offsets = (np.arange(N * C) * H * W).reshape(N, C, 1, 1)
    idx = (argmax + offsets).ravel()
    dx.reshape(-1)[idx] += dy.ravel()
    return dx


def wrong_unravel_shape_swapped(dy, argmax, input_shape):
    """Unravels the flat index with np.unravel_index(k, (W, H)), i.e. rows of width H, so non-square planes route dy to the wrong pixel."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            r, q = np.unravel_index(argmax[n, c].ravel(), (W, H))
            np.add.at(dx[n, c], (r, q), dy[n, c].ravel())
    return dx


def wrong_no_plane_offset(dy, argmax, input_shape):
    """Adds into the flattened whole dx with the per-plane argmax as if it were a global index, so every image and channel lands in plane (0, 0)."""
    dx = np.zeros(input_shape)
    flat = dx.reshape(-1)
    np.add.at(flat, argmax.ravel(), dy.ravel())
    return flat.reshape(input_shape)


def wrong_assumes_2x2_pool(dy, argmax, input_shape):
    """Ignores input_shape and sizes dx as (N, C, 2*OH, 2*OW), as if every pool were kernel 2 stride 2, so the flat index is unravelled with the wrong width."""
    N, C, OH, OW = dy.shape
    H, W = 2 * OH, 2 * OW
    dx = np.zeros((N, C, H, W))
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    k = int(argmax[n, c, i, j])
                    r, q = divmod(k, W)
                    if r < H:
                        dx[n, c, r, q] += dy[n, c, i, j]
    return dx


def wrong_mean_over_repeats(dy, argmax, input_shape):
    """Divides each pixel's summed gradient by the number of windows it won, averaging the overlaps instead of adding them."""
    N, C, H, W = input_shape
    dx = np.zeros((N, C, H * W))
    for n in range(N):
        for c in range(C):
            sums = np.bincount(argmax[n, c].ravel(), weights=dy[n, c].ravel(), minlength=H * W)
            counts = np.bincount(argmax[n, c].ravel(), minlength=H * W)
            dx[n, c] = sums / np.maximum(counts, 1)
    return dx.reshape(input_shape)


def wrong_integer_canvas(dy, argmax, input_shape):
    """Makes the zero canvas with np.zeros_like(argmax, shape=input_shape), which is an integer array, so the routed dy values are truncated."""
    dx = np.zeros_like(argmax, shape=input_shape)
    N, C, H, W = input_shape
    for n in range(N):
        for c in range(C):
            plane = dx[n, c].reshape(-1)
            np.add.at(plane, argmax[n, c].ravel(), dy[n, c].ravel())
    return dx
