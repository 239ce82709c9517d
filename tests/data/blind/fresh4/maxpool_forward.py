"""Blind corpus: maxpool_forward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_column_major_ties(x, kernel_size, stride=None, padding=0):
    """Scans each window column by column (argmax of the transposed window), so among tied maxima it keeps the first in column order, not row order."""
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
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    a = int(np.argmax(win.T))
                    q, r = divmod(a, k)
                    y[n, c, i, j] = win[r, q]
                    idx[n, c, i, j] = (i * s + r - p) * W + (j * s + q - p)
    return y, idx


def wrong_windows_not_shifted_by_padding(x, kernel_size, stride=None, padding=0):
    """Counts the windows with the padding but places window (i, j) at i*s, j*s on the unpadded input (clipped to the image), forgetting the -p shift."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    h0, w0 = i * s, j * s
                    h1, w1 = min(h0 + k, H), min(w0 + k, W)
                    best, arg = -np.inf, 0
                    for r in range(h0, h1):
                        for q in range(w0, w1):
                            if x[n, c, r, q] > best:
                                best, arg = x[n, c, r, q], r * W + q
                    y[n, c, i, j] = best
                    idx[n, c, i, j] = arg
    return y, idx


def wrong_ceil_output_size(x, kernel_size, stride=None, padding=0):
    """Rounds the number of windows up (ceil mode), adding a partial last window whenever the stride does not divide evenly."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    OH = -(-(H + 2 * p - k) // s) + 1
    OW = -(-(W + 2 * p - k) // s) + 1
    xp = np.full((N, C, H + 2 * p + k, W + 2 * p + k), -np.inf)
    xp[:, :, p:p + H, p:p + W] = x
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    r, q = np.unravel_index(np.argmax(win), win.shape)
                    y[n, c, i, j] = win[r, q]
                    idx[n, c, i, j] = (i * s + r - p) * W + (j * s + q - p)
    return y, idx


def wrong_running_max_starts_at_zero(x, kernel_size, stride=None, padding=0):
    """Starts the running maximum at 0 instead of -inf, so a window of negative values reports 0 and the index is never updated."""
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
                    best, arg = 0.0, 0
                    for r in range(k):
                        for q in range(k):
                            v = xp[n, c, i * s + r, j * s + q]
                            if v > best:
                                best = v
                                arg = (i * s + r - p) * W + (j * s + q - p)
                    y[n, c, i, j] = best
                    idx[n, c, i, j] = arg
    return y, idx


def wrong_index_over_whole_sample(x, kernel_size, stride=None, padding=0):
    """Returns the flat index into the whole (C, H, W) sample (adding c*H*W) instead of into the channel's own H*W plane."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].reshape(N, C, -1)
            a = np.argmax(win, axis=2)
            r, q = a // k, a % k
            y[:, :, i, j] = np.max(win, axis=2)
            idx[:, :, i, j] = np.arange(C)[None, :] * H * W + (i * s + r - p) * W + (j * s + q - p)
    return y, idx


def wrong_non_overlapping_blocks(x, kernel_size, stride=None, padding=0):
    """Pools with the reshape trick for non-overlapping k x k blocks (OH = H // k), which ignores both the stride and the padding."""
    k = kernel_size
    N, C, H, W = x.shape
    OH, OW = H // k, W // k
    blocks = x[:, :, :OH * k, :OW * k].reshape(N, C, OH, k, OW, k).transpose(0, 1, 2, 4, 3, 5).reshape(N, C, OH, OW, k * k)
    a = np.argmax(blocks, axis=-1)
    y = np.max(blocks, axis=-1).astype(float)
    r, q = a // k, a % k
    rows = np.arange(OH)[:, None] * k + r
    cols = np.arange(OW)[None, :] * k + q
    return y, (rows * W + cols).astype(np.int64)
