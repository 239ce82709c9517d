"""Blind corpus: conv_transpose2d (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_reshape_not_transpose(x, w, stride=1, padding=0, output_padding=0):
    """Builds W^T with w.reshape(-1, C_in) instead of w.reshape(C_in, -1).T, so the column entries are scrambled whenever C_in or C_out is above 1."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    Wt = w.reshape(-1, C_in)                       # (C_out*K*K, C_in)
    cols = np.einsum("rc,ncl->nrl", Wt, x.reshape(N, C_in, H * W))
    return F.fold(cols, (OH, OW), kernel_size=K, stride=stride, padding=padding).data


def wrong_batch_folded_into_pixels(x, w, stride=1, padding=0, output_padding=0):
    """Flattens x with x.reshape(C_in, -1) so the batch and channel axes get mixed, then splits the columns back into N images."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    cols = w.reshape(C_in, -1).T @ x.reshape(C_in, -1)   # (C_out*K*K, N*H*W)
    cols = cols.reshape(C_out * K * K, N, H * W).transpose(1, 0, 2)
    return F.fold(cols, (OH, OW), kernel_size=K, stride=stride, padding=padding).data


def wrong_crop_minus_p(x, w, stride=1, padding=0, output_padding=0):
    """Stamps onto a full canvas and crops it with canvas[p:-p, p:-p], which is empty when padding is 0."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    s, p = stride, padding
    canvas = np.zeros((N, C_out, (H - 1) * s + K + output_padding, (W - 1) * s + K + output_padding))
    for n in range(N):
        for ci in range(C_in):
            for i in range(H):
                for j in range(W):
                    canvas[n, :, i * s:i * s + K, j * s:j * s + K] += x[n, ci, i, j] * w[ci]
    return canvas[:, :, p:-p, p:-p]


def wrong_output_height_for_both(x, w, stride=1, padding=0, output_padding=0):
    """Computes the output size once from H and uses it for both axes, so a non-square input gets a square, wrongly sized output."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    size = (H - 1) * stride - 2 * padding + K + output_padding
    s, p = stride, padding
    canvas = np.zeros((N, C_out, size + 2 * p, size + 2 * p))
    cols = np.einsum("iokl,nihw->noklhw", w, x)
    for i in range(min(H, W)):
        for j in range(min(H, W)):
            canvas[:, :, i * s:i * s + K, j * s:j * s + K] += cols[:, :, :, :, i, j]
    return canvas[:, :, p:p + size, p:p + size]


def wrong_stuffs_stride_zeros(x, w, stride=1, padding=0, output_padding=0):
    """Goes the conv2d way but inserts stride zeros between the entries of x instead of stride - 1, then crops/pads to the output size."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    s, p = stride, padding
    OH = (H - 1) * s - 2 * p + K + output_padding
    OW = (W - 1) * s - 2 * p + K + output_padding
    g = s + 1 if s > 1 else 1
    stuffed = np.zeros((N, C_in, (H - 1) * g + 1, (W - 1) * g + 1))
    stuffed[:, :, ::g, ::g] = x
    q = K - 1 - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + output_padding), (q, q + output_padding)))
    kern = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).copy()
    y = F.conv2d(padded, kern).data
    out = np.zeros((N, C_out, OH, OW))
    h, ww = min(OH, y.shape[2]), min(OW, y.shape[3])
    out[:, :, :h, :ww] = y[:, :, :h, :ww]
    return out


def wrong_divides_by_overlap(x, w, stride=1, padding=0, output_padding=0):
    """Divides each output pixel by how many stamps covered it, to 'remove the checkerboard', instead of leaving the overlapping stamps summed."""
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    s, p, op = stride, padding, output_padding
    FH, FW = (H - 1) * s + K + op, (W - 1) * s + K + op
    canvas = np.zeros((N, C_out, FH, FW))
    count = np.zeros((FH, FW))
    for i in range(H):
        for j in range(W):
            canvas[:, :, i * s:i * s + K, j * s:j * s + K] += np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
            count[i * s:i * s + K, j * s:j * s + K] += 1
    canvas = canvas / np.maximum(count, 1)
    return canvas[:, :, p:FH - p, p:FW - p]
