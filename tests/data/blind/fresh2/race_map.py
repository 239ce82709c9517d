"""Blind corpus: race_map (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_split_inclusive(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 0 the window rows i <= split instead of i < split, so the boundary row of windows goes to the wrong thread."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    t1 = np.zeros_like(t0)
    for i in range(OH):
        for j in range(OW):
            target = t0 if i <= split else t1
            target[i * s:i * s + k, j * s:j * s + k] = True
    both = t0 & t1
    return both[p:p + H, p:p + W].astype(int)


def wrong_splits_columns(input_size, kernel_size, stride=1, padding=0, split=1):
    """Splits the windows between the threads by their column index j instead of their row index i."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    marks = np.zeros((2, H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            t = 0 if j < split else 1
            marks[t, i * s:i * s + k, j * s:j * s + k] = 1
    race = marks[0] * marks[1]
    return race[p:p + H, p:p + W]


def wrong_window_one_short(input_size, kernel_size, stride=1, padding=0, split=1):
    """Marks each window as kernel_size - 1 pixels wide (slices i*s : i*s + k - 1), so the last row and column of taps are never counted."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    canvas0 = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    canvas1 = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        for j in range(OW):
            c = canvas0 if i < split else canvas1
            c[i * s:i * s + k - 1, j * s:j * s + k - 1] = 1
    out = np.logical_and(canvas0, canvas1).astype(int)
    return out[p:p + H, p:p + W]


def wrong_product_of_counts(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts how many windows of each thread cover a pixel and returns the product of the two counts, not a 0/1 map of where both threads write."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    counts = np.zeros((2, H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        for j in range(OW):
            counts[int(i >= split), i * s:i * s + k, j * s:j * s + k] += 1
    race = counts[0] * counts[1]
    return race[p:p + H, p:p + W]


def wrong_crop_end_without_offset(input_size, kernel_size, stride=1, padding=0, split=1):
    """Crops the padded canvas with [p:H, p:W], forgetting to shift the end by p, so with padding the map loses its last 2p rows and columns."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    Hp, Wp = H + 2 * p, W + 2 * p
    mine = [np.zeros((Hp, Wp), dtype=int), np.zeros((Hp, Wp), dtype=int)]
    for i in range(OH):
        t = 0 if i < split else 1
        for j in range(OW):
            mine[t][i * s:i * s + k, j * s:j * s + k] = 1
    both = (mine[0] + mine[1] == 2).astype(int)
    return both[p:H, p:W]


def wrong_split_on_pixel_row(input_size, kernel_size, stride=1, padding=0, split=1):
    """Reads split as a pixel row: thread 0 takes the windows whose top pixel row i*stride is < split, rather than the window rows i < split."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    t0 = np.zeros((H + 2 * p, W + 2 * p))
    t1 = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        top = i * s
        for j in range(OW):
            if top < split:
                t0[top:top + k, j * s:j * s + k] = 1
            else:
                t1[top:top + k, j * s:j * s + k] = 1
    return (t0 * t1)[p:p + H, p:p + W]
