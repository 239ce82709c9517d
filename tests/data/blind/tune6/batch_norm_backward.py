"""Blind corpus: batch_norm_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_m_is_batch_size(dy, x_hat, gamma, sigma):
    """Ports the fully-connected formula and uses M = N (the batch size) instead of N*H*W in the mean and variance terms of dx."""
    N, C, H, W = dy.shape
    dx = np.zeros_like(dy, dtype=float)
    dgamma = np.zeros(C)
    dbeta = np.zeros(C)
    for c in range(C):
        d = dy[:, c]
        xh = x_hat[:, c]
        dbeta[c] = d.sum()
        dgamma[c] = (d * xh).sum()
        M = N
        dx[:, c] = gamma[c] / sigma[c] * (d - dbeta[c] / M - xh * dgamma[c] / M)
    return dx, dgamma, dbeta


def wrong_sigma_read_as_variance(dy, x_hat, gamma, sigma):
    """Takes sigma for the variance and divides by np.sqrt(sigma) instead of sigma."""
    N, C, H, W = dy.shape
    M = N * H * W
    dbeta = np.einsum("nchw->c", dy)
    dgamma = np.einsum("nchw,nchw->c", dy, x_hat)
    std = np.sqrt(sigma)
    scale = (gamma / std)[None, :, None, None]
    dx = scale * (dy - dbeta[None, :, None, None] / M
                  - x_hat * dgamma[None, :, None, None] / M)
    return dx, dgamma, dbeta


def wrong_global_means_in_dx(dy, x_hat, gamma, sigma):
    """Sums dgamma and dbeta per channel, but in dx subtracts dy.mean() and (dy*x_hat).mean() taken over all axes, channels mixed."""
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    g = gamma.reshape(1, -1, 1, 1)
    s = sigma.reshape(1, -1, 1, 1)
    dx = g / s * (dy - dy.mean() - x_hat * (dy * x_hat).mean())
    return dx, dgamma, dbeta
