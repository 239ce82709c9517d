"""Blind corpus: maxpool_forward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_best_starts_at_zero(x, kernel_size, stride=None, padding=0):
    """Starts each window's running maximum at 0 instead of -inf, so a window of negative values reports 0 and an argmax that no pixel earned."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, arg = 0.0, 0
                    for a in range(k):
                        for b in range(k):
                            v = xp[n, c, i * s + a, j * s + b]
                            if v > best:
                                best = v
                                arg = (i * s + a - p) * W + (j * s + b - p)
                    y[n, c, i, j] = best
                    idx[n, c, i, j] = arg
    return y, idx


def wrong_stride_rows_only(x, kernel_size, stride=None, padding=0):
    """Builds all windows with sliding_window_view and subsamples them by the stride along the rows only, so the columns keep every stride-1 window."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)),
                constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))
    win = win[:, :, ::s, :]  # (N, C, OH, OW, k, k)
    OH, OW = win.shape[2:4]
    flat = win.reshape(N, C, OH, OW, k * k)
    a = np.argmax(flat, axis=-1)  # first maximum, row-major
    y = np.take_along_axis(flat, a[..., None], axis=-1)[..., 0]
    di, dj = np.divmod(a, k)
    rows = np.arange(OH)[:, None] * s + di - p
    cols = np.arange(OW)[None, :] * 1 + dj - p
    return y, (rows * W + cols).astype(np.int64)


def wrong_ceil_output_size(x, kernel_size, stride=None, padding=0):
    """Rounds the number of windows up (ceil mode), so when the stride does not divide evenly an extra, partial window is added at the bottom/right."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    N, C, H, W = x.shape
    xp = np.full((N, C, H + 2 * p, W + 2 * p), -np.inf)
    xp[:, :, p:p + H, p:p + W] = x
    OH = int(np.ceil((H + 2 * p - k) / s)) + 1
    OW = int(np.ceil((W + 2 * p - k) / s)) + 1
    y = np.empty((N, C, OH, OW))
    idx = np.empty((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            kh, kw = patch.shape[2:]
            flat = patch.reshape(N, C, kh * kw)
            a = flat.argmax(axis=-1)
            y[:, :, i, j] = flat.max(axis=-1)
            r = i * s + a // kw - p
            q = j * s + a % kw - p
            idx[:, :, i, j] = r * W + q
    return y, idx
