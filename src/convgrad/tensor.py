"""``Tensor``: an ndarray that remembers how it was made, and ``backward``."""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import numbers
import sys
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
    a decorator (``@no_grad()``); blocks nest. On a generator function the
    mode holds while the generator's body runs, from one ``yield`` to the
    next, and not in the caller's code between (as torch's).
    """

    def __enter__(self) -> None:
        _mode.saved.append(_mode.enabled)
        _mode.enabled = False

    def __call__(self, func: Any) -> Any:
        if inspect.isgeneratorfunction(func):
            return _in_mode_generator(type(self), func)
        return super().__call__(func)

    def __exit__(self, *exc: object) -> None:
        _mode.enabled = _mode.saved.pop()


def _in_mode_generator(mode: type, func: Any) -> Any:
    """``func``, a generator function, with each step of its body run in a
    fresh ``mode()`` block: the caller's grad mode is back at each yield."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gen = func(*args, **kwargs)
        try:
            with mode():
                value = next(gen)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with mode():
                        gen.close()
                    raise
                except BaseException as err:
                    with mode():
                        value = gen.throw(err)
                else:
                    with mode():
                        value = gen.send(sent)
        except StopIteration as stop:
            return stop.value

    return wrapper


class enable_grad(no_grad):  # noqa: N801 (torch's name)
    """Within this block, ops build a graph again, even inside a
    ``no_grad`` block (as ``torch.enable_grad``). ``backward`` and
    :func:`grad` run a rule's ``vjp`` under it when ``create_graph=True``."""

    def __enter__(self) -> None:
        _mode.saved.append(_mode.enabled)
        _mode.enabled = True


class Node(NamedTuple):
    """How a Tensor was made: the Function, its context and its inputs."""

    fn: type
    ctx: Any
    inputs: tuple


def _refuse_torch_tensor(data: Any, name: str) -> None:
    """A torch tensor that requires grad cannot become an ndarray (torch
    refuses ``.numpy()`` on it): say so, naming the parameter."""
    if getattr(type(data), "__module__", "").startswith("torch") and getattr(
        data, "requires_grad", False
    ):
        raise TypeError(
            f"{name} must be an array or a convgrad Tensor, got a torch "
            f"tensor that requires grad; pass {name}.detach().numpy() "
            f"(convgrad keeps its own graph)"
        )


def as_float_array(data: Any, name: str = "data") -> np.ndarray:
    """Convert to a float ndarray: ints and bools become float64.

    float16 becomes float32; float32 and float64 of either byte order stay
    that precision, in native byte order; complex and object data are
    refused.
    """
    _refuse_torch_tensor(data, name)
    arr = np.asarray(data)
    kind = arr.dtype.kind
    if kind in "biu":
        return arr.astype(np.float64)
    if kind == "f":
        if arr.dtype in (np.float32, np.float64):  # native byte order
            return arr
        if arr.dtype.itemsize <= 4:  # float16, and '>f4' or '<f4'
            return arr.astype(np.float32)
        return arr.astype(np.float64)  # '>f8', and longdouble
    raise TypeError(
        f"{name} must be real numbers (bool, int or float), got dtype {arr.dtype}"
    )


def _own_float_array(data: Any, name: str) -> np.ndarray:
    """:func:`as_float_array`, copied unless the conversion made a fresh
    array: a Tensor never shares memory with what it was given (as
    ``torch.tensor``), so an optimizer step cannot change the caller's
    array, and a read-only array becomes a writable parameter."""
    arr = as_float_array(data, name)
    if arr is data or not arr.flags.owndata or not arr.flags.writeable:
        arr = arr.copy()
    return arr


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
    that later backward passes add to. After ``backward(create_graph=True)``
    it is a Tensor instead, with a graph of its own (torch's ``.grad`` is
    always a Tensor; here first order keeps the plain ndarray the lessons
    and the optimizers use).

    ``Tensor(data)`` copies ``data``, as ``torch.tensor`` does: a later
    write to the caller's array, or an optimizer step, never reaches the
    other. :func:`from_numpy` shares memory instead, as torch's does.
    """

    __array_priority__ = 100  # ndarray <op> Tensor defers to Tensor

    #: hooks on this tensor's gradient (register_hook), id -> function;
    #: None until the first is registered
    _hooks: dict[int, Any] | None = None
    #: a non-leaf whose gradient backward keeps in ``.grad`` (retain_grad)
    _retains_grad: bool = False

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        requires_grad = _check_flag(requires_grad, "requires_grad")
        if isinstance(data, Tensor):
            data = data.data
        self.data: np.ndarray = _own_float_array(data, "data")
        self.grad: np.ndarray | Tensor | None = None
        self.requires_grad = requires_grad
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

    @property
    def retains_grad(self) -> bool:
        """Whether ``backward`` fills this non-leaf's ``.grad``."""
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep this intermediate tensor's gradient in ``.grad`` during
        ``backward`` (as torch's): a non-leaf's gradient is otherwise only
        passed on. It adds up over backward passes, as a leaf's does, and
        is the gradient after this tensor's hooks. A leaf needs nothing:
        its ``.grad`` is filled anyway."""
        if not self.requires_grad:
            raise RuntimeError(
                "can't retain_grad on Tensor that has requires_grad=False"
            )
        if self._node is not None:
            self._retains_grad = True

    def register_hook(self, hook: Any) -> RemovableHandle:
        """Call ``hook(grad)`` each time a gradient for this tensor is
        computed, as torch's: during ``backward`` and :func:`grad`, before
        it is added into ``.grad`` (a leaf) or passed on to the op that
        made this tensor. ``grad`` is what ``.grad`` holds: an ndarray, or
        a Tensor with ``create_graph=True``. The hook returns None (keep
        the gradient) or a replacement of the same shape. Returns a handle
        whose ``remove()`` unregisters the hook."""
        if not callable(hook):
            raise TypeError(f"hook must be callable, got {hook!r}")
        if not self.requires_grad:
            raise RuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient"
            )
        if self._hooks is None:
            self._hooks = {}
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = hook
        return handle

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = _check_flag(requires_grad, "requires_grad")
        return self

    # ------------------------------------------------------------ backward
    def backward(
        self,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
    ) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``.

        A scalar output may omit ``gradient`` (it defaults to 1). A
        non-scalar output needs an explicit upstream gradient of its shape:
        an array, or a Tensor (with ``create_graph=True`` the graph flows
        through a Tensor ``gradient`` too).

        ``create_graph=False`` (first order) runs each rule's ndarray
        ``backward``, and ``.grad`` is an ndarray. ``create_graph=True``
        runs each rule's ``vjp``, built from differentiable ops, so the
        gradients carry a graph: ``.grad`` becomes a Tensor that can be
        differentiated again.

        As torch's, the pass frees the arrays each node saved for its
        backward, so a second ``backward()`` through the same graph raises,
        unless the first one had ``retain_graph=True`` (its default is
        ``create_graph``).
        """
        create_graph = _check_flag(create_graph, "create_graph")
        retain = _retain(retain_graph, create_graph)
        if not self.requires_grad:
            raise RuntimeError(
                "backward() called on a tensor that does not require grad: "
                "no input of the computation had requires_grad=True"
            )
        seed = _seed(self, gradient, "gradient", create_graph)
        _backprop([self], [seed], create_graph, retain=retain)

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


def _topological_order(roots: list[Tensor]) -> list[Tensor]:
    """Inputs before outputs, found without recursion."""
    order: list[Tensor] = []
    seen: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(r, False) for r in reversed(roots)]
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


# --------------------------------------------------------------------------
# the engine: one walk for backward() and grad(), first order or not
# --------------------------------------------------------------------------


def _check_flag(value: Any, name: str, allow_none: bool = False) -> bool:
    if value is None and allow_none:
        return False
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _retain(retain_graph: Any, create_graph: bool) -> bool:
    """``retain_graph``, whose default (None) is ``create_graph``."""
    if retain_graph is None:
        return create_graph
    return _check_flag(retain_graph, "retain_graph")


class RemovableHandle:
    """What :meth:`Tensor.register_hook` returns: ``remove()`` unregisters
    the hook (as torch's handle)."""

    _ids = itertools.count()  # next() on it is atomic: threads may register

    def __init__(self, hooks: dict[int, Any]) -> None:
        self._hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _run_hooks(t: Tensor, g: Any, create_graph: bool) -> Any:
    """``g`` passed through ``t``'s hooks in order; each may replace it."""
    for hook in list(t._hooks.values()):
        new = hook(g)
        if new is None:
            continue
        name = getattr(hook, "__name__", repr(hook))
        if not (create_graph and isinstance(new, Tensor)):  # an array
            data = new.data if isinstance(new, Tensor) else new
            new = as_float_array(data, f"hook {name!r}'s result")
        if new.shape != t.shape:
            raise RuntimeError(
                f"hook {name!r} has changed the size of value: it must "
                f"return a gradient of shape {t.shape}, got {new.shape}"
            )
        if create_graph:  # a constant array joins the graph as a constant
            if not isinstance(new, Tensor):
                new = Tensor._from_op(new, False)
            g = _as_dtype(new, t.dtype)
        else:
            g = new.astype(t.dtype, copy=False)
    return g


def _keep_retained(t: Tensor, g: Any, create_graph: bool) -> None:
    """Add a retained non-leaf's gradient into its ``.grad`` (a copy: the
    walk passes ``g`` on to the op that made ``t``)."""
    if create_graph:
        t.grad = g if t.grad is None else g + t.grad
    elif t.grad is None:
        t.grad = np.array(g, dtype=t.dtype, copy=True)
    elif isinstance(t.grad, Tensor):
        t.grad = Tensor._from_op(t.grad.data + g, False)
    else:
        t.grad += g


def _seed(out: Tensor, gradient: Any, name: str, create_graph: bool) -> Any:
    """The upstream gradient of ``out``: an ndarray for first order, a
    Tensor (kept as given, so its graph flows on) with ``create_graph``."""
    if gradient is None:
        if out.data.size != 1:
            raise ValueError(
                f"{name} must be given for a non-scalar output of shape "
                f"{out.shape}: it defaults to 1 only for scalars"
            )
        seed = np.ones_like(out.data)
        return Tensor._from_op(seed, False) if create_graph else seed
    if isinstance(gradient, Tensor):
        if gradient.shape != out.shape:
            raise ValueError(
                f"{name} must have the output's shape {out.shape}, got {gradient.shape}"
            )
        if create_graph:
            with enable_grad():  # a cast is recorded even under no_grad
                return _as_dtype(gradient, out.dtype)
        gradient = gradient.data
    try:
        seed = np.asarray(gradient)
    except (TypeError, ValueError):
        seed = None
    if seed is None or seed.dtype.kind not in "biuf":
        what = type(gradient).__name__
        if seed is not None:
            what += f" of dtype {seed.dtype}"
        raise TypeError(
            f"{name} must be an array or a Tensor of real numbers, got {what}"
        )
    seed = seed.astype(out.dtype, copy=False)
    if seed.shape != out.shape:
        raise ValueError(
            f"{name} must have the output's shape {out.shape}, got {seed.shape}"
        )
    return Tensor._from_op(seed, False) if create_graph else seed


def _as_dtype(g: Tensor, dtype: np.dtype) -> Tensor:
    return g if g.dtype == dtype else _basic.Cast.apply(g, dtype)


def _unbroadcast_tensor(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """:func:`unbroadcast` with differentiable ops: a sum, then a reshape."""
    if g.shape == shape:
        return g
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i
        for i, (gs, s) in enumerate(zip(g.shape[extra:], shape, strict=True))
        if s == 1 and gs != 1
    )
    if axes:
        g = _reduce.Sum.apply(g, axis=axes)
    return g.reshape(shape)


def _fit(ig: Any, inp: Tensor) -> Tensor:
    """A vjp's gradient for ``inp``, summed back to its shape and dtype."""
    if not isinstance(ig, Tensor):  # a rule may return a constant array
        ig = Tensor._from_op(np.asarray(ig), False)
    return _as_dtype(_unbroadcast_tensor(ig, inp.shape), inp.dtype)


def _no_vjp(fn: type) -> RuntimeError:
    return RuntimeError(
        f"double backward through {fn.__name__} is not supported yet: "
        f"{fn.__name__} has no vjp rule, and create_graph=True needs one "
        f"(a backward written with differentiable ops)"
    )


#: references to the gradient array while :func:`_accumulate` decides:
#: _walk's local, _accumulate's argument, getrefcount's argument
_ONLY_THE_WALK = 3


def _accumulate(t: Tensor, g: Any, create_graph: bool) -> None:
    """Add ``g`` into the leaf's ``.grad``: in place for first order, out
    of place (a new Tensor with a graph) with ``create_graph``.

    The first gradient becomes ``.grad`` itself when nothing else can see
    it (torch's AccumulateGrad steals an unshared gradient the same way):
    an array that owns its memory, of the leaf's dtype, that no view,
    dict, saved context or caller holds (its reference count says so).
    Anything else is copied, so ``.grad`` never aliases a user's array,
    another leaf's gradient or a rule's saved state. Skipping the copy
    saves a fresh array per leaf and step (a medium conv's ``dx`` is 2 MB:
    512 page faults on this kind of VM when the heap was just trimmed)."""
    if create_graph:
        t.grad = g if t.grad is None else g + t.grad
    elif t.grad is None:
        if (type(g) is np.ndarray and g.base is None and g.flags.owndata
                and g.flags.writeable and g.dtype == t.dtype
                and sys.getrefcount(g) <= _ONLY_THE_WALK):
            t.grad = g
        else:
            t.grad = np.array(g, dtype=t.dtype, copy=True)
    elif isinstance(t.grad, Tensor):  # left by a create_graph pass
        t.grad = Tensor._from_op(t.grad.data + g, False)
    else:
        t.grad += g


def _backprop(
    roots: list[Tensor],
    seeds: list[Any],
    create_graph: bool,
    targets: set[int] | None = None,
    retain: bool = True,
) -> dict[int, Any]:
    """Walk the graph from ``roots`` back, in reverse topological order.

    With ``targets`` (ids of tensors), return the gradient that reached
    each of them, visit only the part of the graph that leads to one, and
    touch no ``.grad``. Without, accumulate into every leaf's ``.grad``.
    With ``create_graph`` the whole walk runs with grad mode on (as
    torch's), so the sums and reshapes between rules are recorded too.
    Without ``retain``, each node frees its saved arrays once its rule ran.
    """
    if create_graph:
        with enable_grad():
            return _walk(roots, seeds, True, targets, retain)
    return _walk(roots, seeds, False, targets, retain)


def _step(
    node: Node,
    g: Any,
    grads: dict[int, Any],
    create_graph: bool,
    needed: set[int] | None,
) -> None:
    """Run one node's rule on its output's gradient ``g`` and add what it
    returns into ``grads``, the gradients of its inputs."""
    _function.check_saved(node.fn, node.ctx)
    if create_graph and node.fn.vjp is None:
        raise _no_vjp(node.fn)
    ctx, inputs = node.ctx, node.inputs
    rule = node.fn.vjp if create_graph else None
    if needed is None:
        in_grads = rule(ctx, inputs, g) if rule else node.fn.backward(ctx, g)
    else:  # grad(): skip inputs no target lies behind
        asked = ctx.needs_input_grad
        ctx.needs_input_grad = tuple(
            n and id(i) in needed for n, i in zip(asked, inputs, strict=True)
        )
        try:
            in_grads = rule(ctx, inputs, g) if rule else node.fn.backward(ctx, g)
        finally:
            ctx.needs_input_grad = asked
    if not isinstance(in_grads, tuple):
        in_grads = (in_grads,)
    for inp, ig in zip(inputs, in_grads, strict=False):
        if ig is None or not isinstance(inp, Tensor) or not inp.requires_grad:
            continue
        key = id(inp)
        if needed is not None and key not in needed:
            continue
        if create_graph:
            ig = _fit(ig, inp)
        else:  # first order, inline: the hot loop of every backward()
            data = inp.data
            ig = np.asarray(ig)
            if ig.shape != data.shape:
                ig = unbroadcast(ig, data.shape)
            if ig.dtype != data.dtype:
                ig = ig.astype(data.dtype)
        if key in grads:
            grads[key] = grads[key] + ig
        else:
            grads[key] = ig


def _check_not_freed(order: list[Tensor], needed: set[int] | None) -> None:
    """Raise before the walk touches any ``.grad`` if a node it would run
    was freed by an earlier pass (so nothing is half accumulated)."""
    for t in order:
        node = t._node
        if node is None or not node.ctx._released:
            continue
        if needed is None or (id(t) in needed and any(
            id(i) in needed for i in node.inputs if isinstance(i, Tensor)
        )):
            _function.check_saved(node.fn, node.ctx)


def _walk(
    roots: list[Tensor],
    seeds: list[Any],
    create_graph: bool,
    targets: set[int] | None,
    retain: bool = True,
) -> dict[int, Any]:
    order = _topological_order(roots)
    needed = None
    if targets is not None:  # the tensors with a target at or behind them
        needed = set(targets)
        for t in order:
            if t._node is not None and any(
                id(i) in needed for i in t._node.inputs if isinstance(i, Tensor)
            ):
                needed.add(id(t))
    _check_not_freed(order, needed)
    grads: dict[int, Any] = {}
    for r, seed in zip(roots, seeds, strict=True):
        key = id(r)
        grads[key] = seed if key not in grads else grads[key] + seed
    found: dict[int, Any] = {}
    # IEEE arithmetic, silent as forward's (and torch's), for the rules and
    # the sums between them: one errstate for the walk, not one per node
    with np.errstate(all="ignore"):
        for t in reversed(order):
            g = grads.pop(id(t), None)
            if g is None:
                continue
            node = t._node
            if needed is not None:
                if id(t) not in needed:
                    continue
                if node is not None and id(t) in targets:
                    found[id(t)] = g  # before its hooks, as torch's grad()
            if t._hooks:
                g = _run_hooks(t, g, create_graph)
            if node is None:  # a leaf that asked for a gradient
                if targets is None:
                    _accumulate(t, g, create_graph)
                elif id(t) in targets:
                    found[id(t)] = g  # after its hooks, as torch's grad()
                continue
            if t._retains_grad:
                _keep_retained(t, g, create_graph)
            if needed is not None and not any(
                id(i) in needed for i in node.inputs if isinstance(i, Tensor)
            ):  # grad(): a target nothing asked for lies behind
                continue
            _step(node, g, grads, create_graph, needed)
            if not retain:
                _function.release(node.ctx)
    return found


def _tensors(value: Any, name: str) -> list[Tensor]:
    """A Tensor or a non-empty sequence of Tensors, as a list."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)) and value:
        for i, v in enumerate(value):
            if not isinstance(v, Tensor):
                raise TypeError(f"{name}[{i}] must be a Tensor, got {type(v).__name__}")
        return list(value)
    if isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must not be empty")
    raise TypeError(
        f"{name} must be a Tensor or a sequence of Tensors, got {type(value).__name__}"
    )


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, as
    ``torch.autograd.grad``: a tuple of Tensors, one per input.

    ``outputs`` and ``inputs`` are a Tensor or a sequence of Tensors;
    ``grad_outputs`` gives each output's upstream gradient (a Tensor, an
    array, or None for a scalar output: 1). The result is the sum over
    outputs of each vector-Jacobian product. Nothing is accumulated into
    any ``.grad``. An input may be an intermediate tensor, not only a leaf.

    With ``create_graph=True`` the returned Tensors carry a graph (they
    require grad where they depend on a tensor that does), so they can be
    differentiated again; without, they are constants. An input no output
    depends on raises, unless ``allow_unused=True``: then its entry is
    None. As :meth:`Tensor.backward`, it frees the saved arrays of the
    nodes it runs through unless ``retain_graph`` (default:
    ``create_graph``) is true.
    """
    outs = _tensors(outputs, "outputs")
    ins = _tensors(inputs, "inputs")
    create_graph = _check_flag(create_graph, "create_graph")
    retain = _retain(retain_graph, create_graph)
    allow_unused = _check_flag(allow_unused, "allow_unused")
    if grad_outputs is None:
        grad_outputs = [None] * len(outs)
    elif isinstance(grad_outputs, (list, tuple)):
        grad_outputs = list(grad_outputs)
    else:  # one Tensor or array, for one output
        grad_outputs = [grad_outputs]
    if len(grad_outputs) != len(outs):
        raise ValueError(
            f"grad_outputs must have one entry per output: got "
            f"{len(grad_outputs)} for {len(outs)} outputs"
        )
    for i, t in enumerate(ins):
        if not t.requires_grad:
            raise RuntimeError(
                f"inputs[{i}] does not require grad: only a tensor with "
                f"requires_grad=True (or made from one) can be differentiated"
            )
    seeds = []
    for i, (o, go) in enumerate(zip(outs, grad_outputs, strict=True)):
        if not o.requires_grad:
            raise RuntimeError(
                f"outputs[{i}] does not require grad: no input of its "
                f"computation had requires_grad=True"
            )
        seeds.append(_seed(o, go, f"grad_outputs[{i}]", create_graph))
    found = _backprop(outs, seeds, create_graph, {id(t) for t in ins}, retain)
    result: list[Tensor | None] = []
    for i, t in enumerate(ins):
        g = found.get(id(t))
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"inputs[{i}] was not used to compute the outputs, so it "
                    f"has no gradient; pass allow_unused=True to get None "
                    f"for it"
                )
            result.append(None)
        elif create_graph:
            result.append(g)
        else:
            result.append(Tensor._from_op(np.array(g, copy=True), False))
    return tuple(result)


def tensor(data: Any, requires_grad: bool = False) -> Tensor:
    """Make a Tensor (a function-style alias of the constructor): a copy of
    ``data``, as ``torch.tensor``."""
    return Tensor(data, requires_grad=requires_grad)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A Tensor that shares memory with ``ndarray``, as ``torch.from_numpy``:
    a write to either shows in the other, and an optimizer step changes
    the array. ``ndarray`` must be a float32 or float64 NumPy array in
    native byte order (anything else would need a copy; use
    :class:`Tensor` for that)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(
            f"ndarray must be a numpy.ndarray, got {type(ndarray).__name__}"
        )
    if ndarray.dtype not in (np.float32, np.float64):
        raise TypeError(
            f"ndarray must have dtype float32 or float64 (in native byte "
            f"order) to share its memory, got {ndarray.dtype}; Tensor(ndarray) "
            f"converts a copy"
        )
    if type(ndarray) is not np.ndarray:  # a subclass (memmap, ...): a view
        ndarray = ndarray.view(np.ndarray)
    return Tensor._from_op(ndarray, False)


from . import function as _function  # noqa: E402
from .ops import basic as _basic  # noqa: E402  (ops need Tensor defined)
from .ops import reduce as _reduce  # noqa: E402
