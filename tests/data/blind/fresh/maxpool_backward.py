"""Blind corpus: maxpool_backward (fresh), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_global_flat_index(dy, argmax, input_shape):
    """Scatters the per-plane flat index into the whole flattened dx, so every plane's gradient lands in plane (0, 0)."""
    dx = np.zeros(input_shape)
    flat = dx.reshape(-1)
    np.add.at(flat, argmax.reshape(-1), dy.reshape(-1))
    return flat.reshape(input_shape)


def wrong_integer_dx(dy, argmax, input_shape):
    """Builds dx with the dtype of argmax (int64), so every += of a float dy is truncated."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape, dtype=argmax.dtype)
    for n in range(N):
        for c in range(C):
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    k = int(argmax[n, c, i, j])
                    dx[n, c, k // W, k % W] += dy[n, c, i, j]
    return dx


def wrong_averages_shared_winner(dy, argmax, input_shape):
    """Divides each pixel's summed gradient by how many windows picked it, like an average instead of a sum."""
    N, C, H, W = input_shape
    total = np.zeros((N, C, H * W))
    count = np.zeros((N, C, H * W))
    for n in range(N):
        for c in range(C):
            np.add.at(total[n, c], argmax[n, c].ravel(), dy[n, c].ravel())
            np.add.at(count[n, c], argmax[n, c].ravel(), 1.0)
    dx = total / np.maximum(count, 1.0)
    return dx.reshape(input_shape)


def wrong_loops_oh_for_ow(dy, argmax, input_shape):
    """Loops the output columns over range(OH) too, as if the pooled map were square."""
    N, C, H, W = input_shape
    OH = dy.shape[2]
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            plane = dx[n, c].reshape(-1)
            for i in range(OH):
                for j in range(OH):
                    plane[argmax[n, c, i, j]] += dy[n, c, i, j]
    return dx
