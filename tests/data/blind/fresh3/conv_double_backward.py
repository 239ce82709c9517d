"""Blind corpus: conv_double_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_dw_reshaped_not_transposed(w, dy, v, stride=1, padding=0):
    """Builds dw with the input channel first, (C_in, C_out, KH, KW), and reshapes it to w's shape instead of transposing the two channel axes."""
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    c_out, c_in, kh, kw = w.shape
    oh, ow = dy.shape[2], dy.shape[3]
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    s = stride
    windows = np.empty((v.shape[0], c_in, kh, kw, oh, ow))
    for ki in range(kh):
        for kj in range(kw):
            windows[:, :, ki, kj] = vp[:, :, ki:ki + s * (oh - 1) + 1:s, kj:kj + s * (ow - 1) + 1:s]
    dw_co = np.einsum("ncabij,noij->coab", windows, dy)
    dw = dw_co.reshape(w.shape)
    return ddy, dw


def wrong_negative_index_wraps(w, dy, v, stride=1, padding=0):
    """Reads v at i*s + ki - padding without padding it, guarding only the upper edge, so a tap at row or column -1 silently wraps to the last one."""
    n, c_in, h, wd = v.shape
    c_out, _, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for b in range(n):
        for o in range(c_out):
            for i in range(oh):
                for j in range(ow):
                    for c in range(c_in):
                        for ki in range(kh):
                            for kj in range(kw):
                                r = i * stride + ki - padding
                                q = j * stride + kj - padding
                                if r < h and q < wd:
                                    ddy[b, o, i, j] += w[o, c, ki, kj] * v[b, c, r, q]
                                    dw[o, c, ki, kj] += dy[b, o, i, j] * v[b, c, r, q]
    return ddy, dw


def wrong_dw_overwritten(w, dy, v, stride=1, padding=0):
    """Assigns each window's contribution to dw with = instead of adding it, so dw holds only the last window of the last image."""
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    n = v.shape[0]
    c_out, c_in, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                patch = vp[b, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                ddy[b, :, i, j] = np.tensordot(w, patch, axes=([1, 2, 3], [0, 1, 2]))
                dw = dy[b, :, i, j][:, None, None, None] * patch[None]
    return ddy, dw


def wrong_stride_as_dilation_in_dw(w, dy, v, stride=1, padding=0):
    """Reads dw's taps at row i + ki*stride (spreading the taps by the stride, like a dilation) instead of i*stride + ki; ddy is right."""
    ddy = F.conv2d(v, w, stride=stride, padding=padding).data
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    c_out, c_in, kh, kw = w.shape
    oh, ow = dy.shape[2], dy.shape[3]
    dw = np.zeros(w.shape)
    for ki in range(kh):
        for kj in range(kw):
            taps = vp[:, :, ki * stride:ki * stride + oh, kj * stride:kj * stride + ow]
            dw[:, :, ki, kj] = np.einsum("noij,ncij->oc", dy, taps)
    return ddy, dw


def wrong_full_padding_of_dx(w, dy, v, stride=1, padding=0):
    """Pads v by k - 1 - padding, the padding of the transposed convolution that made dx, instead of by the forward conv's padding."""
    c_out, c_in, kh, kw = w.shape
    pad = kh - 1 - padding
    ddy = F.conv2d(v, w, stride=stride, padding=pad).data
    vp = np.pad(v, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = ddy.shape[2], ddy.shape[3]
    dw = np.zeros(w.shape)
    for ki in range(kh):
        for kj in range(kw):
            taps = vp[:, :, ki:ki + stride * (oh - 1) + 1:stride, kj:kj + stride * (ow - 1) + 1:stride]
            dw[:, :, ki, kj] = np.einsum("noij,ncij->oc", dy[:, :, :oh, :ow], taps)
    return ddy, dw


def wrong_ddy_first_channel_only(w, dy, v, stride=1, padding=0):
    """Forgets the sum over input channels in ddy, reading only channel 0 of v and of w."""
    vp = np.pad(v, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    n = v.shape[0]
    c_out, c_in, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    ddy = np.zeros(dy.shape)
    dw = np.zeros(w.shape)
    for b in range(n):
        for o in range(c_out):
            for i in range(oh):
                for j in range(ow):
                    r, q = i * stride, j * stride
                    ddy[b, o, i, j] = np.sum(w[o, 0] * vp[b, 0, r:r + kh, q:q + kw])
                    dw[o] += dy[b, o, i, j] * vp[b, :, r:r + kh, q:q + kw]
    return ddy, dw
