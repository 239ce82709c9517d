"""Blind corpus: col2im (heldout), written without reading the checker."""
import numpy as np


def wrong_fancy_index_add_drops_repeats(col, input_size, kernel_size, stride=1, padding=0,
                                        dilation=1):
    """Vectorised xp[..., rows, cols] += col with fancy indices: repeated pixels keep one add only (numpy buffers the write)."""
    N, C = col.shape[:2]
    H, W = input_size
    K, s, p, d = kernel_size, stride, padding, dilation
    OH, OW = col.shape[4], col.shape[5]
    rows = (np.arange(K)[:, None] * d + np.arange(OH)[None, :] * s)[:, None, :, None]
    cols = (np.arange(K)[:, None] * d + np.arange(OW)[None, :] * s)[None, :, None, :]
    rows, cols = np.broadcast_arrays(rows, cols)
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    xp[:, :, rows, cols] += col
    return xp[:, :, p:p + H, p:p + W]


def wrong_crop_end_forgets_offset(col, input_size, kernel_size, stride=1, padding=0,
                                  dilation=1):
    """Crops the padded image with [p:H, p:W] instead of [p:p+H, p:p+W]: with padding the result is p rows/cols short."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    xp[:, :, oh * s + ki * d, ow * s + kj * d] += col[:, :, ki, kj, oh, ow]
    return xp[:, :, p:H, p:W]


def wrong_divides_by_overlap_count(col, input_size, kernel_size, stride=1, padding=0,
                                   dilation=1):
    """Treats col2im as im2col's inverse: averages the copies (divides by the overlap count) instead of summing them."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    count = np.zeros((H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            hs = slice(ki * d, ki * d + s * OH, s)
            ws = slice(kj * d, kj * d + s * OW, s)
            xp[:, :, hs, ws] += col[:, :, ki, kj]
            count[hs, ws] += 1
    xp = xp / np.maximum(count, 1)
    return xp[:, :, p:p + H, p:p + W]
