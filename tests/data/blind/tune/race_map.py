"""Blind corpus: race_map (tune), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_thread0_takes_split_row(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives row i == split to thread 0 (i <= split): the split is one row too low."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    canvas = np.zeros((2, H + 2 * p, W + 2 * p), dtype=int)
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    for i in range(oh):
        t = 0 if i <= split else 1
        for j in range(ow):
            canvas[t, i * s:i * s + k, j * s:j * s + k] = 1
    both = canvas[0] * canvas[1]
    return both[p:p + H, p:p + W]


def wrong_crop_with_negative_p(input_size, kernel_size, stride=1, padding=0, split=1):
    """Crops the padding with canvas[p:-p, p:-p], which returns an empty map when padding is 0."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    a = np.zeros((H + 2 * p, W + 2 * p))
    b = np.zeros((H + 2 * p, W + 2 * p))
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    for i in range(oh):
        for j in range(ow):
            if i < split:
                a[i * s:i * s + k, j * s:j * s + k] = 1
            else:
                b[i * s:i * s + k, j * s:j * s + k] = 1
    race = a * b
    return race[p:-p, p:-p]


def wrong_window_one_short(input_size, kernel_size, stride=1, padding=0, split=1):
    """Slices each window as [i*s : i*s + k - 1], so windows are one pixel too small on each side."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    t1 = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    for i in range(oh):
        for j in range(ow):
            t = t0 if i < split else t1
            t[i * s:i * s + k - 1, j * s:j * s + k - 1] = 1
    return (t0 * t1)[p:p + H, p:p + W]


def wrong_width_from_height(input_size, kernel_size, stride=1, padding=0, split=1):
    """Uses H for the width too (canvas and column count), as if every image were square."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    n = (H + 2 * p - k) // s + 1
    t0 = np.zeros((H + 2 * p, H + 2 * p), dtype=int)
    t1 = np.zeros((H + 2 * p, H + 2 * p), dtype=int)
    for i in range(n):
        for j in range(n):
            if i < split:
                t0[i * s:i * s + k, j * s:j * s + k] = 1
            else:
                t1[i * s:i * s + k, j * s:j * s + k] = 1
    return (t0 & t1)[p:p + H, p:p + H]


def wrong_sum_equals_two(input_size, kernel_size, stride=1, padding=0, split=1):
    """Accumulates each thread's coverage with += and marks pixels where the two counts add up to exactly 2."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    c0 = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    c1 = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    for i in range(oh):
        for j in range(ow):
            if i < split:
                c0[i * s:i * s + k, j * s:j * s + k] += 1
            else:
                c1[i * s:i * s + k, j * s:j * s + k] += 1
    total = c0 + c1
    return (total == 2).astype(int)[p:p + H, p:p + W]
