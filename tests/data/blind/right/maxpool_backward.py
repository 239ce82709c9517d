"""Blind corpus: maxpool_backward (right), written without reading the checker."""

import numpy as np


def right_bincount_with_plane_offsets(dy, argmax, input_shape):
    """Turns each plane's flat index into a global one and lets np.bincount do the adding."""
    N, C, H, W = input_shape
    dy = np.asarray(dy, dtype=float)
    a = np.asarray(argmax).astype(np.int64)
    offset = (np.arange(N * C) * (H * W)).reshape(N, C, 1, 1)
    flat = (a + offset).ravel()
    dx = np.bincount(flat, weights=dy.ravel(), minlength=N * C * H * W)
    return dx.reshape(N, C, H, W)


def right_one_hot_matrix(dy, argmax, input_shape):
    """Per plane, dx = dy_row @ one_hot(argmax): a (OH*OW, H*W) routing matrix, repeats summed by the product."""
    N, C, H, W = input_shape
    dy = np.asarray(dy, dtype=float)
    a = np.asarray(argmax).astype(np.int64)
    dx = np.empty((N, C, H * W))
    eye = np.eye(H * W)
    for n in range(N):
        for c in range(C):
            route = eye[a[n, c].ravel()]            # (OH*OW, H*W)
            dx[n, c] = dy[n, c].ravel() @ route
    return dx.reshape(N, C, H, W)


def right_loops_with_divmod(dy, argmax, input_shape):
    """Plain nested loops; the flat index is split with divmod(k, W) and added with +=."""
    N, C, H, W = input_shape
    dx = np.zeros((N, C, H, W))
    _, _, OH, OW = np.shape(dy)
    for c in range(C):
        for n in range(N):
            for j in range(OW):
                for i in range(OH):
                    r, q = divmod(int(argmax[n, c, i, j]), W)
                    dx[n, c, r, q] += dy[n, c, i, j]
    return dx
