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
        kernel("maxunpool2d")(np.ascontiguousarray(x), indices, out)
        ctx.indices, ctx.x_shape, ctx.out_hw = indices, x.shape, out_hw
        return out

    @staticmethod
    def backward(ctx, dy):
        n, c = ctx.x_shape[:2]
        plane = dy.reshape(n, c, -1)
        picked = np.take_along_axis(plane, ctx.indices.reshape(n, c, -1), axis=2)
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
    """Average over torch's adaptive bins, as two small matrix products.

    The mean over bin ``[h0, h1) x [w0, w1)`` is separable, so with
    ``ctx.rows[i, h] = 1/(h1 - h0)`` on bin ``i`` (0 elsewhere) and
    ``ctx.cols`` likewise, ``y = rows @ x @ colsᵀ`` and, its transpose,
    ``dx = rowsᵀ @ dy @ cols``. Output size 1 is the global average.
    """

    @staticmethod
    def forward(ctx, x, row_bins, col_bins):
        ctx.rows = _averaging_matrix(*row_bins, x.shape[2], x.dtype)
        ctx.cols = _averaging_matrix(*col_bins, x.shape[3], x.dtype)
        return ctx.rows @ x @ ctx.cols.T

    @staticmethod
    def backward(ctx, dy):
        return ctx.rows.T @ dy @ ctx.cols


def _averaging_matrix(starts, ends, size, dtype) -> np.ndarray:
    """``(out, size)``: row ``i`` averages input positions ``[starts[i], ends[i])``."""
    pos = np.arange(size)
    member = (pos >= starts[:, None]) & (pos < ends[:, None])
    return (member / (ends - starts)[:, None]).astype(dtype)
