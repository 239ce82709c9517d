"""Blind corpus: maxpool_backward_by_fold (fresh9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_taps_before_channels(x, dy, kernel_size, stride=None, padding=0):
    """Reads unfold's rows as (tap, channel) instead of (channel, tap), so with several channels the argmax is taken over the wrong entries."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, k * k, c, -1)
    best = cols.argmax(1)  # (n, c, L)
    dcol = np.zeros_like(cols)
    dyf = dy.reshape(n, c, -1)
    for b in range(n):
        for ch in range(c):
            for col in range(cols.shape[3]):
                dcol[b, best[b, ch, col], ch, col] = dyf[b, ch, col]
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p, stride=s).data


def wrong_argmax_of_magnitude(x, dy, kernel_size, stride=None, padding=0):
    """Picks the tap with the largest absolute value (np.abs(cols).argmax), so a very negative pixel steals the gradient; padding is 0 because -inf would always win in magnitude."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    n, c, h, w = x.shape
    cols = F.unfold(x, k, stride=s, padding=p).data.reshape(n, c, k * k, -1)
    idx = np.abs(cols).argmax(2)
    dcol = np.zeros_like(cols)
    np.put_along_axis(dcol, idx[:, :, None, :], dy.reshape(n, c, 1, -1), axis=2)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p, stride=s).data


def wrong_relu_mask_on_max(x, dy, kernel_size, stride=None, padding=0):
    """Also masks dy by (max > 0), as if the pool were followed by a ReLU, so windows whose maximum is negative or zero get no gradient."""
    k = kernel_size
    s = kernel_size if stride is None else stride
    p = padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    winner = cols.argmax(2)
    y = cols.max(2)
    dcol = np.einsum("nctl,ncl->nctl", np.eye(k * k)[winner].swapaxes(2, 3),
                     dy.reshape(n, c, -1) * (y > 0))
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p, stride=s).data

