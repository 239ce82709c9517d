"""Blind corpus: linear_backward (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_db_summed_over_outputs(x, w, dy):
    """Summed dy over the output axis for db instead of over the batch."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.sum(axis=1)
    return dx, dw, db


def wrong_dw_outer_of_batch_sums(x, w, dy):
    """Summed dy and x over the batch first, then took one outer product for dw."""
    dx = dy @ w
    dw = np.outer(dy.sum(0), x.sum(0))
    db = dy.sum(0)
    return dx, dw, db


def wrong_db_added_in_inner_loop(x, w, dy):
    """Wrote loops and put db's += inside the innermost loop, so it is added once per input feature."""
    N, D_in = x.shape
    D_out = w.shape[0]
    dx = np.zeros((N, D_in))
    dw = np.zeros((D_out, D_in))
    db = np.zeros(D_out)
    for n in range(N):
        for o in range(D_out):
            for i in range(D_in):
                dx[n, i] += dy[n, o] * w[o, i]
                dw[o, i] += dy[n, o] * x[n, i]
                db[o] += dy[n, o]
    return dx, dw, db


def wrong_dw_reshaped_not_transposed(x, w, dy):
    """Computed x.T @ dy and reshaped it to w's shape instead of transposing it."""
    dx = dy @ w
    dw = (x.T @ dy).reshape(w.shape)
    db = np.sum(dy, axis=0)
    return dx, dw, db
