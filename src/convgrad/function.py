"""The ``Function`` base: one node of the graph, its forward and its rule.

A subclass writes ``forward`` on plain ndarrays, and its gradient **once**,
as ``vjp``, with convgrad's differentiable ops::

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.a, ctx.b = a, b          # what the rule reads: checked
            return a * b

        @staticmethod
        def vjp(ctx, inputs, dy):
            a, b = inputs                # the Tensors (or raw values) of apply
            return dy * b, dy * a        # Tensor ops

``inputs`` is the node's inputs as they were passed to ``apply``; ``dy``
is a Tensor; ``ctx.output`` is the node's output Tensor while the rule
runs (a rule may use it as torch uses a saved result: tanh's
``1 - y²``). ``vjp`` returns one gradient per positional input (or a
single one when there is one input); entries for inputs that are not
Tensors, or that need no gradient (``ctx.needs_input_grad``), may be
None. Gradients of broadcast inputs are summed back to the input's shape
by the engine, so a rule may return the broadcast shape. A rule returns
what its ops made, ``dy`` itself or views of it, never a Tensor around an
array kept elsewhere (a saved one): the walk adds into a new array it was
handed in place.

**One body, two uses.** First order (``backward()``, :func:`convgrad.grad`)
runs ``vjp`` with grad mode off: each op in it runs its forward on the
arrays and records nothing, so the rule costs its NumPy calls and a thin
wrapper each. ``create_graph=True`` runs the same body with grad mode on:
the gradient it returns has a graph and can be differentiated again.
Anything that depends on an input is computed from the input *Tensors*
(or ``ctx.output``), never from arrays saved in ``ctx`` alone, so that
graph reaches back to them; ``ctx`` still gives what is not
differentiated (geometry, argmax indices, masks). Each ``vjp`` is
loop-free and short: the heavy work runs in the forward kernels of the
Functions it applies (conv2d's ``dx`` *is* ``conv_transpose2d``).

A Function may instead write ``backward(ctx, dy)`` on ndarrays, as the
lessons derive a rule by hand: it runs at first order only, and
``create_graph=True`` through it raises. Every op of ``convgrad.ops``
writes ``vjp`` alone.

**Saved arrays are checked, as torch's version counter does.** When a node
is recorded, every input or output array that a saved field shares memory
with gets a fingerprint (:func:`fingerprint`: its shape and, up to 64 KiB,
a copy of its bytes, else a position-weighted checksum of them, which any
change to one element alters, at memory speed: 0.5 ms for 3 MB where a
BLAKE2 hash took 5). If it
changed in place before ``backward`` reaches the node (``x.data *= 2``, an
optimizer step, a write into the NumPy array a Tensor was made from), the
gradient would silently be wrong: :meth:`Context.check_saved` raises a RuntimeError
instead. So a forward saves in ``ctx`` the input arrays its rule reads,
even when the rule reads them through ``inputs``. Arrays an op made for
itself (``ctx.col``, ``ctx.argmax``) need no check, and are not hashed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import backend as _backend
from .engine import Node
from .tensor import Tensor, _mode


class Context:
    """Named saved state for one call of a Function.

    ``needs_input_grad[i]`` says whether positional input ``i`` is a Tensor
    that needs a gradient, so a rule can skip work nobody asked for.
    """

    needs_input_grad: tuple[bool, ...] = ()

    #: the names of the arrays :meth:`release` freed (empty: none freed)
    _released: tuple[str, ...] = ()
    #: (label, array, fingerprint) of each array the node's rule reads
    _saved: tuple = ()
    #: the node's output Tensor, while its rule runs (set by the engine)
    output: Tensor | None = None

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{k}={_short(v)}" for k, v in vars(self).items() if not k.startswith("_")
        )
        return f"Context({fields})"

    def release(self) -> None:
        """Free the arrays this node saved for its backward, as torch frees
        a graph's saved tensors once ``backward`` has run through it
        (unless ``retain_graph=True``). A node that saved none (an add, a
        reshape) can run again, as in torch; one that did raises in
        :meth:`check_saved`."""
        fields = vars(self)
        names = [k for k, v in fields.items() if isinstance(v, _HELD) and k[0] != "_"]
        for k in names:
            del fields[k]
        if names:
            self._released = tuple(names)
        self._saved = ()

    def check_saved(self, fn: type) -> None:
        """Raise if an array ``fn``'s backward needs changed since its
        forward, or was freed by an earlier backward pass."""
        if self._released:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (or "
                f"directly access saved tensors after they have already been "
                f"freed): {fn.__name__} saved {', '.join(self._released)} for "
                f"its backward, and the first backward() freed them. Saved "
                f"values of the graph are freed when you call .backward() or "
                f"grad(). Specify retain_graph=True if you need to backward "
                f"through the graph a second time, or run the forward pass "
                f"again."
            )
        for label, a, before in self._saved:
            if fingerprint(a) != before:
                raise RuntimeError(
                    f"{fn.__name__}.backward: {label} (shape {before[0]}), "
                    f"saved for the backward pass, was modified in place "
                    f"after the forward pass, so its gradient would be wrong. "
                    f"Run the forward pass again after changing it (torch "
                    f"raises 'modified by an inplace operation' here)."
                )


_HELD = (np.ndarray, Tensor)  # what a context may hold that release frees


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"<ndarray {v.dtype} {v.shape}>"
    return repr(v)


class Function:
    """Base class for differentiable operations."""

    #: ``vjp(ctx, inputs, dy)``: the rule, written once with differentiable
    #: ops (the module's docstring); None when the Function has none
    vjp: Any = None

    #: ``backward(ctx, dy)`` on ndarrays, first order only: a hand-written
    #: rule (the lessons'); None when the Function has none
    backward: Any = None

    @staticmethod
    def forward(ctx: Context, *args: Any, **kwargs: Any) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Tensor:
        """Run forward on the inputs' data and record the node if needed."""
        if _mode.enabled:
            return cls.apply_with_ctx(*args, **kwargs)[0]
        # grad mode off (no_grad, and every rule of a first-order backward):
        # nothing is recorded, so nothing is fingerprinted either
        raw = []  # (a loop: a comprehension is a call of its own in 3.11)
        for a in args:
            raw.append(a.data if isinstance(a, Tensor) else a)
        # in the walk NumPy's errors are silent already (engine's errstate):
        # setting the state again costs more than most of a rule's ops
        token = None if _mode.silent else _quiet()
        try:
            if kwargs:
                out = cls.forward(Context(), *raw, **kwargs)
            else:
                out = cls.forward(Context(), *raw)
        finally:
            if token is not None:
                _restore(token)
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        t = _new(Tensor)  # Tensor.wrap(out), inlined: this is the hot path
        t.data = out
        return t

    @classmethod
    def apply_with_ctx(cls, *args: Any, **kwargs: Any) -> tuple[Tensor, Context]:
        """Like :meth:`apply`, but also return the context (e.g. ``argmax``)."""
        ctx = Context()
        raw, need, record = [], [], False
        for a in args:
            if isinstance(a, Tensor):
                raw.append(a.data)
                need.append(a.requires_grad)
                record = record or a.requires_grad
            else:
                raw.append(a)
                need.append(False)
        ctx.needs_input_grad = tuple(need)
        # IEEE arithmetic, silent as torch's: NaN and inf in, NaN and inf
        # out, with no RuntimeWarning; a 0-d result is a 0-d array
        token = _quiet()
        try:
            out = cls.forward(ctx, *raw, **kwargs)
        finally:
            _restore(token)
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        result = _new(Tensor)  # Tensor.wrap(out), inlined
        result.data = out
        if record and _mode.enabled:
            ctx._saved = _fingerprints(ctx, raw, out)
            result.requires_grad, result.node = True, Node(cls, ctx, args)
        return result, ctx


def reuse(saved: Any, recompute: Callable[[], Any]) -> Any:
    """Values a rule needs that its forward computed too: with grad mode
    off (first order) the forward's own arrays ``saved`` (one, or a
    tuple), as constant Tensors; with it on (``create_graph``),
    ``recompute()``, the same values from the input Tensors, so the
    gradient's graph reaches them."""
    if _mode.enabled:
        return recompute()
    if isinstance(saved, tuple):
        return tuple(Tensor.wrap(a) for a in saved)
    return Tensor.wrap(saved)


_new = object.__new__

# ``np.errstate(all="ignore")`` costs 1.5 µs a call, as much as a small op:
# the same state is set here through its context variable (0.1 µs), with
# errstate itself as the fallback should NumPy's internals move
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRORS

    with np.errstate(all="ignore"):
        _SILENT = _ERRORS.get()

    _quiet = functools.partial(_ERRORS.set, _SILENT)
    _restore = _ERRORS.reset
except (ImportError, AttributeError):  # pragma: no cover (other NumPy)

    def _quiet() -> Any:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def _restore(token: Any) -> None:
        token.__exit__(None, None, None)


_BLOCK = 4096
_COLUMN_WEIGHTS: dict[np.dtype, np.ndarray] = {}
_ROW_WEIGHTS: dict[np.dtype, np.ndarray] = {}


def _odd_weights(n: int, k: int, dtype: np.dtype) -> np.ndarray:
    return (np.arange(n, dtype=np.uint64) * np.uint64(k) | np.uint64(1)).astype(dtype)


def _row_weights(n: int, dtype: np.dtype) -> np.ndarray:
    # the first n row weights, from a table grown on demand (each weight
    # depends only on its index, so a prefix of a longer table is the same)
    table = _ROW_WEIGHTS.get(dtype)
    if table is None or table.size < n:
        table = _ROW_WEIGHTS[dtype] = _odd_weights(max(n, 64), 40503, dtype)
    return table[:n]


#: arrays of at most this many bytes are fingerprinted by a copy of their
#: bytes: exact, and a memcpy beats the checksum's fixed cost below 64 KiB
SNAPSHOT_BYTES = 1 << 16


def fingerprint(a: np.ndarray) -> tuple:
    """Shape, dtype and a checksum of ``a``'s bytes.

    A small array (at most :data:`SNAPSHOT_BYTES`) keeps its bytes
    themselves, which any change alters: a copy of 18 KB takes 1 µs where
    the checksum's set-up alone takes 4. A larger one is summed instead.
    The bytes, read as unsigned words, are summed with odd weights, modulo
    the word size: element ``(r, c)`` of the ``(rows, 4096)`` folded array
    weighs ``row_weight[r] * col_weight[c]``. An odd weight is invertible,
    so a change to any single element always changes the sum; swaps and
    larger changes go unseen only by coincidence. The XOR of all words is
    kept too. (The weighted sums run through ``einsum``, which wraps modulo
    the word size as ``dot`` does, at two to four times its speed on
    integers.)

    The active backend may sum in one pass instead: its ``"checksum"`` hook
    (``backend.hook``; the Numba kernels', ``kernels/checksum.py``) gets
    the NumPy passes' arguments (1-d contiguous unsigned words, the column
    weights, one weight per row and the tail's) and returns the same
    ``(sum, xor)`` bit for bit, or None for a word size it does not handle.
    """
    if a.nbytes <= SNAPSHOT_BYTES:
        return a.shape, a.dtype.str, a.tobytes()
    shape, a = a.shape, np.ascontiguousarray(a)  # (0-d comes back 1-d)
    words = a.reshape(-1).view(f"u{a.itemsize}")
    cols = _COLUMN_WEIGHTS.get(words.dtype)
    if cols is None:
        cols = _COLUMN_WEIGHTS[words.dtype] = _odd_weights(
            _BLOCK, 2654435761, words.dtype
        )
    rows, tail = divmod(words.size, _BLOCK)
    checksum = _backend.hook("checksum")
    if checksum is not None:  # the backend's one-pass twin (the Numba kernels')
        sums = checksum(words, cols, _row_weights(rows + 1, words.dtype))
        if sums is not None:
            return (shape, a.dtype.str, *sums)
    xor = np.bitwise_xor.reduce(words) if words.size else 0
    if not rows:  # one short row, of weight 1
        return shape, a.dtype.str, int(np.dot(words, cols[:tail])), int(xor)
    per_row = np.empty(rows + 1, dtype=words.dtype)
    np.einsum("ij,j->i", words[: rows * _BLOCK].reshape(rows, _BLOCK), cols,
              out=per_row[:rows])
    per_row[rows] = np.dot(words[rows * _BLOCK :], cols[:tail])
    total = np.dot(per_row, _row_weights(rows + 1, words.dtype))
    return shape, a.dtype.str, int(total), int(xor)


#: ``np.may_share_memory`` without its ``__array_function__`` dispatch
#: (the arguments here are always ndarrays): 0.54 → 0.15-0.35 µs a call,
#: and a conv's record asks it seven times
_may_share = getattr(np.may_share_memory, "_implementation", np.may_share_memory)


def _fingerprints(ctx: Context, raw: list, out: np.ndarray) -> list:
    """(label, array, fingerprint) of every input or output array that a
    saved field of ``ctx`` shares memory with (each array once)."""
    saved = [v for v in vars(ctx).values() if isinstance(v, np.ndarray)]
    if not saved:
        return ()
    seen: set[int] = set()
    prints = []
    for i, a in enumerate((*raw, out)):
        if not isinstance(a, np.ndarray) or not a.size or id(a) in seen:
            continue
        seen.add(id(a))
        for v in saved:
            if v is a or _may_share(a, v):
                label = "output" if i == len(raw) else f"input {i}"
                prints.append((label, a, fingerprint(a)))
                break
    return prints
