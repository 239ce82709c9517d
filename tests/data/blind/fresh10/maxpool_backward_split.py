"""Blind corpus: maxpool_backward_split (fresh10), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_unfold_channels_mixed(x, dy, kernel_size, stride=None, padding=0):
    """Column form, but reshapes unfold's (N, C*K*K, L) as (N, K*K, C, L), so taps of different channels are mixed into one window."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data
    cols = cols.reshape(n, k * k, c, -1)
    tied = cols == cols.max(1, keepdims=True)
    share = tied / tied.sum(1, keepdims=True)
    dcol = share * dy.reshape(n, 1, c, -1)
    dxp = F.fold(dcol.reshape(n, k * k * c, -1), xp.shape[2:], k, stride=s).data
    return dxp[:, :, p:p + h, p:p + w]


def wrong_padding_offset_not_subtracted(x, dy, kernel_size, stride=None, padding=0):
    """Skips taps that fall outside the image instead of padding, but tests and writes the padded coordinate i*S + a without subtracting P, so every padded window is shifted by P."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n, c, h, w = x.shape
    oh, ow = dy.shape[2], dy.shape[3]
    dx = np.zeros(x.shape)
    for i in range(oh):
        for j in range(ow):
            taps = []
            for a in range(k):
                for q in range(k):
                    r, col = i * s + a, j * s + q
                    if 0 <= r < h and 0 <= col < w:
                        taps.append((r, col))
            vals = np.stack([x[:, :, r, col] for r, col in taps], axis=-1)
            mask = vals == vals.max(axis=-1, keepdims=True)
            share = dy[:, :, i, j][..., None] * mask / mask.sum(axis=-1, keepdims=True)
            for m, (r, col) in enumerate(taps):
                dx[:, :, r, col] += share[..., m]
    return dx


def wrong_kernel_taps_transposed(x, dy, kernel_size, stride=None, padding=0):
    """Builds the share of every tap with sliding_window_view and einsum, but scatters tap (a, b) from dcol[..., b, a], so the row and column inside each window are swapped."""
    if stride is None:
        stride = kernel_size
    k, s, p = kernel_size, stride, padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    oh, ow = dy.shape[2], dy.shape[3]
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))
    win = win[:, :, ::s, ::s][:, :, :oh, :ow]
    mask = (win == win.max(axis=(4, 5), keepdims=True)).astype(float)
    inv_t = 1.0 / mask.sum(axis=(4, 5))
    dcol = np.einsum("ncijab,ncij,ncij->ncijab", mask, dy, inv_t)
    dxp = np.zeros(xp.shape)
    for a in range(k):
        for b in range(k):
            dxp[:, :, a:a + s * oh:s, b:b + s * ow:s] += dcol[:, :, :, :, b, a]
    return dxp[:, :, p:p + h, p:p + w]

