"""Max, average and unpooling, in NumPy: the readable twins of the kernels.

Window ``(oh, ow)``'s tap ``(ki, kj)`` reads input pixel
``Window.pixel((oh, ow), (ki, kj))``, the index map
:class:`convgrad.geometry.Window` writes once::

    h = oh * sh - ph + ki * dh
    w = ow * sw - pw + kj * dw

These functions take the kernels' ints and ask :meth:`Window.of` for the
window they make. Each loops over the ``KH * KW`` taps and handles every
window of every image and channel at once, with one strided slice per tap
(``Window.tap_slices``, as ``im2col`` does). A tap outside the input
reads the padding: ``-inf`` for max pooling, ``0`` for average pooling.
In ``ceil_mode`` the last window may hang past the padded input; those
taps are padding too (``Window.padded`` makes room for them).

Max-pool indices (``argmax``) are flat indices ``h*W + w`` into each
input's ``H x W`` plane, as torch returns them.
"""

from __future__ import annotations

import numpy as np

from ..geometry import Window


def _padded(x, win, fill):
    """``x`` inside a border of ``fill`` wide enough for every window tap."""
    n, c, h, w = x.shape
    ph, pw = win.p
    xp = np.full((n, c, *win.padded((h, w))), fill, dtype=x.dtype)
    xp[:, :, ph : ph + h, pw : pw + w] = x
    return xp


def _tap(xp, win, ki, kj):
    """What tap ``(ki, kj)`` of every window sees: an (N, C, OH, OW) view."""
    rows, cols = win.tap_slices(ki, kj)
    return xp[:, :, rows, cols]


def maxpool2d_forward(x, kh, kw, sh, sw, ph, pw, dh, dw, y, argmax):
    """Fill ``y`` with each window's maximum and ``argmax`` with its index.

    Torch's rule, applied tap by tap in row-major window order: a tap
    replaces the best so far when ``val > best`` or ``val`` is NaN. So the
    first maximum wins a tie, and NaN propagates (the last NaN's index).
    The first tap that lands inside the input is always recorded, so a
    window of all ``-inf`` points at a real pixel, never at the padding.
    """
    n, c, h, w = x.shape
    oh, ow = y.shape[2], y.shape[3]
    win = Window.of((kh, kw, sh, sw, ph, pw, dh, dw), (oh, ow))
    xp = _padded(x, win, -np.inf)
    best = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    best_idx = np.full((n, c, oh, ow), -1, dtype=np.int64)
    for ki in range(kh):
        rows = win.row(np.arange(oh), ki)  # input row of this tap
        row_inside = (rows >= 0) & (rows < h)
        for kj in range(kw):
            cols = win.column(np.arange(ow), kj)
            col_inside = (cols >= 0) & (cols < w)
            inside = row_inside[:, None] & col_inside[None, :]  # (OH, OW)
            val = _tap(xp, win, ki, kj)
            first = best_idx < 0
            take = inside & (first | (val > best) | np.isnan(val))
            best = np.where(take, val, best)
            best_idx = np.where(take, rows[:, None] * w + cols[None, :], best_idx)
    y[...] = best
    argmax[...] = best_idx


def maxpool2d_backward(dy, argmax, dx):
    """Route each ``dy`` to the pixel its window picked; add into ``dx``.

    Overlapping windows can pick the same pixel, which then receives the
    sum. ``np.add.at`` adds once per index, repeats included (a plain
    ``dx[idx] += dy`` would keep only one of the repeats).
    """
    n, c, h, w = dx.shape
    batch = np.arange(n)[:, None, None, None]
    channel = np.arange(c)[None, :, None, None]
    rows, cols = argmax // w, argmax % w
    np.add.at(dx, (batch, channel, rows, cols), dy)


def _avg_divisors(h, w, win, count_include_pad, divisor_override, dtype):
    """The number each window's sum is divided by, an (OH, OW) array.

    Torch's rule, one axis at a time: the window (from its first row to
    the end of its span) is first cut at the far edge of the padding (its
    size there counts the padding), then at the input (its size there
    counts only real pixels).
    """
    oh, ow = win.out
    if divisor_override:
        return np.full((oh, ow), divisor_override, dtype=dtype)

    def sizes(size, start, span, p):
        end = np.minimum(start + span, size + p)
        with_pad = end - start
        real = np.minimum(end, size) - np.maximum(start, 0)
        return with_pad, real

    pad_h, real_h = sizes(h, win.row(np.arange(oh), 0), win.span[0], win.p[0])
    pad_w, real_w = sizes(w, win.column(np.arange(ow), 0), win.span[1], win.p[1])
    if count_include_pad:
        return np.outer(pad_h, pad_w).astype(dtype)
    return np.outer(real_h, real_w).astype(dtype)


def avgpool2d_forward(
    x, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, y
):
    """Fill ``y`` with each window's sum divided by its divisor.

    Padding taps read 0; ``divisor_override`` (0 = none) replaces the
    divisor, otherwise it counts the padding or not, as
    ``count_include_pad`` says. Each window adds its taps in row-major
    order, in ``x``'s dtype, and divides by a divisor in that dtype, as the
    kernel does.
    """
    n, c, h, w = x.shape
    win = Window.of((kh, kw, sh, sw, ph, pw, 1, 1), y.shape[2:])
    xp = _padded(x, win, 0)
    total = np.zeros((n, c, *win.out), dtype=x.dtype)
    for ki in range(kh):
        for kj in range(kw):
            total += _tap(xp, win, ki, kj)
    divisor = _avg_divisors(
        h, w, win, count_include_pad, divisor_override, x.dtype
    )
    y[...] = total / divisor


def avgpool2d_backward(
    dy, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, dx
):
    """Fill ``dx`` with ``dy / divisor`` spread over every pixel of each
    window.

    col2im of the shares: each tap ``(ki, kj)`` sends every window's share
    back to the pixel that tap read, one strided slice per tap. Within one
    tap the windows hit distinct pixels, so ``+=`` on a strided slice is
    safe; across taps, overlaps add up. So each pixel receives its shares
    tap by tap, in the kernel's and the trace's order (``n, c, ki, kj, i,
    j``), and the three agree bit for bit. The adds start from 0 and
    ``dx``'s old contents are overwritten (0 where no window reaches), as
    the kernel does.
    """
    n, c, h, w = dx.shape
    win = Window.of((kh, kw, sh, sw, ph, pw, 1, 1), dy.shape[2:])
    divisor = _avg_divisors(
        h, w, win, count_include_pad, divisor_override, dy.dtype
    )
    share = dy / divisor  # both in dy's dtype
    dxp = np.zeros((n, c, *win.padded((h, w))), dtype=dx.dtype)
    inside = dxp[:, :, ph : ph + h, pw : pw + w]
    for ki in range(kh):
        for kj in range(kw):
            _tap(dxp, win, ki, kj)[...] += share
    dx[...] = inside


def maxunpool2d(x, indices, out):
    """Put each value of ``x`` at its flat index in ``out``'s H x W plane.

    ``out`` is zeroed by the caller, so every pixel no index names stays 0.
    Indices from overlapping windows can repeat, but a repeated index comes
    with the same value (the pixel both windows picked), so the order of
    the writes does not matter.
    The inverse routing of max pooling: its forward is max-pool's backward,
    with assignment where max-pool's backward adds.
    """
    n, c, oh, ow = out.shape
    batch = np.arange(n)[:, None, None, None]
    channel = np.arange(c)[None, :, None, None]
    out[batch, channel, indices // ow, indices % ow] = x
