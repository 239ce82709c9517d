"""Blind corpus: avgpool_backward (right), written without reading the checker."""

import numpy as np


def _pair(v):
    return (v, v) if np.isscalar(v) else tuple(v)


def _axis_table(n_out, size, k, s, p, count_include_pad):
    """(n_out, size) matrix: entry [i, h] = 1 if window i covers real pixel h, plus each window's divisor factor."""
    starts = np.arange(n_out) * s - p
    ends_full = np.minimum(starts + k, size + p)
    lo = np.maximum(starts, 0)
    hi = np.minimum(ends_full, size)
    h = np.arange(size)
    cover = ((h[None, :] >= lo[:, None]) & (h[None, :] < hi[:, None])).astype(float)
    full = ends_full - starts
    real = hi - lo
    return cover, (full if count_include_pad else real)


def right_separable_matrices(dy, input_shape, kernel_size, stride=None,
                             padding=0, count_include_pad=True):
    """Divides dy by the divisor (a product of a row and a column size), then dx = A_hᵀ · g · A_w with 0/1 cover matrices."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    ph, pw = _pair(padding)
    dy = np.asarray(dy, dtype=float)
    N, C, H, W = input_shape
    OH, OW = dy.shape[-2:]
    Ah, dh = _axis_table(OH, H, kh, sh, ph, count_include_pad)
    Aw, dw = _axis_table(OW, W, kw, sw, pw, count_include_pad)
    g = dy / (dh[:, None] * dw[None, :])
    return np.einsum("ih,ncij,jw->nchw", Ah, g, Aw)


def right_padded_canvas_window_loop(dy, input_shape, kernel_size, stride=None,
                                    padding=0, count_include_pad=True):
    """Loops over windows, vectorised over (N, C); adds into a canvas padded by p plus the ceil-mode overhang, then crops."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    ph, pw = _pair(padding)
    dy = np.asarray(dy, dtype=float)
    N, C, H, W = input_shape
    OH, OW = dy.shape[-2:]
    canvas = np.zeros((N, C, H + 2 * ph + kh + sh, W + 2 * pw + kw + sw))
    for i in range(OH):
        r0 = i * sh                          # in padded coordinates
        r1 = min(r0 + kh, H + 2 * ph)
        real_h = min(r1, H + ph) - max(r0, ph)
        for j in range(OW):
            c0 = j * sw
            c1 = min(c0 + kw, W + 2 * pw)
            real_w = min(c1, W + pw) - max(c0, pw)
            div = (r1 - r0) * (c1 - c0) if count_include_pad else real_h * real_w
            canvas[:, :, r0:r1, c0:c1] += (dy[:, :, i, j] / div)[:, :, None, None]
    return canvas[:, :, ph:ph + H, pw:pw + W]


def right_add_at_scatter(dy, input_shape, kernel_size, stride=None,
                         padding=0, count_include_pad=True):
    """Lists every (window, tap) pair that lands on a real pixel and scatters dy / divisor there with np.add.at."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    ph, pw = _pair(padding)
    dy = np.asarray(dy, dtype=float)
    N, C, H, W = input_shape
    OH, OW = dy.shape[-2:]
    dx = np.zeros((N, C, H, W))
    i, j, a, b = np.meshgrid(np.arange(OH), np.arange(OW), np.arange(kh), np.arange(kw), indexing="ij")
    h0, w0 = i * sh - ph, j * sw - pw
    h1, w1 = np.minimum(h0 + kh, H + ph), np.minimum(w0 + kw, W + pw)
    r, q = h0 + a, w0 + b
    if count_include_pad:
        div = (h1 - h0) * (w1 - w0)
    else:
        div = (np.minimum(h1, H) - np.maximum(h0, 0)) * (np.minimum(w1, W) - np.maximum(w0, 0))
    keep = (r >= 0) & (r < H) & (q >= 0) & (q < W) & (r < h1) & (q < w1)
    share = dy[:, :, i[keep], j[keep]] / div[keep]
    np.add.at(dx, (slice(None), slice(None), r[keep], q[keep]), share)
    return dx
