"""Blind corpus: checkerboard_dx (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_window_count_missing_plus_one(w, input_size, stride=1, padding=0):
    """Counts the windows as (H + 2p - K) // s without the + 1, so the last row and the last column of windows never stamp."""
    H, W = input_size
    K = w.shape[0]
    oh = (H + 2 * padding - K) // stride
    ow = (W + 2 * padding - K) // stride
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    for i in range(oh):
        for j in range(ow):
            canvas[i * stride:i * stride + K, j * stride:j * stride + K] += w
    return canvas[padding:padding + H, padding:padding + W]


def wrong_width_count_from_height(w, input_size, stride=1, padding=0):
    """Computes the number of window columns from the height H instead of the width W, so non-square inputs get too many or too few columns of stamps."""
    H, W = input_size
    K = w.shape[0]
    Hp, Wp = H + 2 * padding, W + 2 * padding
    oh = (Hp - K) // stride + 1
    ow = (Hp - K) // stride + 1
    canvas = np.zeros((Hp, Wp))
    for ki in range(K):
        for kj in range(K):
            canvas[ki:ki + stride * oh:stride, kj:kj + stride * ow:stride] += w[ki, kj]
    return canvas[padding:padding + H, padding:padding + W]


def wrong_window_count_ignores_padding(w, input_size, stride=1, padding=0):
    """Pads the canvas but counts the windows on the unpadded size, (H - K) // s + 1, so with padding the windows that reach the bottom and right border are missing."""
    H, W = input_size
    K = w.shape[0]
    oh = (H - K) // stride + 1
    ow = (W - K) // stride + 1
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    ki, kj = np.meshgrid(np.arange(K), np.arange(K), indexing="ij")
    for i in range(oh):
        for j in range(ow):
            np.add.at(canvas, (i * stride + ki, j * stride + kj), w)
    return canvas[padding:padding + H, padding:padding + W]


def wrong_integer_canvas(w, input_size, stride=1, padding=0):
    """Accumulates on an integer canvas (np.zeros(..., dtype=int)), so every partial sum is truncated to an integer and fractional weights are lost."""
    H, W = input_size
    K = w.shape[0]
    oh = (H + 2 * padding - K) // stride + 1
    ow = (W + 2 * padding - K) // stride + 1
    canvas = np.zeros((H + 2 * padding, W + 2 * padding), dtype=int)
    for i in range(oh):
        for j in range(ow):
            r, c = i * stride, j * stride
            canvas[r:r + K, c:c + K] = canvas[r:r + K, c:c + K] + w
    return canvas[padding:padding + H, padding:padding + W]


def wrong_count_times_mean_weight(w, input_size, stride=1, padding=0):
    """Computes the overlap count with a ones kernel and multiplies it by w.mean(), as if every stamp added the average weight instead of the weight of the tap that covers the pixel."""
    H, W = input_size
    K = w.shape[0]
    Hp, Wp = H + 2 * padding, W + 2 * padding
    oh = (Hp - K) // stride + 1
    ow = (Wp - K) // stride + 1
    count = np.zeros((Hp, Wp))
    rows = (np.arange(oh)[:, None] * stride + np.arange(K)[None, :]).ravel()
    cols = (np.arange(ow)[:, None] * stride + np.arange(K)[None, :]).ravel()
    np.add.at(count, (rows[:, None], cols[None, :]), 1.0)
    return count[padding:padding + H, padding:padding + W] * w.mean()


def wrong_clipped_window_top_taps(w, input_size, stride=1, padding=0):
    """Stamps straight onto the unpadded image and clips windows that hang over the border, but always keeps the first taps w[:rows, :cols], which is wrong for windows clipped at the top or left."""
    H, W = input_size
    K = w.shape[0]
    oh = (H + 2 * padding - K) // stride + 1
    ow = (W + 2 * padding - K) // stride + 1
    dx = np.zeros((H, W))
    for i in range(oh):
        r0 = i * stride - padding
        r_lo, r_hi = max(r0, 0), min(r0 + K, H)
        for j in range(ow):
            c0 = j * stride - padding
            c_lo, c_hi = max(c0, 0), min(c0 + K, W)
            dx[r_lo:r_hi, c_lo:c_hi] += w[:r_hi - r_lo, :c_hi - c_lo]
    return dx
