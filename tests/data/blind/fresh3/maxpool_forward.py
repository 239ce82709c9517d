"""Blind corpus: maxpool_forward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_tie_goes_to_last(x, kernel_size, stride=None, padding=0):
    """Replaces the running best when a value is >= it, so among tied maxima the last one in the scan wins, not the first."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, where = -np.inf, -1
                    for a in range(k):
                        for b in range(k):
                            v = xp[n, c, i * s + a, j * s + b]
                            if v >= best:
                                best = v
                                where = (i * s + a - p) * W + (j * s + b - p)
                    y[n, c, i, j] = best
                    idx[n, c, i, j] = where
    return y, idx


def wrong_best_starts_at_zero(x, kernel_size, stride=None, padding=0):
    """Starts each window's running maximum at 0 instead of -inf, so a window of negative values reports 0 and keeps the initial index."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, where = 0.0, max(i * s - p, 0) * W + max(j * s - p, 0)
                    for a in range(k):
                        for b in range(k):
                            v = xp[n, c, i * s + a, j * s + b]
                            if v > best:
                                best = v
                                where = (i * s + a - p) * W + (j * s + b - p)
                    y[n, c, i, j] = best
                    idx[n, c, i, j] = where
    return y, idx


def wrong_default_stride_one(x, kernel_size, stride=None, padding=0):
    """Replaces stride=None by 1 (stride or 1) instead of by kernel_size, so default pooling slides one pixel at a time."""
    stride = stride or 1
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].reshape(N, C, k * k)
            t = win.argmax(axis=2)
            y[:, :, i, j] = win.max(axis=2)
            a, b = np.divmod(t, k)
            idx[:, :, i, j] = (i * s + a - p) * W + (j * s + b - p)
    return y, idx


def wrong_out_width_from_height(x, kernel_size, stride=None, padding=0):
    """Computes both output sizes from the input height (OW = (H + 2p - k) // s + 1), so non-square inputs get the wrong number of window columns."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (H + 2 * p - k) // s + 1
    y = np.full((N, C, OH, OW), -np.inf)
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].reshape(N, C, k * k)
            t = win.argmax(axis=2)
            y[:, :, i, j] = win.max(axis=2)
            a, b = np.divmod(t, k)
            idx[:, :, i, j] = (i * s + a - p) * W + (j * s + b - p)
    return y, idx


def wrong_index_on_padded_plane(x, kernel_size, stride=None, padding=0):
    """Records the argmax as a flat index into the padded plane, r*(W+2p) + q with padded coordinates, instead of the input plane."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    Wp = W + 2 * p
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    a, b = np.unravel_index(np.argmax(win), win.shape)
                    y[n, c, i, j] = win[a, b]
                    idx[n, c, i, j] = (i * s + a) * Wp + (j * s + b)
    return y, idx


def wrong_one_sided_padding_size(x, kernel_size, stride=None, padding=0):
    """Counts the padding once in the output size, (H + p - k) // s + 1, so a padded input loses its last row/column of windows."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + p - k) // s + 1
    OW = (W + p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].reshape(N, C, -1)
            t = win.argmax(axis=2)
            y[:, :, i, j] = np.take_along_axis(win, t[..., None], axis=2)[..., 0]
            idx[:, :, i, j] = (i * s + t // k - p) * W + (j * s + t % k - p)
    return y, idx
