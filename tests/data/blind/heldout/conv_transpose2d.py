"""Blind corpus: conv_transpose2d (heldout), written without reading the checker."""

import numpy as np

import convgrad.functional as F


def wrong_first_example_for_whole_batch(x, w, stride=1, padding=0, output_padding=0):
    """Builds the columns W^T x from x[0] only and reuses them for every example."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    K = w.shape[2]
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    cols = w.reshape(C_in, -1).T @ x[0].reshape(C_in, -1)
    cols = np.broadcast_to(cols, (N,) + cols.shape)
    return F.fold(
        np.ascontiguousarray(cols),
        (OH, OW),
        kernel_size=K,
        stride=stride,
        padding=padding,
    ).data


def wrong_stride_spreads_the_taps(x, w, stride=1, padding=0, output_padding=0):
    """Puts tap ki at i*s + ki*s, spreading the kernel by the stride (a dilation)."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    s, p = stride, padding
    OH = (H - 1) * s - 2 * p + K + output_padding
    OW = (W - 1) * s - 2 * p + K + output_padding
    canvas = np.zeros(
        (
            N,
            C_out,
            (H - 1) * s + (K - 1) * s + 1 + output_padding,
            (W - 1) * s + (K - 1) * s + 1 + output_padding,
        )
    )
    for i in range(H):
        for j in range(W):
            for ki in range(K):
                for kj in range(K):
                    canvas[:, :, i * s + ki * s, j * s + kj * s] += (
                        x[:, :, i, j] @ w[:, :, ki, kj]
                    )
    return canvas[:, :, p : p + OH, p : p + OW]


def wrong_height_used_for_width(x, w, stride=1, padding=0, output_padding=0):
    """Two bugs: width sized from H, and output_padding added to the height only."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    K = w.shape[2]
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (H - 1) * s - 2 * p + K
    cols = np.einsum("ck,nch->nkh", w.reshape(C_in, -1), x.reshape(N, C_in, -1))
    return F.fold(cols, (OH, OW), kernel_size=K, stride=s, padding=p).data
