"""The backends, one object each, and the calling thread's choice.

A backend is a plug-in, one :class:`Backend` object, registered in
:data:`REGISTRY` by name. It holds everything the rest of the package
asks of it:

- its **kernels** (:data:`KERNEL_NAMES`: the same names and signatures in
  every backend), which :func:`kernel` hands the ops::

      REGISTRY["numpy"].kernels["col2im"]   # the readable NumPy twin
      REGISTRY["numba"].kernels["col2im"]   # the compiled kernel

- its own **forwards** of ops, where it has a faster way
  (:data:`FORWARD_NAMES`: the three convs), on arrays, with the threshold
  and the routing that decide when one runs (:meth:`Backend.forward`).
  ``ops/conv.py``'s Functions ask :func:`forward`; they run the backend's
  forward if they get one, else the textbook im2col + GEMM. A backend never
  brings a rule: the gradients are the ops' own, written in the same ops,
  so they ask again. Only the Numba backend has forwards (its blocked,
  pixel-major pipeline, ``kernels/forwards.py``);
- its **hooks** (:data:`HOOK_NAMES`), what it hands the engine besides
  kernels: ``"checksum"``, the saved arrays' fingerprint in one pass;
- its **settings**: what is tuned to a machine, as documented attributes
  of one object (the Numba backend's: ``kernels/settings.py``), e.g.
  ``REGISTRY["numba"].settings.min_work``;
- its **warm-up examples**: small calls that compile each of its kernels
  (``python -m convgrad.warmup``).

A backend's module (``convgrad.kernels``, ``convgrad.reference``) offers
these as names (the kernels by their own names, ``FORWARDS``, ``HOOKS``,
``SETTINGS``, ``EXAMPLES``); its object loads them the first time one is
needed, so ``import convgrad`` does not import numba. The module never
reaches up to install anything.

The default backend is ``"numba"``; the ``CONVGRAD_BACKEND`` environment
variable overrides it and :func:`use_backend` switches it for a block.
The choice follows grad mode's rules (``no_grad``): it belongs to the
thread. Every thread starts on the default; :func:`use_backend` and
:func:`set_backend` change only the calling thread's choice, and a block
restores on exit what its own thread had on entry, whatever other threads
do meanwhile.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

BACKENDS = ("numba", "numpy")
DEFAULT = "numba"

#: every kernel, in every backend
KERNEL_NAMES = (
    "im2col",
    "col2im",
    "maxpool2d_forward",
    "maxpool2d_backward",
    "avgpool2d_forward",
    "avgpool2d_backward",
    "maxunpool2d",
)

#: the ops a backend may bring a forward of its own for, on arrays:
#: ``forward(x, w, b, geom)`` for the two convs, ``forward(x, dy, geom)``
#: for ``"conv2d_weight"`` (conv2d's ``dw`` as an op)
FORWARD_NAMES = ("conv2d", "conv_transpose2d", "conv2d_weight")

class Shared:
    """What one conv gradient's two convs of the same ``dy`` may share.

    A conv's ``vjp`` asks for ``dx`` and then ``dw``, two forwards that
    read the same ``dy`` (conv2d's: ``conv_transpose2d(dy, w)``, then
    ``conv2d_weight(x, dy)``; the transposed conv's: ``conv2d(dy, w)``,
    then ``conv2d_weight(dy, x)``). When it needs both it hands both the
    same ``Shared``, naming the second one's other operand (``other``:
    that ``x``). A backend's forward of the first that can produce the
    second's result in the same pass (the Numba backend: ``dy``'s Winograd
    tiles, made once, feed the ``dx`` and the ``dw`` GEMMs) leaves it
    here (:meth:`give`); the second's forward takes it (:meth:`take`) only
    if it is asked for the very arrays it was made from, else computes its
    own. Any other forward ignores it (the textbook ones have no
    parameter for it). Made by the ``vjp`` for one call and dropped with
    it: no other thread sees it, nothing is kept past the call, and
    nothing runs between the two forwards but the ``vjp``'s own ops."""

    __slots__ = ("other", "_key", "_value")

    def __init__(self, other: Any) -> None:
        self.other = other
        self._key: tuple = ()
        self._value: Any = None

    def give(self, key: tuple, value: Any) -> None:
        """Leave ``value``, the result of the second forward for the
        operands ``key`` (arrays, compared by identity, and the window)."""
        self._key, self._value = key, value

    def take(self, key: tuple) -> Any:
        """The value given for exactly ``key``, once (then dropped), or
        None."""
        mine = self._key
        if len(mine) != len(key) or not all(
            a is b or (not isinstance(a, np.ndarray) and a == b)
            for a, b in zip(mine, key, strict=True)
        ):
            return None
        value, self._key, self._value = self._value, (), None
        return value


#: what a backend may hand the engine besides kernels: ``"checksum"``, the
#: saved arrays' fingerprint in one pass (``checksum(words, cols,
#: row_weights)``, see :func:`convgrad.function.fingerprint`)
HOOK_NAMES = ("checksum",)


class Backend:
    """One backend: its kernels, forwards, hooks, settings and warm-up
    examples, loaded from its module (``module``) on first use."""

    def __init__(self, name: str, module: str) -> None:
        self.name, self.module = name, module
        self._loaded = False
        self.kernels: dict[str, Callable] = {}
        self.forwards: dict[str, Callable] = {}
        self.hooks: dict[str, Callable] = {}
        self.settings: Any = None
        self.examples: Callable[..., Iterator] | None = None

    def __repr__(self) -> str:
        state = "loaded" if self._loaded else "not loaded"
        return f"<backend {self.name!r} from {self.module} ({state})>"

    @property
    def loaded(self) -> bool:
        """Whether its module has been imported (:meth:`load`)."""
        return self._loaded

    def load(self) -> Backend:
        """Import the module and take what it offers, once; return self."""
        if not self._loaded:
            module = importlib.import_module(self.module)
            self.kernels.update({k: getattr(module, k) for k in KERNEL_NAMES
                                 if hasattr(module, k)})
            offered = getattr(module, "FORWARDS", {})
            self.forwards.update({k: offered[k] for k in FORWARD_NAMES
                                  if k in offered})
            offered = getattr(module, "HOOKS", {})
            self.hooks.update({k: offered[k] for k in HOOK_NAMES if k in offered})
            self.settings = getattr(module, "SETTINGS", None)
            self.examples = getattr(module, "EXAMPLES", None)
            self._loaded = True
        return self

    def forward(self, op: str, work: int) -> Callable | None:
        """This backend's own forward of ``op`` for a call of ``work``
        multiply-adds, or None: the op then runs its textbook forward.
        None when the backend has no forward of ``op``, for an empty call
        (``work`` 0: nothing to speed up), and below the backend's
        ``settings.min_work``. The one place this is decided."""
        if op not in FORWARD_NAMES:
            raise ValueError(f"op must be one of {FORWARD_NAMES}, got {op!r}")
        if not self._loaded:
            self.load()
        fn = self.forwards.get(op)
        if fn is None or work <= 0 or work < getattr(self.settings, "min_work", 0):
            return None
        return fn


#: the backends, by name: one object each
REGISTRY: dict[str, Backend] = {
    "numba": Backend("numba", "convgrad.kernels"),
    "numpy": Backend("numpy", "convgrad.reference"),
}

#: the process default: None until first read from CONVGRAD_BACKEND
_current: str | None = None


class _Choice(threading.local):
    """One thread's backend: None follows the process default."""

    def __init__(self) -> None:
        self.name: str | None = None


_choice = _Choice()


def _check(name: object, what: str = "backend") -> str:
    if not isinstance(name, str) or name not in BACKENDS:
        raise ValueError(
            f"{what} must be one of {', '.join(map(repr, BACKENDS))}, got {name!r}"
        )
    return name


def get(name: str) -> Backend:
    """Backend ``name``'s object (not loaded: see :meth:`Backend.load`)."""
    return REGISTRY[_check(name)]


def table(name: str) -> dict[str, Callable]:
    """Backend ``name``'s kernels, by name (its module loaded on first use)."""
    return get(name).load().kernels


def hook(name: str) -> Callable | None:
    """The active backend's hook ``name`` (one of :data:`HOOK_NAMES`), or
    None when it offers none or is not loaded yet: asking loads nothing (a
    graph of matrix products never imports numba)."""
    if name not in HOOK_NAMES:
        raise ValueError(f"hook must be one of {HOOK_NAMES}, got {name!r}")
    return REGISTRY[get_backend()].hooks.get(name)


def get_backend() -> str:
    """The calling thread's active backend's name."""
    global _current
    name = _choice.name
    if name is not None:
        return name
    if _current is None:
        _current = _check(
            os.environ.get("CONVGRAD_BACKEND") or DEFAULT, "CONVGRAD_BACKEND"
        )
    return _current


def set_backend(name: str) -> None:
    """Make ``name`` ("numba" or "numpy") the calling thread's backend
    (other threads keep theirs, as with grad mode)."""
    _choice.name = _check(name)


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[None]:
    """Run the block with the named backend in this thread, then restore
    the thread's previous choice (blocks nest; other threads are
    untouched).

    >>> with use_backend("numpy"):   # the readable reference kernels
    ...     pass
    """
    _check(name)
    # not get_backend(): a bad CONVGRAD_BACKEND is no matter here
    previous = _choice.name
    _choice.name = name
    try:
        yield
    finally:
        _choice.name = previous


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Run the block, then give the calling thread back exactly the choice
    it had (none, if it followed the process default), whatever the block
    set: what a checker wraps around a learner's code."""
    previous = _choice.name
    try:
        yield
    finally:
        _choice.name = previous


def kernel(name: str) -> Callable:
    """The active backend's implementation of kernel ``name``."""
    backend = get_backend()
    own = REGISTRY[backend]  # (the name is checked: get_backend's)
    try:
        return (own.kernels if own._loaded else own.load().kernels)[name]
    except KeyError:
        raise ValueError(
            f"kernel must be one of {KERNEL_NAMES}; backend {backend!r} has no "
            f"kernel {name!r}"
        ) from None


def forward(op: str, work: int) -> Callable | None:
    """The active backend's own forward of ``op`` (one of
    :data:`FORWARD_NAMES`) for a call of ``work`` multiply-adds, or None
    (:meth:`Backend.forward`): what ``ops/conv.py``'s forwards ask."""
    return REGISTRY[get_backend()].forward(op, work)
