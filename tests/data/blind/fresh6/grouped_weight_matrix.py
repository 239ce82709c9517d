"""Blind corpus: grouped_weight_matrix (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_group_by_modulo(w, groups):
    """Assigns output channel o to group o % groups (round robin) instead of o // (C_out/groups), so consecutive filters land in different blocks."""
    C_out, cin_g, K, _ = w.shape
    width = cin_g * K * K
    M = np.zeros((C_out, groups * width))
    for o in range(C_out):
        g = o % groups
        M[o, g * width:(g + 1) * width] = w[o].reshape(-1)
    return M


def wrong_row_block_size(w, groups):
    """Uses the per-group input channel count for the row blocks too: group g's filters are written to rows g*(C_in/g) onward instead of g*(C_out/g)."""
    C_out, cin_g, K, _ = w.shape
    cout_g = C_out // groups
    width = cin_g * K * K
    M = np.zeros((C_out, groups * width))
    for g in range(groups):
        block = w[g * cout_g:(g + 1) * cout_g].reshape(cout_g, width)
        r0 = g * cin_g
        M[r0:r0 + cout_g, g * width:(g + 1) * width] = block
    return M


def wrong_last_group_skipped(w, groups):
    """Loops over range(groups - 1), so the last group's block is never placed and its rows stay zero."""
    C_out, cin_g, K, _ = w.shape
    cout_g = C_out // groups
    flat = w.reshape(C_out, -1)
    M = np.zeros((C_out, groups * flat.shape[1]))
    for g in range(groups - 1):
        rows = slice(g * cout_g, (g + 1) * cout_g)
        cols = slice(g * flat.shape[1], (g + 1) * flat.shape[1])
        M[rows, cols] = flat[rows]
    return M


def wrong_dense_tiling(w, groups):
    """Repeats each filter across every group's columns (np.tile), a dense matrix instead of a block-diagonal one with zeros off the blocks."""
    C_out = w.shape[0]
    return np.tile(w.reshape(C_out, -1), (1, groups))
