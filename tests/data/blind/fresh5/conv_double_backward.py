"""Blind corpus: conv_double_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_full_padding(w, dy, v, stride=1, padding=0):
    """Pads v by K-1 on each side (the 'full' padding of the transposed conv that makes dx) instead of by the forward's padding, so every window is shifted up-left."""
    n_, c_in, h, wd = v.shape
    c_out, _, k, _ = w.shape
    oh, ow = dy.shape[2:]
    pad = k - 1
    vp = np.pad(v, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for n in range(n_):
        for o in range(c_out):
            for i in range(oh):
                for j in range(ow):
                    patch = vp[n, :, i * stride:i * stride + k, j * stride:j * stride + k]
                    ddy[n, o, i, j] = (patch * w[o]).sum()
                    dw[o] += dy[n, o, i, j] * patch
    return ddy, dw


def wrong_dw_reshaped_not_transposed(w, dy, v, stride=1, padding=0):
    """Builds dw with einsum in (C_in, C_out, K, K) order and then reshapes it to w.shape instead of transposing the first two axes, scrambling the channel pairs."""
    k = w.shape[2]
    oh, ow = dy.shape[2:]
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    win = np.lib.stride_tricks.sliding_window_view(vp, (k, k), axis=(2, 3))
    win = win[:, :, ::stride, ::stride][:, :, :oh, :ow]
    ddy = np.einsum('ncijab,ocab->noij', win, w)
    dw = np.einsum('ncijab,noij->coab', win, dy).reshape(w.shape)
    return ddy, dw


def wrong_dw_from_ddy(w, dy, v, stride=1, padding=0):
    """Gets ddy right with F.conv2d, then builds dw by correlating v's windows with ddy (the result just computed) instead of with the incoming dy."""
    k = w.shape[2]
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    oh, ow = ddy.shape[2:]
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    dw = np.zeros(w.shape)
    for a in range(k):
        for b in range(k):
            taps = vp[:, :, a:a + stride * (oh - 1) + 1:stride, b:b + stride * (ow - 1) + 1:stride]
            dw[:, :, a, b] = np.einsum('noij,ncij->oc', ddy, taps)
    return ddy, dw


def wrong_ddy_overwritten_per_channel(w, dy, v, stride=1, padding=0):
    """Loops over input channels and assigns ddy[n, o, i, j] = ... inside that loop instead of adding, so only the last input channel's contribution survives."""
    n_, c_in = v.shape[:2]
    c_out, _, k, _ = w.shape
    oh, ow = dy.shape[2:]
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for n in range(n_):
        for o in range(c_out):
            for c in range(c_in):
                for i in range(oh):
                    for j in range(ow):
                        patch = vp[n, c, i * stride:i * stride + k, j * stride:j * stride + k]
                        ddy[n, o, i, j] = (patch * w[o, c]).sum()
                        dw[o, c] += dy[n, o, i, j] * patch
    return ddy, dw


def wrong_dw_batch_mean(w, dy, v, stride=1, padding=0):
    """Averages the weight gradient over the batch (divides by N) instead of summing it, as if s were a mean over images."""
    n_ = v.shape[0]
    k = w.shape[2]
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    cols = F.unfold(v, k, padding=padding, stride=stride).data  # (N, C_in*K*K, OH*OW)
    dy_flat = dy.reshape(n_, dy.shape[1], -1)  # (N, C_out, OH*OW)
    dw = np.einsum('nol,nkl->ok', dy_flat, cols).reshape(w.shape) / n_
    return ddy, dw


def wrong_square_output_loop(w, dy, v, stride=1, padding=0):
    """Loops over output columns with range(OH) as well as rows, assuming a square output, so non-square dy is indexed out of range or its last columns are skipped."""
    n_ = v.shape[0]
    c_out, c_in, k, _ = w.shape
    oh = dy.shape[2]
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for n in range(n_):
        for i in range(oh):
            for j in range(oh):
                patch = vp[n, :, i * stride:i * stride + k, j * stride:j * stride + k]
                ddy[n, :, i, j] = np.einsum('ocab,cab->o', w, patch)
                dw += dy[n, :, i, j][:, None, None, None] * patch[None]
    return ddy, dw
