"""Blind corpus: race_map (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_split_row_inclusive(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 0 the rows i <= split (not i < split), so the boundary is one window row too low."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    t1 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    for i in range(OH):
        for j in range(OW):
            target = t0 if i <= split else t1
            target[i * s:i * s + k, j * s:j * s + k] = True
    both = t0 & t1
    return both[p:p + H, p:p + W].astype(int)


def wrong_split_on_columns(input_size, kernel_size, stride=1, padding=0, split=1):
    """Splits the threads on the window column j < split instead of the window row i, so it marks a vertical band."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    mark = np.zeros((2, H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        for j in range(OW):
            thread = 0 if j < split else 1
            mark[thread, i * s:i * s + k, j * s:j * s + k] = 1
    race = mark[0] * mark[1]
    return race[p:p + H, p:p + W]


def wrong_count_product(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts how many windows of each thread add into a pixel and returns the product of the two counts, not a 0/1 map."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    count = np.zeros((2, H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        th = 0 if i < split else 1
        for j in range(OW):
            count[th, i * s:i * s + k, j * s:j * s + k] += 1
    return (count[0] * count[1])[p:p + H, p:p + W]


def wrong_window_one_short(input_size, kernel_size, stride=1, padding=0, split=1):
    """Marks each window as rows/columns h0 .. h0 + k - 2 (k - 1 taps), one short of the kernel's reach."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    a = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    b = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s, j * s
            if i < split:
                a[h0:h0 + k - 1, w0:w0 + k - 1] = 1
            else:
                b[h0:h0 + k - 1, w0:w0 + k - 1] = 1
    return (a & b)[p:p + H, p:p + W]
