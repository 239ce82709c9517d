"""Blind corpus: grouped_weight_matrix (heldout), written without reading the checker."""

import numpy as np


def wrong_blocks_tiled_everywhere(w, groups):
    """Repeats each filter under every group's columns (np.tile), not just its own."""
    w = np.asarray(w)
    C_out = w.shape[0]
    return np.tile(w.reshape(C_out, -1), (1, groups))


def wrong_integer_matrix(w, groups):
    """Allocates M with dtype=int, so the float weights are truncated."""
    w = np.asarray(w)
    C_out, Cg, K, _ = w.shape
    Og = C_out // groups
    width = Cg * K * K
    M = np.zeros((C_out, groups * width), dtype=int)
    for g in range(groups):
        M[g * Og : (g + 1) * Og, g * width : (g + 1) * width] = w[
            g * Og : (g + 1) * Og
        ].reshape(Og, width)
    return M


def wrong_reshape_instead_of_transpose(w, groups):
    """Gets each block with reshape(Cg*K*K, Og).T, a reshape posing as transpose."""
    w = np.asarray(w)
    C_out, Cg, K, _ = w.shape
    Og = C_out // groups
    n = Cg * K * K
    M = np.zeros((C_out, groups * n))
    for g in range(groups):
        M[g * Og : (g + 1) * Og, g * n : (g + 1) * n] = (
            w[g * Og : (g + 1) * Og].reshape(n, Og).T
        )
    return M
