"""Pooling: max (routing), unpooling (routing read forward) and averages.

Shapes: ``x (N, C, H, W)``, ``y (N, C, OH, OW)``. Max pooling saves
``ctx.argmax``, the flat ``h*W + w`` index each window picked: its backward
routes ``dy`` there and nowhere else. Average pooling saves only the window
``ctx.win``: its backward spreads ``dy / divisor`` over each window.
"""

from __future__ import annotations

import numpy as np

from ..backend import kernel
from ..function import Function


class MaxPool2d(Function):
    """``y`` = each window's maximum; ``dx`` gets ``dy`` at the argmax."""

    @staticmethod
    def forward(ctx, x, win):
        n, c = x.shape[:2]
        y = np.empty((n, c, *win.out), dtype=x.dtype)
        argmax = np.empty((n, c, *win.out), dtype=np.int64)
        kernel("maxpool2d_forward")(np.ascontiguousarray(x), *win.args, y, argmax)
        ctx.win, ctx.x_shape, ctx.argmax = win, x.shape, argmax
        return y

    @staticmethod
    def backward(ctx, dy):
        dx = np.zeros(ctx.x_shape, dtype=dy.dtype)
        kernel("maxpool2d_backward")(np.ascontiguousarray(dy), ctx.argmax, dx)
        return dx


class MaxUnpool2d(Function):
    """Put ``x`` back at the saved indices of an ``out_hw`` plane, zeros
    elsewhere. Its backward reads ``dy`` at those indices (a gather)."""

    @staticmethod
    def forward(ctx, x, indices, out_hw):
        n, c = x.shape[:2]
        out = np.zeros((n, c, *out_hw), dtype=x.dtype)
        if out.size:  # an empty plane (torch allows one) is written nowhere
            kernel("maxunpool2d")(np.ascontiguousarray(x), indices, out)
        ctx.indices, ctx.x_shape, ctx.out_hw = indices, x.shape, out_hw
        return out

    @staticmethod
    def backward(ctx, dy):
        n, c, h, w = ctx.x_shape
        if dy.size == 0:
            return np.zeros(ctx.x_shape, dtype=dy.dtype), None
        plane = dy.reshape(n, c, ctx.out_hw[0] * ctx.out_hw[1])
        picked = np.take_along_axis(plane, ctx.indices.reshape(n, c, h * w), axis=2)
        return picked.reshape(ctx.x_shape), None


class AvgPool2d(Function):
    """``y`` = each window's sum / divisor; ``dx`` gets ``dy / divisor``
    at every pixel of the window (overlapping windows add)."""

    @staticmethod
    def forward(ctx, x, win, count_include_pad, divisor_override):
        n, c = x.shape[:2]
        kh, kw, sh, sw, ph, pw = win.args[:6]
        y = np.empty((n, c, *win.out), dtype=x.dtype)
        kernel("avgpool2d_forward")(
            np.ascontiguousarray(x),
            kh,
            kw,
            sh,
            sw,
            ph,
            pw,
            count_include_pad,
            divisor_override,
            y,
        )
        ctx.win, ctx.x_shape = win, x.shape
        ctx.count_include_pad = count_include_pad
        ctx.divisor_override = divisor_override
        return y

    @staticmethod
    def backward(ctx, dy):
        kh, kw, sh, sw, ph, pw = ctx.win.args[:6]
        dx = np.zeros(ctx.x_shape, dtype=dy.dtype)
        kernel("avgpool2d_backward")(
            np.ascontiguousarray(dy),
            kh,
            kw,
            sh,
            sw,
            ph,
            pw,
            ctx.count_include_pad,
            ctx.divisor_override,
            dx,
        )
        return dx


class AdaptiveAvgPool2d(Function):
    """Average over torch's adaptive bins, one axis at a time.

    The mean over bin ``[h0, h1) x [w0, w1)`` is separable: sum each row
    bin along H, then each column bin along W, and divide by the bin's
    size. Its transpose spreads ``dy / size`` back the same way: pixel
    ``h`` collects the bins that cover it, a contiguous run ``[i0, i1)``
    since the bins' starts and ends only grow. Both are segment sums, never
    a product with a 0/1 matrix, so a NaN or inf stays in the bins that
    contain it (0 * NaN would spread it everywhere). Output size 1 is the
    global average.
    """

    @staticmethod
    def forward(ctx, x, row_bins, col_bins):
        ctx.rows, ctx.cols, ctx.hw = row_bins, col_bins, x.shape[2:]
        rows = _segment_sums(x, 2, *row_bins) / _sizes(row_bins, x.dtype, 2)
        return _segment_sums(rows, 3, *col_bins) / _sizes(col_bins, x.dtype, 3)

    @staticmethod
    def backward(ctx, dy):
        h, w = ctx.hw
        dy = dy / _sizes(ctx.rows, dy.dtype, 2) / _sizes(ctx.cols, dy.dtype, 3)
        dx = _segment_sums(dy, 2, *_covering(ctx.rows, h))
        return _segment_sums(dx, 3, *_covering(ctx.cols, w))


def _sizes(bins, dtype, axis: int) -> np.ndarray:
    """Each bin's length, shaped to divide along ``axis`` of an NCHW array."""
    starts, ends = bins
    shape = [1, 1, 1, 1]
    shape[axis] = len(starts)
    return (ends - starts).astype(dtype).reshape(shape)


def _covering(bins, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For each position ``0 <= h < size``, the bins ``[i0, i1)`` covering it."""
    starts, ends = bins
    pos = np.arange(size)
    return (np.searchsorted(ends, pos, side="right"),
            np.searchsorted(starts, pos, side="right"))


def _segment_sums(a: np.ndarray, axis: int, starts, ends) -> np.ndarray:
    """``a[..., s:e, ...].sum(axis)`` for every segment ``(s, e)``, stacked
    along ``axis``; an empty segment sums to 0."""
    shape = list(a.shape)
    shape[axis] = len(starts)
    if len(starts) == 0 or a.size == 0:
        return np.zeros(shape, a.dtype)
    # reduceat sums a[idx[k]:idx[k+1]]; interleaving (s0, e0, s1, e1, ...)
    # makes every even k one segment (a zero pad lets e reach the end)
    pad = [(0, 0)] * a.ndim
    pad[axis] = (0, 1)
    idx = np.empty(2 * len(starts), dtype=np.intp)
    idx[0::2], idx[1::2] = starts, ends
    sums = np.add.reduceat(np.pad(a, pad), idx, axis=axis)
    sums = np.take(sums, np.arange(0, len(idx), 2), axis=axis)
    empty = np.asarray(starts) >= np.asarray(ends)  # reduceat gives a[s] there
    if empty.any():
        index = [slice(None)] * a.ndim
        index[axis] = empty
        sums[tuple(index)] = 0
    return sums
