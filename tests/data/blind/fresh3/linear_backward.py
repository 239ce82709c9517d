"""Blind corpus: linear_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_bias_wrong_axis(x, w, dy):
    """Sums dy over the output axis instead of the batch axis for db, giving one number per example."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.sum(axis=1)
    return dx, dw, db


def wrong_everything_averaged(x, w, dy):
    """Divides all three gradients by the batch size, thinking every gradient of a batch must be averaged."""
    n = x.shape[0]
    dx = dy @ w / n
    dw = dy.T @ x / n
    db = dy.sum(axis=0) / n
    return dx, dw, db


def wrong_outer_of_sums(x, w, dy):
    """Sums dy and x over the batch first and takes their outer product for dw, which is only right for one example."""
    dx = dy @ w
    dw = np.outer(dy.sum(axis=0), x.sum(axis=0))
    db = dy.sum(axis=0)
    return dx, dw, db


def wrong_relu_mask_in_dx(x, w, dy):
    """Carries the ReLU mask from the previous section into the linear layer, zeroing dx where x <= 0."""
    dx = (dy @ w) * (x > 0)
    dw = dy.T @ x
    db = dy.sum(axis=0)
    return dx, dw, db


def wrong_reshape_not_transpose(x, w, dy):
    """Computes x.T @ dy for dw and fixes its shape with reshape instead of transposing it."""
    dx = dy @ w
    dw = (x.T @ dy).reshape(w.shape)
    db = dy.sum(axis=0)
    return dx, dw, db


def wrong_loop_overwrites_dw(x, w, dy):
    """Loops over the examples but assigns dw and db instead of adding, so only the last example's gradient is kept."""
    n = x.shape[0]
    dx = np.zeros_like(x)
    dw = np.zeros_like(w)
    db = np.zeros(w.shape[0])
    for k in range(n):
        dx[k] = w.T @ dy[k]
        dw = np.outer(dy[k], x[k])
        db = dy[k].copy()
    return dx, dw, db
