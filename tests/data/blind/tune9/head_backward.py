"""Blind corpus: head_backward (tune9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_fancy_onehot(a, w, b, labels):
    """Subtracts the one-hot with p[:, labels] -= 1, which subtracts 1 in every row at every label's column instead of once per row at its own label."""
    n = a.shape[0]
    h = np.maximum(a, 0)
    z = h @ w.T + b
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[:, labels] -= 1
    dz = p / n
    dw = dz.T @ h
    db = dz.sum(0)
    dh = dz @ w
    da = dh * (a > 0)
    return dz, dw, db, dh, da


def wrong_stops_at_probabilities(a, w, b, labels):
    """Differentiates -log p[t] with respect to p only (dz = -onehot / p / N), forgetting to chain through the softmax to the logits."""
    n, _ = a.shape
    k = w.shape[0]
    h = a * (a > 0)
    z = h @ w.T + b
    p = np.exp(z - z.max(1, keepdims=True))
    p = p / p.sum(1, keepdims=True)
    onehot = np.eye(k)[labels]
    dz = -onehot / p / n
    dw = dz.T @ h
    db = dz.sum(0)
    dh = dz @ w
    da = dh * (a > 0)
    return dz, dw, db, dh, da

