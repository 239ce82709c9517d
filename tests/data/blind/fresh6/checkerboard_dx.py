"""Blind corpus: checkerboard_dx (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_integer_canvas(w, input_size, stride=1, padding=0):
    """Allocates the canvas with dtype=int (copied from the overlap-count code), so every added weight is truncated to an integer."""
    H, W = input_size
    K = w.shape[0]
    Hp, Wp = H + 2 * padding, W + 2 * padding
    OH = (Hp - K) // stride + 1
    OW = (Wp - K) // stride + 1
    canvas = np.zeros((Hp, Wp), dtype=int)
    for i in range(OH):
        for j in range(OW):
            for ki in range(K):
                for kj in range(K):
                    r, c = i * stride + ki, j * stride + kj
                    canvas[r, c] = canvas[r, c] + w[ki, kj]
    return canvas[padding:padding + H, padding:padding + W]


def wrong_square_canvas(w, input_size, stride=1, padding=0):
    """Assumes a square image: builds an (H+2p) x (H+2p) canvas and slides the windows along the width as far as the height allows."""
    H, W = input_size
    K = w.shape[0]
    n = H + 2 * padding
    O = (n - K) // stride + 1
    canvas = np.zeros((n, n))
    for i in range(O):
        for j in range(O):
            canvas[i * stride:i * stride + K, j * stride:j * stride + K] += w
    out = np.zeros((H, W))
    ww = min(W, n - padding)
    out[:, :ww] = canvas[padding:padding + H, padding:padding + ww]
    return out


def wrong_crops_bottom_right_only(w, input_size, stride=1, padding=0):
    """Crops the padded canvas as canvas[:H, :W], removing padding only at the bottom and right and keeping the top/left padding rows."""
    H, W = input_size
    K = w.shape[0]
    Hp, Wp = H + 2 * padding, W + 2 * padding
    canvas = np.zeros((Hp, Wp))
    for i in range((Hp - K) // stride + 1):
        for j in range((Wp - K) // stride + 1):
            canvas[i * stride:i * stride + K, j * stride:j * stride + K] += w
    return canvas[:H, :W]


def wrong_window_range_exclusive(w, input_size, stride=1, padding=0):
    """Loops the window corners over range(0, Hp - K, s), whose end excludes the last valid corner Hp - K, so the last row/column of windows is sometimes skipped."""
    H, W = input_size
    K = w.shape[0]
    Hp, Wp = H + 2 * padding, W + 2 * padding
    canvas = np.zeros((Hp, Wp))
    for r in range(0, Hp - K, stride):
        for c in range(0, Wp - K, stride):
            canvas[r:r + K, c:c + K] += w
    return canvas[padding:padding + H, padding:padding + W]
