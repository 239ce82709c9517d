"""Blind corpus: maxpool_forward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_column_major_scan(x, kernel_size, stride=None, padding=0):
    """Scans each window column by column (outer loop over the window's columns), so at a tie the first maximum in column-major order wins instead of the first in row-major order."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n_, c_, h, w = x.shape
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.empty((n_, c_, oh, ow))
    argmax = np.empty((n_, c_, oh, ow), dtype=np.int64)
    for n in range(n_):
        for c in range(c_):
            for i in range(oh):
                for j in range(ow):
                    best, best_idx = -np.inf, -1
                    for b in range(k):
                        for a in range(k):
                            r, q = i * s + a, j * s + b
                            if xp[n, c, r, q] > best:
                                best = xp[n, c, r, q]
                                best_idx = (r - p) * w + (q - p)
                    y[n, c, i, j] = best
                    argmax[n, c, i, j] = best_idx
    return y, argmax


def wrong_ceil_mode_windows(x, kernel_size, stride=None, padding=0):
    """Rounds the number of windows up (ceil) and pads the bottom/right with extra -inf so a last partial window fits, producing an extra output row/column that torch's floor rule does not have."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n_, c_, h, w = x.shape
    oh = -(-(h + 2 * p - k) // s) + 1
    ow = -(-(w + 2 * p - k) // s) + 1
    extra_h = (oh - 1) * s + k - (h + 2 * p)
    extra_w = (ow - 1) * s + k - (w + 2 * p)
    xp = np.pad(x, ((0, 0), (0, 0), (p, p + extra_h), (p, p + extra_w)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))
    win = win[:, :, ::s, ::s][:, :, :oh, :ow].reshape(n_, c_, oh, ow, k * k)
    flat = win.argmax(axis=-1)
    y = np.take_along_axis(win, flat[..., None], axis=-1)[..., 0]
    a, b = np.divmod(flat, k)
    r = np.arange(oh)[:, None] * s + a - p
    q = np.arange(ow)[None, :] * s + b - p
    return y, (r * w + q).astype(np.int64)


def wrong_size_without_padding(x, kernel_size, stride=None, padding=0):
    """Pads the input with -inf correctly but computes the output size from the unpadded H and W, so padded cases lose their last output rows and columns."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n_, c_, h, w = x.shape
    oh = (h - k) // s + 1
    ow = (w - k) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((n_, c_, oh, ow))
    argmax = np.zeros((n_, c_, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].reshape(n_, c_, k * k)
            t = win.argmax(axis=-1)
            y[:, :, i, j] = win.max(axis=-1)
            argmax[:, :, i, j] = (i * s + t // k - p) * w + (j * s + t % k - p)
    return y, argmax


def wrong_running_max_starts_at_zero(x, kernel_size, stride=None, padding=0):
    """Starts each window's running maximum at 0 (and its index at 0) instead of -inf, so a window of all-negative values reports 0 at flat index 0."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n_, c_, h, w = x.shape
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    y = np.zeros((n_, c_, oh, ow))
    argmax = np.zeros((n_, c_, oh, ow), dtype=np.int64)
    for n in range(n_):
        for c in range(c_):
            for i in range(oh):
                for j in range(ow):
                    best, idx = 0.0, 0
                    for a in range(k):
                        for b in range(k):
                            r, q = i * s + a - p, j * s + b - p
                            if 0 <= r < h and 0 <= q < w and x[n, c, r, q] > best:
                                best, idx = x[n, c, r, q], r * w + q
                    y[n, c, i, j] = best
                    argmax[n, c, i, j] = idx
    return y, argmax


def wrong_index_into_whole_tensor(x, kernel_size, stride=None, padding=0):
    """Stores the argmax as a flat index into the whole (N, C, H, W) array (np.ravel_multi_index with x.shape) instead of into the (n, c) plane."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n_, c_, h, w = x.shape
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.empty((n_, c_, oh, ow))
    argmax = np.empty((n_, c_, oh, ow), dtype=np.int64)
    for n in range(n_):
        for c in range(c_):
            for i in range(oh):
                for j in range(ow):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    a, b = np.unravel_index(np.argmax(win), win.shape)
                    y[n, c, i, j] = win[a, b]
                    argmax[n, c, i, j] = np.ravel_multi_index((n, c, i * s + a - p, j * s + b - p), x.shape)
    return y, argmax


def wrong_window_origin_unstrided(x, kernel_size, stride=None, padding=0):
    """Computes the right output size but starts window (i, j) at (i, j) on the padded input instead of (i*stride, j*stride), so strided pools read overlapping neighbours."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n_, c_, h, w = x.shape
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, :oh, :ow]
    flat = win.reshape(n_, c_, oh, ow, k * k).argmax(axis=-1)
    y = win.reshape(n_, c_, oh, ow, k * k).max(axis=-1)
    r = np.arange(oh)[:, None] + flat // k - p
    q = np.arange(ow)[None, :] + flat % k - p
    return y, r * w + q
