"""Blind corpus: grouped_weight_matrix (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_filters_in_every_group(w, groups):
    """Tiles each filter across all groups' columns, so the matrix is dense instead of block-diagonal."""
    c_out = w.shape[0]
    row = w.reshape(c_out, -1)
    return np.tile(row, (1, groups))


def wrong_group_by_modulo(w, groups):
    """Assigns output channel o to group o % groups (interleaved) instead of o // (C_out/groups)."""
    c_out, cin_g, kh, kw = w.shape
    block = cin_g * kh * kw
    M = np.zeros((c_out, groups * block))
    for o in range(c_out):
        g = o % groups
        M[o, g * block:(g + 1) * block] = w[o].reshape(-1)
    return M


def wrong_offset_without_taps(w, groups):
    """Places group g's block at column g*(C_in/g), forgetting that each input channel owns K*K columns."""
    c_out, cin_g, kh, kw = w.shape
    per = c_out // groups
    M = np.zeros((c_out, groups * cin_g * kh * kw))
    for g in range(groups):
        c0 = g * cin_g
        M[g * per:(g + 1) * per, c0:c0 + cin_g * kh * kw] = w[g * per:(g + 1) * per].reshape(per, -1)
    return M


def wrong_kron_whole_weight(w, groups):
    """Builds the block diagonal with np.kron(eye(groups), W) using the whole weight as every block, which repeats all filters per group and gives groups*C_out rows."""
    c_out = w.shape[0]
    return np.kron(np.eye(groups), w.reshape(c_out, -1))


def wrong_fortran_flatten(w, groups):
    """Flattens each filter with order='F', so the columns run (kj, ki, c) instead of (c, ki, kj)."""
    c_out, cin_g, kh, kw = w.shape
    per = c_out // groups
    block = cin_g * kh * kw
    M = np.zeros((c_out, groups * block))
    for o in range(c_out):
        g = o // per
        M[o, g * block:(g + 1) * block] = w[o].reshape(-1, order="F")
    return M


def wrong_integer_matrix(w, groups):
    """Allocates the matrix with dtype=int, so every weight is truncated toward zero when it is placed."""
    c_out, cin_g, kh, kw = w.shape
    per = c_out // groups
    block = cin_g * kh * kw
    M = np.zeros((c_out, groups * block), dtype=int)
    for g in range(groups):
        M[g * per:(g + 1) * per, g * block:(g + 1) * block] = w[g * per:(g + 1) * per].reshape(per, block)
    return M
