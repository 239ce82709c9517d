"""Blind corpus: conv_transpose2d (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_reshape_for_transpose(x, w, stride=1, padding=0, output_padding=0):
    """Builds W^T by reshaping w to (C_out*K*K, C_in) instead of transposing its (C_in, C_out*K*K) matrix, which scrambles the weights when C_in > 1."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    Ho = (H - 1) * stride - 2 * padding + K + output_padding
    Wo = (W - 1) * stride - 2 * padding + K + output_padding
    wt = w.reshape(-1, C_in)  # (C_out*K*K, C_in)
    cols = wt @ x.reshape(N, C_in, H * W)  # (N, C_out*K*K, H*W)
    return F.fold(cols, (Ho, Wo), K, padding=padding, stride=stride).data


def wrong_negative_slice_crop(x, w, stride=1, padding=0, output_padding=0):
    """Crops the padding with canvas[..., p:-p, p:-p], which is empty when padding is 0."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p = stride, padding
    canvas = np.zeros((N, C_out, (H - 1) * s + K + output_padding, (W - 1) * s + K + output_padding))
    for ih in range(H):
        for iw in range(W):
            stamp = np.einsum("nc,cokl->nokl", x[:, :, ih, iw], w)
            canvas[:, :, ih * s:ih * s + K, iw * s:iw * s + K] += stamp
    return canvas[:, :, p:-p, p:-p]


def wrong_batch_not_indexed(x, w, stride=1, padding=0, output_padding=0):
    """Loops over the batch but adds each stamp into out[:, co] (every sample), so each output holds the sum over the whole batch."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p = stride, padding
    Ho = (H - 1) * s - 2 * p + K + output_padding
    Wo = (W - 1) * s - 2 * p + K + output_padding
    out = np.zeros((N, C_out, Ho + 2 * p, Wo + 2 * p))
    for n in range(N):
        for ci in range(C_in):
            for co in range(C_out):
                for ih in range(H):
                    for iw in range(W):
                        for ki in range(K):
                            for kj in range(K):
                                out[:, co, ih * s + ki, iw * s + kj] += x[n, ci, ih, iw] * w[ci, co, ki, kj]
    return out[:, :, p:p + Ho, p:p + Wo]


def wrong_stride_spaces_taps(x, w, stride=1, padding=0, output_padding=0):
    """Puts the stride on the kernel taps (pixel ih + ki*s, like a dilation) instead of on the input pixels (ih*s + ki)."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p = stride, padding
    Ho = (H - 1) * s - 2 * p + K + output_padding
    Wo = (W - 1) * s - 2 * p + K + output_padding
    canvas = np.zeros((N, C_out, Ho + 2 * p, Wo + 2 * p))
    ih, iw, ki, kj = np.meshgrid(np.arange(H), np.arange(W), np.arange(K), np.arange(K), indexing="ij")
    rows = (ih + ki * s).ravel()
    cols = (iw + kj * s).ravel()
    vals = np.einsum("nchw,cokl->nohwkl", x, w).reshape(N, C_out, -1)
    for n in range(N):
        for co in range(C_out):
            np.add.at(canvas[n, co], (rows, cols), vals[n, co])
    return canvas[:, :, p:p + Ho, p:p + Wo]


def wrong_mean_over_input_channels(x, w, stride=1, padding=0, output_padding=0):
    """Combines the input channels' stamps with a mean over C_in instead of a sum."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p = stride, padding
    Ho = (H - 1) * s - 2 * p + K + output_padding
    Wo = (W - 1) * s - 2 * p + K + output_padding
    canvas = np.zeros((N, C_out, Ho + 2 * p, Wo + 2 * p))
    for ih in range(H):
        for iw in range(W):
            stamps = x[:, :, ih, iw][:, :, None, None, None] * w[None]  # (N, C_in, C_out, K, K)
            canvas[:, :, ih * s:ih * s + K, iw * s:iw * s + K] += stamps.mean(axis=1)
    return canvas[:, :, p:p + Ho, p:p + Wo]


def wrong_size_uses_h_times_stride(x, w, stride=1, padding=0, output_padding=0):
    """Sizes the output as H*stride - 2*padding + K + output_padding (H, not H - 1), so strided outputs get extra zero rows and columns."""
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p = stride, padding
    Ho = H * s - 2 * p + K + output_padding
    Wo = W * s - 2 * p + K + output_padding
    canvas = np.zeros((N, C_out, Ho + 2 * p, Wo + 2 * p))
    for ih in range(H):
        for iw in range(W):
            canvas[:, :, ih * s:ih * s + K, iw * s:iw * s + K] += np.tensordot(x[:, :, ih, iw], w, axes=([1], [0]))
    return canvas[:, :, p:p + Ho, p:p + Wo]
