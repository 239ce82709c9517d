"""Tuning answers: group_norm_backward (tune). Written by the exercise's
author, who knows the checker: tuning material, never a blind measure."""

import numpy as np


def _backward(g, x_hat, sigma, axes):
    """The lesson's norm_backward, as learners copy it."""
    mean_g = g.mean(axis=axes, keepdims=True)
    mean_gx = (g * x_hat).mean(axis=axes, keepdims=True)
    return (g - mean_g - x_hat * mean_gx) / sigma


def wrong_batch_norm_axes(x, dy, gamma, groups, eps=1e-5):
    """Reused batch norm's axes (0, 2, 3), so every channel is normalised over the batch and groups never enter."""
    axes = (0, 2, 3)
    mu = x.mean(axis=axes, keepdims=True)
    sigma = np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    x_hat = (x - mu) / sigma
    return _backward(dy * gamma[None, :, None, None], x_hat, sigma, axes)


def wrong_unbiased_std(x, dy, gamma, groups, eps=1e-5):
    """Took the group's standard deviation with ddof=1, as torch.std does by default."""
    n, c, h, w = x.shape
    xg = x.reshape(n, groups, -1)
    mu = xg.mean(axis=2, keepdims=True)
    sigma = np.sqrt(xg.std(axis=2, ddof=1, keepdims=True) ** 2 + eps)
    x_hat = (xg - mu) / sigma
    g = (dy * gamma[None, :, None, None]).reshape(n, groups, -1)
    return _backward(g, x_hat, sigma, 2).reshape(x.shape)


def wrong_eps_added_to_std(x, dy, gamma, groups, eps=1e-5):
    """Added eps to the standard deviation instead of to the variance."""
    n, c, h, w = x.shape
    xg = x.reshape(n, groups, c // groups, h, w)
    axes = (2, 3, 4)
    mu = xg.mean(axis=axes, keepdims=True)
    sigma = xg.std(axis=axes, keepdims=True) + eps
    x_hat = (xg - mu) / sigma
    g = (dy * gamma[None, :, None, None]).reshape(xg.shape)
    return _backward(g, x_hat, sigma, axes).reshape(x.shape)


def wrong_groups_as_the_inner_axis(x, dy, gamma, groups, eps=1e-5):
    """Reshaped to (N, C // G, G, H, W) and normalised over axes (1, 3, 4): channel k lands in group k % G."""
    n, c, h, w = x.shape
    xg = x.reshape(n, c // groups, groups, h, w)
    axes = (1, 3, 4)
    mu = xg.mean(axis=axes, keepdims=True)
    sigma = np.sqrt(xg.var(axis=axes, keepdims=True) + eps)
    x_hat = (xg - mu) / sigma
    g = (dy * gamma[None, :, None, None]).reshape(xg.shape)
    return _backward(g, x_hat, sigma, axes).reshape(x.shape)


def wrong_gamma_over_sigma_outside(x, dy, gamma, groups, eps=1e-5):
    """Wrote batch norm's formula, gamma/sigma times (dy - mean(dy) - x_hat*mean(dy*x_hat)), with the means over the group."""
    n, c, h, w = x.shape
    xg = x.reshape(n, groups, -1)
    mu = xg.mean(axis=2, keepdims=True)
    sigma = np.sqrt(xg.var(axis=2, keepdims=True) + eps)
    x_hat = (xg - mu) / sigma
    d = dy.reshape(n, groups, -1)
    dx = d - d.mean(axis=2, keepdims=True) - x_hat * (d * x_hat).mean(
        axis=2, keepdims=True)
    return (dx / sigma).reshape(x.shape) * gamma[None, :, None, None]


def wrong_projection_forgotten(x, dy, gamma, groups, eps=1e-5):
    """Subtracted the mean of gamma*dy over each group and stopped: no x_hat * mean(g * x_hat) term."""
    n, c, h, w = x.shape
    out = np.empty(x.shape)
    size = c // groups
    for b in range(n):
        for k in range(groups):
            xs = x[b, k * size:(k + 1) * size]
            g = dy[b, k * size:(k + 1) * size] * gamma[k * size:(k + 1) * size, None, None]
            out[b, k * size:(k + 1) * size] = (g - g.mean()) / np.sqrt(xs.var() + eps)
    return out
