"""``Tensor``: an ndarray that remembers how it was made, and ``backward``.

Grad mode, the Tensor class and :func:`grad` live here; the walk itself is
:mod:`convgrad.engine`. The ops give Tensor its operators and methods
(``+``, ``@``, ``reshape``, ``sum``, ...) with :func:`register`, from
``ops/basic.py`` and ``ops/reduce.py``: this module imports no op.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import numbers
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from . import engine
from .engine import Node


class _GradMode(threading.local):
    """Grad mode, one per thread (as torch's): every thread starts with it
    on, and one thread's ``no_grad`` never touches another's."""

    def __init__(self) -> None:
        self.enabled = True
        self.saved: list[bool] = []  # the states no_grad blocks will restore
        #: whether NumPy's errors are already silent in this thread: the
        #: walk runs its rules in ``np.errstate(all="ignore")`` (engine),
        #: so their ops need not set it again (:meth:`Function.apply`)
        self.silent = False


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
    :func:`grad` run the rules under it when ``create_graph=True``, and
    under ``no_grad`` otherwise."""

    def __enter__(self) -> None:
        _mode.saved.append(_mode.enabled)
        _mode.enabled = True


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

    #: hooks on this tensor's gradient (:meth:`register_hook`), handle id
    #: -> function; None until the first is registered
    hooks: dict[int, Any] | None = None
    #: whether ``backward`` fills this non-leaf's ``.grad`` (:meth:`retain_grad`)
    retains_grad: bool = False
    #: how this tensor was made (the engine's :class:`~convgrad.engine.Node`:
    #: Function, context, inputs), or None for a leaf or a constant
    node: Node | None = None
    grad: np.ndarray | Tensor | None = None
    requires_grad: bool = False

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        requires_grad = _check_flag(requires_grad, "requires_grad")
        if isinstance(data, Tensor):
            data = data.data
        self.data: np.ndarray = _own_float_array(data, "data")
        self.grad: np.ndarray | Tensor | None = None
        self.requires_grad = requires_grad
        self.node: Node | None = None

    @classmethod
    def wrap(cls, data: np.ndarray, requires_grad: bool = False) -> Tensor:
        """A Tensor around ``data`` itself, with no copy and no check: for
        code that made a float ndarray of its own (an op's result, a rule's
        gradient, the engine's walk). ``Tensor(data)`` copies instead."""
        t = cls.__new__(cls)
        t.data = data
        if requires_grad:
            t.requires_grad = True
        return t  # (grad and node: the class's None)


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
        return self.node is None

    @property
    def grad_fn(self) -> str | None:
        """The name of the Function that made this tensor, if any."""
        return None if self.node is None else self.node.fn.__name__

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        body = np.array2string(self.data, precision=4, prefix="Tensor(")
        extra = ""
        if self.node is not None:
            extra = f", grad_fn={self.grad_fn}"
        elif self.requires_grad:
            extra = ", requires_grad=True"
        return f"Tensor({body}{extra})"

    def numpy(self) -> np.ndarray:
        return self.data

    def item(self) -> float:
        return self.data.item()

    def detach(self) -> Tensor:
        return Tensor.wrap(self.data)

    def zero_grad(self) -> None:
        self.grad = None

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
        if self.node is not None:
            self.retains_grad = True

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
        if self.hooks is None:
            self.hooks = {}
        handle = RemovableHandle(self.hooks)
        self.hooks[handle.id] = hook
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

        Each rule is one body, its ``vjp``, written with differentiable
        ops. ``create_graph=False`` (first order) runs it with grad mode
        off, so nothing is recorded, and ``.grad`` is an ndarray.
        ``create_graph=True`` runs it with grad mode on, so the gradients
        carry a graph: ``.grad`` becomes a Tensor that can be
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
        _backprop([self], [seed], create_graph, None, retain)

    # ------------------------------------------- what the engine asks of us
    # (its protocol: ``wrap``, ``node``, ``hooks``, ``run_hooks``,
    # ``retains_grad``, ``fit_grad``, ``grad`` and ``dtype``)
    def run_hooks(self, g: Any, create_graph: bool) -> Any:
        """``g`` passed through this tensor's hooks in order; each may
        replace it."""
        for hook in list(self.hooks.values()):
            new = hook(g)
            if new is None:
                continue
            name = getattr(hook, "__name__", repr(hook))
            if not (create_graph and isinstance(new, Tensor)):  # an array
                data = new.data if isinstance(new, Tensor) else new
                new = as_float_array(data, f"hook {name!r}'s result")
            if new.shape != self.shape:
                raise RuntimeError(
                    f"hook {name!r} has changed the size of value: it must "
                    f"return a gradient of shape {self.shape}, got {new.shape}"
                )
            if create_graph:  # a constant array joins the graph as a constant
                if not isinstance(new, Tensor):
                    new = Tensor.wrap(new)
                g = _as_dtype(new, self.dtype)
            else:
                g = new.astype(self.dtype, copy=False)
        return g

    def fit_grad(self, g: Any) -> Tensor:
        """A rule's gradient for this tensor, summed back to its shape over
        the axes broadcasting added or stretched (:func:`unbroadcast`) and
        cast to its dtype, with differentiable ops (recorded only in grad
        mode)."""
        if not isinstance(g, Tensor):  # a rule may return a constant array
            g = Tensor.wrap(np.asarray(g))
        if g.data.shape != self.data.shape:
            g = unbroadcast(g, self.data.shape)
        return g if g.data.dtype == self.data.dtype else g._cast(self.dtype)

    # Given by the ops (ops/basic.py and ops/reduce.py call register()):
    # declared here for readers and type checkers.
    __add__: Callable[[Tensor, Any], Tensor]
    __radd__: Callable[[Tensor, Any], Tensor]
    __sub__: Callable[[Tensor, Any], Tensor]
    __rsub__: Callable[[Tensor, Any], Tensor]
    __mul__: Callable[[Tensor, Any], Tensor]
    __rmul__: Callable[[Tensor, Any], Tensor]
    __truediv__: Callable[[Tensor, Any], Tensor]
    __rtruediv__: Callable[[Tensor, Any], Tensor]
    __matmul__: Callable[[Tensor, Any], Tensor]
    __rmatmul__: Callable[[Tensor, Any], Tensor]
    __neg__: Callable[[Tensor], Tensor]
    __pow__: Callable[[Tensor, float], Tensor]
    sum: Callable[..., Tensor]
    mean: Callable[..., Tensor]
    reshape: Callable[..., Tensor]
    flatten: Callable[..., Tensor]
    transpose: Callable[..., Tensor]
    T: Tensor
    relu: Callable[[Tensor], Tensor]
    tanh: Callable[[Tensor], Tensor]
    sigmoid: Callable[[Tensor], Tensor]
    exp: Callable[[Tensor], Tensor]
    log: Callable[[Tensor], Tensor]
    _cast: Callable[[Tensor, np.dtype], Tensor]


#: what the class itself defines: register() may not replace it
_OWN = frozenset(vars(Tensor))


def register(**methods: Any) -> None:
    """Give :class:`Tensor` the methods (and operators, properties) an op
    module defines: ``register(__add__=add, sum=sum_)``. Each op module
    registers its own at its end, so this module imports no op. A name
    the class defines itself cannot be replaced."""
    for name, method in methods.items():
        if name in _OWN:
            raise ValueError(
                f"register: Tensor.{name} is Tensor's own and cannot be replaced"
            )
        if not (callable(method) or isinstance(method, property)):
            raise TypeError(
                f"register: {name} must be a function or a property, got "
                f"{type(method).__name__}"
            )
        setattr(Tensor, name, method)


def _operand(value: Any, like: Tensor) -> Any:
    """A Tensor stays; scalars and arrays become constant ndarrays."""
    if isinstance(value, Tensor):
        return value
    kind = type(value)
    if kind is np.ndarray and value.dtype is like.data.dtype:
        return value  # (as_float_array's answer, sooner: a rule's constants)
    if kind is float or kind is int or (  # (before the ABC's slower check)
        isinstance(value, numbers.Real) and not isinstance(value, np.ndarray)
    ):
        # a Python scalar keeps the tensor's dtype, as in torch
        return np.asarray(value, dtype=like.dtype)
    return as_float_array(value, "operand")


# --------------------------------------------------------------------------
# backward() and grad(): their arguments, then the engine's one walk
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
        self.hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self.hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


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
        return Tensor.wrap(seed) if create_graph else seed
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
    return Tensor.wrap(seed) if create_graph else seed


def _as_dtype(g: Tensor, dtype: np.dtype) -> Tensor:
    return g if g.dtype == dtype else g._cast(dtype)


def unbroadcast(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``g`` summed over the axes that broadcasting added or stretched to
    reach its shape from ``shape``, with differentiable ops: a sum, then a
    reshape (the adjoint of a broadcast)."""
    if g.shape == shape:
        return g
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i
        for i, (gs, s) in enumerate(zip(g.shape[extra:], shape, strict=True))
        if s == 1 and gs != 1
    )
    if axes:
        g = g.sum(axis=axes)
    return g.reshape(shape)


def _backprop(
    roots: list[Tensor],
    seeds: list[Any],
    create_graph: bool,
    targets: set[int] | None,
    retain: bool,
) -> dict[int, Any]:
    """:func:`convgrad.engine.backprop` with grad mode set to
    ``create_graph`` for the whole walk (as torch's): with it, the rules'
    ops and the sums and reshapes between them are recorded; without, they
    run on bare arrays (:meth:`Function.apply` records nothing), and
    hooks run under ``no_grad`` too."""
    _mode.saved.append(_mode.enabled)  # as no_grad() or enable_grad()
    _mode.enabled = create_graph
    silent, _mode.silent = _mode.silent, True
    try:
        return engine.backprop(roots, seeds, create_graph, targets, retain)
    finally:
        _mode.enabled, _mode.silent = _mode.saved.pop(), silent


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
            result.append(Tensor.wrap(np.array(g, copy=True)))
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
    return Tensor.wrap(ndarray)

