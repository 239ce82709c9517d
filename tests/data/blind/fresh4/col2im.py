"""Blind corpus: col2im (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_slice_assign(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """One strided slice per tap, but assigns (=) instead of adding, so overlapping taps overwrite each other."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            xp[:, :, ki * d : ki * d + s * OH : s, kj * d : kj * d + s * OW : s] = col[:, :, ki, kj]
    return xp[:, :, p : p + H, p : p + W]


def wrong_crop_bottom_right(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Crops the padded canvas as xp[:, :, :H, :W], cutting the bottom/right padding twice and keeping the top/left padding."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            xp[:, :, ki * d : ki * d + s * OH : s, kj * d : kj * d + s * OW : s] += col[:, :, ki, kj]
    return xp[:, :, :H, :W]


def wrong_add_at_no_dilation(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Builds index grids for np.add.at with h = oh*s + ki, forgetting to multiply the tap by the dilation."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p = stride, padding
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    ki = np.arange(K)[:, None, None, None]
    kj = np.arange(K)[None, :, None, None]
    oh = np.arange(OH)[None, None, :, None]
    ow = np.arange(OW)[None, None, None, :]
    hh = np.broadcast_to(oh * s + ki, (K, K, OH, OW))
    ww = np.broadcast_to(ow * s + kj, (K, K, OH, OW))
    np.add.at(xp, (slice(None), slice(None), hh, ww), col)
    return xp[:, :, p : p + H, p : p + W]


def wrong_divides_by_count(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Treats col2im as the inverse of im2col: adds the copies, then divides each pixel by how many windows covered it."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    cnt = np.zeros((H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            xp[:, :, ki * d : ki * d + s * OH : s, kj * d : kj * d + s * OW : s] += col[:, :, ki, kj]
            cnt[ki * d : ki * d + s * OH : s, kj * d : kj * d + s * OW : s] += 1
    xp = xp / np.maximum(cnt, 1)
    return xp[:, :, p : p + H, p : p + W]


def wrong_clips_padding_taps(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Skips the padded canvas and clips out-of-range pixel indices to the border, so padding taps pile onto the edge pixels."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    out = np.zeros((N, C, H, W), dtype=col.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h = min(max(oh * s - p + ki * d, 0), H - 1)
                    w = min(max(ow * s - p + kj * d, 0), W - 1)
                    out[:, :, h, w] += col[:, :, ki, kj, oh, ow]
    return out


def wrong_taps_exchanged(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Loops over windows and taps but reads col[..., kj, ki, oh, ow] for tap (ki, kj), sending each entry to the transposed tap."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    xp[:, :, oh * s + ki * d, ow * s + kj * d] += col[:, :, kj, ki, oh, ow]
    return xp[:, :, p : p + H, p : p + W]
