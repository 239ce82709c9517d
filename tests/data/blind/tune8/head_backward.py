"""Blind corpus: head_backward (tune8), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_onehot_rows(a, w, b, labels):
    """Subtracts the one-hot with p[labels] -= 1, which takes 1 off whole rows picked by the label values instead of one entry per row."""
    N = a.shape[0]
    h = np.maximum(a, 0)
    z = h @ w.T + b
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[labels] -= 1
    dz = p / N
    dw = dz.T @ h
    db = dz.sum(axis=0)
    dh = dz @ w
    da = dh * (a > 0)
    return dz, dw, db, dh, da


def wrong_bias_left_out(a, w, b, labels):
    """Recomputes the logits as h @ w.T without adding b, so the softmax (and every gradient after it) is taken at the wrong z."""
    N, D = a.shape
    K = w.shape[0]
    h = np.where(a > 0, a, 0.0)
    z = np.zeros((N, K))
    for n in range(N):
        for k in range(K):
            z[n, k] = np.dot(h[n], w[k])
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    dz = p.copy()
    for n in range(N):
        dz[n, labels[n]] -= 1.0
    dz /= N
    dw = dz.T @ h
    db = dz.sum(axis=0)
    dh = dz @ w
    da = dh * (a > 0)
    return dz, dw, db, dh, da

