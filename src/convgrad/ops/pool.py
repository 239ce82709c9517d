"""Pooling: max (routing), unpooling (routing read forward) and averages.

Shapes: ``x (N, C, H, W)``, ``y (N, C, OH, OW)``. Max pooling saves
``ctx.argmax``, the flat ``h*W + w`` index each window picked: its backward
routes ``dy`` there and nowhere else. Average pooling saves only the window
``ctx.win``: its backward spreads ``dy / divisor`` over each window.

Each rule is one ``vjp``, an op of its own, so it can be differentiated
again (``create_graph=True``): max-pool's is :class:`Route` (scatter-add
at the argmax), whose adjoint is :class:`Gather` at the same indices, and
back; average pooling's is :class:`Spread`, whose adjoint is average
pooling; the adaptive one's is :class:`BinSpread`. Route and Spread take
the pool's input too, as torch's pooling backwards do: it only chose where
the values go, so its gradient is zero, but a gradient taken with
``create_graph=True`` then depends on it, and a second ``grad`` gives
zeros where it would otherwise find nothing to differentiate.
"""

from __future__ import annotations

import numpy as np

from ..backend import kernel
from ..function import Function
from .basic import zeros_like


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
    def vjp(ctx, inputs, dy):
        # the argmax is piecewise constant in x: the route's d/dx is 0
        return Route.apply(dy, ctx.argmax, ctx.x_shape, inputs[0])


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
    def vjp(ctx, inputs, dy):
        return Gather.apply(dy, ctx.indices), None, None


class Route(Function):
    """Max-pool's backward as an op: a zero ``x_shape`` image with each
    ``dy[n, c, i, j]`` added at ``indices[n, c, i, j]`` (a flat ``h*W + w``).

    Linear in ``dy``, so its rule is its adjoint, :class:`Gather` at the
    same indices; and Gather's is Route: closed under differentiation, to
    any order. ``x``, when given, is the pool's input: its gradient is 0.
    """

    @staticmethod
    def forward(ctx, dy, indices, x_shape, x=None):
        ctx.indices, ctx.x_shape = indices, x_shape
        return _route(dy, indices, x_shape)

    @staticmethod
    def vjp(ctx, inputs, g):
        x = inputs[3] if len(inputs) > 3 else None
        zero = zeros_like(x) if x is not None and ctx.needs_input_grad[3] else None
        return Gather.apply(g, ctx.indices), None, None, zero


class Gather(Function):
    """``y[n, c, i, j] = x[n, c].flat[indices[n, c, i, j]]``: max-unpool's
    backward as an op. Its backward is :class:`Route` (repeats add)."""

    @staticmethod
    def forward(ctx, x, indices):
        ctx.indices, ctx.x_shape = indices, x.shape
        return _gather(x, indices)

    @staticmethod
    def vjp(ctx, inputs, g):
        return Route.apply(g, ctx.indices, ctx.x_shape), None


def _route(dy: np.ndarray, indices: np.ndarray, x_shape) -> np.ndarray:
    """Add each ``dy`` into a zero ``x_shape`` image at its flat index."""
    dx = np.zeros(x_shape, dtype=dy.dtype)
    if dx.size:  # an empty plane receives nothing
        kernel("maxpool2d_backward")(np.ascontiguousarray(dy), indices, dx)
    return dx


def _gather(x: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Read each plane of ``x`` at ``indices`` (an ``(N, C, h, w)`` array)."""
    n, c = indices.shape[:2]
    if x.size == 0:
        return np.zeros(indices.shape, dtype=x.dtype)
    plane = x.reshape(n, c, -1)
    picked = np.take_along_axis(plane, indices.reshape(n, c, -1), axis=2)
    return picked.reshape(indices.shape)


class AvgPool2d(Function):
    """``y`` = each window's sum / divisor; ``dx`` gets ``dy / divisor``
    at every pixel of the window (overlapping windows add)."""

    @staticmethod
    def forward(ctx, x, win, count_include_pad, divisor_override):
        ctx.win, ctx.x_shape = win, x.shape
        ctx.count_include_pad = count_include_pad
        ctx.divisor_override = divisor_override
        return _avg(x, win, count_include_pad, divisor_override)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return Spread.apply(dy, ctx.win, ctx.count_include_pad,
                            ctx.divisor_override, ctx.x_shape, inputs[0])


class Spread(Function):
    """Average pooling's backward as an op: each ``dy / divisor`` spread
    over its window of a zero ``x_shape`` image. Its adjoint, so its
    rule, is the average pooling itself, with the same divisors. ``x``,
    when given, is the pool's input: its gradient is 0."""

    @staticmethod
    def forward(ctx, dy, win, count_include_pad, divisor_override, x_shape,
                x=None):
        ctx.win, ctx.count_include_pad = win, count_include_pad
        ctx.divisor_override = divisor_override
        return _spread(dy, win, count_include_pad, divisor_override, x_shape)

    @staticmethod
    def vjp(ctx, inputs, g):
        x = inputs[5] if len(inputs) > 5 else None
        zero = zeros_like(x) if x is not None and ctx.needs_input_grad[5] else None
        dy = AvgPool2d.apply(g, ctx.win, ctx.count_include_pad, ctx.divisor_override)
        return dy, None, None, None, None, zero


def _avg(x, win, count_include_pad, divisor_override) -> np.ndarray:
    y = np.empty((*x.shape[:2], *win.out), dtype=x.dtype)
    kernel("avgpool2d_forward")(
        np.ascontiguousarray(x), *win.args[:6], count_include_pad, divisor_override, y
    )
    return y


def _spread(dy, win, count_include_pad, divisor_override, x_shape) -> np.ndarray:
    # the kernel writes every pixel (0 where no window reaches) and never
    # reads dx: a fresh dx's pages are first touched by a write, by the
    # thread that computes them, with no zero fill before
    dx = np.empty(x_shape, dtype=dy.dtype)
    kernel("avgpool2d_backward")(
        np.ascontiguousarray(dy), *win.args[:6], count_include_pad, divisor_override, dx
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
        return _bin_means(x, row_bins, col_bins)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return BinSpread.apply(dy, ctx.rows, ctx.cols, ctx.hw)


class BinSpread(Function):
    """Adaptive average pooling's backward as an op; its backward is the
    adaptive average pooling (the two are adjoint)."""

    @staticmethod
    def forward(ctx, dy, row_bins, col_bins, hw):
        ctx.rows, ctx.cols = row_bins, col_bins
        return _bin_spread(dy, row_bins, col_bins, hw)

    @staticmethod
    def vjp(ctx, inputs, g):
        return AdaptiveAvgPool2d.apply(g, ctx.rows, ctx.cols)


def _bin_means(x, rows, cols) -> np.ndarray:
    means = _segment_sums(x, 2, *rows) / _sizes(rows, x.dtype, 2)
    return _segment_sums(means, 3, *cols) / _sizes(cols, x.dtype, 3)


def _bin_spread(dy, rows, cols, hw) -> np.ndarray:
    h, w = hw
    dy = dy / _sizes(rows, dy.dtype, 2) / _sizes(cols, dy.dtype, 3)
    dx = _segment_sums(dy, 2, *_covering(rows, h))
    return _segment_sums(dx, 3, *_covering(cols, w))


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
    return (
        np.searchsorted(ends, pos, side="right"),
        np.searchsorted(starts, pos, side="right"),
    )


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
