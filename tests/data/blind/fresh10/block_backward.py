"""Blind corpus: block_backward (fresh10), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_dw_operands_swapped(x, w, b, dm):
    """Computes dw as conv2d(dc, x) with the batch as channels instead of conv2d(x, dc), which has the right shape but is the kernel gradient rotated by 180 degrees."""
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    n, co, h, wd = r.shape
    dr = np.zeros((n * co, h * wd))
    rows = np.arange(n * co)[:, None]
    np.add.at(dr, (rows, idx.reshape(n * co, -1)), dm.reshape(n * co, -1))
    dr = dr.reshape(r.shape)
    dc = dr * (c > 0)
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(dc.transpose(1, 0, 2, 3), x.transpose(1, 0, 2, 3), padding=1).data
    db = dc.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db


def wrong_db_from_pool_grad(x, w, b, dm):
    """Takes db as the sum of dm (the gradient at the pool's output) instead of dc, skipping the pool and ReLU for the bias."""
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    n, co, h, wd = r.shape
    dr = np.zeros(n * co * h * wd)
    offsets = (np.arange(n * co) * h * wd).reshape(n, co, 1, 1)
    np.add.at(dr, (idx + offsets).ravel(), dm.ravel())
    dr = dr.reshape(r.shape)
    dc = dr * (c > 0)
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3), padding=1).data.transpose(1, 0, 2, 3)
    db = dm.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db


def wrong_relu_mask_before_routing(x, w, b, dm):
    """Applies the ReLU mask to dm on the pooled grid (m > 0) before routing, so dr is already masked where a window's maximum is a ReLU zero (dc comes out right, dr does not)."""
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    m, idx = F.max_pool2d(r, 2, return_indices=True)
    m = m.data
    dm_masked = dm * (m > 0)
    n, co, h, wd = r.shape
    dr = np.zeros((n, co, h * wd))
    for i in range(n):
        for o in range(co):
            for k, g in zip(idx[i, o].ravel(), dm_masked[i, o].ravel()):
                dr[i, o, k] += g
    dr = dr.reshape(r.shape)
    dc = dr
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3), padding=1).data.transpose(1, 0, 2, 3)
    db = dc.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db

