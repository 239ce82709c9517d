"""The kernel table: the only place ops look kernels up.

``KERNELS`` is a plain dict from backend name to a dict of kernel name →
function::

    KERNELS["numpy"]["col2im"]   # the readable NumPy twin
    KERNELS["numba"]["col2im"]   # the compiled kernel

Every backend provides the same names with the same signatures. The
*fast paths* (:data:`FAST_NAMES`, in :data:`FAST_KERNELS`) are apart:
whole-op kernels only the Numba backend has (``kernels/conv_fast.py``, a
blocked, pixel-major conv pipeline). An op asks :func:`fast_kernel`; where
the active backend has none (the NumPy reference) it runs the textbook
im2col algorithm the lessons teach. A backend's dict is filled the first
time one of its kernels is needed, so ``import convgrad`` does not import
numba. The default backend is
``"numba"``; the ``CONVGRAD_BACKEND`` environment variable overrides it and
:func:`use_backend` switches it for a block.

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

#: whole-op fast paths a backend may provide (the Numba backend does); an op
#: without one runs the textbook im2col algorithm
FAST_NAMES = (
    "conv2d_forward",
    "conv2d_backward",
    "conv_transpose2d_forward",
    "conv_transpose2d_backward",
)

#: backend name -> {kernel name -> function}; filled on first use
KERNELS: dict[str, dict[str, Callable]] = {name: {} for name in BACKENDS}

_MODULES = {"numba": "convgrad.kernels", "numpy": "convgrad.reference"}

#: backend name -> {fast path name -> function}: only the Numba backend has any
FAST_KERNELS: dict[str, dict[str, Callable]] = {name: {} for name in BACKENDS}

_FAST_MODULES = {"numba": "convgrad.kernels.conv_fast"}
_FAST_MODULE: dict[str, object] = {}

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


def table(name: str) -> dict[str, Callable]:
    """Backend ``name``'s kernel dict, filled from its module on first use."""
    kernels = KERNELS[_check(name)]
    if not kernels:
        module = importlib.import_module(_MODULES[name])
        for kname in KERNEL_NAMES:
            fn = getattr(module, kname, None)
            if fn is not None:
                kernels[kname] = fn
    return kernels


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
    try:
        return table(backend)[name]
    except KeyError:
        raise ValueError(
            f"kernel must be one of {KERNEL_NAMES}; backend {backend!r} has no "
            f"kernel {name!r}"
        ) from None


def fast_kernel(name: str, work: int | None = None) -> Callable | None:
    """The active backend's fast path ``name`` (one of :data:`FAST_NAMES`),
    or None when it has none, or when the call's ``work`` (multiply-adds of
    the forward pass) is below the fast module's ``MIN_WORK``: then the op
    runs the textbook algorithm."""
    if name not in FAST_NAMES:
        raise ValueError(f"fast kernel must be one of {FAST_NAMES}, got {name!r}")
    backend = get_backend()
    kernels = FAST_KERNELS[backend]
    if not kernels and backend in _FAST_MODULES:
        module = importlib.import_module(_FAST_MODULES[backend])
        kernels.update({k: getattr(module, k) for k in FAST_NAMES})
        _FAST_MODULE[backend] = module
    if work is not None and work < getattr(_FAST_MODULE.get(backend), "MIN_WORK", 0):
        return None
    return kernels.get(name)
