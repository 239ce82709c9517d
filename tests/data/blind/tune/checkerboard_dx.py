"""Blind corpus: checkerboard_dx (tune), written without reading the checker."""

import numpy as np


def wrong_window_count_ignores_padding(w, input_size, stride=1, padding=0):
    """Pads the canvas but counts the windows on the unpadded size."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range((H - KH) // s + 1):
        for j in range((W - KW) // s + 1):
            canvas[i * s : i * s + KH, j * s : j * s + KW] += w
    return canvas[p : p + H, p : p + W]


def wrong_crop_from_origin(w, input_size, stride=1, padding=0):
    """Crops canvas[:H, :W], keeping the top-left padding instead of canvas[p:p+H]."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range((H + 2 * p - KH) // s + 1):
        for j in range((W + 2 * p - KW) // s + 1):
            canvas[i * s : i * s + KH, j * s : j * s + KW] += w
    return canvas[:H, :W]


def wrong_stamps_ones_not_w(w, input_size, stride=1, padding=0):
    """Adds 1 per window (the overlap count) instead of the kernel's weights."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range((H + 2 * p - KH) // s + 1):
        for j in range((W + 2 * p - KW) // s + 1):
            canvas[i * s : i * s + KH, j * s : j * s + KW] += 1
    return canvas[p : p + H, p : p + W]


def wrong_skips_windows_touching_padding(w, input_size, stride=1, padding=0):
    """Skips every window that hangs into the padding instead of clipping it."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    dx = np.zeros((H, W))
    for i in range((H + 2 * p - KH) // s + 1):
        for j in range((W + 2 * p - KW) // s + 1):
            r, c = i * s - p, j * s - p
            if r < 0 or c < 0 or r + KH > H or c + KW > W:
                continue
            dx[r : r + KH, c : c + KW] += w
    return dx


def wrong_integer_canvas(w, input_size, stride=1, padding=0):
    """Makes the canvas an int array, so the float weights get truncated."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    p, s = padding, stride
    canvas = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    for i in range((H + 2 * p - KH) // s + 1):
        for j in range((W + 2 * p - KW) // s + 1):
            patch = canvas[i * s : i * s + KH, j * s : j * s + KW]
            canvas[i * s : i * s + KH, j * s : j * s + KW] = patch + w
    return canvas[p : p + H, p : p + W]
