"""Blind corpus: grouped_weight_matrix (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_columns_tap_major(w, groups):
    """Flattens each block with the channel last, transpose(0, 2, 3, 1), so the columns run (ki, kj, c) instead of im2col's (c, ki, kj)."""
    C_out, cg, K, _ = w.shape
    og = C_out // groups
    blk = cg * K * K
    M = np.zeros((C_out, groups * blk))
    for g in range(groups):
        M[g * og:(g + 1) * og, g * blk:(g + 1) * blk] = w[g * og:(g + 1) * og].transpose(0, 2, 3, 1).reshape(og, blk)
    return M


def wrong_block_offset_in_channels(w, groups):
    """Starts block g at column g*(C_in/g), a channel index, instead of g*(C_in/g)*K*K, so blocks overlap when K > 1."""
    C_out, cg, K, _ = w.shape
    og = C_out // groups
    blk = cg * K * K
    M = np.zeros((C_out, groups * blk))
    for g in range(groups):
        c0 = g * cg
        M[g * og:(g + 1) * og, c0:c0 + blk] = w[g * og:(g + 1) * og].reshape(og, blk)
    return M


def wrong_first_block_repeated(w, groups):
    """Builds the block diagonal with np.kron(np.eye(groups), first_block), repeating group 0's filters in every group."""
    C_out, cg, K, _ = w.shape
    og = C_out // groups
    block = w[:og].reshape(og, cg * K * K)
    return np.kron(np.eye(groups), block)


def wrong_groups_reversed(w, groups):
    """Places the blocks on the anti-diagonal: output group g's block goes to the columns of input group groups-1-g."""
    C_out, cg, K, _ = w.shape
    og = C_out // groups
    blk = cg * K * K
    M = np.zeros((C_out, groups * blk))
    for g in range(groups):
        h = groups - 1 - g
        M[g * og:(g + 1) * og, h * blk:(h + 1) * blk] = w[g * og:(g + 1) * og].reshape(og, -1)
    return M


def wrong_dense_tiling(w, groups):
    """Tiles the flattened weight across all groups' columns, np.tile(W, groups), giving a dense matrix with no zero blocks."""
    C_out = w.shape[0]
    return np.tile(w.reshape(C_out, -1), (1, groups))


def wrong_integer_matrix(w, groups):
    """Allocates M with np.zeros(..., dtype=int), so the weights placed in it are truncated to integers."""
    C_out, cg, K, _ = w.shape
    og = C_out // groups
    blk = cg * K * K
    M = np.zeros((C_out, groups * blk), dtype=int)
    for o in range(C_out):
        g = o // og
        M[o, g * blk:(g + 1) * blk] = w[o].ravel()
    return M
