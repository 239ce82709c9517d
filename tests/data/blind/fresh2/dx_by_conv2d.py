"""Blind corpus: dx_by_conv2d (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_zero_rows_after_conv(dy, w, input_size, stride=1, padding=0):
    """Pads the stuffed dy by k-1-p only, then zero-pads the conv's result up to input_size, so the output_padding rows/columns get 0 instead of their real gradient."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    H, W = input_size
    stuffed = np.zeros((N, C_out, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    stuffed[:, :, ::stride, ::stride] = dy
    q = k - 1 - padding
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q), (q, q)))
    back = w[..., ::-1, ::-1].transpose(1, 0, 2, 3)
    dx = F.conv2d(padded, back).data
    return np.pad(dx, ((0, 0), (0, 0), (0, H - dx.shape[2]), (0, W - dx.shape[3])))


def wrong_repeat_not_stuff(dy, w, input_size, stride=1, padding=0):
    """Upsamples dy by repeating each entry stride times (np.repeat, nearest-neighbour) instead of inserting zeros between the entries."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    H, W = input_size
    up = np.repeat(np.repeat(dy, stride, axis=2), stride, axis=3)
    up = up[:, :, : (OH - 1) * stride + 1, : (OW - 1) * stride + 1]
    q = k - 1 - padding
    op_h = H - ((OH - 1) * stride - 2 * padding + k)
    op_w = W - ((OW - 1) * stride - 2 * padding + k)
    padded = np.pad(up, ((0, 0), (0, 0), (q, q + op_h), (q, q + op_w)))
    back = np.flip(w, axis=(2, 3)).transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_rot90_once(dy, w, input_size, stride=1, padding=0):
    """Rotates the kernel with a single np.rot90 (90 degrees) instead of 180 degrees when building the backward kernel."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    H, W = input_size
    stuffed = np.zeros((N, C_out, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    stuffed[:, :, ::stride, ::stride] = dy
    q = k - 1 - padding
    op_h = H - ((OH - 1) * stride - 2 * padding + k)
    op_w = W - ((OW - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + op_h), (q, q + op_w)))
    back = np.rot90(w, 1, axes=(2, 3)).transpose(1, 0, 2, 3)
    return F.conv2d(padded, np.ascontiguousarray(back)).data


def wrong_output_padding_top_left(dy, w, input_size, stride=1, padding=0):
    """Puts the output_padding rows and columns at the top and left of the stuffed dy instead of the bottom and right."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    H, W = input_size
    stuffed = np.zeros((N, C_out, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    for i in range(OH):
        for j in range(OW):
            stuffed[:, :, i * stride, j * stride] = dy[:, :, i, j]
    q = k - 1 - padding
    op_h = H - ((OH - 1) * stride - 2 * padding + k)
    op_w = W - ((OW - 1) * stride - 2 * padding + k)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q + op_h, q), (q + op_w, q)))
    back = w[:, :, ::-1, ::-1].swapaxes(0, 1)
    return F.conv2d(padded, back.copy()).data


def wrong_hw_unpacked_backwards(dy, w, input_size, stride=1, padding=0):
    """Unpacks input_size as (W, H), so the output_padding meant for the rows goes to the columns and vice versa on non-square inputs."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    W, H = input_size
    stuffed = np.zeros((N, C_out, (OH - 1) * stride + 1, (OW - 1) * stride + 1))
    stuffed[:, :, ::stride, ::stride] = dy
    q = k - 1 - padding
    op_h = max(H - ((OH - 1) * stride - 2 * padding + k), 0)
    op_w = max(W - ((OW - 1) * stride - 2 * padding + k), 0)
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + op_h), (q, q + op_w)))
    back = w[..., ::-1, ::-1].transpose(1, 0, 2, 3)
    return F.conv2d(padded, back).data


def wrong_stride_as_dilation(dy, w, input_size, stride=1, padding=0):
    """Carries over the dw rule 'the stride becomes a dilation': dilates the flipped kernel by the stride instead of zero-stuffing dy."""
    N, C_out, OH, OW = dy.shape
    k = w.shape[-1]
    H, W = input_size
    span = stride * (k - 1) + 1
    q = span - 1 - padding
    pad_h = H - (OH + 2 * q - span + 1)
    pad_w = W - (OW + 2 * q - span + 1)
    padded = np.pad(dy, ((0, 0), (0, 0), (q, q + max(pad_h, 0)), (q, q + max(pad_w, 0))))
    back = w[..., ::-1, ::-1].transpose(1, 0, 2, 3)
    dx = F.conv2d(padded, back, dilation=stride).data
    return dx[:, :, :H, :W]
