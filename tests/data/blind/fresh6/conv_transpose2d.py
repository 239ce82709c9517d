"""Blind corpus: conv_transpose2d (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_reshape_batch_into_channels(x, w, stride=1, padding=0, output_padding=0):
    """Reshapes x (N, C_in, H, W) straight to (C_in, N*H*W) and the columns back to (N, ...) without moving the channel axis, mixing images and channels."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    cols = w.reshape(C_in, -1).T @ x.reshape(C_in, -1)  # (C_out*K*K, N*H*W)
    cols = cols.reshape(N, C_out * K * K, H * W)
    return F.fold(cols, (OH, OW), kernel_size=K, stride=stride, padding=padding).data


def wrong_output_padding_top_left(x, w, stride=1, padding=0, output_padding=0):
    """Adds the output_padding rows and columns at the top and left of the canvas instead of at the bottom and right."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    Hc, Wc = (H - 1) * stride + K, (W - 1) * stride + K
    canvas = np.zeros((N, C_out, Hc, Wc))
    for n in range(N):
        for ci in range(C_in):
            for i in range(H):
                for j in range(W):
                    canvas[n, :, i * stride:i * stride + K, j * stride:j * stride + K] += x[n, ci, i, j] * w[ci]
    op = output_padding
    canvas = np.pad(canvas, ((0, 0), (0, 0), (op, 0), (op, 0)))
    OH = Hc - 2 * padding + op
    OW = Wc - 2 * padding + op
    return canvas[:, :, padding:padding + OH, padding:padding + OW]


def wrong_last_input_channel_only(x, w, stride=1, padding=0, output_padding=0):
    """Rebuilds the output for each input channel and assigns it (out = ...), so only the last input channel's stamps survive instead of summing over C_in."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    Hc = (H - 1) * stride + K + output_padding
    Wc = (W - 1) * stride + K + output_padding
    out = np.zeros((N, C_out, Hc, Wc))
    for ci in range(C_in):
        stamp = np.zeros((N, C_out, Hc, Wc))
        for i in range(H):
            for j in range(W):
                stamp[:, :, i * stride:i * stride + K, j * stride:j * stride + K] += (
                    x[:, ci, i, j][:, None, None, None] * w[ci][None]
                )
        out = stamp
    return out[:, :, padding:Hc - padding, padding:Wc - padding]


def wrong_stuffs_stride_zeros(x, w, stride=1, padding=0, output_padding=0):
    """Zero-stuffs x with `stride` zeros between entries (instead of stride - 1) before the flipped-kernel conv2d, then crops to the expected size."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    step = stride + 1
    stuffed = np.zeros((N, C_in, (H - 1) * step + 1, (W - 1) * step + 1))
    stuffed[:, :, ::step, ::step] = x
    q = K - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + output_padding), (q, q + output_padding)))
    k = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).copy()
    y = F.conv2d(padded, k).data
    return y[:, :, :OH, :OW]
