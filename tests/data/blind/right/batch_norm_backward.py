"""Blind corpus: batch_norm_backward (right), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def right_staged_chain_rule(dy, x_hat, gamma, sigma):
    """CS231n's staged chain rule through x_hat, the variance and the mean, with x - mu rebuilt as x_hat * sigma."""
    n, c, h, w = dy.shape
    m = n * h * w
    ax = (0, 2, 3)
    s = sigma.reshape(1, c, 1, 1)
    xmu = x_hat * s                                   # x - mu
    dxhat = dy * gamma.reshape(1, c, 1, 1)
    dvar = np.sum(dxhat * xmu, axis=ax, keepdims=True) * -0.5 * s ** -3
    dmu = np.sum(-dxhat / s, axis=ax, keepdims=True) + dvar * np.mean(-2.0 * xmu, axis=ax, keepdims=True)
    dx = dxhat / s + dvar * 2.0 * xmu / m + dmu / m
    dgamma = np.sum(dy * x_hat, axis=ax)
    dbeta = np.sum(dy, axis=ax)
    return dx, dgamma, dbeta


def right_channels_first_matrix(dy, x_hat, gamma, sigma):
    """Moves channels first and flattens to (C, M) rows, then einsum for the sums and a row-wise formula."""
    n, c, h, w = dy.shape
    d = dy.transpose(1, 0, 2, 3).reshape(c, -1)
    xh = x_hat.transpose(1, 0, 2, 3).reshape(c, -1)
    m = d.shape[1]
    dbeta = np.einsum("cm->c", d)
    dgamma = np.einsum("cm,cm->c", d, xh)
    dxr = (gamma / sigma)[:, None] / m * (m * d - dbeta[:, None] - xh * dgamma[:, None])
    dx = dxr.reshape(c, n, h, w).transpose(1, 0, 2, 3)
    return dx, dgamma, dbeta


def right_projection_per_channel(dy, x_hat, gamma, sigma):
    """Per channel, removes from gamma*dy its projection on the constant vector and on x_hat (orthonormal up to sqrt(M)), then divides by sigma."""
    n, c, h, w = dy.shape
    dx = np.zeros(dy.shape)
    dgamma = np.zeros(c)
    dbeta = np.zeros(c)
    for k in range(c):
        g = dy[:, k].ravel()
        xh = x_hat[:, k].ravel()
        m = g.size
        dbeta[k] = g.sum()
        dgamma[k] = g @ xh
        proj = g.mean() + xh * (g @ xh) / m
        dx[:, k] = (gamma[k] / sigma[k] * (g - proj)).reshape(n, h, w)
    return dx, dgamma, dbeta
