"""Right answers: group_norm_backward, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no blind)."""

import numpy as np

import convgrad as cg


def right_staged_chain_rule(x, dy, gamma, groups, eps=1e-5):
    """CS231n's staged chain rule, through x_hat, the variance and the mean, on each image's (G, C/G*H*W) rows."""
    n, c, h, w = x.shape
    xr = x.reshape(n, groups, -1)
    dxhat = (dy * gamma[None, :, None, None]).reshape(n, groups, -1)
    m = xr.shape[-1]
    mu = xr.mean(-1, keepdims=True)
    xmu = xr - mu
    var = (xmu ** 2).mean(-1, keepdims=True)
    inv = 1.0 / np.sqrt(var + eps)
    dvar = np.sum(dxhat * xmu, -1, keepdims=True) * -0.5 * inv ** 3
    dmu = np.sum(-dxhat * inv, -1, keepdims=True) + dvar * np.mean(
        -2.0 * xmu, -1, keepdims=True)
    dx = dxhat * inv + dvar * 2.0 * xmu / m + dmu / m
    return dx.reshape(x.shape)


def right_jacobian_per_group(x, dy, gamma, groups, eps=1e-5):
    """The M x M Jacobian of x_hat by x, built for each image's group and multiplied by gamma*dy: (I - 1/M - x_hat x_hatᵀ/M) / sigma, symmetric."""
    n, c, h, w = x.shape
    cg_ = c // groups
    g = dy * gamma[None, :, None, None]
    dx = np.empty(x.shape)
    for b in range(n):
        for k in range(groups):
            block = slice(k * cg_, (k + 1) * cg_)
            v = x[b, block].ravel()
            m = v.size
            sigma = np.sqrt(v.var() + eps)
            xh = (v - v.mean()) / sigma
            jac = (np.eye(m) - 1.0 / m - np.outer(xh, xh) / m) / sigma
            dx[b, block] = (jac.T @ g[b, block].ravel()).reshape(cg_, h, w)
    return dx


def right_grad_of_a_weighted_sum(x, dy, gamma, groups, eps=1e-5):
    """cg.grad of sum(y * dy), y group norm written with convgrad's Tensor ops, the variance as E[x²] − E[x]²."""
    n, c, h, w = x.shape
    xt = cg.Tensor(x, requires_grad=True)
    xv = xt.reshape((n, groups, -1))
    mean = xv.mean(axis=2, keepdims=True)
    var = (xv * xv).mean(axis=2, keepdims=True) - mean * mean
    y = ((xv - mean) * (var + eps) ** -0.5).reshape(x.shape)
    (dx,) = cg.grad((y * (dy * gamma[None, :, None, None])).sum(), xt)
    return dx.data
