"""Right answers: maxpool_backward_split, in unusual styles. Written by
the exercise's author, who knows the checker (right answers need no
blind)."""

import numpy as np

import convgrad.functional as F


def right_unfold_split_fold(x, dy, kernel_size, stride=None, padding=0):
    """Lesson 5's column form: F.unfold of x padded with -inf, each column's tied maxima weighted 1/t by an einsum with dy, F.fold back with padding=p (which crops)."""
    k, p = kernel_size, padding
    s = stride if stride is not None else k
    n, c, h, w = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (p, p), (p, p)], constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    hot = (cols == cols.max(axis=2)[:, :, None, :]).astype(float)
    hot /= hot.sum(axis=2, keepdims=True)
    dcol = np.einsum("nctl,ncl->nctl", hot, dy.reshape(n, c, -1))
    return F.fold(dcol.reshape(n, -1, dcol.shape[-1]), (h, w), k,
                  padding=p, stride=s).data


def right_as_strided_add_at(x, dy, kernel_size, stride=None, padding=0):
    """No F at all: as_strided windows of the -inf padded x, the tie mask divided by its count, np.add.at onto the padded canvas through index grids, cropped."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    xp = np.ascontiguousarray(np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)),
                                     constant_values=-np.inf))
    oh, ow = dy.shape[2:]
    st = xp.strides
    win = np.lib.stride_tricks.as_strided(
        xp, (n, c, oh, ow, k, k), (*st[:2], st[2] * s, st[3] * s, *st[2:]),
        writeable=False)
    mask = win == win.max(axis=(-1, -2), keepdims=True)
    share = mask * (dy / mask.sum(axis=(-1, -2)))[..., None, None]
    i = np.arange(oh)[:, None, None, None] * s + np.arange(k)[:, None]
    j = np.arange(ow)[None, :, None, None] * s + np.arange(k)[None, :]
    canvas = np.zeros(xp.shape)
    np.add.at(canvas, (slice(None), slice(None), i, j), share)
    return canvas[:, :, p:p + h, p:p + w]


def right_pixel_gathers_its_windows(x, dy, kernel_size, stride=None,
                                   padding=0):
    """A gather: each pixel of the padded plane visits every window that covers it and adds dy / t of each window where it is one of the t tied maxima."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    oh, ow = dy.shape[2:]
    best = np.zeros((n, c, oh, ow))
    count = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            best[:, :, i, j] = patch.max(axis=(2, 3))
            count[:, :, i, j] = (patch == best[:, :, i, j, None, None]).sum(
                axis=(2, 3))
    dx = np.zeros((n, c, h, w))
    for r in range(h):
        for q in range(w):
            for i in range(oh):
                if not i * s <= r + p < i * s + k:
                    continue
                for j in range(ow):
                    if not j * s <= q + p < j * s + k:
                        continue
                    tied = x[:, :, r, q] == best[:, :, i, j]
                    dx[:, :, r, q] += np.where(
                        tied, dy[:, :, i, j] / count[:, :, i, j], 0.0)
    return dx
