"""Blind corpus: batch_norm_backward (heldout), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_scale_broadcast_on_width(dy, x_hat, gamma, sigma):
    """Multiplies by gamma / sigma without reshaping it to (1, C, 1, 1), so it broadcasts along W (or raises when W != C)."""
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    mean_dy = dy.mean(axis=(0, 2, 3), keepdims=True)
    mean_dyx = (dy * x_hat).mean(axis=(0, 2, 3), keepdims=True)
    dx = (gamma / sigma) * (dy - mean_dy - x_hat * mean_dyx)
    return dx, dgamma, dbeta


def wrong_unbiased_m_minus_1(dy, x_hat, gamma, sigma):
    """Divides the two sums by M - 1 (the unbiased count) instead of M."""
    n, c, h, w = dy.shape
    m = n * h * w
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = np.sum(dy * x_hat, axis=(0, 2, 3))
    scale = (gamma / sigma).reshape(1, c, 1, 1)
    dx = scale * (dy - dbeta.reshape(1, c, 1, 1) / (m - 1)
                  - x_hat * dgamma.reshape(1, c, 1, 1) / (m - 1))
    return dx, dgamma, dbeta


def wrong_variance_term_added(dy, x_hat, gamma, sigma):
    """Adds the variance's term x_hat * mean(dy * x_hat) instead of subtracting it."""
    axes = (0, 2, 3)
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    k = (gamma / sigma)[:, None, None]
    dx = k * (dy - dy.mean(axis=axes, keepdims=True)
              + x_hat * (dy * x_hat).mean(axis=axes, keepdims=True))
    return dx, dgamma, dbeta
