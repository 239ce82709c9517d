"""Reductions: sum and mean over axes, with keepdims."""

from __future__ import annotations

import numpy as np

from ..function import Function


def _axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for ax in items:
        if not isinstance(ax, (int, np.integer)) or isinstance(ax, bool):
            raise TypeError(f"axis must be an int or a tuple of ints, got {axis!r}")
        if not -ndim <= ax < max(ndim, 1):
            raise ValueError(
                f"axis {ax} is out of range for a tensor of {ndim} dimensions"
            )
        out.append(int(ax) % max(ndim, 1))
    return tuple(out)


def _expand(dy: np.ndarray, ctx) -> np.ndarray:
    if not ctx.keepdims:
        dy = np.expand_dims(dy, ctx.axes)
    return np.broadcast_to(dy, ctx.in_shape)


class Sum(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.axes, ctx.keepdims, ctx.in_shape = _axes(axis, a.ndim), keepdims, a.shape
        return np.asarray(a.sum(axis=ctx.axes, keepdims=keepdims))

    @staticmethod
    def backward(ctx, dy):
        return _expand(dy, ctx)


class Mean(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.axes, ctx.keepdims, ctx.in_shape = _axes(axis, a.ndim), keepdims, a.shape
        ctx.count = int(np.prod([a.shape[i] for i in ctx.axes]))
        total = a.sum(axis=ctx.axes, keepdims=keepdims)
        return np.asarray(total / a.dtype.type(ctx.count))  # empty: NaN, as torch

    @staticmethod
    def backward(ctx, dy):
        return _expand(dy / dy.dtype.type(ctx.count), ctx)
