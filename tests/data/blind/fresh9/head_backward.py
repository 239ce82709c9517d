"""Blind corpus: head_backward (fresh9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dw_from_preactivation(a, w, b, labels):
    """Builds dw from a, the input before the ReLU, instead of h = relu(a), the input the linear layer actually saw."""
    n = a.shape[0]
    h = np.maximum(a, 0)
    z = h @ w.T + b
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    onehot = np.zeros_like(p)
    onehot[np.arange(n), labels] = 1.0
    dz = (p - onehot) / n
    dw = np.einsum("nk,nd->kd", dz, a)
    db = dz.sum(axis=0)
    dh = np.einsum("nk,kd->nd", dz, w)
    da = np.where(a > 0, dh, 0.0)
    return dz, dw, db, dh, da


def wrong_sign_as_relu_derivative(a, w, b, labels):
    """Uses np.sign(a) as the ReLU's derivative, so negative inputs get -dh instead of 0."""
    n = len(labels)
    h = np.maximum(a, 0)
    z = h @ w.T + b
    z = z - z.max(1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    dz = p.copy()
    dz[np.arange(n), labels] -= 1
    dz /= n
    dw = dz.T @ h
    db = dz.sum(0)
    dh = dz @ w
    da = dh * np.sign(a)
    return dz, dw, db, dh, da

