"""Blind corpus: grouped_weight_matrix (fresh), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dense_tiled(w, groups):
    """Repeats each filter across every group's columns instead of leaving zeros off the diagonal blocks."""
    c_out = w.shape[0]
    return np.tile(w.reshape(c_out, -1), (1, groups))


def wrong_interleaved_groups(w, groups):
    """Assigns output channel o to group o % groups instead of o // (C_out/groups)."""
    c_out, cin_g, kh, kw = w.shape
    block = cin_g * kh * kw
    M = np.zeros((c_out, groups * block))
    for o in range(c_out):
        g = o % groups
        M[o, g * block:(g + 1) * block] = w[o].ravel()
    return M


def wrong_row_block_uses_cin(w, groups):
    """Sizes each group's block of rows with C_in/groups instead of C_out/groups."""
    c_out, cin_g, kh, kw = w.shape
    block = cin_g * kh * kw
    M = np.zeros((c_out, groups * block))
    for g in range(groups):
        rows = slice(g * cin_g, (g + 1) * cin_g)
        M[rows, g * block:(g + 1) * block] = w[rows].reshape(-1, block)
    return M


def wrong_block_reshape_then_transpose(w, groups):
    """Flattens each group's filters as (C_in/g*K*K, C_out/g) and transposes, scrambling which filter goes in which row."""
    c_out, cin_g, kh, kw = w.shape
    cout_g = c_out // groups
    block = cin_g * kh * kw
    M = np.zeros((c_out, groups * block))
    for g in range(groups):
        wg = w[g * cout_g:(g + 1) * cout_g]
        M[g * cout_g:(g + 1) * cout_g, g * block:(g + 1) * block] = wg.reshape(block, cout_g).T
    return M
