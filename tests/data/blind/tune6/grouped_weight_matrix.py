"""Blind corpus: grouped_weight_matrix (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dense_reshape(w, groups):
    """Takes C_in as w.shape[1] (forgetting that it is C_in/groups) and returns w.reshape(C_out, -1): no block structure, too few columns."""
    C_out = w.shape[0]
    C_in = w.shape[1]
    K = w.shape[2]
    return w.reshape(C_out, C_in * K * K)


def wrong_row_block_size(w, groups):
    """Cuts the rows into blocks of C_in/groups instead of C_out/groups, so when the two differ some output channels get the wrong block or none."""
    C_out, cig, KH, KW = w.shape
    C_in = cig * groups
    M = np.zeros((C_out, C_in * KH * KW))
    width = cig * KH * KW
    for g in range(groups):
        rows = slice(g * cig, (g + 1) * cig)
        cols = slice(g * width, (g + 1) * width)
        block = w[rows].reshape(-1, width)
        M[rows, cols] = block
    return M


def wrong_blocks_tiled(w, groups):
    """Repeats each filter across every group's columns (np.tile) instead of leaving zeros off the diagonal, as if every output channel read all input channels with the same weights."""
    C_out = w.shape[0]
    flat = w.reshape(C_out, -1)
    return np.tile(flat, (1, groups))
