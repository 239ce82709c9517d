"""Blind corpus: batch_norm_backward (fresh), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_count_without_batch(dy, x_hat, gamma, sigma):
    """Sums over (0, 2, 3) but divides by M = H*W, forgetting the N images in the count."""
    N, C, H, W = dy.shape
    M = H * W
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    g = gamma.reshape(1, C, 1, 1)
    s = sigma.reshape(1, C, 1, 1)
    dx = g / s * (dy - dbeta.reshape(1, C, 1, 1) / M - x_hat * dgamma.reshape(1, C, 1, 1) / M)
    return dx, dgamma, dbeta


def wrong_variance_sign_and_no_gamma(dy, x_hat, gamma, sigma):
    """Adds the variance term instead of subtracting it, and leaves gamma out of dx."""
    axes = (0, 2, 3)
    dbeta = np.sum(dy, axis=axes)
    dgamma = np.sum(dy * x_hat, axis=axes)
    mean_dy = dy.mean(axis=axes, keepdims=True)
    mean_dyx = (dy * x_hat).mean(axis=axes, keepdims=True)
    dx = (dy - mean_dy + x_hat * mean_dyx) / sigma[None, :, None, None]
    return dx, dgamma, dbeta


def wrong_scale_broadcast_on_last_axis(dy, x_hat, gamma, sigma):
    """Multiplies by gamma / sigma of shape (C,) without reshaping, so it broadcasts along W instead of C."""
    m = dy.shape[0] * dy.shape[2] * dy.shape[3]
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    dxhat_centered = dy - dbeta[:, None, None] / m - x_hat * dgamma[:, None, None] / m
    dx = gamma / sigma * dxhat_centered
    return dx, dgamma, dbeta


def wrong_means_for_dgamma_dbeta(dy, x_hat, gamma, sigma):
    """Returns dgamma and dbeta as means over (N, H, W) instead of sums (dx itself is right)."""
    dbeta = dy.mean(axis=(0, 2, 3))
    dgamma = (dy * x_hat).mean(axis=(0, 2, 3))
    k = (gamma / sigma)[:, None, None]
    dx = k * (dy - dbeta[:, None, None] - x_hat * dgamma[:, None, None])
    return dx, dgamma, dbeta
