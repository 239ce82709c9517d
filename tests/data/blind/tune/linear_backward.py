"""Blind corpus: linear_backward (tune), written without reading the checker."""

import numpy as np


def wrong_db_mean_over_batch(x, w, dy):
    """Takes db as dy.mean(0), averaging over the batch instead of summing."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.mean(axis=0)
    return dx, dw, db


def wrong_dx_uses_w_transposed(x, w, dy):
    """Computes dx = dy @ w.T, copying the forward's transpose (shape error)."""
    dx = dy @ w.T
    dw = dy.T @ x
    db = dy.sum(axis=0)
    return dx, dw, db


def wrong_db_summed_over_features(x, w, dy):
    """Sums dy over axis 1 (features) instead of axis 0 (batch): db is (N,)."""
    dx = np.dot(dy, w)
    dw = np.dot(dy.T, x)
    db = np.sum(dy, axis=1)
    return dx, dw, db


def wrong_batch_loop_skips_last_example(x, w, dy):
    """Accumulates dw and db over range(N - 1), missing the last example."""
    N = x.shape[0]
    dx = dy @ w
    dw = np.zeros_like(w, dtype=float)
    db = np.zeros(w.shape[0])
    for n in range(N - 1):
        dw += np.outer(dy[n], x[n])
        db += dy[n]
    return dx, dw, db


def wrong_db_total_sum(x, w, dy):
    """Calls dy.sum() with no axis, so db is one scalar, not one per output."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.sum()
    return dx, dw, db
