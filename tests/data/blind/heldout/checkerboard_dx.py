"""Blind corpus: checkerboard_dx (heldout), written without reading the checker."""

import numpy as np


def wrong_overwrites_stamps(w, input_size, stride=1, padding=0):
    """Writes each stamp with = instead of +=: overlaps keep only the last one."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range((H + 2 * p - KH) // s + 1):
        for j in range((W + 2 * p - KW) // s + 1):
            canvas[i * s : i * s + KH, j * s : j * s + KW] = w
    return canvas[p : p + H, p : p + W]


def wrong_last_window_dropped(w, input_size, stride=1, padding=0):
    """Counts windows as (H + 2p - K) // s without + 1: last row/col of windows lost."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    OH = (H + 2 * p - KH) // s
    OW = (W + 2 * p - KW) // s
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s : i * s + KH, j * s : j * s + KW] += w
    return canvas[p : p + H, p : p + W]


def wrong_height_used_for_width(w, input_size, stride=1, padding=0):
    """Uses H where W belongs when counting the columns of windows."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range((H + 2 * p - KH) // s + 1):
        for j in range((H + 2 * p - KW) // s + 1):
            canvas[i * s : i * s + KH, j * s : j * s + KW] += w
    return canvas[p : p + H, p : p + W]
