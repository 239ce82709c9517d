"""Blind corpus: avgpool_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_default_stride_one(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Replaces stride=None by 1 (like a conv's default) instead of by kernel_size."""
    N, C, H, W = input_shape
    k, p = kernel_size, padding
    s = 1 if stride is None else stride
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            full = (h1 - h0) * (w1 - w0)
            hs, he = max(h0, 0), min(h1, H)
            ws, we = max(w0, 0), min(w1, W)
            div = full if count_include_pad else (he - hs) * (we - ws)
            dx[:, :, hs:he, ws:we] += dy[:, :, i, j][:, :, None, None] / div
    return dx


def wrong_excluded_divisor_unclipped_end(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """With count_include_pad=False it clips the window's start at 0 but not its end at H/W (numpy's slice clips the add, not the divisor), so bottom/right border windows divide by too much."""
    N, C, H, W = input_shape
    k, p = kernel_size, padding
    s = kernel_size if stride is None else stride
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            if count_include_pad:
                div = (h1 - h0) * (w1 - w0)
            else:
                h0, w0 = max(h0, 0), max(w0, 0)
                div = (h1 - h0) * (w1 - w0)
            dx[:, :, max(h0, 0):h1, max(w0, 0):w1] += dy[:, :, i, j][:, :, None, None] / div
    return dx


def wrong_fancy_index_add_drops_overlaps(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Vectorised: gathers every (window, pixel) pair and does dx[:, :, rows, cols] += shares, so a pixel shared by overlapping windows keeps only one share."""
    N, C, H, W = input_shape
    k, p = kernel_size, padding
    s = kernel_size if stride is None else stride
    OH, OW = dy.shape[2:]
    rows, cols, shares = [], [], []
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            hs, he, ws, we = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
            div = (h1 - h0) * (w1 - w0) if count_include_pad else (he - hs) * (we - ws)
            for r in range(hs, he):
                for c in range(ws, we):
                    rows.append(r)
                    cols.append(c)
                    shares.append(dy[:, :, i, j] / div)
    dx = np.zeros(input_shape)
    if rows:
        dx[:, :, np.array(rows), np.array(cols)] += np.stack(shares, axis=-1)
    return dx


def wrong_count_include_pad_inverted(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Reads count_include_pad backwards: divides by the real-pixel count when it is True and by the full (padded) window when it is False."""
    N, C, H, W = input_shape
    k, p = kernel_size, padding
    s = kernel_size if stride is None else stride
    OH, OW = dy.shape[2:]
    divisor = np.zeros((OH, OW))
    boxes = {}
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            hs, he, ws, we = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
            real = (he - hs) * (we - ws)
            full = (h1 - h0) * (w1 - w0)
            divisor[i, j] = real if count_include_pad else full
            boxes[i, j] = (hs, he, ws, we)
    share = dy / divisor
    dx = np.zeros(input_shape)
    for (i, j), (hs, he, ws, we) in boxes.items():
        dx[:, :, hs:he, ws:we] += share[:, :, i, j, None, None]
    return dx


def wrong_width_clipped_with_height(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Copy-pasted the row clipping for the columns and kept H: w1 = min(w0 + k, H + p) and the clip to H, wrong on non-square images whose windows reach the edge."""
    N, C, H, W = input_shape
    k, p = kernel_size, padding
    s = kernel_size if stride is None else stride
    OH, OW = dy.shape[2:]
    dx = np.zeros(input_shape)
    for i in range(OH):
        h0 = i * s - p
        h1 = min(h0 + k, H + p)
        for j in range(OW):
            w0 = j * s - p
            w1 = min(w0 + k, H + p)
            full = (h1 - h0) * (w1 - w0)
            hs, he = max(h0, 0), min(h1, H)
            ws, we = max(w0, 0), min(w1, H)
            div = full if count_include_pad else (he - hs) * (we - ws)
            if div == 0:
                continue
            dx[:, :, hs:he, ws:we] += dy[:, :, i, j][:, :, None, None] / div
    return dx


def wrong_floor_window_count(dy, input_shape, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Recomputes the number of windows with the floor formula instead of reading it from dy, so ceil-mode's extra windows are never spread."""
    N, C, H, W = input_shape
    k, p = kernel_size, padding
    s = kernel_size if stride is None else stride
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    dx = np.zeros(input_shape)
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            hs, he = max(h0, 0), min(h1, H)
            ws, we = max(w0, 0), min(w1, W)
            if count_include_pad:
                div = (h1 - h0) * (w1 - w0)
            else:
                div = (he - hs) * (we - ws)
            dx[:, :, hs:he, ws:we] += dy[:, :, i, j][:, :, None, None] / div
    return dx
