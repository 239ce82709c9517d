"""Blind corpus: batch_norm_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_count_all_elements(dy, x_hat, gamma, sigma):
    """Takes M as dy.size (N*C*H*W, every element of the batch) instead of N*H*W per channel, so the mean and variance terms are divided by C times too much."""
    axes = (0, 2, 3)
    m = dy.size
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    g = (gamma / sigma)[None, :, None, None]
    dx = g * (dy - dbeta[None, :, None, None] / m - x_hat * dgamma[None, :, None, None] / m)
    return dx, dgamma, dbeta


def wrong_variance_term_added(dy, x_hat, gamma, sigma):
    """Adds the variance's term x_hat * mean(dy * x_hat) instead of subtracting it (sign error in the derivative of 1/sigma)."""
    n, c, h, w = dy.shape
    m = n * h * w
    dbeta = np.einsum('nchw->c', dy)
    dgamma = np.einsum('nchw,nchw->c', dy, x_hat)
    dx = (gamma / sigma)[None, :, None, None] * (
        dy - dbeta[None, :, None, None] / m + x_hat * dgamma[None, :, None, None] / m
    )
    return dx, dgamma, dbeta


def wrong_divides_by_variance(dy, x_hat, gamma, sigma):
    """Scales dx by gamma / sigma**2 (dividing by the variance) instead of gamma / sigma."""
    n, c, h, w = dy.shape
    m = n * h * w
    dx = np.empty(dy.shape)
    dgamma = np.empty(c)
    dbeta = np.empty(c)
    for ch in range(c):
        d = dy[:, ch]
        xh = x_hat[:, ch]
        dbeta[ch] = d.sum()
        dgamma[ch] = (d * xh).sum()
        dx[:, ch] = gamma[ch] / sigma[ch] ** 2 * (d - dbeta[ch] / m - xh * dgamma[ch] / m)
    return dx, dgamma, dbeta


def wrong_dgamma_from_dxhat(dy, x_hat, gamma, sigma):
    """Works through dxhat = gamma * dy (right for dx) but then also forms dgamma from dxhat, sum(gamma * dy * x_hat), so dgamma carries an extra factor gamma."""
    axes = (0, 2, 3)
    g = gamma.reshape(1, -1, 1, 1)
    s = sigma.reshape(1, -1, 1, 1)
    dxhat = g * dy
    dbeta = dy.sum(axis=axes)
    dgamma = (dxhat * x_hat).sum(axis=axes)
    dx = (dxhat - dxhat.mean(axis=axes, keepdims=True)
          - x_hat * (dxhat * x_hat).mean(axis=axes, keepdims=True)) / s
    return dx, dgamma, dbeta


def wrong_unbiased_variance_term(dy, x_hat, gamma, sigma):
    """Divides the variance's term by M - 1 (Bessel's correction, the unbiased variance) instead of M, although training-mode batch norm uses the biased variance."""
    n, c, h, w = dy.shape
    m = n * h * w
    dbeta = dy.sum(axis=(0, 2, 3), keepdims=True)
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3), keepdims=True)
    dx = gamma[None, :, None, None] / sigma[None, :, None, None] * (
        dy - dbeta / m - x_hat * dgamma / (m - 1)
    )
    return dx, dgamma.reshape(c), dbeta.reshape(c)


def wrong_scale_broadcast_on_width(dy, x_hat, gamma, sigma):
    """Multiplies by gamma / sigma without reshaping it to (1, C, 1, 1), so NumPy broadcasts the (C,) scale along the last axis (W) instead of the channel axis."""
    axes = (0, 2, 3)
    m = dy.shape[0] * dy.shape[2] * dy.shape[3]
    dbeta = dy.sum(axis=axes, keepdims=True)
    dgamma = (dy * x_hat).sum(axis=axes, keepdims=True)
    dx = gamma / sigma * (dy - dbeta / m - x_hat * dgamma / m)
    return dx, dgamma.ravel(), dbeta.ravel()
