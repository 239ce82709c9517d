"""Blind corpus: batch_norm_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_count_includes_channels(dy, x_hat, gamma, sigma):
    """Uses M = dy.size, counting every channel's positions, instead of N*H*W per channel in the two subtracted terms."""
    m = dy.size
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    g = (gamma / sigma)[None, :, None, None]
    dx = g * (dy - dbeta[None, :, None, None] / m - x_hat * dgamma[None, :, None, None] / m)
    return dx, dgamma, dbeta


def wrong_divides_by_variance(dy, x_hat, gamma, sigma):
    """Scales dx by gamma / sigma**2, dividing by the variance instead of the standard deviation."""
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    mean_dy = dy.mean(axis=(0, 2, 3), keepdims=True)
    mean_dyx = (dy * x_hat).mean(axis=(0, 2, 3), keepdims=True)
    scale = (gamma / sigma**2).reshape(1, -1, 1, 1)
    dx = scale * (dy - mean_dy - x_hat * mean_dyx)
    return dx, dgamma, dbeta


def wrong_per_image_statistics(dy, x_hat, gamma, sigma):
    """Takes the two means inside dx per image, over (2, 3) only, while dgamma and dbeta sum over the batch as well."""
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    mean_dy = dy.mean(axis=(2, 3), keepdims=True)
    mean_dyx = (dy * x_hat).mean(axis=(2, 3), keepdims=True)
    dx = (gamma / sigma)[None, :, None, None] * (dy - mean_dy - x_hat * mean_dyx)
    return dx, dgamma, dbeta


def wrong_variance_term_added(dy, x_hat, gamma, sigma):
    """Adds the variance's term x_hat*mean(dy*x_hat) instead of subtracting it (a sign slip in the derivative of 1/sigma)."""
    n, c, h, w = dy.shape
    m = n * h * w
    dx = np.empty_like(dy)
    dgamma = np.zeros(c)
    dbeta = np.zeros(c)
    for ch in range(c):
        d = dy[:, ch]
        xh = x_hat[:, ch]
        dbeta[ch] = d.sum()
        dgamma[ch] = (d * xh).sum()
        dx[:, ch] = gamma[ch] / sigma[ch] * (d - dbeta[ch] / m + xh * dgamma[ch] / m)
    return dx, dgamma, dbeta


def wrong_dgamma_times_gamma(dy, x_hat, gamma, sigma):
    """Computes dgamma from dx_hat = gamma*dy instead of from dy, so dgamma comes out multiplied by gamma."""
    g = gamma[None, :, None, None]
    dxhat = g * dy
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dxhat * x_hat).sum(axis=(0, 2, 3))
    m = dy.shape[0] * dy.shape[2] * dy.shape[3]
    dx = (dxhat - dxhat.sum(axis=(0, 2, 3), keepdims=True) / m
          - x_hat * (dxhat * x_hat).sum(axis=(0, 2, 3), keepdims=True) / m) / sigma[None, :, None, None]
    return dx, dgamma, dbeta


def wrong_compact_form_missing_one_over_m(dy, x_hat, gamma, sigma):
    """Writes the compact CS231n form gamma/sigma * (M*dy - sum(dy) - x_hat*sum(dy*x_hat)) but forgets the leading 1/M."""
    m = dy.shape[0] * dy.shape[2] * dy.shape[3]
    dbeta = np.einsum("nchw->c", dy)
    dgamma = np.einsum("nchw,nchw->c", dy, x_hat)
    dx = (gamma / sigma)[None, :, None, None] * (
        m * dy - dbeta[None, :, None, None] - x_hat * dgamma[None, :, None, None]
    )
    return dx, dgamma, dbeta
