"""Blind corpus: im2col (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_stride_on_taps(x, kernel_size, stride=1, padding=0, dilation=1):
    """Multiplies the whole offset by the stride, h = (oh + ki*d)*s, so with stride > 1 the taps inside a window are spread s apart too."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = (oh + ki * d) * s - p
                    w = (ow + kj * d) * s - p
                    if 0 <= h < H and 0 <= w < W:
                        col[:, :, ki, kj, oh, ow] = x[:, :, h, w]
    return col


def wrong_ow_from_height(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes the number of window positions once from H and uses it for both axes, so non-square images get OW = OH."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    out = (H + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, out, out), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(out):
                for ow in range(out):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * s + ki * d, ow * s + kj * d]
    return col


def wrong_dilated_extent(x, kernel_size, stride=1, padding=0, dilation=1):
    """Takes the dilated kernel's extent as d*K instead of d*(K-1)+1, so with dilation > 1 one window position per axis is lost."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * K) // s + 1
    OW = (W + 2 * p - d * K) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.empty((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            col[:, :, ki, kj] = xp[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s]
    return col


def wrong_edge_padding(x, kernel_size, stride=1, padding=0, dilation=1):
    """Pads with np.pad(mode='edge'), so windows hanging over the border read the border pixel instead of 0."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), mode="edge")
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            h0, w0 = ki * d, kj * d
            col[:, :, ki, kj] = xp[:, :, h0:h0 + s * OH:s, w0:w0 + s * OW:s]
    return col


def wrong_reshape_not_transpose(x, kernel_size, stride=1, padding=0, dilation=1):
    """Gathers the windows as (N, C, OH, OW, K, K) and then reshapes to (N, C, K, K, OH, OW) instead of transposing, scrambling the entries."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    win = np.zeros((N, C, OH, OW, K, K), dtype=x.dtype)
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s, ow * s
            win[:, :, oh, ow] = xp[:, :, h0:h0 + d * (K - 1) + 1:d, w0:w0 + d * (K - 1) + 1:d]
    return win.reshape(N, C, K, K, OH, OW)


def wrong_window_view_axes(x, kernel_size, stride=1, padding=0, dilation=1):
    """Uses sliding_window_view but transposes the tap axes in the wrong order, (0, 1, 5, 4, 2, 3), so ki runs along the columns."""
    K, s, p, d = kernel_size, stride, padding, dilation
    span = d * (K - 1) + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    v = np.lib.stride_tricks.sliding_window_view(xp, (span, span), axis=(2, 3))
    v = v[:, :, ::s, ::s, ::d, ::d]  # (N, C, OH, OW, K, K)
    return np.ascontiguousarray(v.transpose(0, 1, 5, 4, 2, 3))
