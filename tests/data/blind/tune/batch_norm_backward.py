"""Blind corpus: batch_norm_backward (tune), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_stats_as_constants(dy, x_hat, gamma, sigma):
    """Treats the mean and variance as constants: dx = dy * gamma / sigma, as in eval mode."""
    axes = (0, 2, 3)
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    dx = dy * (gamma / sigma)[None, :, None, None]
    return dx, dgamma, dbeta


def wrong_m_counts_every_channel(dy, x_hat, gamma, sigma):
    """Takes M as dy.size (N*C*H*W), so the mean and variance terms are C times too small."""
    axes = (0, 2, 3)
    m = dy.size
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    g = gamma[None, :, None, None]
    s = sigma[None, :, None, None]
    dx = g / s * (dy - dbeta[None, :, None, None] / m
                  - x_hat * dgamma[None, :, None, None] / m)
    return dx, dgamma, dbeta


def wrong_dgamma_dbeta_swapped_in_dx(dy, x_hat, gamma, sigma):
    """Mixes up the two sums in dx: subtracts dgamma/M as the constant term and x_hat * dbeta/M as the variance term."""
    n, c, h, w = dy.shape
    m = n * h * w
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    dx = np.empty_like(dy)
    for ch in range(c):
        dx[:, ch] = gamma[ch] / sigma[ch] * (
            dy[:, ch] - dgamma[ch] / m - x_hat[:, ch] * dbeta[ch] / m)
    return dx, dgamma, dbeta


def wrong_scale_on_direct_term_only(dy, x_hat, gamma, sigma):
    """Misplaces a parenthesis: gamma / sigma multiplies only dy, not the two subtracted terms."""
    ax = (0, 2, 3)
    g = gamma.reshape(1, -1, 1, 1)
    s = sigma.reshape(1, -1, 1, 1)
    dbeta = dy.sum(ax)
    dgamma = (dy * x_hat).sum(ax)
    dx = g / s * dy - dy.mean(ax, keepdims=True) - x_hat * (dy * x_hat).mean(ax, keepdims=True)
    return dx, dgamma, dbeta


def wrong_dgamma_dbeta_are_means(dy, x_hat, gamma, sigma):
    """Returns dgamma and dbeta as means over N, H, W instead of sums (dx is right, since it uses the means directly)."""
    ax = (0, 2, 3)
    dbeta = dy.mean(axis=ax)
    dgamma = (dy * x_hat).mean(axis=ax)
    dx = (gamma / sigma)[None, :, None, None] * (
        dy - dbeta[None, :, None, None] - x_hat * dgamma[None, :, None, None])
    return dx, dgamma, dbeta
