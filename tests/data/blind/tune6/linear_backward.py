"""Blind corpus: linear_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_db_wrong_axis(x, w, dy):
    """Sums dy over the output axis (`dy.sum(axis=1)`) instead of over the batch, so db has one entry per example instead of one per output."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.sum(axis=1)
    return dx, dw, db


def wrong_dw_reshaped(x, w, dy):
    """Computes `x.T @ dy` (shape (D_in, D_out)) and fixes the shape with `.reshape(w.shape)` instead of a transpose, so dw has the right shape but scrambled entries."""
    dx = np.einsum("no,oi->ni", dy, w)
    dw = (x.T @ dy).reshape(w.shape)
    db = np.einsum("no->o", dy)
    return dx, dw, db


def wrong_loops_from_one(x, w, dy):
    """Loops over the examples with `range(1, N)` (1-based habit), so the first example never contributes to dw or db and its dx row stays zero."""
    N, D_in = x.shape
    D_out = w.shape[0]
    dx = np.zeros((N, D_in))
    dw = np.zeros((D_out, D_in))
    db = np.zeros(D_out)
    for n in range(1, N):
        for o in range(D_out):
            db[o] += dy[n, o]
            for i in range(D_in):
                dx[n, i] += dy[n, o] * w[o, i]
                dw[o, i] += dy[n, o] * x[n, i]
    return dx, dw, db
