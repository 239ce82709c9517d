"""Blind corpus: race_map (right), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad.functional as F


def right_interval_arithmetic(input_size, kernel_size, stride=1, padding=0, split=1):
    """No canvas: intersects the padded row ranges the two threads cover, times the columns any window covers."""
    H, W = (input_size, input_size) if np.isscalar(input_size) else input_size
    k, s, p = kernel_size, stride, padding
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    out = np.zeros((H, W), dtype=int)
    if split <= 0 or split >= oh:
        return out
    lo = split * s                      # first padded row thread 1 touches
    hi = (split - 1) * s + k            # one past the last padded row thread 0 touches
    cols_end = (ow - 1) * s + k         # one past the last padded column any window touches
    r0, r1 = max(lo - p, 0), min(hi - p, H)
    c1 = min(cols_end - p, W)
    if r0 < r1 and c1 > 0:
        out[r0:r1, :c1] = 1
    return out


def right_fold_each_thread(input_size, kernel_size, stride=1, padding=0, split=1):
    """Folds a column matrix of ones, masked to each thread's windows, with F.fold (which crops the padding itself)."""
    H, W = (input_size, input_size) if np.isscalar(input_size) else input_size
    k, s, p = kernel_size, stride, padding
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    rows = np.repeat(np.arange(oh), ow)             # the output row of each window, in fold's order
    maps = []
    for mine in (rows < split, rows >= split):
        cols = np.zeros((1, k * k, oh * ow))
        cols[:, :, mine] = 1.0
        maps.append(F.fold(cols, (H, W), k, padding=p, stride=s).data[0, 0] > 0)
    return (maps[0] & maps[1]).astype(int)


def right_add_at_index_grids(input_size, kernel_size, stride=1, padding=0, split=1):
    """Builds every (window, tap) destination with broadcasting and scatters per-thread counts with np.add.at."""
    H, W = (input_size, input_size) if np.isscalar(input_size) else input_size
    k, s, p = kernel_size, stride, padding
    oh = (H + 2 * p - k) // s + 1
    ow = (W + 2 * p - k) // s + 1
    i = np.arange(oh)[:, None, None, None]
    j = np.arange(ow)[None, :, None, None]
    a = np.arange(k)[None, None, :, None]
    b = np.arange(k)[None, None, None, :]
    ys = np.broadcast_to(i * s + a, (oh, ow, k, k)) - p
    xs = np.broadcast_to(j * s + b, (oh, ow, k, k)) - p
    thread = np.broadcast_to((i >= split).astype(int), (oh, ow, k, k))
    keep = (ys >= 0) & (ys < H) & (xs >= 0) & (xs < W)
    counts = np.zeros((2, H, W), dtype=int)
    np.add.at(counts, (thread[keep], ys[keep], xs[keep]), 1)
    return ((counts[0] > 0) & (counts[1] > 0)).astype(int)
