"""Blind corpus: batch_norm_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_variance_term_added(dy, x_hat, gamma, sigma):
    """Adds the variance's term instead of subtracting it: dx = γ/σ (dy − dβ/M + x̂·dγ/M)."""
    axes = (0, 2, 3)
    M = dy.shape[0] * dy.shape[2] * dy.shape[3]
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    g = (gamma / sigma)[None, :, None, None]
    dx = g * (dy - dbeta[None, :, None, None] / M + x_hat * dgamma[None, :, None, None] / M)
    return dx, dgamma, dbeta


def wrong_unbiased_count(dy, x_hat, gamma, sigma):
    """Divides the mean's and variance's terms by M − 1 (the unbiased count) instead of M, although the forward used the biased variance."""
    axes = (0, 2, 3)
    M = dy.size // dy.shape[1]
    dbeta = np.sum(dy, axis=axes, keepdims=True)
    dgamma = np.sum(dy * x_hat, axis=axes, keepdims=True)
    scale = gamma.reshape(1, -1, 1, 1) / sigma.reshape(1, -1, 1, 1)
    dx = scale * (dy - dbeta / (M - 1) - x_hat * dgamma / (M - 1))
    return dx, dgamma.reshape(-1), dbeta.reshape(-1)


def wrong_gamma_forgotten(dy, x_hat, gamma, sigma):
    """Drops γ from dx, scaling by 1/σ only, as if dx̂ were dy."""
    dbeta = np.einsum("nchw->c", dy)
    dgamma = np.einsum("nchw,nchw->c", dy, x_hat)
    M = dy.shape[0] * dy.shape[2] * dy.shape[3]
    dx = (dy - dbeta[:, None, None] / M - x_hat * dgamma[:, None, None] / M) / sigma[:, None, None]
    return dx, dgamma, dbeta


def wrong_sqrt_of_sigma(dy, x_hat, gamma, sigma):
    """Treats the sigma argument as the variance and takes its square root again (std = sqrt(sigma + eps)), so dx is scaled by 1/sqrt(σ) instead of 1/σ."""
    eps = 1e-5
    std = np.sqrt(sigma + eps)
    axes = (0, 2, 3)
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    dxhat = dy * gamma[None, :, None, None]
    dx = (dxhat - dxhat.mean(axis=axes, keepdims=True)
          - x_hat * (dxhat * x_hat).mean(axis=axes, keepdims=True)) / std[None, :, None, None]
    return dx, dgamma, dbeta


def wrong_count_includes_channels(dy, x_hat, gamma, sigma):
    """Takes M as the total number of elements N·C·H·W (dy.size) instead of the per-channel count N·H·W, so the two subtracted terms are C times too small."""
    M = dy.size
    dbeta = dy.sum(axis=(0, 2, 3))
    dgamma = (dy * x_hat).sum(axis=(0, 2, 3))
    C = dy.shape[1]
    dx = np.empty_like(dy)
    for c in range(C):
        dx[:, c] = gamma[c] / sigma[c] * (dy[:, c] - dbeta[c] / M - x_hat[:, c] * dgamma[c] / M)
    return dx, dgamma, dbeta


def wrong_gamma_twice(dy, x_hat, gamma, sigma):
    """Forms dx̂ = γ·dy and then also multiplies by γ/σ outside the bracket, so γ enters dx squared."""
    axes = (0, 2, 3)
    gb = gamma[None, :, None, None]
    sb = sigma[None, :, None, None]
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    dxhat = dy * gb
    dx = gb / sb * (dxhat - dxhat.mean(axis=axes, keepdims=True)
                    - x_hat * (dxhat * x_hat).mean(axis=axes, keepdims=True))
    return dx, dgamma, dbeta
