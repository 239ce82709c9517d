"""Blind corpus: conv_transpose2d (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_crop_with_negative_slice(x, w, stride=1, padding=0, output_padding=0):
    """Crops the padding with canvas[p:-p], which for padding 0 returns an empty array instead of the whole canvas."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p = stride, padding
    canvas = np.zeros((N, C_out, (H - 1) * s + K + output_padding, (W - 1) * s + K + output_padding))
    for i in range(H):
        for j in range(W):
            stamp = np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
            canvas[:, :, i * s:i * s + K, j * s:j * s + K] += stamp
    return canvas[:, :, p:-p, p:-p]


def wrong_weight_reshaped_as_out_in(x, w, stride=1, padding=0, output_padding=0):
    """Builds W^T by transposing w to (C_out, C_in, K, K) and then reshaping it to (C_in, C_out*K*K), which scrambles the taps between channels."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    Wm = w.transpose(1, 0, 2, 3).reshape(C_in, C_out * K * K)
    cols = np.einsum("cr,ncl->nrl", Wm, x.reshape(N, C_in, H * W))
    return F.fold(cols, (OH, OW), kernel_size=K, stride=s, padding=p).data


def wrong_kernel_rotated(x, w, stride=1, padding=0, output_padding=0):
    """Rotates the kernel by 180 degrees before stamping, as if the transposed conv flipped it the way conv2d's dx formula does."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    wf = w[:, :, ::-1, ::-1]
    cols = np.einsum("cokl,nchw->noklhw", wf, x).reshape(N, C_out * K * K, H * W)
    return F.fold(cols, (OH, OW), kernel_size=K, stride=s, padding=p).data


def wrong_crop_from_start(x, w, stride=1, padding=0, output_padding=0):
    """Crops the canvas to canvas[:OH, :OW], cutting all the padding off the bottom and right instead of p rows/columns from each side."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    canvas = np.zeros((N, C_out, (H - 1) * s + K + op, (W - 1) * s + K + op))
    for n in range(N):
        for c in range(C_in):
            for i in range(H):
                for j in range(W):
                    canvas[n, :, i * s:i * s + K, j * s:j * s + K] += x[n, c, i, j] * w[c]
    return canvas[:, :, :OH, :OW]


def wrong_stamps_overwrite(x, w, stride=1, padding=0, output_padding=0):
    """Writes each input pixel's stamp onto the canvas with = instead of +=, so where stamps overlap only the last one is kept."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    canvas = np.zeros((N, C_out, (H - 1) * s + K + op, (W - 1) * s + K + op))
    for i in range(H):
        for j in range(W):
            canvas[:, :, i * s:i * s + K, j * s:j * s + K] = np.tensordot(x[:, :, i, j], w, axes=(1, 0))
    return canvas[:, :, p:p + OH, p:p + OW]


def wrong_batch_summed_in_einsum(x, w, stride=1, padding=0, output_padding=0):
    """Leaves n out of the einsum output ("nchw,cokl->oklhw"), so the columns are summed over the batch and every image gets the same result."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    cols = np.einsum("nchw,cokl->oklhw", x, w).reshape(1, C_out * K * K, H * W)
    cols = np.broadcast_to(cols, (N,) + cols.shape[1:])
    return F.fold(np.ascontiguousarray(cols), (OH, OW), kernel_size=K, stride=s, padding=p).data
