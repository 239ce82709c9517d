"""Blind corpus: col2im (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_fancy_index_add(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Scatters all entries at once with a fancy-indexed +=, which is buffered: where windows overlap only one copy lands instead of the sum (needs np.add.at)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p), dtype=col.dtype)
    ki = np.arange(K)[:, None, None, None]
    kj = np.arange(K)[None, :, None, None]
    oh = np.arange(OH)[None, None, :, None]
    ow = np.arange(OW)[None, None, None, :]
    rows = np.broadcast_to(oh * s + ki * d, (K, K, OH, OW))
    cols = np.broadcast_to(ow * s + kj * d, (K, K, OH, OW))
    xp[:, :, rows, cols] += col
    return xp[:, :, p:p + H, p:p + W]


def wrong_crop_uses_height_twice(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Crops the padded canvas with H on both axes (p:p+H, p:p+H), so a non-square image comes back with the wrong width."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    xp[:, :, oh * s + ki * d, ow * s + kj * d] += col[:, :, ki, kj, oh, ow]
    return xp[:, :, p:p + H, p:p + H]


def wrong_divides_by_count(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Treats col2im as the inverse of im2col and divides each pixel's sum by the number of windows that cover it (an average instead of a sum)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    count = np.zeros((H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    h, w = oh * s + ki * d, ow * s + kj * d
                    xp[:, :, h, w] += col[:, :, ki, kj, oh, ow]
                    count[h, w] += 1
    xp = xp / np.maximum(count, 1)
    return xp[:, :, p:p + H, p:p + W]


def wrong_taps_not_dilated(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Places tap (ki, kj) at offset (ki, kj) from the window corner, forgetting to multiply by the dilation."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p = stride, padding
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            xp[:, :, ki:ki + s * (OH - 1) + 1:s, kj:kj + s * (OW - 1) + 1:s] += col[:, :, ki, kj]
    return xp[:, :, p:p + H, p:p + W]


def wrong_negative_indices_wrap(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Writes straight into the unpadded image at h = oh*s - p + ki*d, skipping only taps past the bottom/right edge, so taps in the top/left padding wrap around to the far side."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    out = np.zeros((N, C, H, W))
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for oh in range(OH):
                        for ow in range(OW):
                            h = oh * s - p + ki * d
                            w = ow * s - p + kj * d
                            if h < H and w < W:
                                out[n, c, h, w] += col[n, c, ki, kj, oh, ow]
    return out


def wrong_batch_index_dropped(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Loops over the images but adds into out[:, c] (the batch index forgotten), so every image receives the sum over the whole batch."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for oh in range(OH):
                        for ow in range(OW):
                            xp[:, c, oh * s + ki * d, ow * s + kj * d] += col[n, c, ki, kj, oh, ow]
    return xp[:, :, p:p + H, p:p + W]
