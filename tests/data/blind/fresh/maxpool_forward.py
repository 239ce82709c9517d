"""Blind corpus: maxpool_forward (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_output_width_from_h(x, kernel_size, stride=None, padding=0):
    """Computes OW from H instead of W, so non-square inputs get the wrong number of columns."""
    if stride is None:
        stride = kernel_size
    N, C, H, W = x.shape
    K, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (H + 2 * p - K) // s + 1
    xp = np.pad(x.astype(float), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    y = np.zeros((N, C, OH, OW))
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    win = xp[n, c, i * s:i * s + K, j * s:j * s + K]
                    k = int(np.argmax(win))
                    r, q = divmod(k, win.shape[1])
                    y[n, c, i, j] = win[r, q]
                    idx[n, c, i, j] = (i * s + r - p) * W + (j * s + q - p)
    return y, idx


def wrong_scans_columns_first(x, kernel_size, stride=None, padding=0):
    """Scans each window column by column (q outer, r inner), so a tie goes to the first maximum in column order."""
    stride = kernel_size if stride is None else stride
    N, C, H, W = x.shape
    OH = (H + 2 * padding - kernel_size) // stride + 1
    OW = (W + 2 * padding - kernel_size) // stride + 1
    y = np.empty((N, C, OH, OW))
    argmax = np.empty((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, where = -np.inf, -1
                    for q in range(j * stride - padding, j * stride - padding + kernel_size):
                        for r in range(i * stride - padding, i * stride - padding + kernel_size):
                            if 0 <= r < H and 0 <= q < W and x[n, c, r, q] > best:
                                best, where = x[n, c, r, q], r * W + q
                    y[n, c, i, j] = best
                    argmax[n, c, i, j] = where
    return y, argmax


def wrong_index_counts_channel_planes(x, kernel_size, stride=None, padding=0):
    """Stores the flat index in the whole (C, H, W) volume, c*H*W + r*W + q, instead of within its plane."""
    if stride is None:
        stride = kernel_size
    N, C, H, W = x.shape
    OH = (H + 2 * padding - kernel_size) // stride + 1
    OW = (W + 2 * padding - kernel_size) // stride + 1
    y = np.zeros((N, C, OH, OW))
    arg = np.zeros((N, C, OH, OW), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best = -np.inf
                    for r in range(i * stride - padding, i * stride - padding + kernel_size):
                        for q in range(j * stride - padding, j * stride - padding + kernel_size):
                            if r < 0 or q < 0 or r >= H or q >= W:
                                continue
                            if x[n, c, r, q] > best:
                                best = x[n, c, r, q]
                                arg[n, c, i, j] = c * H * W + r * W + q
                    y[n, c, i, j] = best
    return y, arg


def wrong_output_size_missing_plus_one(x, kernel_size, stride=None, padding=0):
    """Output size (H + 2p - K) // s without the + 1, so the last row and column of windows are dropped."""
    s = stride or kernel_size
    K, p = kernel_size, padding
    N, C, H, W = x.shape
    OH, OW = (H + 2 * p - K) // s, (W + 2 * p - K) // s
    xp = np.full((N, C, H + 2 * p, W + 2 * p), -np.inf)
    xp[:, :, p:p + H, p:p + W] = x
    y = np.zeros((N, C, OH, OW))
    ind = np.zeros((N, C, OH, OW), dtype=np.int64)
    for i in range(OH):
        for j in range(OW):
            win = xp[:, :, i * s:i * s + K, j * s:j * s + K].reshape(N, C, K * K)
            k = win.argmax(axis=-1)
            y[:, :, i, j] = win.max(axis=-1)
            ind[:, :, i, j] = (i * s - p + k // K) * W + (j * s - p + k % K)
    return y, ind
