"""Blind corpus: race_map (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_split_inclusive(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 0 the rows i <= split instead of i < split, so the boundary row goes to the wrong thread."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    t1 = np.zeros_like(t0)
    for i in range(OH):
        for j in range(OW):
            t = t0 if i <= split else t1
            t[i * s:i * s + k, j * s:j * s + k] = True
    race = (t0 & t1)[p:p + H, p:p + W]
    return race.astype(int)


def wrong_oh_without_padding(input_size, kernel_size, stride=1, padding=0, split=1):
    """Places windows on the padded canvas but counts the output rows and columns without the padding, (H - k)//s + 1, so the last windows are missing."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H - k) // s + 1
    OW = (W - k) // s + 1
    canvas = np.zeros((2, H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        for j in range(OW):
            canvas[int(i >= split), i * s:i * s + k, j * s:j * s + k] = 1
    both = canvas[0] * canvas[1]
    return both[p:p + H, p:p + W]


def wrong_crop_end_unshifted(input_size, kernel_size, stride=1, padding=0, split=1):
    """Crops the canvas with [p:H, p:W], forgetting to shift the end by the padding too."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    Hp, Wp = H + 2 * p, W + 2 * p
    OH = (Hp - k) // s + 1
    OW = (Wp - k) // s + 1
    a = np.zeros((Hp, Wp), dtype=int)
    b = np.zeros((Hp, Wp), dtype=int)
    for i in range(OH):
        for j in range(OW):
            if i < split:
                a[i * s:i * s + k, j * s:j * s + k] += 1
            else:
                b[i * s:i * s + k, j * s:j * s + k] += 1
    return ((a > 0) & (b > 0)).astype(int)[p:H, p:W]


def wrong_window_one_short(input_size, kernel_size, stride=1, padding=0, split=1):
    """Marks each window as k-1 rows and columns wide (slice end i*s + k - 1), dropping the window's last row and column."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    cnt = np.zeros((2, H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        th = 0 if i < split else 1
        for j in range(OW):
            cnt[th, i * s:i * s + k - 1, j * s:j * s + k - 1] += 1
    race = np.where((cnt[0] > 0) & (cnt[1] > 0), 1, 0)
    return race[p:p + H, p:p + W]


def wrong_split_by_columns(input_size, kernel_size, stride=1, padding=0, split=1):
    """Splits the work between the threads by output column j < split instead of by output row i < split."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    marks = [np.zeros((H + 2 * p, W + 2 * p), dtype=int) for _ in range(2)]
    for i in range(OH):
        for j in range(OW):
            marks[0 if j < split else 1][i * s:i * s + k, j * s:j * s + k] = 1
    return (marks[0] & marks[1])[p:p + H, p:p + W]


def wrong_rows_cols_swapped(input_size, kernel_size, stride=1, padding=0, split=1):
    """Computes the number of window rows from W and the number of window columns from H, so non-square inputs get the wrong set of windows."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (W + 2 * p - k) // s + 1
    OW = (H + 2 * p - k) // s + 1
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    t1 = np.zeros_like(t0)
    for i in range(OH):
        for j in range(OW):
            (t0 if i < split else t1)[i * s:i * s + k, j * s:j * s + k] = 1
    return (t0 * t1)[p:p + H, p:p + W]
