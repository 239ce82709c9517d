"""Blind corpus: linear_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dw_reshape_not_transpose(x, w, dy):
    """Computes x.T @ dy (shape (D_in, D_out)) and fixes the shape with reshape(w.shape) instead of a transpose, so dw's entries land in scrambled positions."""
    dx = dy @ w
    dw = (x.T @ dy).reshape(w.shape)
    db = dy.sum(axis=0)
    return dx, dw, db


def wrong_overwrite_in_batch_loop(x, w, dy):
    """Loops over the examples and assigns dw and db with = instead of +=, so only the last example's contribution survives."""
    n = x.shape[0]
    dx = np.zeros_like(x)
    dw = np.zeros_like(w)
    db = np.zeros(w.shape[0])
    for i in range(n):
        dx[i] = dy[i] @ w
        dw = np.outer(dy[i], x[i])
        db = dy[i].copy()
    return dx, dw, db


def wrong_db_sums_output_axis(x, w, dy):
    """Sums dy over the output axis (axis 1) for db instead of over the batch, giving one number per example."""
    dx = np.einsum("no,oi->ni", dy, w)
    dw = np.einsum("no,ni->oi", dy, x)
    db = dy.sum(axis=1)
    return dx, dw, db


def wrong_loop_skips_first_example(x, w, dy):
    """Starts the batch loop at 1, so the first example never adds into dw and db."""
    n, d_in = x.shape
    d_out = w.shape[0]
    dx = dy @ w
    dw = np.zeros((d_out, d_in))
    db = np.zeros(d_out)
    for i in range(1, n):
        for o in range(d_out):
            db[o] += dy[i, o]
            for k in range(d_in):
                dw[o, k] += dy[i, o] * x[i, k]
    return dx, dw, db


def wrong_dx_summed_over_batch(x, w, dy):
    """Applies the 'shared across the batch, so sum over the batch' rule to dx too: every row of dx gets the batch-summed gradient."""
    dx_one = np.einsum("no,oi->i", dy, w)
    dx = np.broadcast_to(dx_one, x.shape).copy()
    dw = dy.T @ x
    db = dy.sum(0)
    return dx, dw, db


def wrong_batch_mean(x, w, dy):
    """Averages over the batch (divides dw and db by N), although the loss's mean already put the 1/N into dy."""
    n = x.shape[0]
    dx = dy @ w
    dw = dy.T @ x / n
    db = dy.mean(axis=0)
    return dx, dw, db
