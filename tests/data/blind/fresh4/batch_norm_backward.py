"""Blind corpus: batch_norm_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_count_per_image(dy, x_hat, gamma, sigma):
    """Sums over (0, 2, 3) but divides by M = H*W, the count of one image's plane, instead of N*H*W."""
    N, C, H, W = dy.shape
    M = H * W
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    g = (gamma / sigma)[None, :, None, None]
    dx = g * (dy - dbeta[None, :, None, None] / M - x_hat * dgamma[None, :, None, None] / M)
    return dx, dgamma, dbeta


def wrong_times_sigma(dy, x_hat, gamma, sigma):
    """Scales dx by gamma*sigma instead of gamma/sigma (multiplies by the standard deviation rather than dividing)."""
    M = dy.shape[0] * dy.shape[2] * dy.shape[3]
    dbeta = np.einsum("nchw->c", dy)
    dgamma = np.einsum("nchw,nchw->c", dy, x_hat)
    dx = (gamma * sigma)[:, None, None] * (dy - dbeta[:, None, None] / M - x_hat * dgamma[:, None, None] / M)
    return dx, dgamma, dbeta


def wrong_variance_term_uses_mean_dy(dy, x_hat, gamma, sigma):
    """Writes the variance's term as x_hat * mean(dy) instead of x_hat * mean(dy * x_hat)."""
    mean_dy = dy.mean(axis=(0, 2, 3), keepdims=True)
    dx = (gamma / sigma).reshape(1, -1, 1, 1) * (dy - mean_dy - x_hat * mean_dy)
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    dbeta = dy.sum(axis=(0, 2, 3))
    return dx, dgamma, dbeta


def wrong_gamma_broadcast_last_axis(dy, x_hat, gamma, sigma):
    """Multiplies by gamma / sigma of shape (C,) directly, so NumPy broadcasts it along W instead of along the channel axis."""
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    mean_dy = dy.mean(axis=(0, 2, 3), keepdims=True)
    mean_dyx = (dy * x_hat).mean(axis=(0, 2, 3), keepdims=True)
    dx = gamma / sigma * (dy - mean_dy - x_hat * mean_dyx)
    return dx, dgamma, dbeta


def wrong_dgamma_from_dxhat(dy, x_hat, gamma, sigma):
    """Goes through dxhat = dy * gamma first and then reuses dxhat for dgamma (sum of dxhat * x_hat), which carries an extra factor gamma."""
    N, C, H, W = dy.shape
    dx = np.empty_like(dy)
    dgamma = np.empty(C)
    dbeta = np.empty(C)
    for c in range(C):
        dxh = dy[:, c] * gamma[c]
        xh = x_hat[:, c]
        dbeta[c] = dy[:, c].sum()
        dgamma[c] = (dxh * xh).sum()
        dx[:, c] = (dxh - dxh.mean() - xh * (dxh * xh).mean()) / sigma[c]
    return dx, dgamma, dbeta


def wrong_unbiased_count(dy, x_hat, gamma, sigma):
    """Divides the variance's term by M - 1 (the unbiased variance's count) while batch norm uses the biased variance, M."""
    N, C, H, W = dy.shape
    M = N * H * W
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    shape = (1, C, 1, 1)
    dx = (gamma / sigma).reshape(shape) * (dy - dbeta.reshape(shape) / M - x_hat * dgamma.reshape(shape) / (M - 1))
    return dx, dgamma, dbeta
