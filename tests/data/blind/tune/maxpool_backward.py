"""Blind corpus: maxpool_backward (tune), written without reading the checker."""

import numpy as np


def wrong_row_col_from_divmod_reversed(dy, argmax, input_shape):
    """Unpacked divmod(k, W) the wrong way round: the column is used as the row and the row as the column."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    _, _, OH, OW = dy.shape
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    q, r = divmod(int(argmax[n, c, i, j]), W)
                    dx[n, c, r, q] += dy[n, c, i, j]
    return dx


def wrong_flat_index_into_whole_tensor(dy, argmax, input_shape):
    """Scatters with np.add.at into dx.ravel() using the per-plane index as if it were global: every plane lands in plane 0."""
    dx = np.zeros(int(np.prod(input_shape)))
    np.add.at(dx, np.asarray(argmax).ravel(), np.asarray(dy).ravel())
    return dx.reshape(input_shape)


def wrong_plane_offset_uses_output_size(dy, argmax, input_shape):
    """Offsets each plane by (n*C + c) * OH*OW instead of H*W when flattening the whole tensor."""
    N, C, H, W = input_shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx = np.zeros(N * C * H * W)
    for n in range(N):
        for c in range(C):
            base = (n * C + c) * OH * OW
            np.add.at(dx, base + argmax[n, c].ravel(), dy[n, c].ravel())
    return dx.reshape(N, C, H, W)


def wrong_dy_read_transposed(dy, argmax, input_shape):
    """Loops over (i, j) of argmax but reads dy[n, c, j, i]: swaps the output's rows and columns."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    _, _, OH, OW = argmax.shape
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    k = argmax[n, c, i, j]
                    dx[n, c, k // W, k % W] += dy[n, c, j, i]
    return dx


def wrong_bincount_without_minlength(dy, argmax, input_shape):
    """Uses np.bincount per plane but forgets minlength=H*W: crashes when the last pixels never win."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(C):
            counts = np.bincount(argmax[n, c].ravel(), weights=dy[n, c].ravel())
            dx[n, c] = counts.reshape(H, W)
    return dx
