"""Right answers: col2im_gather, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no
blind)."""

import numpy as np

from convgrad import geometry


def right_over_windows(cols, output_size, kernel_size, stride=1, padding=0,
                       dilation=1):
    """Per pixel, loop over the window rows i that can reach it (not the taps): tap ki = (r + p - i*s) / d must be whole and in [0, K)."""
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    n, ckk, _ = cols.shape
    c = ckk // (k * k)
    oh, ow = geometry.window((h, w), k, s, p, d).out
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    for r in range(h):
        for q in range(w):
            acc = np.zeros((n, c))
            for i in range(oh):
                ti = r + p - i * s
                if ti % d or not 0 <= ti // d < k:
                    continue
                for j in range(ow):
                    tj = q + p - j * s
                    if tj % d or not 0 <= tj // d < k:
                        continue
                    acc += col[:, :, ti // d, tj // d, i, j]
            dx[:, :, r, q] = acc
    return dx


def right_selection_einsum(cols, output_size, kernel_size, stride=1,
                           padding=0, dilation=1):
    """Two 0/1 selection tensors, rows[r, ki, i] = (i*s + ki*d == r + p) and the same for columns, contracted with the columns by einsum: each pixel sums what selects it."""
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    n, ckk, _ = cols.shape
    c = ckk // (k * k)
    oh, ow = geometry.window((h, w), k, s, p, d).out
    col = cols.reshape(n, c, k, k, oh, ow)

    def select(size, out):
        r, t, i = np.meshgrid(np.arange(size), np.arange(k), np.arange(out),
                              indexing="ij")
        return (i * s + t * d == r + p).astype(float)

    return np.einsum("rai,qbj,ncabij->ncrq", select(h, oh), select(w, ow),
                     col)


def right_index_table(cols, output_size, kernel_size, stride=1, padding=0,
                      dilation=1):
    """A table of (pixel, tap) -> flat window index (-1 where no window puts the tap there), then one masked gather per tap."""
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    n, ckk, length = cols.shape
    c = ckk // (k * k)
    oh, ow = geometry.window((h, w), k, s, p, d).out
    table = -np.ones((h, w, k, k), dtype=int)
    for r in range(h):
        for q in range(w):
            for ki in range(k):
                for kj in range(k):
                    a, b = r + p - ki * d, q + p - kj * d
                    if a % s == 0 and b % s == 0 and 0 <= a // s < oh \
                            and 0 <= b // s < ow:
                        table[r, q, ki, kj] = (a // s) * ow + b // s
    dx = np.zeros((n, c, h, w))
    for ki in range(k):
        for kj in range(k):
            idx = table[:, :, ki, kj]
            rows = np.arange(c) * k * k + ki * k + kj
            got = cols[:, rows[:, None, None], np.maximum(idx, 0)[None]]
            dx += np.where(idx >= 0, got, 0.0)
    return dx
