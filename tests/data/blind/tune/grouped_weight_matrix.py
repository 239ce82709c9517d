"""Blind corpus: grouped_weight_matrix (tune), written without reading the checker."""

import numpy as np


def wrong_columns_tap_major(w, groups):
    """Flattens each block channel-last: columns (ki, kj, c), not (c, ki, kj)."""
    w = np.asarray(w)
    C_out, Cg, K, _ = w.shape
    Og = C_out // groups
    M = np.zeros((C_out, groups * Cg * K * K), dtype=w.dtype)
    for g in range(groups):
        block = w[g * Og : (g + 1) * Og].transpose(0, 2, 3, 1).reshape(Og, -1)
        M[g * Og : (g + 1) * Og, g * Cg * K * K : (g + 1) * Cg * K * K] = block
    return M


def wrong_block_width_from_out_channels(w, groups):
    """Steps column blocks by C_out/groups channels instead of C_in/groups."""
    w = np.asarray(w)
    C_out, Cg, K, _ = w.shape
    Og = C_out // groups
    M = np.zeros((C_out, groups * Cg * K * K))
    for o in range(C_out):
        g = o // Og
        c0 = g * Og * K * K
        M[o, c0 : c0 + Cg * K * K] = w[o].ravel()
    return M


def wrong_width_forgets_groups(w, groups):
    """Sizes M as (C_out, C_in/g*K*K), forgetting groups, then writes past it."""
    w = np.asarray(w)
    C_out, Cg, K, _ = w.shape
    Og = C_out // groups
    M = np.zeros((C_out, w.shape[1] * K * K))
    for o in range(C_out):
        g = o // Og
        for c in range(Cg):
            for ki in range(K):
                for kj in range(K):
                    M[o, (g * Cg + c) * K * K + ki * K + kj] = w[o, c, ki, kj]
    return M


def wrong_last_row_of_each_block_left_zero(w, groups):
    """Slices rows g*Og to (g+1)*Og - 1: one filter per group stays zero."""
    w = np.asarray(w)
    C_out, Cg, K, _ = w.shape
    Og = C_out // groups
    n = Cg * K * K
    flat = w.reshape(C_out, n)
    M = np.zeros((C_out, groups * n))
    for g in range(groups):
        r0, r1 = g * Og, (g + 1) * Og - 1
        M[r0:r1, g * n : (g + 1) * n] = flat[r0:r1]
    return M


def wrong_groups_ignored(w, groups):
    """Returns the dense w.reshape(C_out, -1) whatever groups is."""
    w = np.asarray(w)
    return w.reshape(w.shape[0], -1)
