"""Blind corpus: maxpool_forward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import math

import numpy as np


def wrong_ceil_output_size(x, kernel_size, stride=None, padding=0):
    """Computes the output size with math.ceil (ceil mode), adding an extra window row/column when the windows do not fit exactly."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    OH = math.ceil((H + 2 * p - k) / s) + 1
    OW = math.ceil((W + 2 * p - k) / s) + 1
    xp = np.full((N, C, H + 2 * p + k, W + 2 * p + k), -np.inf)
    xp[:, :, p:p + H, p:p + W] = x
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best = -np.inf
                    bi = 0
                    for r in range(i * s, i * s + k):
                        for q in range(j * s, j * s + k):
                            if xp[n, c, r, q] > best:
                                best = xp[n, c, r, q]
                                bi = (r - p) * W + (q - p)
                    y[n, c, i, j] = best
                    arg[n, c, i, j] = bi
    return y, arg


def wrong_column_major_scan(x, kernel_size, stride=None, padding=0):
    """Scans each window column by column (window.T.ravel() then argmax), so a tie goes to the first maximum in column-major order, not row-major."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.empty((N, C, OH, OW))
    arg = np.empty((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    t = int(np.argmax(win.T.ravel()))
                    q, r = divmod(t, k)
                    y[n, c, i, j] = win[r, q]
                    arg[n, c, i, j] = (i * s + r - p) * W + (j * s + q - p)
    return y, arg


def wrong_best_starts_at_zero(x, kernel_size, stride=None, padding=0):
    """Starts each window's running maximum at 0 instead of -inf, so a window of negative values reports 0 and keeps the initial index."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    xp = np.full((N, C, H + 2 * p, W + 2 * p), -np.inf)
    xp[:, :, p:p + H, p:p + W] = x
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best = 0.0
                    where = 0
                    for r in range(k):
                        for q in range(k):
                            val = xp[n, c, i * s + r, j * s + q]
                            if val > best:
                                best = val
                                where = (i * s + r - p) * W + (j * s + q - p)
                    y[n, c, i, j] = best
                    arg[n, c, i, j] = where
    return y, arg


def wrong_integer_output(x, kernel_size, stride=None, padding=0):
    """Allocates y with dtype=int (like the argmax array), so the maxima are truncated to integers when stored."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW), dtype=int)
    arg = np.zeros((N, C, OH, OW), dtype=int)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    t = int(np.argmax(win))
                    r, q = divmod(t, k)
                    y[n, c, i, j] = win[r, q]
                    arg[n, c, i, j] = (i * s + r - p) * W + (j * s + q - p)
    return y, arg
