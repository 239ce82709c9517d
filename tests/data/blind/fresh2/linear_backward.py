"""Blind corpus: linear_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dw_reshaped_not_transposed(x, w, dy):
    """Computes x.T @ dy (shape (D_in, D_out)) and reshapes it to w's shape instead of transposing it, so the shape fits but the entries are scrambled."""
    dx = dy @ w
    dw = (x.T @ dy).reshape(w.shape)
    db = dy.sum(axis=0)
    return dx, dw, db


def wrong_db_sums_outputs(x, w, dy):
    """Sums dy over the output axis (axis=1) for db instead of over the batch axis, giving one number per example instead of one per output."""
    dx = np.dot(dy, w)
    dw = np.dot(dy.T, x)
    db = np.sum(dy, axis=1)
    return dx, dw, db


def wrong_relu_mask_in_dx(x, w, dy):
    """Carries the ReLU mask from the previous section into the linear layer: dx is multiplied by (x > 0), although y = x w^T + b has no kink."""
    dx = (dy @ w) * (x > 0)
    dw = dy.T @ x
    db = dy.sum(0)
    return dx, dw, db


def wrong_outer_of_batch_sums(x, w, dy):
    """Sums dy and x over the batch first and takes the outer product of the sums for dw, which is the sum of products only when N = 1."""
    dx = np.einsum("no,oi->ni", dy, w)
    dw = np.outer(dy.sum(0), x.sum(0))
    db = dy.sum(0)
    return dx, dw, db


def wrong_loop_bound_din(x, w, dy):
    """Explicit loops where the output-unit loop runs to D_in (x.shape[1]) instead of D_out, so it skips outputs when D_in < D_out and indexes past dy when D_in > D_out."""
    N, D_in = x.shape
    D_out = w.shape[0]
    dx = np.zeros((N, D_in))
    dw = np.zeros((D_out, D_in))
    db = np.zeros(D_out)
    for n in range(N):
        for o in range(D_in):
            db[o] += dy[n, o]
            for i in range(D_in):
                dx[n, i] += dy[n, o] * w[o, i]
                dw[o, i] += dy[n, o] * x[n, i]
    return dx, dw, db


def wrong_dx_transposed(x, w, dy):
    """Writes dx as w.T @ dy.T, which is (D_in, N): dx transposed, never turned back into x's shape."""
    dx = w.T @ dy.T
    dw = dy.T @ x
    db = dy.sum(axis=0)
    return dx, dw, db
