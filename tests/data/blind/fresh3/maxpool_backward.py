"""Blind corpus: maxpool_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_fancy_assign(dy, argmax, input_shape):
    """Scatters with fancy assignment dx[n, c, argmax] = dy, so a pixel that wins several overlapping windows keeps only the last window's dy."""
    N, C, H, W = input_shape
    dx = np.zeros((N, C, H * W))
    flat_dy = dy.reshape(N, C, -1)
    flat_idx = argmax.reshape(N, C, -1)
    for n in range(N):
        for c in range(C):
            dx[n, c, flat_idx[n, c]] = flat_dy[n, c]
    return dx.reshape(input_shape)


def wrong_unravel_by_height(dy, argmax, input_shape):
    """Unravels the flat index with divmod(k, H) (the plane's height) instead of the width W."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    _, _, OH, OW = dy.shape
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    r, q = divmod(int(argmax[n, c, i, j]), H)
                    dx[n, c, r % H, q % W] += dy[n, c, i, j]
    return dx


def wrong_global_flat_index(dy, argmax, input_shape):
    """Treats argmax as an index into the whole flattened dx, so every plane's gradient lands in the first (n, c) plane."""
    dx = np.zeros(int(np.prod(input_shape)))
    np.add.at(dx, argmax.ravel(), dy.ravel())
    return dx.reshape(input_shape)


def wrong_last_window_row_skipped(dy, argmax, input_shape):
    """Loops the output rows with range(OH - 1), so the last row of windows never routes its dy."""
    N, C, H, W = input_shape
    _, _, OH, OW = dy.shape
    dx = np.zeros((N, C, H * W))
    for i in range(OH - 1):
        for j in range(OW):
            for n in range(N):
                for c in range(C):
                    dx[n, c, argmax[n, c, i, j]] += dy[n, c, i, j]
    return dx.reshape(input_shape)


def wrong_integer_canvas(dy, argmax, input_shape):
    """Allocates dx with argmax's integer dtype (np.zeros_like on the indices' dtype), so the routed gradients are truncated to integers."""
    N, C, H, W = input_shape
    dx = np.zeros((N, C, H * W), dtype=argmax.dtype)
    for n in range(N):
        for c in range(C):
            np.add.at(dx[n, c], argmax[n, c].ravel(), dy[n, c].ravel())
    return dx.reshape(input_shape)


def wrong_planes_channel_major(dy, argmax, input_shape):
    """Flattens the planes of dy and argmax channel-major (transpose(1, 0)) but dx batch-major, so gradients go to the wrong (n, c) plane when N and C are both > 1."""
    N, C, H, W = input_shape
    dx = np.zeros((N * C, H * W))
    d = dy.transpose(1, 0, 2, 3).reshape(N * C, -1)
    a = argmax.transpose(1, 0, 2, 3).reshape(N * C, -1)
    for p in range(N * C):
        np.add.at(dx[p], a[p], d[p])
    return dx.reshape(input_shape)
