"""Blind corpus: checkerboard_dx (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_window_count_no_plus_one(w, input_size, stride=1, padding=0):
    """Counts the windows as (H+2p-K)//s without the +1, so the last row and column of windows never stamp."""
    H, W = input_size
    kh, kw = w.shape
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    oh = (H + 2 * padding - kh) // stride
    ow = (W + 2 * padding - kw) // stride
    for i in range(oh):
        for j in range(ow):
            canvas[i * stride:i * stride + kh, j * stride:j * stride + kw] += w
    return canvas[padding:padding + H, padding:padding + W]


def wrong_count_ignores_padding(w, input_size, stride=1, padding=0):
    """Computes the number of windows from the unpadded size, so with padding the windows that reach the bottom/right padding are missing."""
    H, W = input_size
    kh, kw = w.shape
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    oh = (H - kh) // stride + 1
    ow = (W - kw) // stride + 1
    for i in range(oh):
        for j in range(ow):
            canvas[i * stride:i * stride + kh, j * stride:j * stride + kw] += w
    return canvas[padding:padding + H, padding:padding + W]


def wrong_height_width_swapped(w, input_size, stride=1, padding=0):
    """Unpacks input_size as (W, H), so non-square inputs come back transposed in shape and windows are laid out on the wrong axis."""
    W, H = input_size
    kh, kw = w.shape
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    oh = (H + 2 * padding - kh) // stride + 1
    ow = (W + 2 * padding - kw) // stride + 1
    for i in range(oh):
        for j in range(ow):
            canvas[i * stride:i * stride + kh, j * stride:j * stride + kw] += w
    return canvas[padding:padding + H, padding:padding + W]


def wrong_stamps_ones(w, input_size, stride=1, padding=0):
    """Stamps ones instead of the kernel, returning the overlap count map rather than the dx for this w."""
    H, W = input_size
    kh, kw = w.shape
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    oh = (H + 2 * padding - kh) // stride + 1
    ow = (W + 2 * padding - kw) // stride + 1
    for i in range(oh):
        for j in range(ow):
            canvas[i * stride:i * stride + kh, j * stride:j * stride + kw] += np.ones_like(w)
    return canvas[padding:padding + H, padding:padding + W]


def wrong_divides_by_overlap(w, input_size, stride=1, padding=0):
    """Averages the stamps by dividing each pixel by how many windows covered it, as if it were average pooling."""
    H, W = input_size
    kh, kw = w.shape
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    count = np.zeros_like(canvas)
    oh = (H + 2 * padding - kh) // stride + 1
    ow = (W + 2 * padding - kw) // stride + 1
    for i in range(oh):
        for j in range(ow):
            canvas[i * stride:i * stride + kh, j * stride:j * stride + kw] += w
            count[i * stride:i * stride + kh, j * stride:j * stride + kw] += 1
    canvas = canvas / np.maximum(count, 1)
    return canvas[padding:padding + H, padding:padding + W]


def wrong_crop_twice_top_left(w, input_size, stride=1, padding=0):
    """Crops with canvas[2p:, 2p:] (taking both sides' padding off the top/left), so dx is shifted up-left by p."""
    H, W = input_size
    kh, kw = w.shape
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    oh = (H + 2 * padding - kh) // stride + 1
    ow = (W + 2 * padding - kw) // stride + 1
    for i in range(oh):
        for j in range(ow):
            canvas[i * stride:i * stride + kh, j * stride:j * stride + kw] += w
    return canvas[2 * padding:, 2 * padding:]
