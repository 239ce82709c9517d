"""The ``Function`` base: one node of the graph, forward and backward.

A subclass writes two static methods that work on plain ndarrays::

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.a, ctx.b = a, b          # saved state has names
            return a * b

        @staticmethod
        def backward(ctx, dy):
            return dy * ctx.b, dy * ctx.a

``backward`` returns one gradient per positional input of ``forward`` (or a
single array when there is one input). Entries for inputs that are not
Tensors, or that need no gradient, may be ``None``; they are ignored.
Gradients of broadcast inputs are summed back to the input's shape by the
engine, so a rule may return the broadcast shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Context:
    """Named saved state for one call of a Function.

    ``needs_input_grad[i]`` says whether positional input ``i`` is a Tensor
    that needs a gradient, so a rule can skip work nobody asked for.
    """

    needs_input_grad: tuple[bool, ...]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={_short(v)}" for k, v in vars(self).items())
        return f"Context({fields})"


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"<ndarray {v.dtype} {v.shape}>"
    return repr(v)


class Function:
    """Base class for differentiable operations."""

    @staticmethod
    def forward(ctx: Context, *args: Any, **kwargs: Any) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, dy: np.ndarray) -> Any:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> _t.Tensor:
        """Run forward on the inputs' data and record the node if needed."""
        return cls.apply_with_ctx(*args, **kwargs)[0]

    @classmethod
    def apply_with_ctx(cls, *args: Any, **kwargs: Any) -> tuple[_t.Tensor, Context]:
        """Like :meth:`apply`, but also return the context (e.g. ``argmax``)."""
        ctx = Context()
        ctx.needs_input_grad = tuple(
            isinstance(a, _t.Tensor) and a.requires_grad for a in args
        )
        raw = [a.data if isinstance(a, _t.Tensor) else a for a in args]
        # a 0-d result is a 0-d array, never a NumPy scalar
        out = np.asarray(cls.forward(ctx, *raw, **kwargs))
        requires_grad = _t.is_grad_enabled() and any(ctx.needs_input_grad)
        result = _t.Tensor._from_op(out, requires_grad)
        if requires_grad:
            result._node = _t.Node(cls, ctx, tuple(args))
        return result, ctx


from . import tensor as _t  # noqa: E402  (tensor imports ops, ops import us)
