"""Blind corpus: checkerboard_dx (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_window_count_ignores_padding(w, input_size, stride=1, padding=0):
    """Counts the windows on the unpadded input, (H - K) // s + 1, while stamping on the padded canvas, so with padding the last windows are missing."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H - K) // s + 1
    OW = (W - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j * s:j * s + K] += w
    return canvas[p:p + H, p:p + W]


def wrong_overlap_count_only(w, input_size, stride=1, padding=0):
    """Stamps ones instead of w, returning the overlap count, having read 'with dy = 1 it is the overlap count' as holding for any kernel."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j * s:j * s + K] += np.ones_like(w)
    return canvas[p:p + H, p:p + W]


def wrong_stamp_overwrites(w, input_size, stride=1, padding=0):
    """Puts each window's kernel on the canvas with = instead of +=, so overlapping windows do not add up."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j * s:j * s + K] = w
    return canvas[p:p + H, p:p + W]


def wrong_crop_end_at_h(w, input_size, stride=1, padding=0):
    """Crops with canvas[p:H, p:W] (ending at H instead of p + H), so with padding the result loses its last p rows and columns."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j * s:j * s + K] += w
    return canvas[p:H, p:W]


def wrong_last_window_column_skipped(w, input_size, stride=1, padding=0):
    """Loops the window columns with range(OW - 1), an off-by-one that drops the last column of windows."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW - 1):
            for a in range(K):
                for b in range(K):
                    canvas[i * s + a, j * s + b] += w[a, b]
    return canvas[p:p + H, p:p + W]


def wrong_stride_on_rows_only(w, input_size, stride=1, padding=0):
    """Steps the windows by the stride down the rows but by 1 across the columns (j instead of j*s), while counting the columns with the stride."""
    K = w.shape[0]
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    canvas = np.zeros((H + 2 * p, W + 2 * p))
    for i in range(OH):
        for j in range(OW):
            canvas[i * s:i * s + K, j:j + K] += w
    return canvas[p:p + H, p:p + W]
