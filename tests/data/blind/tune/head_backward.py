"""Tuning answers: head_backward (tune). Written by the exercise's
author, who knows the checker: tuning material, never a blind measure."""

import numpy as np


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def wrong_forgot_the_mean(a, w, b, labels):
    """Wrote dz = softmax - onehot for the loss of each example, forgetting that cross_entropy averages over the batch."""
    h = np.maximum(a, 0)
    dz = _softmax(h @ w.T + b)
    dz[np.arange(len(a)), labels] -= 1
    dh = dz @ w
    return dz, dz.T @ h, dz.sum(0), dh, dh * (a > 0)


def wrong_relu_mask_from_the_gradient(a, w, b, labels):
    """Masked dh where it is positive, remembering 'ReLU lets positives through'."""
    n = len(a)
    h = np.maximum(a, 0)
    dz = _softmax(h @ w.T + b)
    dz[np.arange(n), labels] -= 1
    dz /= n
    dh = dz @ w
    return dz, dz.T @ h, dz.sum(0), dh, np.maximum(dh, 0)


def wrong_dw_as_h_transpose_dz(a, w, b, labels):
    """Wrote dw = h.T @ dz, the linear layer's weight gradient with the transpose on the wrong side."""
    n = len(a)
    h = np.maximum(a, 0)
    dz = _softmax(h @ w.T + b)
    dz[np.arange(n), labels] -= 1
    dz /= n
    dh = dz @ w
    return dz, h.T @ dz, dz.sum(0), dh, dh * (a > 0)


def wrong_softmax_down_the_columns(a, w, b, labels):
    """Normalised the exponentials with sum(axis=0), each class over the batch."""
    n = len(a)
    h = np.maximum(a, 0)
    z = h @ w.T + b
    e = np.exp(z - z.max(axis=0))
    dz = e / e.sum(axis=0)
    dz[np.arange(n), labels] -= 1
    dz /= n
    dh = dz @ w
    return dz, dz.T @ h, dz.sum(0), dh, dh * (a > 0)


def wrong_kink_passes(a, w, b, labels):
    """Used a >= 0 for the ReLU's mask, so the gradient passes at exactly 0."""
    n = len(a)
    h = np.maximum(a, 0)
    dz = _softmax(h @ w.T + b)
    dz[np.arange(n), labels] -= 1
    dz /= n
    dh = dz @ w
    return dz, dz.T @ h, dz.sum(0), dh, dh * (a >= 0)
