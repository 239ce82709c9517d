"""Blind corpus: batch_norm_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_count_includes_channels(dy, x_hat, gamma, sigma):
    """Takes M as dy.size (N*C*H*W) instead of N*H*W, so the mean and variance shares are divided by C too many positions."""
    axes = (0, 2, 3)
    M = dy.size
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    g = gamma[None, :, None, None]
    s = sigma[None, :, None, None]
    dx = g / s * (dy - dbeta[None, :, None, None] / M - x_hat * dgamma[None, :, None, None] / M)
    return dx, dgamma, dbeta


def wrong_variance_term_added(dy, x_hat, gamma, sigma):
    """Adds the variance's share (x_hat * mean(dy * x_hat)) instead of subtracting it."""
    N, C, H, W = dy.shape
    dx = np.zeros_like(dy)
    dgamma = np.zeros(C)
    dbeta = np.zeros(C)
    for c in range(C):
        d = dy[:, c]
        xh = x_hat[:, c]
        dbeta[c] = d.sum()
        dgamma[c] = (d * xh).sum()
        dx[:, c] = gamma[c] / sigma[c] * (d - d.mean() + xh * (d * xh).mean())
    return dx, dgamma, dbeta


def wrong_divides_by_variance(dy, x_hat, gamma, sigma):
    """Divides by sigma**2 (the variance) instead of sigma in the factor gamma/sigma of dx."""
    axes = (0, 2, 3)
    dbeta = np.sum(dy, axis=axes)
    dgamma = np.sum(dy * x_hat, axis=axes)
    mean_dy = np.mean(dy, axis=axes, keepdims=True)
    mean_dyx = np.mean(dy * x_hat, axis=axes, keepdims=True)
    scale = (gamma / sigma**2).reshape(1, -1, 1, 1)
    dx = scale * (dy - mean_dy - x_hat * mean_dyx)
    return dx, dgamma, dbeta


def wrong_terms_swapped(dy, x_hat, gamma, sigma):
    """Mixes up the two subtracted terms: multiplies x_hat by mean(dy) and subtracts mean(dy * x_hat) as the constant shift."""
    N, C, H, W = dy.shape
    M = N * H * W
    dbeta = np.einsum("nchw->c", dy)
    dgamma = np.einsum("nchw,nchw->c", dy, x_hat)
    dx = np.einsum("c,nchw->nchw", gamma / sigma, dy)
    dx -= np.einsum("c,nchw->nchw", gamma / sigma * dbeta / M, x_hat)
    dx -= (gamma / sigma * dgamma / M)[None, :, None, None]
    return dx, dgamma, dbeta
