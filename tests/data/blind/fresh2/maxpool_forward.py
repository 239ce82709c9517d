"""Blind corpus: maxpool_forward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_column_major_scan(x, kernel_size, stride=None, padding=0):
    """Takes np.argmax of the transposed window (win.T), so each window is scanned column by column and a tie goes to the first maximum in column order."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    argmax = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    t = int(np.argmax(win.T))
                    kj, ki = divmod(t, k)
                    y[n, c, i, j] = win[ki, kj]
                    argmax[n, c, i, j] = (i * s + ki - p) * W + (j * s + kj - p)
    return y, argmax


def wrong_default_stride_one(x, kernel_size, stride=None, padding=0):
    """Replaces stride=None by 1 instead of by kernel_size, so default-stride pools slide one pixel at a time."""
    if stride is None:
        stride = 1
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.full((N, C, H + 2 * p, W + 2 * p), -np.inf)
    xp[:, :, p:p + H, p:p + W] = x
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.empty((N, C, OH, OW))
    argmax = np.empty((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].reshape(N, C, k * k)
            t = win.argmax(axis=-1)
            y[:, :, i, j] = win.max(axis=-1)
            argmax[:, :, i, j] = (i * s + t // k - p) * W + (j * s + t % k - p)
    return y, argmax


def wrong_size_without_padding(x, kernel_size, stride=None, padding=0):
    """Computes the number of windows as (H - k) // s + 1, leaving the padding out of the output size, so padded pools lose their last windows."""
    k = kernel_size
    s = stride or kernel_size
    p = padding
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H - k) // s + 1
    OW = (W - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    argmax = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, bi = -np.inf, -1
                    for a in range(k):
                        for b in range(k):
                            v = xp[n, c, i * s + a, j * s + b]
                            if v > best:
                                best = v
                                bi = (i * s + a - p) * W + (j * s + b - p)
                    y[n, c, i, j] = best
                    argmax[n, c, i, j] = bi
    return y, argmax


def wrong_global_flat_index(x, kernel_size, stride=None, padding=0):
    """Returns the argmax as a flat index into the whole (N, C, H, W) array (np.ravel_multi_index over x.shape) instead of into the (n, c) plane."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    argmax = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    ki, kj = np.unravel_index(np.argmax(win), win.shape)
                    y[n, c, i, j] = win[ki, kj]
                    argmax[n, c, i, j] = np.ravel_multi_index((n, c, i * s + ki - p, j * s + kj - p), x.shape)
    return y, argmax


def wrong_best_starts_at_zero(x, kernel_size, stride=None, padding=0):
    """Starts each window's running maximum at 0 instead of -inf, so a window of negative values reports 0 and keeps the initial index."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    argmax = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best = 0.0
                    bi = max(i * s - p, 0) * W + max(j * s - p, 0)
                    for a in range(k):
                        for b in range(k):
                            v = xp[n, c, i * s + a, j * s + b]
                            if v > best:
                                best = v
                                bi = (i * s + a - p) * W + (j * s + b - p)
                    y[n, c, i, j] = best
                    argmax[n, c, i, j] = bi
    return y, argmax


def wrong_flat_index_minus_padding(x, kernel_size, stride=None, padding=0):
    """Finds the winner on the padded plane and converts its flat index by subtracting the padding (kp - p) instead of re-indexing (r - p) * W + (q - p)."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    Wp = W + 2 * p
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    argmax = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    t = int(np.argmax(win))
                    r, q = i * s + t // k, j * s + t % k
                    y[n, c, i, j] = xp[n, c, r, q]
                    argmax[n, c, i, j] = r * Wp + q - p
    return y, argmax
