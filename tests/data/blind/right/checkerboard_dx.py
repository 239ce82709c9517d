"""Blind corpus: checkerboard_dx (right), written without reading the checker."""

import numpy as np

import convgrad.functional as F


def right_tap_loop_strided_slices(w, input_size, stride=1, padding=0):
    """Loops over taps, not windows: tap (ki, kj) adds w[ki, kj] on a strided grid."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for ki in range(KH):
        for kj in range(KW):
            canvas[ki : ki + s * (OH - 1) + 1 : s, kj : kj + s * (OW - 1) + 1 : s] += w[
                ki, kj
            ]
    return canvas[p : p + H, p : p + W]


def right_add_at_index_grids(w, input_size, stride=1, padding=0):
    """Builds every (window, tap) index by broadcasting and scatters with np.add.at."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    rows = (np.arange(OH) * s)[:, None, None, None] + np.arange(KH)[None, None, :, None]
    cols = (np.arange(OW) * s)[None, :, None, None] + np.arange(KW)[None, None, None, :]
    rows, cols = np.broadcast_arrays(rows, cols)
    vals = np.broadcast_to(w, rows.shape)
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    np.add.at(canvas, (rows, cols), vals)
    return canvas[p : p + H, p : p + W]


def right_fold_of_repeated_kernel(w, input_size, stride=1, padding=0):
    """dy = 1 makes every column w: F.fold of the repeated kernel (it crops too)."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    cols = np.repeat(w.reshape(1, KH * KW, 1), OH * OW, axis=2)
    return F.fold(
        cols, (H, W), kernel_size=(KH, KW), stride=stride, padding=padding
    ).data[0, 0]
