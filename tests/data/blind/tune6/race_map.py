"""Blind corpus: race_map (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_split_row_included(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 0 the rows i <= split instead of i < split, so the boundary row of windows belongs to the wrong thread."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    t1 = np.zeros_like(t0)
    for i in range(OH):
        for j in range(OW):
            if i <= split:
                t0[i * s:i * s + k, j * s:j * s + k] = True
            else:
                t1[i * s:i * s + k, j * s:j * s + k] = True
    both = t0 & t1
    return both[p:p + H, p:p + W].astype(int)


def wrong_split_by_columns(input_size, kernel_size, stride=1, padding=0, split=1):
    """Splits the windows between the threads by their column j < split instead of their row i, mixing up the two axes."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    owner = np.zeros((2, H + 2 * p, W + 2 * p), dtype=int)
    for i in range(OH):
        for j in range(OW):
            t = 0 if j < split else 1
            owner[t, i * s:i * s + k, j * s:j * s + k] = 1
    race = owner[0] * owner[1]
    return race[p:p + H, p:p + W]


def wrong_product_of_counts(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts each thread's writes per pixel with += and returns the product of the two counts, not a 0/1 map, so pixels hit several times by both threads get values above 1."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    Hp, Wp = H + 2 * p, W + 2 * p
    OH = (Hp - k) // s + 1
    OW = (Wp - k) // s + 1
    c0 = np.zeros((Hp, Wp), dtype=int)
    c1 = np.zeros((Hp, Wp), dtype=int)
    for i in range(OH):
        target = c0 if i < split else c1
        for j in range(OW):
            target[i * s:i * s + k, j * s:j * s + k] += 1
    return (c0 * c1)[p:Hp - p, p:Wp - p]
