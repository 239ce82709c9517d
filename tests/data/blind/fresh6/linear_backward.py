"""Blind corpus: linear_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_bias_sum_wrong_axis(x, w, dy):
    """Sums dy over the output features (axis 1) for db instead of over the batch (axis 0), so db has one entry per example."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.sum(axis=1)
    return dx, dw, db


def wrong_dw_reshaped_not_transposed(x, w, dy):
    """Computes x.T @ dy (shape (in, out)) and reshapes it to w's shape instead of transposing it, scrambling dw."""
    dx = dy @ w
    dw = (x.T @ dy).reshape(w.shape)
    db = dy.sum(0)
    return dx, dw, db


def wrong_dw_loop_overwrites(x, w, dy):
    """Loops over the examples but assigns dw = outer(dy[n], x[n]) each time, so only the last example's dw survives."""
    n_examples = x.shape[0]
    dx = np.zeros_like(x)
    dw = np.zeros_like(w)
    db = np.zeros(w.shape[0])
    for n in range(n_examples):
        dx[n] = dy[n] @ w
        dw = np.outer(dy[n], x[n])
        db += dy[n]
    return dx, dw, db


def wrong_relu_mask_on_dx(x, w, dy):
    """Multiplies dx by the ReLU mask (x > 0) as if the linear layer had an activation on its input."""
    dx = np.einsum("no,oi->ni", dy, w) * (x > 0)
    dw = np.einsum("no,ni->oi", dy, x)
    db = dy.sum(axis=0)
    return dx, dw, db
