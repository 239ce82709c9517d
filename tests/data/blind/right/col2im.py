"""Blind corpus: col2im (right), written without reading the checker."""
import numpy as np


def right_np_add_at(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """One unbuffered np.add.at with broadcast row/column index arrays, then crop the padding."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    rows = (np.arange(K)[:, None] * d + np.arange(OH)[None, :] * s)[:, None, :, None]
    cols = (np.arange(K)[:, None] * d + np.arange(OW)[None, :] * s)[None, :, None, :]
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=np.result_type(col, np.float64))
    np.add.at(xp, (slice(None), slice(None), rows, cols), col)
    return xp[:, :, p:p + H, p:p + W]


def right_bincount_flat_index(col, input_size, kernel_size, stride=1, padding=0,
                             dilation=1):
    """Flat pixel index for every column entry, padding taps sent to a dump bin, summed with np.bincount per (n, c)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    h = (np.arange(K)[:, None, None, None] * d + np.arange(OH)[None, None, :, None] * s - p)
    w = (np.arange(K)[None, :, None, None] * d + np.arange(OW)[None, None, None, :] * s - p)
    h, w = np.broadcast_arrays(h, w)
    inside = (h >= 0) & (h < H) & (w >= 0) & (w < W)
    pix = np.where(inside, h * W + w, H * W).ravel()          # H*W is the dump bin
    nc = np.arange(N * C)[:, None] * (H * W + 1)
    idx = (nc + pix[None, :]).ravel()
    sums = np.bincount(idx, weights=col.reshape(N * C, -1).ravel(), minlength=N * C * (H * W + 1))
    return sums.reshape(N, C, H * W + 1)[:, :, :H * W].reshape(N, C, H, W)


def right_window_loop_with_bounds(col, input_size, kernel_size, stride=1, padding=0,
                                  dilation=1):
    """Loops windows outside and taps inside, adding straight into the unpadded image and skipping taps on the padding."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    img = np.zeros((N, C, H, W))
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                h = oh * s - p + ki * d
                if not 0 <= h < H:
                    continue
                for kj in range(K):
                    w = ow * s - p + kj * d
                    if 0 <= w < W:
                        img[:, :, h, w] += col[:, :, ki, kj, oh, ow]
    return img
