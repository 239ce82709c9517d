"""Blind corpus: maxpool_forward (right), written without reading the checker."""

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view


def _pair(v):
    return (v, v) if np.isscalar(v) else tuple(v)


def right_sliding_window_argmax(x, kernel_size, stride=None, padding=0):
    """sliding_window_view over the -inf padded input; np.argmax of each flattened window keeps the first maximum."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    ph, pw = _pair(padding)
    x = np.asarray(x, dtype=float)
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf)
    win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]
    OH, OW = win.shape[2], win.shape[3]
    flat = win.reshape(N, C, OH, OW, kh * kw)
    t = flat.argmax(axis=-1)
    y = np.take_along_axis(flat, t[..., None], axis=-1)[..., 0]
    a, b = np.divmod(t, kw)
    rows = np.arange(OH).reshape(-1, 1) * sh + a - ph
    cols = np.arange(OW).reshape(1, -1) * sw + b - pw
    return y, (rows * W + cols).astype(np.int64)


def right_as_strided_windows(x, kernel_size, stride=None, padding=0):
    """Builds the (N, C, OH, OW, k, k) window view with as_strided; indices from a padded index plane."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    ph, pw = _pair(padding)
    x = np.asarray(x, dtype=float)
    N, C, H, W = x.shape
    OH = (H + 2 * ph - kh) // sh + 1
    OW = (W + 2 * pw - kw) // sw + 1
    xp = np.full((N, C, H + 2 * ph, W + 2 * pw), -np.inf)
    xp[:, :, ph:ph + H, pw:pw + W] = x
    ids = np.full((H + 2 * ph, W + 2 * pw), -1, dtype=np.int64)
    ids[ph:ph + H, pw:pw + W] = np.arange(H * W).reshape(H, W)
    sN, sC, sH, sW = xp.strides
    win = as_strided(xp, (N, C, OH, OW, kh, kw), (sN, sC, sH * sh, sW * sw, sH, sW))
    iH, iW = ids.strides
    idw = as_strided(ids, (OH, OW, kh, kw), (iH * sh, iW * sw, iH, iW))
    flat = win.reshape(N, C, OH, OW, -1)
    t = np.argmax(flat, axis=-1)
    y = flat.max(axis=-1)
    argmax = np.take_along_axis(idw.reshape(1, 1, OH, OW, -1).repeat(N, 0).repeat(C, 1),
                                t[..., None], axis=-1)[..., 0]
    return y, argmax


def right_tap_sweep(x, kernel_size, stride=None, padding=0):
    """Vectorised over windows, loops over taps in row-major order and replaces only on a strictly greater value."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    ph, pw = _pair(padding)
    x = np.asarray(x, dtype=float)
    N, C, H, W = x.shape
    OH = (H + 2 * ph - kh) // sh + 1
    OW = (W + 2 * pw - kw) // sw + 1
    best = np.full((N, C, OH, OW), -np.inf)
    arg = np.full((N, C, OH, OW), -1, dtype=np.int64)
    r0 = np.arange(OH) * sh - ph
    c0 = np.arange(OW) * sw - pw
    for a in range(kh):
        r = r0 + a
        rin = (r >= 0) & (r < H)
        for b in range(kw):
            c = c0 + b
            cin = (c >= 0) & (c < W)
            inside = rin[:, None] & cin[None, :]
            v = np.full((N, C, OH, OW), -np.inf)
            rr = np.clip(r, 0, H - 1)
            cc = np.clip(c, 0, W - 1)
            v[...] = np.where(inside, x[:, :, rr][:, :, :, cc], -np.inf)
            better = v > best
            best = np.where(better, v, best)
            arg = np.where(better, (r[:, None] * W + c[None, :]), arg)
    return best, arg
