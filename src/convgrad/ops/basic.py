"""Elementwise arithmetic, matmul, shape ops and activations."""

from __future__ import annotations

import numpy as np

from ..function import Function


class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        return np.add(a, b)

    @staticmethod
    def backward(ctx, dy):
        return dy, dy


class Sub(Function):
    @staticmethod
    def forward(ctx, a, b):
        return np.subtract(a, b)

    @staticmethod
    def backward(ctx, dy):
        return dy, -dy


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a, b
        return np.multiply(a, b)

    @staticmethod
    def backward(ctx, dy):
        return dy * ctx.b, dy * ctx.a


class Div(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a, b
        return np.divide(a, b)

    @staticmethod
    def backward(ctx, dy):
        da = dy / ctx.b
        return da, -da * ctx.a / ctx.b


class Neg(Function):
    @staticmethod
    def forward(ctx, a):
        return np.negative(a)

    @staticmethod
    def backward(ctx, dy):
        return -dy


class Pow(Function):
    @staticmethod
    def forward(ctx, a, exponent):
        ctx.a, ctx.exponent = a, exponent
        return np.power(a, a.dtype.type(exponent))

    @staticmethod
    def backward(ctx, dy):
        p = ctx.a.dtype.type(ctx.exponent)
        return dy * p * np.power(ctx.a, p - 1), None


class MatMul(Function):
    """``a @ b`` for 1-D, 2-D and batched operands (numpy's rules)."""

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError("matmul: both operands must be at least 1-D")
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            raise ValueError(
                f"matmul: inner dimensions differ: a has shape {a.shape}, "
                f"b has shape {b.shape}"
            )
        ctx.a, ctx.b = a, b
        return np.matmul(a, b)

    @staticmethod
    def backward(ctx, dy):
        a, b = ctx.a, ctx.b
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        dy2 = dy
        if a.ndim == 1:
            dy2 = np.expand_dims(dy2, -2)
        if b.ndim == 1:
            dy2 = np.expand_dims(dy2, -1)
        da = np.matmul(dy2, np.swapaxes(b2, -1, -2))
        db = np.matmul(np.swapaxes(a2, -1, -2), dy2)
        if a.ndim == 1:
            da = da.reshape(da.shape[:-2] + (a.shape[0],))
        if b.ndim == 1:
            db = db.reshape(db.shape[:-2] + (b.shape[0],))
        return da, db


class Reshape(Function):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a.shape
        try:
            return a.reshape(shape)
        except ValueError:
            raise ValueError(
                f"reshape: cannot view {a.size} elements of shape {a.shape} "
                f"as shape {tuple(shape)}"
            ) from None

    @staticmethod
    def backward(ctx, dy):
        return dy.reshape(ctx.in_shape)


class Transpose(Function):
    @staticmethod
    def forward(ctx, a, axes):
        if axes is not None and sorted(int(x) % max(a.ndim, 1) for x in axes) != list(
            range(a.ndim)
        ):
            raise ValueError(
                f"transpose: axes must be a permutation of {tuple(range(a.ndim))}"
                f", got {tuple(axes)}"
            )
        ctx.axes = axes
        return np.transpose(a, axes)

    @staticmethod
    def backward(ctx, dy):
        if ctx.axes is None:
            return np.transpose(dy)
        return np.transpose(dy, np.argsort([x % dy.ndim for x in ctx.axes]))


class ReLU(Function):
    """``max(a, 0)`` as torch computes it: only ``a <= 0`` becomes 0, so NaN
    stays NaN, and its gradient passes (NaN <= 0 is false)."""

    @staticmethod
    def forward(ctx, a):
        ctx.mask = ~(a <= 0)
        return np.where(ctx.mask, a, a.dtype.type(0))

    @staticmethod
    def backward(ctx, dy):
        return np.where(ctx.mask, dy, dy.dtype.type(0))


class Tanh(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.y = np.tanh(a)
        return ctx.y

    @staticmethod
    def backward(ctx, dy):
        return dy * (1 - ctx.y * ctx.y)


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, a):
        # split by sign so exp never overflows
        e = np.exp(-np.abs(a))
        ctx.y = np.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype)
        return ctx.y

    @staticmethod
    def backward(ctx, dy):
        return dy * ctx.y * (1 - ctx.y)


class Exp(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.y = np.exp(a)
        return ctx.y

    @staticmethod
    def backward(ctx, dy):
        return dy * ctx.y


class Log(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.a = a
        return np.log(a)

    @staticmethod
    def backward(ctx, dy):
        return dy / ctx.a
