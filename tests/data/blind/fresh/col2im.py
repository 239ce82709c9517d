"""Blind corpus: col2im (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np

import convgrad.functional as F


def wrong_input_size_unpacked_as_w_h(col, input_size, kernel_size, stride=1, padding=0,
                                     dilation=1):
    """Unpacks input_size as (W, H), so non-square images get their height and width exchanged."""
    N, C, K, _, OH, OW = col.shape
    W, H = input_size
    p = padding
    img = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            for i in range(OH):
                for j in range(OW):
                    img[:, :, i * stride + ki * dilation, j * stride + kj * dilation] += col[:, :, ki, kj, i, j]
    return img[:, :, p:p + H, p:p + W]


def wrong_column_slice_uses_oh(col, input_size, kernel_size, stride=1, padding=0,
                               dilation=1):
    """Vectorised strided slices, but the column slice stops at OH*stride instead of OW*stride."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    p, s, d = padding, stride, dilation
    img = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            r0, c0 = ki * d, kj * d
            img[:, :, r0:r0 + OH * s:s, c0:c0 + OH * s:s] += col[:, :, ki, kj]
    return img[:, :, p:p + H, p:p + W]


def wrong_padding_subtracted_on_padded_canvas(col, input_size, kernel_size, stride=1, padding=0,
                                              dilation=1):
    """Adds into a padded canvas but still starts windows at i*stride - padding, so the padding is removed twice (negative rows wrap around)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    pad = padding
    canvas = np.zeros((N, C, H + 2 * pad, W + 2 * pad))
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    top, left = i * stride - pad, j * stride - pad
                    for a in range(K):
                        for b in range(K):
                            canvas[n, c, top + a * dilation, left + b * dilation] += col[n, c, a, b, i, j]
    return canvas[:, :, pad:pad + H, pad:pad + W]


def wrong_fold_with_taps_before_channels(col, input_size, kernel_size, stride=1, padding=0,
                                         dilation=1):
    """Hands F.fold the columns ordered (K, K, C) instead of (C, K, K), which mixes channels when C > 1."""
    N, C, K, _, OH, OW = col.shape
    cols = np.transpose(col, (0, 2, 3, 1, 4, 5)).reshape(N, K * K * C, OH * OW)
    return F.fold(cols, input_size, kernel_size, dilation=dilation, padding=padding,
                  stride=stride).data
