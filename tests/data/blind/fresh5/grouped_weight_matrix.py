"""Blind corpus: grouped_weight_matrix (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_groups_interleaved(w, groups):
    """Puts output channel o in group o % groups (round-robin) instead of o // (C_out/groups), so consecutive filters land in different blocks."""
    C_out, cin_g, K, _ = w.shape
    C_in = cin_g * groups
    M = np.zeros((C_out, C_in * K * K))
    block = cin_g * K * K
    for o in range(C_out):
        g = o % groups
        M[o, g * block:(g + 1) * block] = w[o].reshape(-1)
    return M


def wrong_offset_missing_channels(w, groups):
    """Starts block g at column g*K*K, forgetting that each group spans C_in/groups channels of K*K columns, so the blocks overlap near the left."""
    C_out, cin_g, K, _ = w.shape
    C_in = cin_g * groups
    cout_g = C_out // groups
    M = np.zeros((C_out, C_in * K * K))
    rows = w.reshape(C_out, -1)
    for g in range(groups):
        start = g * K * K
        M[g * cout_g:(g + 1) * cout_g, start:start + cin_g * K * K] = rows[g * cout_g:(g + 1) * cout_g]
    return M


def wrong_last_tap_row_missing(w, groups):
    """Loops the kernel rows with range(K - 1), so the last row of taps of every filter is never written (a 1x1 kernel gives all zeros)."""
    C_out, cin_g, K, _ = w.shape
    cout_g = C_out // groups
    M = np.zeros((C_out, cin_g * groups * K * K))
    for o in range(C_out):
        c0 = (o // cout_g) * cin_g
        for c in range(cin_g):
            for ki in range(K - 1):
                for kj in range(K):
                    M[o, ((c0 + c) * K + ki) * K + kj] = w[o, c, ki, kj]
    return M


def wrong_integer_canvas(w, groups):
    """Allocates the matrix with dtype=int, so every weight placed into it is truncated toward zero."""
    C_out, cin_g, K, _ = w.shape
    cout_g = C_out // groups
    M = np.zeros((C_out, groups * cin_g * K * K), dtype=int)
    width = cin_g * K * K
    for g in range(groups):
        M[g * cout_g:(g + 1) * cout_g, g * width:(g + 1) * width] = w[g * cout_g:(g + 1) * cout_g].reshape(cout_g, width)
    return M


def wrong_dense_tile(w, groups):
    """Tiles each filter across all the groups' columns (np.tile) instead of leaving zeros outside its own block, as if every output saw every input channel."""
    C_out = w.shape[0]
    return np.tile(w.reshape(C_out, -1), (1, groups))


def wrong_group_size_from_cin(w, groups):
    """Finds the group of output channel o as o // (C_in/groups) (w.shape[1]) instead of o // (C_out/groups), mixing up the input and output group sizes."""
    C_out, cin_g, K, _ = w.shape
    M = np.zeros((C_out, cin_g * groups * K * K))
    width = cin_g * K * K
    for o in range(C_out):
        g = o // cin_g
        M[o, g * width:(g + 1) * width] = w[o].ravel()
    return M
