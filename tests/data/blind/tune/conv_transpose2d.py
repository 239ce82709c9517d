"""Blind corpus: conv_transpose2d (tune), written without reading the checker."""

import numpy as np

import convgrad.functional as F


def wrong_output_padding_zeros_after_crop(x, w, stride=1, padding=0, output_padding=0):
    """Leaves output_padding off the canvas, then appends it as zero rows/cols."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p, op = stride, padding, output_padding
    Hc, Wc = (H - 1) * s + K, (W - 1) * s + K
    cols = np.einsum("ncl,cm->nml", x.reshape(N, C_in, H * W), w.reshape(C_in, -1))
    canvas = F.fold(cols, (Hc, Wc), kernel_size=K, stride=s).data
    out = canvas[:, :, p : Hc - p, p : Wc - p]
    return np.pad(out, ((0, 0), (0, 0), (0, op), (0, op)))


def wrong_crop_bottom_right(x, w, stride=1, padding=0, output_padding=0):
    """Crops all 2*padding rows/cols off the top-left, none off the bottom-right."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    _, C_out, K, _ = w.shape
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    canvas = np.zeros((N, C_out, OH + 2 * p, OW + 2 * p))
    for n in range(N):
        for i in range(H):
            for j in range(W):
                stamp = np.tensordot(x[n, :, i, j], w, axes=(0, 0))  # (C_out, K, K)
                canvas[n, :, i * s : i * s + K, j * s : j * s + K] += stamp
    return canvas[:, :, 2 * p :, 2 * p :]


def wrong_weight_indexed_like_conv2d(x, w, stride=1, padding=0, output_padding=0):
    """Reads the weight as w[c_out, c_in] like conv2d's; it is (C_in, C_out, K, K)."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    C_out = w.shape[1]
    K = w.shape[2]
    s, p, op = stride, padding, output_padding
    OH = (H - 1) * s - 2 * p + K + op
    OW = (W - 1) * s - 2 * p + K + op
    big = np.zeros((N, C_out, OH + 2 * p, OW + 2 * p))
    for n in range(N):
        for co in range(C_out):
            for ci in range(C_in):
                for i in range(H):
                    for j in range(W):
                        big[n, co, i * s : i * s + K, j * s : j * s + K] += (
                            x[n, ci, i, j] * w[co, ci]
                        )
    return big[:, :, p : p + OH, p : p + OW]


def wrong_loops_skip_last_row_and_col(x, w, stride=1, padding=0, output_padding=0):
    """Loops over range(H - 1), range(W - 1): the last row/col never stamps."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    s, p = stride, padding
    OH = (H - 1) * s - 2 * p + K + output_padding
    OW = (W - 1) * s - 2 * p + K + output_padding
    canvas = np.zeros((N, C_out, OH + 2 * p, OW + 2 * p))
    for i in range(H - 1):
        for j in range(W - 1):
            canvas[:, :, i * s : i * s + K, j * s : j * s + K] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w
            )
    return canvas[:, :, p : p + OH, p : p + OW]


def wrong_crop_p_to_minus_p(x, w, stride=1, padding=0, output_padding=0):
    """Crops with canvas[p:-p, p:-p], which is empty when padding is 0."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    N, C_in, H, W = x.shape
    C_out, K = w.shape[1], w.shape[2]
    s, p, op = stride, padding, output_padding
    canvas = np.zeros((N, C_out, (H - 1) * s + K + op, (W - 1) * s + K + op))
    for i in range(H):
        for j in range(W):
            canvas[:, :, i * s : i * s + K, j * s : j * s + K] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w
            )
    return canvas[:, :, p:-p, p:-p]
