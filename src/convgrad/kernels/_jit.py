"""The one jit policy every kernel uses, set in one place.

* ``cache=True``: compiled code is stored next to the source (``__pycache__``)
  or, when the installed package is read-only and the user has not chosen a
  ``NUMBA_CACHE_DIR``, under ``~/.cache/convgrad/numba``.
* ``fastmath=False``: results agree with the NumPy reference.
* ``nogil=True``: kernels release the GIL.
* ``parallel`` only where writes are disjoint (over ``N*C`` planes), and only
  above a size threshold: starting numba's threads costs milliseconds, which
  dwarfs a lesson-sized array. :func:`jit_parallel` compiles the same loop
  twice, serial and parallel, and picks one per call by input size.

``NUMBA_CPU_NAME`` (e.g. ``generic`` on Binder) and ``NUMBA_BOUNDSCHECK`` are
read by numba itself and are never overridden here.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# A call runs in parallel when its first array has at least this many
# elements (8M: 32-64 MB, where a serial pass takes several ms). Below it,
# waking numba's threads costs more than the loop saves. On the shared
# 2-core build machine, with the default OpenMP layer, a parallel max-pool
# took 13 ms where the serial one took 0.7 ms (100k elements), and a
# parallel call rarely came back in under one 4 ms scheduler tick.
PARALLEL_MIN_SIZE = 1 << 23


def fallback_cache_dir(environ: Mapping[str, str]) -> Path:
    """Where the cache goes when the package directory is read-only."""
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "convgrad" / "numba"


def choose_cache_dir(
    package_dir: Path,
    environ: Mapping[str, str],
    writable: Callable[[Path], bool],
) -> Path | None:
    """The ``NUMBA_CACHE_DIR`` to set, or None to leave numba's default.

    None when the user set ``NUMBA_CACHE_DIR`` or when the package's own
    ``__pycache__`` can be written (the normal, in-tree cache).
    """
    if environ.get("NUMBA_CACHE_DIR"):
        return None
    pycache = package_dir / "__pycache__"
    if writable(pycache if pycache.exists() else package_dir):
        return None
    return fallback_cache_dir(environ)


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK | os.X_OK)


def _configure_cache() -> None:
    chosen = choose_cache_dir(Path(__file__).parent, os.environ, _writable)
    if chosen is None:
        return
    os.environ["NUMBA_CACHE_DIR"] = str(chosen)
    if "numba" in sys.modules:  # numba read its config already: update it
        sys.modules["numba"].config.CACHE_DIR = str(chosen)


_configure_cache()

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402  (the cache directory must be set first)

POLICY: dict[str, Any] = {"cache": True, "fastmath": False, "nogil": True}

# the only array types the kernels are compiled for (data, and int64 indices)
ARRAY_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int64))


def jit(fn: Callable) -> Callable:
    """Compile ``fn`` serially with the project policy."""
    return njit(**POLICY)(fn)


def _renamed(fn: types.FunctionType, suffix: str) -> types.FunctionType:
    # numba names cache files after the qualname and does not key them on
    # ``parallel``: the parallel twin needs a name of its own.
    twin = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__,
        fn.__closure__,
    )
    twin.__qualname__ = fn.__qualname__ + suffix
    twin.__doc__ = fn.__doc__
    twin.__module__ = fn.__module__
    return twin


class SizeSwitch:
    """A kernel compiled twice; runs the parallel build on large inputs only."""

    def __init__(self, fn: types.FunctionType) -> None:
        self.py_func = fn
        self.serial = njit(**POLICY)(fn)
        self.parallel = njit(parallel=True, **POLICY)(_renamed(fn, "__parallel"))
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn

    def __call__(self, *args: Any) -> Any:
        for i, a in enumerate(args):
            # one specialisation per dtype: refuse what would compile another
            if isinstance(a, np.ndarray) and (
                a.dtype not in ARRAY_DTYPES or not a.flags.c_contiguous
            ):
                layout = "C-contiguous" if a.flags.c_contiguous else "non-contiguous"
                raise TypeError(
                    f"kernel {self.__name__}: argument {i} must be a C-contiguous "
                    f"float32/float64 array (int64 for indices), got {layout} "
                    f"{a.dtype}"
                )
        if args[0].size >= PARALLEL_MIN_SIZE:
            return self.parallel(*args)
        return self.serial(*args)

    def __repr__(self) -> str:
        return f"<kernel {self.__module__}.{self.__qualname__} (serial|parallel)>"


def jit_parallel(fn: types.FunctionType) -> SizeSwitch:
    """Compile ``fn`` (whose outer loop is a ``prange`` over disjoint writes)."""
    return SizeSwitch(fn)
