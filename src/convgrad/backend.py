"""The kernel table: the only place ops look kernels up.

``KERNELS[name]`` is a dict from kernel name to function. ``"numpy"`` holds
the readable reference twins; ``"numba"`` the compiled kernels (filled in
lazily, so importing convgrad does not import numba's compiler until a
kernel is needed). Every backend provides the same names and signatures.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from types import ModuleType

BACKENDS = ("numba", "numpy")

_current: str | None = None


def _module(name: str) -> ModuleType:
    if name == "numpy":
        from . import reference

        return reference
    if name == "numba":
        try:
            from . import kernels
        except ImportError:  # the Numba backend is not built yet
            from . import reference as kernels
        return kernels
    raise ValueError(f"backend must be one of {BACKENDS}, got {name!r}")


def _check(name: object) -> str:
    if not isinstance(name, str) or name not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {name!r}")
    return name


def get_backend() -> str:
    """The active backend's name."""
    global _current
    if _current is None:
        env = os.environ.get("CONVGRAD_BACKEND", "numba")
        try:
            _current = _check(env)
        except ValueError:
            raise ValueError(
                f"CONVGRAD_BACKEND must be one of {BACKENDS}, got {env!r}"
            ) from None
    return _current


def set_backend(name: str) -> None:
    global _current
    _current = _check(name)


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[None]:
    """Run the block with the named backend, then restore the previous one."""
    previous = get_backend()
    set_backend(name)
    try:
        yield
    finally:
        set_backend(previous)


def kernel(name: str) -> Callable:
    """The active backend's implementation of kernel ``name``."""
    return getattr(_module(get_backend()), name)
