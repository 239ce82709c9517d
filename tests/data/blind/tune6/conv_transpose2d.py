"""Blind corpus: conv_transpose2d (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_reshape_not_transpose(x, w, stride=1, padding=0, output_padding=0):
    """Builds the matrix Wᵀ with `w.reshape(C_out*K*K, C_in)` instead of `w.reshape(C_in, -1).T`, so the weights are scrambled whenever there is more than one channel."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    wt = w.reshape(C_out * K * K, C_in)
    cols = wt @ x.reshape(N, C_in, H * W)  # (N, C_out*K*K, H*W)
    return F.fold(cols, (OH, OW), kernel_size=K, stride=stride, padding=padding).data


def wrong_square_canvas(x, w, stride=1, padding=0, output_padding=0):
    """Sizes the canvas and the output from H on both axes (assumes square images), so a non-square input gets a wrong width."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    size = (H - 1) * stride + K + output_padding
    canvas = np.zeros((N, C_out, size, size))
    for n in range(N):
        for c in range(C_in):
            for i in range(H):
                for j in range(W):
                    h0, w0 = i * stride, j * stride
                    if h0 + K > size or w0 + K > size:
                        continue
                    canvas[n, :, h0:h0 + K, w0:w0 + K] += x[n, c, i, j] * w[c]
    out = size - 2 * padding
    return canvas[:, :, padding:padding + out, padding:padding + out]


def wrong_averages_overlaps(x, w, stride=1, padding=0, output_padding=0):
    """Divides each output pixel by the number of stamps that reached it, to "fix" the checkerboard, so overlapping stamps are averaged instead of summed."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    OH = (H - 1) * stride - 2 * padding + K + output_padding
    OW = (W - 1) * stride - 2 * padding + K + output_padding
    CH, CW = OH + 2 * padding, OW + 2 * padding
    canvas = np.zeros((N, C_out, CH, CW))
    count = np.zeros((CH, CW))
    for ki in range(K):
        for kj in range(K):
            tap = np.einsum("nchw,co->nohw", x, w[:, :, ki, kj])
            canvas[:, :, ki:ki + stride * H:stride, kj:kj + stride * W:stride] += tap
            count[ki:ki + stride * H:stride, kj:kj + stride * W:stride] += 1
    canvas = canvas / np.maximum(count, 1)
    return canvas[:, :, padding:padding + OH, padding:padding + OW]
