"""Blind corpus: maxpool_forward (tune), written without reading the checker."""

import numpy as np


def wrong_ceil_output_size(x, kernel_size, stride=None, padding=0):
    """Rounds the number of windows up (-(-a // s) + 1), adding a window that hangs past the padded edge."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    OH = -(-(H + 2 * p - k) // s) + 1
    OW = -(-(W + 2 * p - k) // s) + 1
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    t = int(np.argmax(win))
                    a, b = divmod(t, win.shape[1])
                    y[n, c, i, j] = win[a, b]
                    arg[n, c, i, j] = (i * s + a - p) * W + (j * s + b - p)
    return y, arg


def wrong_scans_columns_first(x, kernel_size, stride=None, padding=0):
    """Loops over the window's columns outside its rows, so on a tie the first maximum in column-major order wins."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, where = -np.inf, -1
                    for b in range(k):
                        for a in range(k):
                            r, q = i * s + a - p, j * s + b - p
                            if 0 <= r < H and 0 <= q < W and x[n, c, r, q] > best:
                                best, where = x[n, c, r, q], r * W + q
                    y[n, c, i, j] = best
                    arg[n, c, i, j] = where
    return y, arg


def wrong_running_max_starts_at_zero(x, kernel_size, stride=None, padding=0):
    """Starts each window's running max at 0 (index 0) instead of -inf, so all-negative windows report 0."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, where = 0, 0
                    for a in range(k):
                        for b in range(k):
                            v = xp[n, c, i * s + a, j * s + b]
                            if v > best:
                                best = v
                                where = (i * s + a - p) * W + (j * s + b - p)
                    y[n, c, i, j] = best
                    arg[n, c, i, j] = where
    return y, arg


def wrong_window_slice_short_and_divmod_by_k(x, kernel_size, stride=None, padding=0):
    """Two bugs: window slices stop at k - 1 (missing the last row and column), then the argmax is split with divmod by k."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k - 1, j * s:j * s + k - 1]
                    t = np.argmax(win)
                    y[n, c, i, j] = win.flat[t]
                    a, b = divmod(int(t), k)
                    arg[n, c, i, j] = (i * s + a - p) * W + (j * s + b - p)
    return y, arg


def wrong_column_start_steps_by_kernel(x, kernel_size, stride=None, padding=0):
    """The window's first column is j * kernel_size instead of j * stride (right only when stride == kernel_size)."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            r0, c0 = i * s, j * k
            win = xp[:, :, r0:r0 + k, c0:c0 + k]
            flat = win.reshape(N, C, -1)
            t = flat.argmax(-1)
            y[:, :, i, j] = flat.max(-1)
            arg[:, :, i, j] = (r0 + t // k - p) * W + (c0 + t % k - p)
    return y, arg
