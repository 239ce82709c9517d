"""Blind corpus: maxpool_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_no_plane_offset(dy, argmax, input_shape):
    """Scatters with np.add.at into the whole flattened dx using the per-plane flat indices, forgetting the (n, c) plane offset, so every gradient lands in plane (0, 0)."""
    dx = np.zeros(input_shape)
    flat = dx.reshape(-1)  # a view of dx
    np.add.at(flat, argmax.ravel(), dy.ravel())
    return dx


def wrong_row_col_unravel_swapped(dy, argmax, input_shape):
    """Unravels the flat index as row = k % W and col = k // W (the two parts swapped), so each gradient goes to the transposed position."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    n_idx, c_idx = np.meshgrid(np.arange(N), np.arange(C), indexing="ij")
    n_idx = np.broadcast_to(n_idx[:, :, None, None], argmax.shape)
    c_idx = np.broadcast_to(c_idx[:, :, None, None], argmax.shape)
    rows = argmax % W
    cols = argmax // W
    np.add.at(dx, (n_idx, c_idx, rows, cols), dy)
    return dx


def wrong_integer_canvas(dy, argmax, input_shape):
    """Creates dx with np.zeros_like-style dtype taken from argmax (int64), so each added dy is truncated towards zero when stored."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape, dtype=argmax.dtype)
    OH, OW = dy.shape[2:]
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    k = int(argmax[n, c, i, j])
                    r, q = divmod(k, W)
                    dx[n, c, r, q] += dy[n, c, i, j]
    return dx
