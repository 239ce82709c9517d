"""The kernel table and the rule table: the only places ops are routed.

``KERNELS`` is a plain dict from backend name to a dict of kernel name →
function::

    KERNELS["numpy"]["col2im"]   # the readable NumPy twin
    KERNELS["numba"]["col2im"]   # the compiled kernel

Every backend provides the same names with the same signatures.

``RULES`` maps a backend to the **whole rules** it brings of its own
(:data:`RULE_NAMES`: ``Function`` classes that run an op another way). Only
the Numba backend has any: its conv pipeline (``kernels/conv_rules.py``
over ``kernels/conv_fast.py`` and ``kernels/winograd.py``, blocked and
pixel-major). :func:`apply_rule` is the one place a conv is routed: it
counts the call's multiply-adds once and runs the backend's rule when the
backend has one and the call is big enough (its ``MIN_WORK``), else the
textbook rule of ``ops/conv.py`` (im2col/col2im + GEMM), the one the
lessons teach and the NumPy backend always runs. The rules in ``ops/``
never ask which backend is active.

``HOOKS`` maps a backend to what it hands the engine besides kernels
(:data:`HOOK_NAMES`); :func:`hook` reads the active backend's. The engine
asks; a backend's module never reaches up to install anything.

A backend's dicts are filled the first time one of its kernels or rules is
needed, so ``import convgrad`` does not import numba. The default backend
is ``"numba"``; the ``CONVGRAD_BACKEND`` environment variable overrides it
and :func:`use_backend` switches it for a block.

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

from . import rules as _rules

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

#: the Numba backend's whole-op kernels on arrays, under its conv rules
#: (``kernels/conv_fast.py``; :func:`fast_kernel` hands them out)
FAST_NAMES = (
    "conv2d_forward",
    "conv2d_backward",
    "conv_transpose2d_forward",
    "conv_transpose2d_backward",
)

#: backend name -> {kernel name -> function}; filled on first use
KERNELS: dict[str, dict[str, Callable]] = {name: {} for name in BACKENDS}

_MODULES = {"numba": "convgrad.kernels", "numpy": "convgrad.reference"}

#: what a backend's module may hand the engine besides kernels, in its
#: ``HOOKS`` dict: ``"checksum"``, the saved arrays' fingerprint in one
#: pass (``checksum(words, cols, row_weights)``, see
#: :func:`convgrad.function.fingerprint`)
HOOK_NAMES = ("checksum",)

#: backend name -> {hook name -> function}; filled with its kernels
HOOKS: dict[str, dict[str, Callable]] = {name: {} for name in BACKENDS}

#: backend name -> {fast path name -> function}: only the Numba backend has any
FAST_KERNELS: dict[str, dict[str, Callable]] = {name: {} for name in BACKENDS}

_FAST_MODULES = {"numba": "convgrad.kernels.conv_fast"}
_FAST_MODULE: dict[str, object] = {}

#: ops a backend may run with a whole rule of its own (:mod:`convgrad.rules`)
RULE_NAMES = _rules.NAMES

#: backend name -> {rule name -> Function class}: only the Numba backend has any
RULES: dict[str, dict[str, type]] = {name: {} for name in BACKENDS}

_RULE_MODULES = {"numba": "convgrad.kernels.conv_rules"}

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
        offered = getattr(module, "HOOKS", {})
        HOOKS[name].update({h: offered[h] for h in HOOK_NAMES if h in offered})
    return kernels


def hook(name: str) -> Callable | None:
    """The active backend's hook ``name`` (one of :data:`HOOK_NAMES`), or
    None when it offers none or its kernels are not loaded yet: asking
    loads nothing (a graph of matrix products never imports numba)."""
    if name not in HOOK_NAMES:
        raise ValueError(f"hook must be one of {HOOK_NAMES}, got {name!r}")
    return HOOKS[get_backend()].get(name)


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


def _fast_module(backend: str):
    """The fast kernels' module of ``backend`` (None if it has none),
    loaded into :data:`FAST_KERNELS` on first use."""
    kernels = FAST_KERNELS[backend]
    if not kernels and backend in _FAST_MODULES:
        table(backend)  # a backend loads whole: its kernels and hooks too
        module = importlib.import_module(_FAST_MODULES[backend])
        kernels.update({k: getattr(module, k) for k in FAST_NAMES})
        _FAST_MODULE[backend] = module
    return _FAST_MODULE.get(backend)


def fast_kernel(name: str, work: int | None = None) -> Callable | None:
    """The active backend's whole-op kernel ``name`` on arrays (one of
    :data:`FAST_NAMES`), or None when it has none, or when ``work``
    (multiply-adds of the forward pass) is below the fast module's
    ``MIN_WORK``. For callers that want the pipeline on arrays; the ops
    never ask: :func:`apply_rule` picks whole rules."""
    if name not in FAST_NAMES:
        raise ValueError(f"fast kernel must be one of {FAST_NAMES}, got {name!r}")
    backend = get_backend()
    module = _fast_module(backend)
    if work is not None and work < getattr(module, "MIN_WORK", 0):
        return None
    return FAST_KERNELS[backend].get(name)


# --------------------------------------------------------------------------
# the rule table: which Function runs a conv
# --------------------------------------------------------------------------


def rules(name: str) -> dict[str, type]:
    """Backend ``name``'s own rules (rule name → Function class), filled
    from its module on first use; empty for a backend without any."""
    own = RULES[_check(name)]
    if not own and name in _RULE_MODULES:
        table(name)  # a backend loads whole: its kernels and hooks too
        own.update(importlib.import_module(_RULE_MODULES[name]).RULES)
    return own


def textbook(name: str) -> type:
    """The textbook rule of op ``name`` (``ops/conv.py``, which registers
    it in :mod:`convgrad.rules`)."""
    return _rules.textbook(name)


def conv_macs(n: int, geom) -> int:
    """Multiply-adds of a conv's forward pass on ``n`` images,
    ``N·OH·OW·KH·KW·C_in·C_out/G``, from its geometry (a conv2d's, or a
    transposed conv's, whose ``win.out`` is its input's plane): the same
    count for conv2d, its ``dw`` op and the transposed conv."""
    oh, ow = geom.win.out
    kh, kw = geom.win.k
    return n * oh * ow * kh * kw * geom.c_in * (geom.c_out // geom.groups)


def rule(name: str, work: int) -> type:
    """The Function class that runs op ``name`` for a call of ``work``
    multiply-adds: the active backend's own rule, if it has one and
    ``work`` is not below its ``MIN_WORK`` (nor 0: an empty conv has nothing
    to speed up), else the textbook rule. The one place this is decided."""
    _rules.check(name)
    backend = get_backend()
    own = rules(backend).get(name)
    if own is not None and work > 0:
        if work >= getattr(_fast_module(backend), "MIN_WORK", 0):
            return own
    return textbook(name)


def apply_rule(name: str, *args: Any) -> Any:
    """Apply op ``name`` to ``args``, its Function's inputs (``x, w, b,
    geom``; for ``"conv2d_weight"``, ``x, dy, geom``), through :func:`rule`,
    with the multiply-adds counted once here (:func:`conv_macs`).
    ``functional.py`` calls it, and so do the rules' ``vjp`` s, so a
    gradient's graph is routed as the forward pass is."""
    _rules.check(name)
    return rule(name, conv_macs(args[0].shape[0], args[-1])).apply(*args)
