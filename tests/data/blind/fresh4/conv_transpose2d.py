"""Blind corpus: conv_transpose2d (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def _canvas(x, w, stride, output_padding):
    n, c_in, h, wd = x.shape
    _, c_out, k, _ = w.shape
    full_h = (h - 1) * stride + k + output_padding
    full_w = (wd - 1) * stride + k + output_padding
    return np.zeros((n, c_out, full_h, full_w))


def wrong_crop_minus_p_slice(x, w, stride=1, padding=0, output_padding=0):
    """Crops the padding with canvas[p:-p], which is an empty slice when padding is 0."""
    n, c_in, h, wd = x.shape
    k = w.shape[2]
    out = _canvas(x, w, stride, output_padding)
    for i in range(h):
        for j in range(wd):
            out[:, :, i * stride:i * stride + k, j * stride:j * stride + k] += np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    p = padding
    return out[:, :, p:-p, p:-p]


def wrong_columns_by_reshape(x, w, stride=1, padding=0, output_padding=0):
    """Gets W^T by reshaping w to (C_out*K*K, C_in) instead of transposing, so the columns mix taps and channels."""
    n, c_in, h, wd = x.shape
    _, c_out, k, _ = w.shape
    Wt = w.reshape(c_out * k * k, c_in)
    out = _canvas(x, w, stride, output_padding)
    for b in range(n):
        cols = Wt @ x[b].reshape(c_in, -1)
        cols = cols.reshape(c_out, k, k, h, wd)
        for i in range(h):
            for j in range(wd):
                out[b, :, i * stride:i * stride + k, j * stride:j * stride + k] += cols[:, :, :, i, j]
    H, W = out.shape[2:]
    return out[:, :, padding:H - padding, padding:W - padding]


def wrong_output_padding_on_top_left(x, w, stride=1, padding=0, output_padding=0):
    """Builds the canvas without output_padding, crops, then pads the extra rows/columns with zeros at the top and left."""
    n, c_in, h, wd = x.shape
    k = w.shape[2]
    out = _canvas(x, w, stride, 0)
    for i in range(h):
        for j in range(wd):
            out[:, :, i * stride:i * stride + k, j * stride:j * stride + k] += np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    H, W = out.shape[2:]
    out = out[:, :, padding:H - padding, padding:W - padding]
    op = output_padding
    return np.pad(out, ((0, 0), (0, 0), (op, 0), (op, 0)))


def wrong_stride_rows_only(x, w, stride=1, padding=0, output_padding=0):
    """Steps the stamp by the stride down the rows but by 1 across the columns, so horizontally the stamps pile up at the left."""
    n, c_in, h, wd = x.shape
    k = w.shape[2]
    out = _canvas(x, w, stride, output_padding)
    for i in range(h):
        for j in range(wd):
            out[:, :, i * stride:i * stride + k, j:j + k] += np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    H, W = out.shape[2:]
    return out[:, :, padding:H - padding, padding:W - padding]


def wrong_crop_from_end(x, w, stride=1, padding=0, output_padding=0):
    """Crops 2*padding rows and columns off the bottom/right only, instead of padding from each side."""
    n, c_in, h, wd = x.shape
    k = w.shape[2]
    out = _canvas(x, w, stride, output_padding)
    for i in range(h):
        for j in range(wd):
            out[:, :, i * stride:i * stride + k, j * stride:j * stride + k] += np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    H, W = out.shape[2:]
    return out[:, :, :H - 2 * padding, :W - 2 * padding]


def wrong_first_sample_only(x, w, stride=1, padding=0, output_padding=0):
    """Loops over the batch but computes the columns from x[0] each time, so every sample gets the first sample's output."""
    n, c_in, h, wd = x.shape
    _, c_out, k, _ = w.shape
    Wt = w.reshape(c_in, -1).T
    out = _canvas(x, w, stride, output_padding)
    for b in range(n):
        cols = (Wt @ x[0].reshape(c_in, -1)).reshape(c_out, k, k, h, wd)
        for i in range(h):
            for j in range(wd):
                out[b, :, i * stride:i * stride + k, j * stride:j * stride + k] += cols[:, :, :, i, j]
    H, W = out.shape[2:]
    return out[:, :, padding:H - padding, padding:W - padding]
