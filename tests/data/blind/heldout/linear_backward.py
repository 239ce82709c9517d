"""Blind corpus: linear_backward (heldout), written without reading the checker."""

import numpy as np


def wrong_dw_from_dx(x, w, dy):
    """Uses the freshly computed dx in dw = dy.T @ dx instead of the input x."""
    dx = dy @ w
    dw = dy.T @ dx
    db = dy.sum(0)
    return dx, dw, db


def wrong_dw_outer_of_sums(x, w, dy):
    """Sums dy and x over the batch, then one outer product: not a sum of outers."""
    dx = dy @ w
    dw = np.outer(dy.sum(0), x.sum(0))
    db = dy.sum(0)
    return dx, dw, db


def wrong_returns_dw_first(x, w, dy):
    """Computes the three gradients right but returns (dw, dx, db)."""
    dx = dy @ w
    dw = dy.T @ x
    db = dy.sum(0)
    return dw, dx, db
