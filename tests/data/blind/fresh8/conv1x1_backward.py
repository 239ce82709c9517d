"""Blind corpus: conv1x1_backward (fresh8), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dx_rows_reshaped_back(x, w, dy):
    """Lays out the pixels as rows correctly, but turns dx's (N*H*W, C_in) rows back into (N, C, H, W) with a plain reshape instead of reshape to (N, H, W, C) then transpose."""
    N, C_in, H, W = x.shape
    C_out = w.shape[0]
    X = x.transpose(0, 2, 3, 1).reshape(-1, C_in)
    dY = dy.transpose(0, 2, 3, 1).reshape(-1, C_out)
    wm = w.reshape(C_out, C_in)
    dX = dY @ wm
    dW = dY.T @ X
    dx = dX.reshape(N, C_in, H, W)
    return dx, dW.reshape(w.shape)


def wrong_dw_product_of_sums(x, w, dy):
    """Computes dw as the outer product of dy summed over pixels and x summed over pixels, i.e. (sum dy)(sum x) instead of sum(dy*x)."""
    wm = w[:, :, 0, 0]
    dx = (dy[:, :, None] * wm[None, :, :, None, None]).sum(axis=1)
    dy_tot = dy.sum(axis=(0, 2, 3))  # (C_out,)
    x_tot = x.sum(axis=(0, 2, 3))  # (C_in,)
    dw = np.outer(dy_tot, x_tot)
    return dx, dw.reshape(w.shape)

