"""Blind corpus: maxpool_backward_split (tune10), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_scan_never_resets(x, dy, kernel_size, stride=None, padding=0):
    """Scans each window keeping a list of winners but never clears the list when a strictly larger value appears, so earlier running maxima share the dy."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    oh, ow = dy.shape[2], dy.shape[3]
    dxp = np.zeros(xp.shape)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    best = -np.inf
                    winners = []
                    for a in range(k):
                        for q in range(k):
                            v = xp[b, ch, i * s + a, j * s + q]
                            if v > best:
                                best = v
                                winners.append((i * s + a, j * s + q))
                            elif v == best:
                                winners.append((i * s + a, j * s + q))
                    share = dy[b, ch, i, j] / len(winners)
                    for r, q in winners:
                        dxp[b, ch, r, q] += share
    return dxp[:, :, p:p + h, p:p + w]


def wrong_window_count_off_by_one(x, dy, kernel_size, stride=None, padding=0):
    """Computes the number of windows as (H + 2P - K) // S without the + 1, so the last row and column of windows never pass their dy back."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    oh = (h + 2 * p - k) // s
    ow = (w + 2 * p - k) // s
    dxp = np.zeros(xp.shape)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            mask = win == win.max(axis=(2, 3), keepdims=True)
            t = mask.sum(axis=(2, 3), keepdims=True)
            dxp[:, :, i * s:i * s + k, j * s:j * s + k] += mask * dy[:, :, i:i + 1, j:j + 1] / t
    return dxp[:, :, p:p + h, p:p + w]


def wrong_default_stride_one(x, dy, kernel_size, stride=None, padding=0):
    """Treats stride=None as stride 1 (the conv default) instead of kernel_size, so the default-stride windows are placed at the wrong positions."""
    if stride is None:
        stride = 1
    k, s, p = kernel_size, stride, padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    hp, wp = xp.shape[2], xp.shape[3]
    oh, ow = dy.shape[2], dy.shape[3]
    dxp = np.zeros((n, c, hp * wp))
    planes = xp.reshape(n, c, -1)
    for i in range(oh):
        for j in range(ow):
            rr, cc = np.meshgrid(np.arange(i * s, i * s + k), np.arange(j * s, j * s + k), indexing="ij")
            flat = (rr * wp + cc).ravel()
            vals = planes[:, :, flat]
            mask = vals == vals.max(axis=-1, keepdims=True)
            share = mask * (dy[:, :, i, j][..., None] / mask.sum(axis=-1, keepdims=True))
            for b in range(n):
                for ch in range(c):
                    np.add.at(dxp[b, ch], flat, share[b, ch])
    return dxp.reshape(n, c, hp, wp)[:, :, p:p + h, p:p + w]

