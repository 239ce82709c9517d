"""Blind corpus: grouped_weight_matrix (right), written without reading the checker."""

import numpy as np


def right_scipy_block_diag(w, groups):
    """Splits the flat filters into groups and calls scipy.linalg.block_diag."""
    from scipy.linalg import block_diag

    w = np.asarray(w)
    C_out = w.shape[0]
    flat = w.reshape(C_out, -1)
    return block_diag(*np.split(flat, groups, axis=0))


def right_group_mask_outer(w, groups):
    """One-hot (C_out, groups) membership mask times the flat filters, flattened."""
    w = np.asarray(w)
    C_out = w.shape[0]
    flat = w.reshape(C_out, -1)
    member = np.eye(groups)[np.arange(C_out) // (C_out // groups)]  # (C_out, groups)
    return np.einsum("og,oj->ogj", member, flat).reshape(C_out, -1)


def right_elementwise_loops(w, groups):
    """Loops over every weight and computes its column from its input channel."""
    w = np.asarray(w)
    C_out, Cg, KH, KW = w.shape
    per_group = C_out // groups
    M = np.zeros((C_out, Cg * groups * KH * KW), dtype=w.dtype)
    for o in range(C_out):
        first = (o // per_group) * Cg
        for c in range(Cg):
            for ki in range(KH):
                for kj in range(KW):
                    col = ((first + c) * KH + ki) * KW + kj
                    M[o, col] = w[o, c, ki, kj]
    return M
