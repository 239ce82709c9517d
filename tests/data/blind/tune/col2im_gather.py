"""Tuning answers: col2im_gather (tune). Written by the exercise's
author, who knows the checker: tuning material, never a blind
measure."""

import numpy as np

from convgrad import geometry


def _setup(cols, output_size, k, s, p, d):
    n, ckk, _ = cols.shape
    h, w = output_size
    oh, ow = geometry.window((h, w), k, s, p, d).out
    return n, ckk // (k * k), h, w, oh, ow


def wrong_floor_division_only(cols, output_size, kernel_size, stride=1,
                              padding=0, dilation=1):
    """Window i = (r + p - ki*d) // s, range-checked, but no test that the division is exact."""
    k, s, p, d = kernel_size, stride, padding, dilation
    n, c, h, w, oh, ow = _setup(cols, output_size, k, s, p, d)
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    for r in range(h):
        for q in range(w):
            for ki in range(k):
                for kj in range(k):
                    i, j = (r + p - ki * d) // s, (q + p - kj * d) // s
                    if 0 <= i < oh and 0 <= j < ow:
                        dx[:, :, r, q] += col[:, :, ki, kj, i, j]
    return dx


def wrong_padding_forgotten(cols, output_size, kernel_size, stride=1,
                            padding=0, dilation=1):
    """Inverted r = i*s + ki*d, forgetting that r counts on the unpadded image."""
    k, s, p, d = kernel_size, stride, padding, dilation
    n, c, h, w, oh, ow = _setup(cols, output_size, k, s, p, d)
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    for r in range(h):
        for q in range(w):
            for ki in range(k):
                for kj in range(k):
                    a, b = r - ki * d, q - kj * d
                    if a % s or b % s:
                        continue
                    if 0 <= a // s < oh and 0 <= b // s < ow:
                        dx[:, :, r, q] += col[:, :, ki, kj, a // s, b // s]
    return dx


def wrong_only_upper_bound(cols, output_size, kernel_size, stride=1,
                           padding=0, dilation=1):
    """Checked i < OH and j < OW, but not i >= 0: negative windows read from the end."""
    k, s, p, d = kernel_size, stride, padding, dilation
    n, c, h, w, oh, ow = _setup(cols, output_size, k, s, p, d)
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    for r in range(h):
        for q in range(w):
            for ki in range(k):
                for kj in range(k):
                    a, b = r + p - ki * d, q + p - kj * d
                    if a % s or b % s or a // s >= oh or b // s >= ow:
                        continue
                    dx[:, :, r, q] += col[:, :, ki, kj, a // s, b // s]
    return dx


def wrong_channels_last_rows(cols, output_size, kernel_size, stride=1,
                             padding=0, dilation=1):
    """Reshaped the columns to (N, K, K, C, OH, OW), thinking the channel varies fastest."""
    k, s, p, d = kernel_size, stride, padding, dilation
    n, c, h, w, oh, ow = _setup(cols, output_size, k, s, p, d)
    col = cols.reshape(n, k, k, c, oh, ow)
    dx = np.zeros((n, c, h, w))
    for r in range(h):
        for q in range(w):
            for ki in range(k):
                for kj in range(k):
                    a, b = r + p - ki * d, q + p - kj * d
                    if a % s or b % s:
                        continue
                    i, j = a // s, b // s
                    if 0 <= i < oh and 0 <= j < ow:
                        dx[:, :, r, q] += col[:, ki, kj, :, i, j]
    return dx


def wrong_assigns_each_tap(cols, output_size, kernel_size, stride=1,
                           padding=0, dilation=1):
    """Vectorised per tap, but wrote each tap's gather into dx with a masked assignment instead of adding."""
    k, s, p, d = kernel_size, stride, padding, dilation
    n, c, h, w, oh, ow = _setup(cols, output_size, k, s, p, d)
    col = cols.reshape(n, c, k, k, oh, ow)
    r = np.arange(h)[:, None]
    q = np.arange(w)[None, :]
    dx = np.zeros((n, c, h, w))
    for ki in range(k):
        for kj in range(k):
            a, b = r + p - ki * d, q + p - kj * d
            i, j = a // s, b // s
            ok = (a % s == 0) & (b % s == 0) & (i >= 0) & (i < oh) \
                & (j >= 0) & (j < ow)
            got = col[:, :, ki, kj, np.clip(i, 0, oh - 1),
                      np.clip(j, 0, ow - 1)]
            dx[:, :, ok] = got[:, :, ok]
    return dx


def wrong_dilation_not_used(cols, output_size, kernel_size, stride=1,
                            padding=0, dilation=1):
    """Inverted r = i*s + ki - p: the taps side by side, as without dilation."""
    k, s, p, d = kernel_size, stride, padding, dilation
    n, c, h, w, oh, ow = _setup(cols, output_size, k, s, p, d)
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    for r in range(h):
        for q in range(w):
            for ki in range(k):
                for kj in range(k):
                    a, b = r + p - ki, q + p - kj
                    if a % s or b % s:
                        continue
                    if 0 <= a // s < oh and 0 <= b // s < ow:
                        dx[:, :, r, q] += col[:, :, ki, kj, a // s, b // s]
    return dx
