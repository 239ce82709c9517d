"""Blind corpus: linear_backward (right), written without reading the checker."""

import numpy as np


def right_einsum_indices(x, w, dy):
    """Writes each gradient as the lesson's index sum with np.einsum."""
    dx = np.einsum("no,oi->ni", dy, w)
    dw = np.einsum("no,ni->oi", dy, x)
    db = np.einsum("no->o", dy)
    return dx, dw, db


def right_transposed_products(x, w, dy):
    """Builds dx as (w^T dy^T)^T, dw as (x^T dy)^T, db as ones @ dy."""
    dx = (w.T @ dy.T).T
    dw = (x.T @ dy).T
    db = np.ones(dy.shape[0]) @ dy
    return dx, dw, db


def right_per_example_outer_loop(x, w, dy):
    """Loops over the examples, one outer product each, then np.add.reduce."""
    N = len(x)
    dx = np.stack([w.T @ dy[n] for n in range(N)])
    dw = np.add.reduce([np.outer(dy[n], x[n]) for n in range(N)])
    db = np.add.reduce([dy[n] for n in range(N)])
    return dx, dw, db
