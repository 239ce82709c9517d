"""Blind corpus: conv_transpose2d (right), written without reading the checker."""

import numpy as np

import convgrad.functional as F


def right_tap_loop_strided_slices(x, w, stride=1, padding=0, output_padding=0):
    """Loops over taps; each adds W[:, :, ki, kj]^T x on a strided canvas slice."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    canvas = np.zeros((N, C_out, OH + 2 * p, OW + 2 * p))
    for ki in range(K):
        for kj in range(K):
            canvas[
                :, :, ki : ki + s * (H - 1) + 1 : s, kj : kj + s * (W - 1) + 1 : s
            ] += np.einsum("nchw,co->nohw", x, w[:, :, ki, kj])
    return canvas[:, :, p : p + OH, p : p + OW]


def right_zero_stuff_then_flipped_correlation(
    x, w, stride=1, padding=0, output_padding=0
):
    """Zero-stuffs x, pads K-1-p (+op), correlates with the flipped kernel."""
    from numpy.lib.stride_tricks import sliding_window_view

    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    K = w.shape[2]
    s, p, op = stride, padding, output_padding
    stuffed = np.zeros((N, C_in, (H - 1) * s + 1, (W - 1) * s + 1))
    stuffed[:, :, ::s, ::s] = x
    q = K - 1 - p
    lo, hi = q, q + op  # pad before / after; a negative pad is a crop
    big = np.pad(
        stuffed, ((0, 0), (0, 0), (max(lo, 0), max(hi, 0)), (max(lo, 0), max(hi, 0)))
    )
    big = big[
        :,
        :,
        max(-lo, 0) : big.shape[2] - max(-hi, 0),
        max(-lo, 0) : big.shape[3] - max(-hi, 0),
    ]
    win = sliding_window_view(big, (K, K), axis=(2, 3))  # (N, C_in, OH, OW, K, K)
    return np.einsum("ncijab,coab->noij", win, w[:, :, ::-1, ::-1])


def right_fold_of_gemm_columns(x, w, stride=1, padding=0, output_padding=0):
    """Builds W^T x for the whole batch with batched matmul, then F.fold."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    K = w.shape[2]
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    cols = np.matmul(w.reshape(C_in, -1).T[None], x.reshape(N, C_in, H * W))
    return F.fold(cols, (OH, OW), kernel_size=K, stride=stride, padding=padding).data
