"""Blind corpus: linear_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dx_uses_w_transpose(x, w, dy):
    """Computes dx = dy @ w.T (copying the forward's transpose), which has the wrong shape since w is (D_out, D_in)."""
    dx = dy @ w.T
    dw = dy.T @ x
    db = dy.sum(axis=0)
    return dx, dw, db


def wrong_db_sum_wrong_axis(x, w, dy):
    """Sums dy over the output features (axis 1) for db instead of over the batch (axis 0)."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.sum(axis=1)
    return dx, dw, db


def wrong_einsum_last_example(x, w, dy):
    """Builds dw with an einsum over a loop of examples but assigns instead of accumulating, so only the last example's outer product survives."""
    dx = np.einsum("no,oi->ni", dy, w)
    dw = np.zeros_like(w)
    for n in range(x.shape[0]):
        dw = np.einsum("o,i->oi", dy[n], x[n])
    db = dy.sum(0)
    return dx, dw, db


def wrong_dw_sign(x, w, dy):
    """Writes the weight gradient as the descent direction, dw = -dy.T @ x, pre-applying the minus sign of the update."""
    dx = dy @ w
    dw = -(dy.T @ x)
    db = dy.sum(0)
    return dx, dw, db


def wrong_elementwise_dw(x, w, dy):
    """Forms dw from the per-example mean of x broadcast against summed dy (outer product of the sums), i.e. sum(dy) ⊗ sum(x) instead of sum of per-example outer products."""
    dx = dy @ w
    dw = np.outer(dy.sum(0), x.sum(0))
    db = dy.sum(0)
    return dx, dw, db


def wrong_dx_with_bias_term(x, w, dy):
    """Treats the bias as if it fed into dx too, adding db to every row of dx's pre-image: dx = dy @ w + (dy.sum(1))[:, None]."""
    dx = dy @ w + dy.sum(axis=1, keepdims=True)
    dw = dy.T @ x
    db = dy.sum(0)
    return dx, dw, db
