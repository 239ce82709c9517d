"""``Tensor``: an ndarray that remembers how it was made, and ``backward``."""

from __future__ import annotations

import contextlib
import numbers
import threading
from typing import Any, NamedTuple

import numpy as np


class _GradMode(threading.local):
    """Grad mode, one per thread (as torch's): every thread starts with it
    on, and one thread's ``no_grad`` never touches another's."""

    def __init__(self) -> None:
        self.enabled = True
        self.saved: list[bool] = []  # the states no_grad blocks will restore


_mode = _GradMode()


def is_grad_enabled() -> bool:
    """Whether ops record a graph in this thread."""
    return _mode.enabled


class no_grad(contextlib.ContextDecorator):  # noqa: N801 (torch's name)
    """Within this block, ops build no graph (as ``torch.no_grad``).

    Grad mode belongs to the thread: on exit, the block restores the state
    its own thread had on entry, whatever other threads do meanwhile. Also
    a decorator (``@no_grad()``); blocks nest.
    """

    def __enter__(self) -> None:
        _mode.saved.append(_mode.enabled)
        _mode.enabled = False

    def __exit__(self, *exc: object) -> None:
        _mode.enabled = _mode.saved.pop()


class Node(NamedTuple):
    """How a Tensor was made: the Function, its context and its inputs."""

    fn: type
    ctx: Any
    inputs: tuple


def as_float_array(data: Any, name: str = "data") -> np.ndarray:
    """Convert to a float ndarray: ints and bools become float64.

    float16 becomes float32; complex and object data are refused.
    """
    arr = np.asarray(data)
    kind = arr.dtype.kind
    if kind in "biu":
        return arr.astype(np.float64)
    if kind == "f":
        if arr.dtype == np.float16:
            return arr.astype(np.float32)
        if arr.dtype not in (np.float32, np.float64):
            return arr.astype(np.float64)
        return arr
    raise TypeError(
        f"{name} must be real numbers (bool, int or float), got dtype {arr.dtype}"
    )


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting added or stretched."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(
        i
        for i, (g, s) in enumerate(zip(grad.shape, shape, strict=True))
        if s == 1 and g != 1
    )
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


class Tensor:
    """An ndarray with an optional gradient and a record of its making.

    ``data`` is a float32 or float64 ndarray. ``grad`` is None until a
    ``backward()`` reaches this tensor, then an ndarray of the same shape
    that later backward passes add to.
    """

    __array_priority__ = 100  # ndarray <op> Tensor defers to Tensor

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        if isinstance(data, Tensor):
            data = data.data
        self.data: np.ndarray = as_float_array(data)
        self.grad: np.ndarray | None = None
        self.requires_grad = bool(requires_grad)
        self._node: Node | None = None

    @classmethod
    def _from_op(cls, data: np.ndarray, requires_grad: bool) -> Tensor:
        t = cls.__new__(cls)
        t.data = data
        t.grad = None
        t.requires_grad = requires_grad
        t._node = None
        return t

    # ---------------------------------------------------------------- info
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def grad_fn(self) -> str | None:
        """The name of the Function that made this tensor, if any."""
        return None if self._node is None else self._node.fn.__name__

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        body = np.array2string(self.data, precision=4, prefix="Tensor(")
        extra = ""
        if self._node is not None:
            extra = f", grad_fn={self.grad_fn}"
        elif self.requires_grad:
            extra = ", requires_grad=True"
        return f"Tensor({body}{extra})"

    def numpy(self) -> np.ndarray:
        return self.data

    def item(self) -> float:
        return self.data.item()

    def detach(self) -> Tensor:
        return Tensor._from_op(self.data, False)

    def zero_grad(self) -> None:
        self.grad = None

    def requires_grad_(self, flag: bool = True) -> Tensor:
        self.requires_grad = bool(flag)
        return self

    # ------------------------------------------------------------ backward
    def backward(self, gradient: Any = None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``.

        A scalar output may omit ``gradient`` (it defaults to 1). A
        non-scalar output needs an explicit upstream gradient of its shape.
        """
        if not self.requires_grad:
            raise RuntimeError(
                "backward() called on a tensor that does not require grad: "
                "no input of the computation had requires_grad=True"
            )
        if gradient is None:
            if self.data.size != 1:
                raise ValueError(
                    f"gradient must be given for a non-scalar output of shape "
                    f"{self.shape}: backward() only defaults it for scalars"
                )
            seed = np.ones_like(self.data)
        else:
            if isinstance(gradient, Tensor):
                gradient = gradient.data
            seed = np.asarray(gradient, dtype=self.dtype)
            if seed.shape != self.shape:
                raise ValueError(
                    f"gradient must have the output's shape {self.shape}, got "
                    f"{seed.shape}"
                )

        grads: dict[int, np.ndarray] = {id(self): seed}
        for t in reversed(_topological_order(self)):
            g = grads.pop(id(t), None)
            if g is None:
                continue
            node = t._node
            if node is None:  # a leaf that asked for a gradient
                if t.grad is None:
                    t.grad = np.array(g, dtype=t.dtype, copy=True)
                else:
                    t.grad += g
                continue
            _function.check_saved(node.fn, node.ctx)
            with np.errstate(all="ignore"):  # as forward: IEEE, silent
                in_grads = node.fn.backward(node.ctx, g)
            if not isinstance(in_grads, tuple):
                in_grads = (in_grads,)
            for inp, ig in zip(node.inputs, in_grads, strict=False):
                if ig is None or not isinstance(inp, Tensor):
                    continue
                if not inp.requires_grad:
                    continue
                ig = unbroadcast(np.asarray(ig), inp.shape).astype(
                    inp.dtype, copy=False
                )
                key = id(inp)
                if key in grads:
                    grads[key] = grads[key] + ig
                else:
                    grads[key] = ig

    # ----------------------------------------------------------- operators
    def __add__(self, other: Any) -> Tensor:
        return _basic.Add.apply(self, _operand(other, self))

    def __radd__(self, other: Any) -> Tensor:
        return _basic.Add.apply(_operand(other, self), self)

    def __sub__(self, other: Any) -> Tensor:
        return _basic.Sub.apply(self, _operand(other, self))

    def __rsub__(self, other: Any) -> Tensor:
        return _basic.Sub.apply(_operand(other, self), self)

    def __mul__(self, other: Any) -> Tensor:
        return _basic.Mul.apply(self, _operand(other, self))

    def __rmul__(self, other: Any) -> Tensor:
        return _basic.Mul.apply(_operand(other, self), self)

    def __truediv__(self, other: Any) -> Tensor:
        return _basic.Div.apply(self, _operand(other, self))

    def __rtruediv__(self, other: Any) -> Tensor:
        return _basic.Div.apply(_operand(other, self), self)

    def __matmul__(self, other: Any) -> Tensor:
        return _basic.MatMul.apply(self, _operand(other, self))

    def __rmatmul__(self, other: Any) -> Tensor:
        return _basic.MatMul.apply(_operand(other, self), self)

    def __neg__(self) -> Tensor:
        return _basic.Neg.apply(self)

    def __pow__(self, exponent: float) -> Tensor:
        if not isinstance(exponent, numbers.Real):
            raise TypeError(
                f"exponent must be a Python number, got {type(exponent).__name__}"
            )
        return _basic.Pow.apply(self, float(exponent))

    # ------------------------------------------------------ shape & reduce
    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _reduce.Sum.apply(self, axis=axis, keepdims=keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _reduce.Mean.apply(self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _basic.Reshape.apply(self, shape=shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
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
        return _basic.Reshape.apply(self, shape=shape)

    def transpose(self, *axes: Any) -> Tensor:
        """Reverse the axes, swap two (``transpose(0, 1)``), or permute."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if len(axes) == 2 and self.ndim != 2:
            perm = list(range(self.ndim))
            a, b = (int(ax) % self.ndim for ax in axes)
            perm[a], perm[b] = perm[b], perm[a]
            axes = tuple(perm)
        return _basic.Transpose.apply(self, axes=axes or None)

    @property
    def T(self) -> Tensor:  # noqa: N802 (numpy's name)
        return self.transpose()

    def relu(self) -> Tensor:
        return _basic.ReLU.apply(self)

    def tanh(self) -> Tensor:
        return _basic.Tanh.apply(self)

    def sigmoid(self) -> Tensor:
        return _basic.Sigmoid.apply(self)

    def exp(self) -> Tensor:
        return _basic.Exp.apply(self)

    def log(self) -> Tensor:
        return _basic.Log.apply(self)


def _operand(value: Any, like: Tensor) -> Any:
    """A Tensor stays; scalars and arrays become constant ndarrays."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, np.ndarray):
        # a Python scalar keeps the tensor's dtype, as in torch
        return np.asarray(value, dtype=like.dtype)
    return as_float_array(value, "operand")


def _topological_order(root: Tensor) -> list[Tensor]:
    """Inputs before outputs, found without recursion."""
    order: list[Tensor] = []
    seen: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        t, expanded = stack.pop()
        if expanded:
            order.append(t)
            continue
        if id(t) in seen:
            continue
        seen.add(id(t))
        stack.append((t, True))
        if t._node is not None:
            for inp in t._node.inputs:
                if (
                    isinstance(inp, Tensor)
                    and inp.requires_grad
                    and id(inp) not in seen
                ):
                    stack.append((inp, False))
    return order


def tensor(data: Any, requires_grad: bool = False) -> Tensor:
    """Make a Tensor (a function-style alias of the constructor)."""
    return Tensor(data, requires_grad=requires_grad)


from . import function as _function  # noqa: E402
from .ops import basic as _basic  # noqa: E402  (ops need Tensor defined)
from .ops import reduce as _reduce  # noqa: E402
