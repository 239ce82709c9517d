"""Blind corpus: race_map (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_split_on_pixel_row(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 0 the windows whose top pixel row i*stride is below split, splitting on canvas rows instead of output rows."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    hp, wp = h + 2 * p, w + 2 * p
    oh, ow = (hp - k) // s + 1, (wp - k) // s + 1
    t0 = np.zeros((hp, wp), dtype=bool)
    t1 = np.zeros((hp, wp), dtype=bool)
    for i in range(oh):
        for j in range(ow):
            top = i * s
            target = t0 if top < split else t1
            target[top:top + k, j * s:j * s + k] = True
    return (t0 & t1)[p:p + h, p:p + w].astype(int)


def wrong_split_columns(input_size, kernel_size, stride=1, padding=0, split=1):
    """Splits the loop over output columns (j < split) instead of output rows between the two threads."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    hp, wp = h + 2 * p, w + 2 * p
    oh, ow = (hp - k) // s + 1, (wp - k) // s + 1
    marks = np.zeros((2, hp, wp), dtype=int)
    for i in range(oh):
        for j in range(ow):
            thread = 0 if j < split else 1
            marks[thread, i * s:i * s + k, j * s:j * s + k] = 1
    both = marks[0] * marks[1]
    return both[p:p + h, p:p + w]


def wrong_product_of_counts(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts how many windows of each thread cover a pixel and returns the product of the two counts, not a 0/1 map."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    hp, wp = h + 2 * p, w + 2 * p
    oh, ow = (hp - k) // s + 1, (wp - k) // s + 1
    c0 = np.zeros((hp, wp))
    c1 = np.zeros((hp, wp))
    for i in range(oh):
        for j in range(ow):
            if i < split:
                c0[i * s:i * s + k, j * s:j * s + k] += 1
            else:
                c1[i * s:i * s + k, j * s:j * s + k] += 1
    return (c0 * c1)[p:p + h, p:p + w]


def wrong_crop_negative_slice(input_size, kernel_size, stride=1, padding=0, split=1):
    """Crops the canvas with [p:-p, p:-p], which returns an empty array when padding is 0."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    hp, wp = h + 2 * p, w + 2 * p
    oh, ow = (hp - k) // s + 1, (wp - k) // s + 1
    rows = np.arange(oh)
    first = np.zeros((hp, wp), dtype=int)
    second = np.zeros((hp, wp), dtype=int)
    for i in rows:
        canvas = first if i < split else second
        for j in range(ow):
            canvas[i * s:i * s + k, j * s:j * s + k] = 1
    race = ((first > 0) & (second > 0)).astype(int)
    return race[p:-p, p:-p]


def wrong_boundary_row_dropped(input_size, kernel_size, stride=1, padding=0, split=1):
    """Gives thread 1 the rows i > split instead of i >= split, so the windows of row split are scattered by nobody."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    hp, wp = h + 2 * p, w + 2 * p
    oh, ow = (hp - k) // s + 1, (wp - k) // s + 1
    t0 = np.zeros((hp, wp), dtype=bool)
    t1 = np.zeros((hp, wp), dtype=bool)
    for i in range(oh):
        for j in range(ow):
            if i < split:
                t0[i * s:i * s + k, j * s:j * s + k] = True
            elif i > split:
                t1[i * s:i * s + k, j * s:j * s + k] = True
    return (t0 & t1)[p:p + h, p:p + w].astype(int)


def wrong_window_count_without_padding(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts the windows with (H - k)//s + 1, leaving the padding out of the output size, though it places them on the padded canvas."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    canvas = np.zeros((2, h + 2 * p, w + 2 * p), dtype=int)
    ii, jj = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    for i, j in zip(ii.ravel(), jj.ravel()):
        canvas[int(i >= split), i * s:i * s + k, j * s:j * s + k] = 1
    both = canvas.min(axis=0)
    return both[p:p + h, p:p + w]
