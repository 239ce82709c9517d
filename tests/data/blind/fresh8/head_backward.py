"""Blind corpus: head_backward (fresh8), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dw_from_preactivation(a, w, b, labels):
    """Computes dw from the pre-activation a instead of h = relu(a), the linear layer's actual input."""
    N, K = a.shape[0], w.shape[0]
    h = np.maximum(a, 0)
    z = np.einsum("nd,kd->nk", h, w) + b
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    dz = (p - np.eye(K)[labels]) / N
    dw = np.einsum("nk,nd->kd", dz, a)
    db = dz.sum(axis=0)
    dh = np.einsum("nk,kd->nd", dz, w)
    da = dh * (a > 0)
    return dz, dw, db, dh, da


def wrong_relu_grad_is_activation(a, w, b, labels):
    """Backpropagates through ReLU by multiplying dh by the activation h = relu(a) itself rather than by the 0/1 mask a > 0."""
    N = len(labels)
    h = np.maximum(a, 0)
    z = h @ w.T + b
    z -= z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dz = np.exp(logp)
    dz[np.arange(N), labels] -= 1
    dz /= N
    dw = dz.T @ h
    db = dz.sum(axis=0)
    dh = dz @ w
    da = dh * h
    return dz, dw, db, dh, da

