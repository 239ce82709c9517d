"""Blind corpus: maxpool_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_plane_offset_from_dy(dy, argmax, input_shape):
    """Flattens dx globally and offsets each (n, c) plane by OH*OW (dy's plane size) instead of H*W, so later planes land in the wrong place."""
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(N * C * H * W)
    plane = (np.arange(N)[:, None] * C + np.arange(C)[None, :]) * (OH * OW)
    flat = argmax + plane[:, :, None, None]
    np.add.at(dx, flat.ravel(), dy.ravel())
    return dx.reshape(input_shape)


def wrong_no_plane_offset(dy, argmax, input_shape):
    """Bincounts all planes' indices together without a per-plane offset, so every (n, c) plane gets the sum of all planes' gradients."""
    N, C, H, W = input_shape
    summed = np.bincount(argmax.ravel(), weights=dy.ravel(), minlength=H * W)
    dx = np.zeros(input_shape)
    dx[:, :] = summed.reshape(H, W)
    return dx


def wrong_averages_repeated_picks(dy, argmax, input_shape):
    """Divides each pixel's total by how many windows picked it, averaging the gradient instead of summing it."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            total = np.bincount(argmax[n, c].ravel(), weights=dy[n, c].ravel(), minlength=H * W)
            hits = np.bincount(argmax[n, c].ravel(), minlength=H * W)
            dx[n, c] = (total / np.maximum(hits, 1)).reshape(H, W)
    return dx


def wrong_first_sample_indices(dy, argmax, input_shape):
    """Uses argmax[0] (the first sample's indices) for every sample in the batch."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            plane = dx[n, c].reshape(-1)
            np.add.at(plane, argmax[0, c].ravel(), dy[n, c].ravel())
    return dx


def wrong_integer_dx(dy, argmax, input_shape):
    """Allocates dx with argmax's integer dtype, so every routed gradient is truncated toward zero."""
    N, C, H, W = input_shape
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape, dtype=argmax.dtype)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    k = argmax[n, c, i, j]
                    dx[n, c, k // W, k % W] += dy[n, c, i, j]
    return dx


def wrong_dy_transposed_flatten(dy, argmax, input_shape):
    """Flattens dy's plane through a transpose (column-major) but argmax's row-major, so gradients are paired with the wrong windows' indices."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            plane = dx[n, c].reshape(-1)
            np.add.at(plane, argmax[n, c].ravel(), dy[n, c].T.ravel())
    return dx
