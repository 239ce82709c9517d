"""Elementwise arithmetic, matmul, shape ops and activations.

Each rule is written once, as ``vjp`` with Tensor ops: first order runs
it recording nothing, double backward runs it recording a graph
(:mod:`convgrad.function`). It reads the inputs as Tensors (and the
output as ``ctx.output``) so that the graph it builds reaches back to
them.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..function import Function
from ..tensor import Tensor, _operand, register


def _const(v):
    """A recorded input as a Tensor: a raw array operand is a constant."""
    return v if isinstance(v, Tensor) else Tensor.wrap(np.asarray(v))


class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        return np.add(a, b)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return dy, dy


class Sub(Function):
    @staticmethod
    def forward(ctx, a, b):
        return np.subtract(a, b)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return dy, -dy if ctx.needs_input_grad[1] else None


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a, b
        return np.multiply(a, b)

    @staticmethod
    def vjp(ctx, inputs, dy):
        a, b = inputs
        need_a, need_b = ctx.needs_input_grad
        return dy * b if need_a else None, dy * a if need_b else None


class Div(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a, b
        return np.divide(a, b)

    @staticmethod
    def vjp(ctx, inputs, dy):
        a, b = inputs
        da = dy / b
        return da, -da * a / b if ctx.needs_input_grad[1] else None


class Neg(Function):
    @staticmethod
    def forward(ctx, a):
        return np.negative(a)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return -dy


class Pow(Function):
    @staticmethod
    def forward(ctx, a, exponent):
        ctx.a, ctx.exponent = a, exponent
        return np.power(a, a.dtype.type(exponent))

    @staticmethod
    def vjp(ctx, inputs, dy):
        a, p = inputs
        return dy * p * a ** (p - 1), None


def _swap_last(t):
    """``t`` with its last two axes swapped (a differentiable transpose)."""
    perm = (*range(t.ndim - 2), t.ndim - 1, t.ndim - 2)
    return Transpose.apply(t, axes=perm)


class MatMul(Function):
    """``a @ b`` for 1-D, 2-D and batched operands (numpy's rules).

    A 1-D ``a`` is a row ``(1, n)`` and a 1-D ``b`` a column ``(n, 1)``;
    ``dy`` gets the matching unit axes, and the gradients lose them again.
    """

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
    def vjp(ctx, inputs, dy):
        a, b = (_const(v) for v in inputs)
        a2 = a.reshape(1, a.shape[0]) if a.ndim == 1 else a
        b2 = b.reshape(b.shape[0], 1) if b.ndim == 1 else b
        dy2 = dy
        if b.ndim == 1:
            dy2 = dy2.reshape(dy2.shape + (1,))
        if a.ndim == 1:
            dy2 = dy2.reshape(dy2.shape[:-1] + (1,) + dy2.shape[-1:])
        da = db = None
        if ctx.needs_input_grad[0]:
            da = dy2 @ _swap_last(b2)
            if a.ndim == 1:
                da = da.reshape(da.shape[:-2] + (a.shape[0],))
        if ctx.needs_input_grad[1]:
            db = _swap_last(a2) @ dy2
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
    def vjp(ctx, inputs, dy):
        return dy.reshape(ctx.in_shape)


def _inverse(axes, ndim: int) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argsort([x % ndim for x in axes]))


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
        return a.transpose(axes)  # (np.transpose: two Python calls more)

    @staticmethod
    def vjp(ctx, inputs, dy):
        axes = None if ctx.axes is None else _inverse(ctx.axes, dy.ndim)
        return Transpose.apply(dy, axes=axes)


class Cast(Function):
    """``a`` as another float dtype; the gradient goes back to ``a``'s."""

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.in_dtype = a.dtype
        return a.astype(dtype)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return Cast.apply(dy, ctx.in_dtype), None


def _keep_words(off: np.ndarray, itemsize: int) -> np.ndarray:
    """Unsigned words of ``itemsize`` bytes: all ones where ``off`` is
    false, zero where it is true (``True - 1 = 0``, ``False - 1`` wraps)."""
    words = off.astype(f"u{itemsize}")
    words -= 1
    return words


def _select(a: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``np.where(keep != 0, a, 0)``, bit for bit (NaN payloads too), as
    one AND of ``a``'s bytes with ``keep``: three times faster than where."""
    return np.bitwise_and(a.view(keep.dtype), keep).view(a.dtype)


def zeros_like(t) -> Tensor:
    """A constant zero Tensor of ``t``'s shape and dtype: the gradient of an
    input that only chose where a rule's values go (ReLU's, a pool's), as
    torch's ``zeros_like`` in its double backward."""
    return Tensor.wrap(np.zeros(t.shape, t.dtype))


class ReLUGrad(Function):
    """ReLU's gradient as an op: ``dy`` where ReLU passed its input ``a``,
    0 elsewhere (``keep``: ReLU's words, :func:`_select`). Linear in
    ``dy``, so its rule is itself; ``a`` only chose the places, so its
    gradient is 0 (torch's ``threshold_backward``): ReLU's second
    derivative."""

    @staticmethod
    def forward(ctx, dy, a, keep):
        ctx.keep = keep
        if dy.dtype.itemsize != keep.itemsize:
            return np.where(keep != 0, dy, dy.dtype.type(0))
        return _select(dy, keep)

    @staticmethod
    def vjp(ctx, inputs, g):
        _, a, keep = inputs
        need_a = ctx.needs_input_grad[1]
        return ReLUGrad.apply(g, a, keep), zeros_like(a) if need_a else None, None


class ReLU(Function):
    """``max(a, 0)`` as torch computes it: only ``a < 0`` becomes 0, so NaN
    stays NaN and ``-0.0`` stays ``-0.0``. The gradient passes where
    ``a > 0`` or ``a`` is NaN (not ``a <= 0``): ``-0.0`` and ``0.0`` get 0."""

    @staticmethod
    def forward(ctx, a):
        ctx.keep = _keep_words(a <= 0, a.itemsize)
        y = np.asarray(_select(a, ctx.keep))  # (0-d: a scalar, made an array)
        # a zero input is its own output: -0.0 keeps its sign, as in torch
        return np.copysign(y, a, out=y, where=a == 0)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return ReLUGrad.apply(dy, inputs[0], ctx.keep)


class Tanh(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.y = np.tanh(a)
        return ctx.y

    @staticmethod
    def vjp(ctx, inputs, dy):
        return TanhGrad.apply(dy, ctx.output)  # y: its graph reaches a


class TanhGrad(Function):
    """tanh's gradient as one op, ``dy · (1 − y²)`` with ``y = tanh(a)``
    (torch's ``tanh_backward``): one wrapper at first order, not three.
    Its own rule: ``g · (1 − y²)`` for ``dy``, ``−2 · g · dy · y`` for ``y``."""

    @staticmethod
    def forward(ctx, dy, y):
        ctx.dy, ctx.y = dy, y
        return dy * (1 - y * y)

    @staticmethod
    def vjp(ctx, inputs, g):
        dy, y = inputs
        need_dy, need_y = ctx.needs_input_grad
        ddy = TanhGrad.apply(g, y) if need_dy else None
        return ddy, g * dy * y * -2.0 if need_y else None


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, a):
        # split by sign so exp never overflows
        e = np.exp(-np.abs(a))
        ctx.y = np.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype)
        return ctx.y

    @staticmethod
    def vjp(ctx, inputs, dy):
        return SigmoidGrad.apply(dy, ctx.output)


class SigmoidGrad(Function):
    """sigmoid's gradient as one op, ``dy · y · (1 − y)`` with ``y =
    sigmoid(a)`` (torch's ``sigmoid_backward``). Its own rule: ``g · y ·
    (1 − y)`` for ``dy``, ``g · dy · (1 − 2y)`` for ``y``."""

    @staticmethod
    def forward(ctx, dy, y):
        ctx.dy, ctx.y = dy, y
        return dy * y * (1 - y)

    @staticmethod
    def vjp(ctx, inputs, g):
        dy, y = inputs
        need_dy, need_y = ctx.needs_input_grad
        ddy = SigmoidGrad.apply(g, y) if need_dy else None
        return ddy, g * dy * (1 - y * 2.0) if need_y else None


class Exp(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.y = np.exp(a)
        return ctx.y

    @staticmethod
    def vjp(ctx, inputs, dy):
        return dy * ctx.output


class Log(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.a = a
        return np.log(a)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return dy / inputs[0]



# ------------------------------------------- Tensor's operators and methods
def _binary(fn: type, name: str, reflected: bool = False) -> Any:
    """The method ``Tensor.<name>``: ``fn`` applied to the tensor and the
    other operand (a scalar or array becomes a constant), in that order or,
    ``reflected``, the other first."""
    apply = fn.apply  # (bound once: a rule's ops call these most)
    if reflected:
        def method(self: Tensor, other: Any) -> Tensor:
            return apply(_operand(other, self), self)
    else:
        def method(self: Tensor, other: Any) -> Tensor:
            if type(other) is not Tensor:
                other = _operand(other, self)
            return apply(self, other)
    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    return method


def _unary(fn: type, name: str) -> Any:
    apply = fn.apply

    def method(self: Tensor) -> Tensor:
        return apply(self)

    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    method.__doc__ = f"{fn.__name__} of every element, differentiable."
    return method


def _pow(self: Tensor, exponent: float) -> Tensor:
    if not isinstance(exponent, numbers.Real):
        raise TypeError(
            f"exponent must be a Python number, got {type(exponent).__name__}"
        )
    return Pow.apply(self, float(exponent))


def _reshape(self: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return Reshape.apply(self, shape=shape)


def _flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = self.ndim
    s, e = start_dim % nd if nd else 0, end_dim % nd if nd else 0
    if s > e:
        raise ValueError(
            f"flatten: start_dim ({start_dim}) must not come after "
            f"end_dim ({end_dim})"
        )
    shape = self.shape[:s] + (-1,) + self.shape[e + 1 :]
    if self.size == 0:
        shape = (
            self.shape[:s]
            + (int(np.prod(self.shape[s : e + 1])),)
            + self.shape[e + 1 :]
        )
    return Reshape.apply(self, shape=shape)


def _transpose(self: Tensor, *axes: Any) -> Tensor:
    """Reverse the axes, swap two (``transpose(0, 1)``), or permute."""
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if len(axes) == 2 and self.ndim != 2:
        perm = list(range(self.ndim))
        a, b = (int(ax) % self.ndim for ax in axes)
        perm[a], perm[b] = perm[b], perm[a]
        axes = tuple(perm)
    return Transpose.apply(self, axes=axes or None)


def _cast(self: Tensor, dtype: Any) -> Tensor:
    """This tensor as another float dtype, differentiable (a Cast node)."""
    return Cast.apply(self, dtype)


for _name, _fn in [("add", Add), ("sub", Sub), ("mul", Mul),
                   ("truediv", Div), ("matmul", MatMul)]:
    register(**{f"__{_name}__": _binary(_fn, f"__{_name}__"),
                f"__r{_name}__": _binary(_fn, f"__r{_name}__", True)})
register(
    __neg__=_unary(Neg, "__neg__"),
    __pow__=_pow,
    reshape=_reshape,
    flatten=_flatten,
    transpose=_transpose,
    T=property(_transpose, doc="The axes reversed (numpy's ``.T``)."),
    relu=_unary(ReLU, "relu"),
    tanh=_unary(Tanh, "tanh"),
    sigmoid=_unary(Sigmoid, "sigmoid"),
    exp=_unary(Exp, "exp"),
    log=_unary(Log, "log"),
    _cast=_cast,
)
