"""Blind corpus: conv_double_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_dw_reshaped_not_transposed(w, dy, v, stride=1, padding=0):
    """Computes dw as an (C_in*K*K, C_out) product of the columns with dy and then reshapes it to w's shape instead of transposing it first."""
    N, C_out, OH, OW = dy.shape
    K = w.shape[2]
    col = F.unfold(v, kernel_size=K, stride=stride, padding=padding).data  # (N, C*K*K, L)
    dy_m = dy.reshape(N, C_out, OH * OW)
    ddy = np.einsum("or,nrl->nol", w.reshape(C_out, -1), col).reshape(dy.shape)
    dw = np.einsum("nrl,nol->ro", col, dy_m).reshape(w.shape)
    return ddy, dw


def wrong_v_at_canvas_corner(w, dy, v, stride=1, padding=0):
    """Copies v into the zero padded canvas at the top-left corner ([0:H, 0:W]) instead of offset by the padding, so every window reads a shifted patch."""
    N, C, H, W = v.shape
    C_out, _, K, _ = w.shape
    _, _, OH, OW = dy.shape
    s, p = stride, padding
    vp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    vp[:, :, :H, :W] = v
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for n in range(N):
        for o in range(C_out):
            for i in range(OH):
                for j in range(OW):
                    patch = vp[n, :, i * s:i * s + K, j * s:j * s + K]
                    ddy[n, o, i, j] = np.sum(patch * w[o])
                    dw[o] += dy[n, o, i, j] * patch
    return ddy, dw


def wrong_correlation_cropped_at_end(w, dy, v, stride=1, padding=0):
    """Gets dw from the lesson's correlation of v with dy (stride as dilation) but crops the last K rows and columns of the correlation instead of the first K."""
    K = w.shape[2]
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    v_t = v.transpose(1, 0, 2, 3)
    dy_t = dy.transpose(1, 0, 2, 3)
    corr = F.conv2d(v_t, dy_t, padding=padding, dilation=stride).data
    dw = corr[:, :, -K:, -K:].transpose(1, 0, 2, 3)
    return ddy, dw
