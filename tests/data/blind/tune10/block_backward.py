"""Blind corpus: block_backward (tune10), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_unravel_by_height(x, w, b, dm):
    """Routes each dm to its argmax with divmod(k, H) instead of divmod(k, W), so on non-square planes the flat index is unravelled to the wrong pixel."""
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    n, co, h, wd = r.shape
    dr = np.zeros(r.shape)
    for i in range(n):
        for o in range(co):
            for p in range(dm.shape[2]):
                for q in range(dm.shape[3]):
                    row, col = divmod(int(idx[i, o, p, q]), h)
                    if row < h and col < wd:
                        dr[i, o, row, col] += dm[i, o, p, q]
    dc = dr * (c > 0)
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3), padding=1).data.transpose(1, 0, 2, 3)
    db = dc.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db


def wrong_forward_without_bias(x, w, b, dm):
    """Recomputes the forward as conv2d(x, w) without the bias, so the ReLU mask and the pool's argmax come from the wrong pre-activations."""
    c = F.conv2d(x, w, padding=1).data
    r = F.relu(c).data
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    n, co, h, wd = r.shape
    dr = np.zeros((n, co, h * wd))
    for i in range(n):
        for o in range(co):
            np.add.at(dr[i, o], idx[i, o].ravel(), dm[i, o].ravel())
    dr = dr.reshape(r.shape)
    dc = dr * (c > 0)
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3), padding=1).data.transpose(1, 0, 2, 3)
    db = dc.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db


def wrong_route_without_plane_offset(x, w, b, dm):
    """Scatters dm into the flattened dr with np.add.at at the saved indices but forgets that they are per-plane, so every plane's dy lands in plane (0, 0)."""
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    dr = np.zeros(r.size)
    np.add.at(dr, idx.ravel(), dm.ravel())
    dr = dr.reshape(r.shape)
    dc = dr * (c > 0)
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3), padding=1).data.transpose(1, 0, 2, 3)
    db = dc.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db

