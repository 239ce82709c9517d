"""Blind corpus: checkerboard_dx (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_windows_counted_unpadded(w, input_size, stride=1, padding=0):
    """Stamps on the zero-padded canvas but counts the windows from the unpadded size, (H - K)//s + 1, so with padding the last windows are never stamped."""
    H, W = input_size
    K = w.shape[0]
    p, s = padding, stride
    OH = (H - K) // s + 1
    OW = (W - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j * s:j * s + K] += w
    return canvas[p:p + H, p:p + W]


def wrong_transpose_no_output_padding(w, input_size, stride=1, padding=0):
    """Uses F.conv_transpose2d of a ones dy without output_padding, so when (H + 2p - K) is not a multiple of the stride the result is smaller than the input."""
    H, W = input_size
    K = w.shape[0]
    OH = (H + 2 * padding - K) // stride + 1
    OW = (W + 2 * padding - K) // stride + 1
    dy = np.ones((1, 1, OH, OW))
    dx = F.conv_transpose2d(dy, w[None, None], stride=stride, padding=padding)
    return dx.data[0, 0]


def wrong_stride_spaces_taps(w, input_size, stride=1, padding=0):
    """Confuses stride with dilation: windows start one pixel apart (i + ...) and the taps inside a window are spaced by the stride (ki*s)."""
    H, W = input_size
    KH, KW = w.shape
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            for ki in range(KH):
                for kj in range(KW):
                    canvas[i + ki * s, j + kj * s] += w[ki, kj]
    return canvas[p:p + H, p:p + W]
