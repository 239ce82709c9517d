"""Blind corpus: race_map (heldout), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_marks_any_overlap(input_size, kernel_size, stride=1, padding=0, split=1):
    """Counts every window on one canvas and marks pixels covered twice or more, whichever thread wrote them."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    count = np.zeros((H + 2 * p, W + 2 * p), dtype=int)
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    for i in range(oh):
        for j in range(ow):
            count[i * s:i * s + k, j * s:j * s + k] += 1
    return (count[p:p + H, p:p + W] > 1).astype(int)


def wrong_splits_columns(input_size, kernel_size, stride=1, padding=0, split=1):
    """Splits the windows between the threads by output column j instead of output row i."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    t1 = np.zeros_like(t0)
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    for i in range(oh):
        for j in range(ow):
            mine = t0 if j < split else t1
            mine[i * s:i * s + k, j * s:j * s + k] = True
    return (t0 & t1)[p:p + H, p:p + W].astype(int)


def wrong_window_count_without_padding(input_size, kernel_size, stride=1, padding=0, split=1):
    """Pads the canvas but counts the windows with the unpadded formula (H - K)//s + 1, so the last windows are missing."""
    H, W = input_size
    k, s, p = kernel_size, stride, padding
    t0 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    t1 = np.zeros((H + 2 * p, W + 2 * p), dtype=bool)
    oh = (H - k) // s + 1
    ow = (W - k) // s + 1
    for i in range(oh):
        for j in range(ow):
            (t0 if i < split else t1)[i * s:i * s + k, j * s:j * s + k] = True
    return (t0 & t1)[p:p + H, p:p + W].astype(int)
