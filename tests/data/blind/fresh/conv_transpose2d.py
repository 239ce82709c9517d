"""Blind corpus: conv_transpose2d (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np

import convgrad.functional as F


def wrong_weight_read_as_out_in(x, w, stride=1, padding=0, output_padding=0):
    """Reads w as (C_out, C_in, K, K) like a conv2d weight, so the channels are mixed up."""
    N, C_in, H, W = x.shape
    C_out, _, K, _ = w.shape
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    canvas = np.zeros((N, C_out, OH + 2 * padding, OW + 2 * padding))
    for n in range(N):
        for ci in range(C_in):
            for i in range(H):
                for j in range(W):
                    r, c = i * stride, j * stride
                    canvas[n, :, r:r + K, c:c + K] += x[n, ci, i, j] * w[:, ci]
    return canvas[:, :, padding:padding + OH, padding:padding + OW]


def wrong_padding_subtracted_once(x, w, stride=1, padding=0, output_padding=0):
    """Output size uses - padding instead of - 2*padding, so padding rows stay on at the bottom and right."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    OH = (H - 1) * stride - padding + K + output_padding
    OW = (W - 1) * stride - padding + K + output_padding
    canvas = np.zeros((N, C_out, (H - 1) * stride + K + output_padding,
                       (W - 1) * stride + K + output_padding))
    for n in range(N):
        for i in range(H):
            for j in range(W):
                stamp = np.tensordot(x[n, :, i, j], w, axes=(0, 0))
                canvas[n, :, i * stride:i * stride + K, j * stride:j * stride + K] += stamp
    return canvas[:, :, padding:padding + OH, padding:padding + OW]


def wrong_batch_mixed_in_reshape(x, w, stride=1, padding=0, output_padding=0):
    """Reshapes x straight to (C_in, N*H*W) without moving the batch axis, which scrambles images and channels when N > 1."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    cols = w.reshape(C_in, -1).T @ x.reshape(C_in, -1)
    cols = cols.reshape(N, C_out * K * K, H * W)
    return F.fold(cols, (OH, OW), kernel_size=K, stride=stride, padding=padding).data


def wrong_stride_spaces_the_taps(x, w, stride=1, padding=0, output_padding=0):
    """Puts the stride between the kernel taps (i + ki*stride) instead of between the stamps (i*stride + ki)."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    out = np.zeros((N, C_out, OH + 2 * padding, OW + 2 * padding))
    for n in range(N):
        for ci in range(C_in):
            for co in range(C_out):
                for i in range(H):
                    for j in range(W):
                        for ki in range(K):
                            for kj in range(K):
                                out[n, co, i + ki * stride, j + kj * stride] += x[n, ci, i, j] * w[ci, co, ki, kj]
    return out[:, :, padding:padding + OH, padding:padding + OW]
