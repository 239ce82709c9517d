"""Blind corpus: maxpool_backward_by_fold (tune9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_dy_column_major(x, dy, kernel_size, stride=None, padding=0):
    """Flattens dy's window grid column by column (transposing OH and OW first), so each window's dy lands on another window's winner."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    onehot = np.eye(k * k)[cols.argmax(2)].swapaxes(2, 3)
    dy_flat = dy.transpose(0, 1, 3, 2).reshape(n, c, 1, -1)
    dcol = onehot * dy_flat
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p, stride=s).data


def wrong_divides_by_window_size(x, dy, kernel_size, stride=None, padding=0):
    """Mixes max-pool up with average-pool and divides each routed dy by K*K."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    idx = cols.argmax(2)
    dcol = np.zeros_like(cols)
    dyf = dy.reshape(n, c, -1)
    for b in range(n):
        for ch in range(c):
            for col in range(cols.shape[3]):
                dcol[b, ch, idx[b, ch, col], col] = dyf[b, ch, col] / (k * k)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p, stride=s).data


def wrong_first_channel_argmax(x, dy, kernel_size, stride=None, padding=0):
    """Finds the winning tap on channel 0 only and uses that same tap for every channel."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    idx = cols[:, 0].argmax(1)  # (n, L): the winner of channel 0's windows
    onehot = np.eye(k * k)[idx].swapaxes(1, 2)[:, None]  # (n, 1, K*K, L)
    dcol = onehot * dy.reshape(n, c, 1, -1)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p, stride=s).data

