"""Blind corpus: group_norm_backward (fresh8), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_variance_term_uses_dy(x, dy, gamma, groups, eps=1e-5):
    """Scales dy by gamma for the direct and mean terms, but computes the variance term's mean(dy*x_hat) from the raw dy without gamma."""
    N, C, H, W = x.shape
    cg = C // groups
    xg = x.reshape(N, groups, cg, H, W)
    dyg = dy.reshape(N, groups, cg, H, W)
    gam = gamma.reshape(1, groups, cg, 1, 1)
    M = cg * H * W
    mu = np.einsum("ngchw->ng", xg) / M
    xc = xg - mu[:, :, None, None, None]
    var = np.einsum("ngchw,ngchw->ng", xc, xc) / M
    sigma = np.sqrt(var + eps)[:, :, None, None, None]
    x_hat = xc / sigma
    g = gam * dyg
    mean_g = np.einsum("ngchw->ng", g)[:, :, None, None, None] / M
    mean_gx = np.einsum("ngchw,ngchw->ng", dyg, x_hat)[:, :, None, None, None] / M
    dx = (g - mean_g - x_hat * mean_gx) / sigma
    return dx.reshape(N, C, H, W)


def wrong_count_per_channel(x, dy, gamma, groups, eps=1e-5):
    """Loops over images and groups, sums over the whole group, but divides every sum by H*W (one channel's count) instead of (C/G)*H*W."""
    N, C, H, W = x.shape
    cg = C // groups
    dx = np.zeros_like(x)
    for n in range(N):
        for gi in range(groups):
            sl = slice(gi * cg, (gi + 1) * cg)
            xs = x[n, sl]
            g = dy[n, sl] * gamma[sl][:, None, None]
            M = H * W
            mu = xs.sum() / M
            var = ((xs - mu) ** 2).sum() / M
            sigma = np.sqrt(var + eps)
            x_hat = (xs - mu) / sigma
            dx[n, sl] = (g - g.sum() / M - x_hat * (g * x_hat).sum() / M) / sigma
    return dx

