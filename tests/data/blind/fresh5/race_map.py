"""Blind corpus: race_map (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_split_inclusive(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 0 the rows i <= split instead of i < split, so the boundary moves down one output row."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    t0 = np.zeros((h + 2 * p, w + 2 * p), dtype=int)
    t1 = np.zeros_like(t0)
    for i in range(oh):
        for j in range(ow):
            canvas = t0 if i <= split else t1
            canvas[i * s:i * s + k, j * s:j * s + k] = 1
    both = t0 & t1
    return both[p:p + h, p:p + w]


def wrong_window_one_short(input_size, kernel_size, stride=1, padding=0, split=1):
    """Marks each window as rows/cols i*s .. i*s+k-1 exclusive (slice end i*s+k-1), so every window misses its last row and column."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    marks = np.zeros((2, h + 2 * p, w + 2 * p), dtype=bool)
    for i in range(oh):
        thread = 0 if i < split else 1
        for j in range(ow):
            marks[thread, i * s:i * s + k - 1, j * s:j * s + k - 1] = True
    race = marks[0] & marks[1]
    return race[p:p + h, p:p + w].astype(int)


def wrong_output_size_without_padding(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts the output rows and columns as (H - K) // s + 1, leaving out the padding, so the windows of the padded border are never scattered."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh = (h - k) // s + 1
    ow = (w - k) // s + 1
    rows0 = np.zeros(h + 2 * p, dtype=bool)
    rows1 = np.zeros(h + 2 * p, dtype=bool)
    cols = np.zeros(w + 2 * p, dtype=bool)
    for j in range(ow):
        cols[j * s:j * s + k] = True
    for i in range(oh):
        (rows0 if i < split else rows1)[i * s:i * s + k] = True
    race = np.outer(rows0 & rows1, cols)
    return race[p:p + h, p:p + w].astype(int)


def wrong_crops_top_left(input_size, kernel_size, stride=1, padding=0, split=1):
    """Crops the padded canvas with [:H, :W] (its top-left corner) instead of [p:p+H, p:p+W], shifting the map by the padding."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    count = np.zeros((2, h + 2 * p, w + 2 * p), dtype=int)
    ii, jj = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    for di in range(k):
        for dj in range(k):
            rows = ii * s + di
            cols = jj * s + dj
            thread = (ii >= split).astype(int)
            np.add.at(count, (thread, rows, cols), 1)
    race = (count[0] > 0) & (count[1] > 0)
    return race[:h, :w].astype(int)


def wrong_union_of_threads(input_size, kernel_size, stride=1, padding=0, split=1):
    """Combines the two threads' masks with | instead of &, marking every pixel either thread touches."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    t0 = np.zeros((h + 2 * p, w + 2 * p), dtype=bool)
    t1 = np.zeros_like(t0)
    for i in range(oh):
        for j in range(ow):
            if i < split:
                t0[i * s:i * s + k, j * s:j * s + k] = True
            else:
                t1[i * s:i * s + k, j * s:j * s + k] = True
    return (t0 | t1)[p:p + h, p:p + w].astype(int)


def wrong_split_on_columns(input_size, kernel_size, stride=1, padding=0, split=1):
    """Splits the loop on the output column j < split instead of the output row i, so the race is a band of columns."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    t0 = np.zeros((h + 2 * p, w + 2 * p), dtype=int)
    t1 = np.zeros_like(t0)
    for i in range(oh):
        for j in range(ow):
            if j < split:
                t0[i * s:i * s + k, j * s:j * s + k] = 1
            else:
                t1[i * s:i * s + k, j * s:j * s + k] = 1
    race = t0 * t1
    return race[p:p + h, p:p + w]
