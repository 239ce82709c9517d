"""Blind corpus: group_norm_backward (tune8), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_gamma_forgotten(x, dy, gamma, groups, eps=1e-5):
    """Backpropagates dy straight into x_hat, as if gamma were 1, so the per-channel scale never enters dx."""
    N, C, H, W = x.shape
    G = groups
    xg = x.reshape(N, G, C // G, H, W)
    axes = (2, 3, 4)
    mu = xg.mean(axis=axes, keepdims=True)
    var = ((xg - mu) ** 2).mean(axis=axes, keepdims=True)
    sigma = np.sqrt(var + eps)
    x_hat = (xg - mu) / sigma
    g = dy.reshape(xg.shape)  # dx_hat = dy (gamma left out)
    mean_g = g.mean(axis=axes, keepdims=True)
    mean_gx = (g * x_hat).mean(axis=axes, keepdims=True)
    dx = (g - mean_g - x_hat * mean_gx) / sigma
    return dx.reshape(x.shape)


def wrong_std_without_eps(x, dy, gamma, groups, eps=1e-5):
    """Normalises x_hat with np.std (no eps) and only puts eps into sigma for the final division, so a constant group gives 0/0 = nan in x_hat."""
    N, C, H, W = x.shape
    shape = (N, groups, C // groups, H, W)
    axes = (2, 3, 4)
    xg = x.reshape(shape)
    mu = xg.mean(axis=axes, keepdims=True)
    x_hat = (xg - mu) / xg.std(axis=axes, keepdims=True)
    sigma = np.sqrt(xg.var(axis=axes, keepdims=True) + eps)
    g = (dy * gamma[None, :, None, None]).reshape(shape)
    dx = (g - g.mean(axis=axes, keepdims=True)
          - x_hat * (g * x_hat).mean(axis=axes, keepdims=True)) / sigma
    return dx.reshape(x.shape)

