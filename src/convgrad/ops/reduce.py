"""Reductions: sum and mean over axes, with keepdims; and their adjoint,
``ExpandTo`` (broadcast a reduced gradient back over the summed axes),
whose own adjoint is :func:`~convgrad.tensor.unbroadcast`. Each rule is
one ``vjp`` on Tensors (:mod:`convgrad.function`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..function import Function
from ..tensor import Tensor, register, unbroadcast


def _axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and 0 <= axis < ndim:  # the common case, sooner
        return (axis,)
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for ax in items:
        if type(ax) is not int and (  # (a plain int first: the common case)
            not isinstance(ax, (int, np.integer)) or isinstance(ax, bool)
        ):
            raise TypeError(f"axis must be an int or a tuple of ints, got {axis!r}")
        if not -ndim <= ax < max(ndim, 1):
            raise ValueError(
                f"axis {ax} is out of range for a tensor of {ndim} dimensions"
            )
        out.append(int(ax) % max(ndim, 1))
    return tuple(out)


def _expand(dy, ctx):
    """``dy`` broadcast back over the axes a sum or mean reduced: a reshape
    (the axes kept, when they were dropped), then :class:`ExpandTo`."""
    if not ctx.keepdims:
        kept = tuple(1 if i in ctx.axes else n for i, n in enumerate(ctx.in_shape))
        dy = dy.reshape(kept)
    return ExpandTo.apply(dy, ctx.in_shape)


class Sum(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        if type(keepdims) is not bool and not isinstance(keepdims, np.bool_):
            raise TypeError(f"keepdims must be a bool, got {keepdims!r}")
        ctx.axes, ctx.keepdims, ctx.in_shape = _axes(axis, a.ndim), keepdims, a.shape
        return np.asarray(a.sum(axis=ctx.axes, keepdims=keepdims))

    @staticmethod
    def vjp(ctx, inputs, dy):
        return _expand(dy, ctx)


class Mean(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        if type(keepdims) is not bool and not isinstance(keepdims, np.bool_):
            raise TypeError(f"keepdims must be a bool, got {keepdims!r}")
        ctx.axes, ctx.keepdims, ctx.in_shape = _axes(axis, a.ndim), keepdims, a.shape
        ctx.count = int(np.prod([a.shape[i] for i in ctx.axes]))
        total = a.sum(axis=ctx.axes, keepdims=keepdims)
        return np.asarray(total / a.dtype.type(ctx.count))  # empty: NaN, as torch

    @staticmethod
    def vjp(ctx, inputs, dy):
        return _expand(dy / float(ctx.count), ctx)


class ExpandTo(Function):
    """Broadcast ``a`` to ``shape`` (numpy's rules), as a new array. Its
    backward sums over the broadcast axes: the adjoint of a sum."""

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a.shape
        return np.broadcast_to(a, shape).copy()

    @staticmethod
    def vjp(ctx, inputs, dy):
        return unbroadcast(dy, ctx.in_shape), None


def _sum(self: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The sum over ``axis`` (None: all), as numpy's, differentiable."""
    return Sum.apply(self, axis=axis, keepdims=keepdims)


def _mean(self: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The mean over ``axis`` (None: all), as numpy's, differentiable."""
    return Mean.apply(self, axis=axis, keepdims=keepdims)


register(sum=_sum, mean=_mean)
