"""Blind corpus: maxpool_forward (heldout), written without reading the checker."""

import numpy as np


def wrong_output_size_missing_plus_one(x, kernel_size, stride=None, padding=0):
    """Computes OH = (H + 2p - k) // s and OW likewise, forgetting the + 1: the last row and column of windows are missing."""
    k = kernel_size
    s = stride if stride is not None else k
    p = padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s
    OW = (W + 2 * p - k) // s
    xp = np.full((N, C, H + 2 * p, W + 2 * p), -np.inf)
    xp[:, :, p:p + H, p:p + W] = x
    y = np.empty((N, C, OH, OW))
    arg = np.empty((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].reshape(N, C, -1)
            t = win.argmax(axis=-1)
            y[:, :, i, j] = win.max(axis=-1)
            arg[:, :, i, j] = (i * s + t // k - p) * W + (j * s + t % k - p)
    return y, arg


def wrong_np_pad_pads_every_axis(x, kernel_size, stride=None, padding=0):
    """Wrote np.pad(x, p, constant_values=-np.inf), which also pads the batch and channel axes and shifts the planes."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    xp = np.pad(np.asarray(x, dtype=float), p, constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    a, b = np.unravel_index(np.argmax(win), win.shape)
                    y[n, c, i, j] = win[a, b]
                    arg[n, c, i, j] = (i * s + a - p) * W + (j * s + b - p)
    return y, arg


def wrong_output_width_from_height(x, kernel_size, stride=None, padding=0):
    """Assumed square images: OW is computed from H, so non-square inputs get the wrong number of columns."""
    k = kernel_size
    s = k if stride is None else stride
    p = padding
    N, C, H, W = x.shape
    OH = OW = (H + 2 * p - k) // s + 1
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + k, j * s:j * s + k]
                    t = int(np.argmax(win))
                    a, b = divmod(t, k)
                    y[n, c, i, j] = win[a, b]
                    arg[n, c, i, j] = (i * s + a - p) * W + (j * s + b - p)
    return y, arg
