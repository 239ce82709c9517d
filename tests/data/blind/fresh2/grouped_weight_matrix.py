"""Blind corpus: grouped_weight_matrix (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_rows_sized_by_cin(w, groups):
    """Uses C_in/groups (w.shape[1]) as the number of rows per block too, confusing output channels per group with input channels per group."""
    C_out, cig, K, _ = w.shape
    C_in = cig * groups
    M = np.zeros((C_out, C_in * K * K))
    width = cig * K * K
    for g in range(groups):
        r0 = g * cig
        rows = slice(r0, min(r0 + C_out // groups, C_out))
        n = rows.stop - rows.start
        M[rows, g * width:(g + 1) * width] = w[rows].reshape(n, -1)
    return M


def wrong_kron_whole_weight(w, groups):
    """Builds the block diagonal as np.kron(np.eye(groups), w.reshape(C_out, -1)), repeating the whole weight in every block instead of giving each group its own filters."""
    C_out = w.shape[0]
    return np.kron(np.eye(groups), w.reshape(C_out, -1))


def wrong_group_by_modulo(w, groups):
    """Assigns output channel o to group o % groups (interleaved) instead of o // (C_out/groups) (contiguous blocks)."""
    C_out, cig, K, _ = w.shape
    M = np.zeros((C_out, groups * cig * K * K))
    width = cig * K * K
    for o in range(C_out):
        g = o % groups
        M[o, g * width:(g + 1) * width] = w[o].ravel()
    return M


def wrong_last_group_skipped(w, groups):
    """Loops over range(groups - 1), so the last group's block is never written and stays zero."""
    C_out, cig, K, _ = w.shape
    cog = C_out // groups
    width = cig * K * K
    M = np.zeros((C_out, groups * width))
    for g in range(groups - 1):
        M[g * cog:(g + 1) * cog, g * width:(g + 1) * width] = w[g * cog:(g + 1) * cog].reshape(cog, width)
    if groups == 1:
        M[:, :] = w.reshape(C_out, width)
    return M


def wrong_dense_reshape(w, groups):
    """Returns w.reshape(C_out, -1), taking the grouped weight itself for the matrix: no zero blocks, and only C_in/groups * K * K columns."""
    return w.reshape(w.shape[0], -1)


def wrong_block_reshaped_then_transposed(w, groups):
    """Fills each block with w_g.reshape(width, cog).T instead of w_g.reshape(cog, width), scrambling the filters' entries across rows and columns."""
    C_out, cig, K, _ = w.shape
    cog = C_out // groups
    width = cig * K * K
    M = np.zeros((C_out, groups * width))
    for g in range(groups):
        block = w[g * cog:(g + 1) * cog].reshape(width, cog).T
        M[g * cog:(g + 1) * cog, g * width:(g + 1) * width] = block
    return M
