"""The one jit policy every kernel uses, set in one place.

* **A cache that always works.** Compiled kernels are cached on disk in the
  first of these directories that can be written (tried for real, by
  creating a file, so it also holds for root and read-only mounts):

  1. ``NUMBA_CACHE_DIR``, when the user set it;
  2. the package's own ``kernels/__pycache__`` (the normal, in-tree cache);
  3. the user cache directory, ``$XDG_CACHE_HOME`` or ``~/.cache``, under
     ``convgrad/numba``;
  4. a private temporary directory, ``<tmp>/convgrad-numba-<uid>``, created
     mode 0700 and used only if this user owns it and nobody else can write
     it (a cache file is a pickle: loading one runs code);
  5. none: the kernels compile in every process, with one
     :class:`KernelCacheWarning`.

  Never a RuntimeError. A cache entry that fails to load (an empty,
  truncated or garbled ``.nbi`` or ``.nbc``, after a full disk or a killed
  warm-up) is deleted and the kernel recompiled, with one warning; the next
  run finds a healthy entry. Each ``.nbc`` carries a SHA-256 of its payload,
  so corruption is caught before anything is unpickled.
* **Flags that change the code get a cache of their own.** Numba keys its
  cache on the CPU, not on ``NUMBA_BOUNDSCHECK``, ``NUMBA_OPT`` and the
  like, so a bounds-checked build would be served to a later normal run (and
  the reverse). Such flags are hashed into the file names.
* ``fastmath=False``: results agree with the NumPy reference.
* ``nogil=True``: kernels release the GIL.
* ``parallel`` only where writes are disjoint (over ``N*C`` planes), and only
  above a size threshold: starting numba's threads costs milliseconds, which
  dwarfs a lesson-sized array. :func:`jit_parallel` compiles the same loop
  twice, serial and parallel, and picks one per call by input size.

* **Behind a version check.** The hooks subclass numba's private cache
  classes; they are used only on the numba versions they were written and
  tested against (:data:`HOOKED_NUMBA`). On any other version the kernels
  get numba's plain ``cache=True``, with one :class:`KernelCacheWarning`.

``NUMBA_CPU_NAME`` (e.g. ``generic`` on Binder) is read by numba itself
(it is part of numba's cache key) and never overridden here. The cache is
attached through the dispatcher's ``_cache`` slot, numba's own hook for it
(``Dispatcher.enable_caching`` does the same with numba's locators).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import stat
import sys
import tempfile
import types
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numba.core import caching, config

# A call runs in parallel when its first array has at least this many
# elements (8M: 32-64 MB, where a serial pass takes several ms). Below it,
# waking numba's threads costs more than the loop saves. On the shared
# 2-core build machine, with the default OpenMP layer, a parallel max-pool
# took 13 ms where the serial one took 0.7 ms (100k elements), and a
# parallel call rarely came back in under one 4 ms scheduler tick.
PARALLEL_MIN_SIZE = 1 << 23


class KernelCacheWarning(UserWarning):
    """The kernel cache could not be used as it should (and was worked around)."""


# --------------------------------------------------------------------------
# where the cache goes
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CachePlace:
    """The directory kernels are cached in (None: no caching) and which
    step of the fallback chain chose it."""

    path: Path | None
    kind: str

    def __str__(self) -> str:
        return f"{self.path} ({self.kind})" if self.path else f"none ({self.kind})"


def _subpath(py_file: str) -> str:
    """The per-source-folder directory name numba uses inside a shared
    cache (its folder's name and a hash of its path), asked of numba's
    private locator where it has one."""
    locator = getattr(caching, "_CacheLocator", None)
    if locator is not None and hasattr(locator, "get_suitable_cache_subpath"):
        return locator.get_suitable_cache_subpath(py_file)
    folder = os.path.abspath(os.path.dirname(py_file))
    digest = hashlib.sha1(folder.encode()).hexdigest()
    return f"{os.path.basename(folder)}_{digest}"


def candidates(
    package_dir: Path, environ: Mapping[str, str]
) -> Iterator[tuple[str, Path, bool]]:
    """The fallback chain: (kind, directory, must be private), best first."""
    sub = _subpath(str(package_dir / "_jit.py"))
    if environ.get("NUMBA_CACHE_DIR"):
        yield "NUMBA_CACHE_DIR", Path(environ["NUMBA_CACHE_DIR"]) / sub, False
    yield "in-package", package_dir / "__pycache__", False
    base = environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no HOME and no passwd entry
            base = None
    if base:
        yield "user cache", Path(base) / "convgrad" / "numba" / sub, False
    try:
        tmp = tempfile.gettempdir()
    except OSError:  # no usable temporary directory at all
        return
    uid = os.getuid() if hasattr(os, "getuid") else 0
    yield "private temp dir", Path(tmp) / f"convgrad-numba-{uid}" / sub, True


def usable(path: Path, private: bool = False) -> bool:
    """Can cache files be written in ``path`` (created if need be)?

    A private directory must also belong to this user, be no symlink, and
    be closed to everyone else, so no one can plant a pickle in it.
    """
    try:
        if private:
            top = path.parent
            top.mkdir(mode=0o700, exist_ok=True)
            st = top.lstat()
            if (
                not stat.S_ISDIR(st.st_mode)
                or (hasattr(os, "getuid") and st.st_uid != os.getuid())
                or st.st_mode & 0o077
            ):
                return False
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def choose_place(
    package_dir: Path,
    environ: Mapping[str, str],
    can_write: Callable[[Path, bool], bool] = usable,
) -> CachePlace:
    """The first directory of the fallback chain that can be written."""
    tried = []
    for kind, path, private in candidates(package_dir, environ):
        if can_write(path, private):
            return CachePlace(path, kind)
        tried.append(str(path))
    return CachePlace(None, "nothing writable; tried " + ", ".join(tried))


_warned: set[str] = set()


def _warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, KernelCacheWarning, stacklevel=3)


@functools.lru_cache(maxsize=1)
def cache_place() -> CachePlace:
    """Where this process caches its kernels (chosen once, on first use)."""
    place = choose_place(Path(__file__).parent, os.environ)
    if place.path is None:
        _warn_once(
            "none",
            f"convgrad: no directory can hold the kernel cache ({place.kind}); "
            f"kernels compile in every process, a few seconds each. Set "
            f"NUMBA_CACHE_DIR to a writable directory to cache them.",
        )
    return place


# the settings that change the compiled code but not numba's cache key
_CODE_FLAGS = (
    "BOUNDSCHECK", "OPT", "LOOP_VECTORIZE", "SLP_VECTORIZE", "DEBUGINFO_DEFAULT",
    "ENABLE_AVX", "DISABLE_INTEL_SVML",
)


def flags_tag(cfg: Any = config) -> str:
    """A name part for the flags that change the code: ``""`` with numba's
    defaults, else a short hash of their values."""
    if not any(os.environ.get(f"NUMBA_{f}") for f in _CODE_FLAGS + ("DEBUGINFO",)):
        return ""
    values = repr([(f, str(getattr(cfg, f, None))) for f in _CODE_FLAGS])
    return "-" + hashlib.sha256(values.encode()).hexdigest()[:10]


# --------------------------------------------------------------------------
# the cache itself: numba's index and data files, checked and self-healing
# --------------------------------------------------------------------------

#: part of every file name: the format (checked .nbc) is convgrad's own
FORMAT = "cg1"


class CorruptCacheEntry(Exception):
    """A cache file that exists but cannot be trusted."""


#: the Numba versions ``(major, minor)`` the hooks below were written and
#: tested against (binder/requirements.txt pins 0.68.1). They subclass
#: numba's private cache classes (``caching._CacheLocator`` and friends),
#: which a release may change without notice: on any other version the
#: kernels get numba's own ``cache=True`` instead, with one warning.
HOOKED_NUMBA = frozenset({(0, 68)})


def numba_version() -> tuple[int, int]:
    """The installed numba's ``(major, minor)``."""
    import numba

    major, minor = (numba.__version__.split(".") + ["0"])[:2]
    digits = "".join(ch for ch in minor if ch.isdigit()) or "0"
    return int(major), int(digits)


@functools.lru_cache(maxsize=1)
def kernel_cache_class() -> Any:
    """The :class:`KernelCache` class (built on first use), or None when the
    installed numba is not one of :data:`HOOKED_NUMBA` (one
    :class:`KernelCacheWarning` then: the kernels use numba's plain cache)."""
    version = numba_version()
    if version not in HOOKED_NUMBA:
        tested = ", ".join(f"{a}.{b}" for a, b in sorted(HOOKED_NUMBA))
        _warn_once(
            "version",
            f"convgrad: numba {version[0]}.{version[1]} is not a version the "
            f"kernel cache's hooks were tested with ({tested}); using numba's "
            f"plain cache=True instead (no self-healing entries, no "
            f"flag-keyed files, no fallback directories)",
        )
        return None
    return _make_kernel_cache()


def _make_kernel_cache() -> type:
    """Define the hooks: numba's index and data files, checked and
    self-healing, in the directory :func:`cache_place` chose."""

    class _CheckedFile(caching.IndexDataCacheFile):
        """Numba's index and data files; each data file starts with the SHA-256
        of its payload."""

        def _save_data(self, name: str, data: Any) -> None:
            payload = self._dump(data)
            with self._open_for_write(self._data_path(name)) as f:
                f.write(hashlib.sha256(payload).digest() + payload)

        def _load_data(self, name: str) -> Any:
            import pickle

            with open(self._data_path(name), "rb") as f:
                raw = f.read()
            digest, payload = raw[:32], raw[32:]
            if len(raw) < 32 or hashlib.sha256(payload).digest() != digest:
                raise CorruptCacheEntry(f"{name}: checksum mismatch")
            return pickle.loads(payload)

        def entry_files(self) -> list[Path]:
            folder = Path(self._cache_path)
            stem = self._index_name[: -len(".nbi")]
            return [folder / self._index_name, *folder.glob(f"{stem}.*.nbc")]


    class _Impl(caching.CompileResultCacheImpl):
        """Numba's compile-result cache, located where :func:`cache_place` says."""

        def __init__(self, py_func: Callable) -> None:  # numba's picks a locator
            self._lineno = py_func.__code__.co_firstlineno
            source = inspect.getfile(py_func)
            self._locator = _Locator(py_func, source, cache_place().path)
            modname = os.path.splitext(os.path.basename(source))[0]
            fullname = f"{modname}.{py_func.__qualname__}.{FORMAT}{flags_tag()}"
            self._filename_base = self.get_filename_base(
                fullname, getattr(sys, "abiflags", "")
            )


    class _Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func: Callable, py_file: str, path: Path) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(path)

        def get_cache_path(self) -> str:
            return self._cache_path


    class KernelCache(caching.FunctionCache):
        """A kernel's cache that never raises: a bad entry is removed and the
        kernel recompiled; a failed write turns the cache off for this kernel."""

        _impl_class = _Impl

        def __init__(self, py_func: Callable) -> None:
            super().__init__(py_func)
            self._cache_file = _CheckedFile(
                cache_path=self._cache_path,
                filename_base=self._impl.filename_base,
                source_stamp=self._impl.locator.get_source_stamp(),
            )

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            try:
                return super().load_overload(sig, target_context)
            except Exception as err:  # any failure to load is a bad entry
                removed = []
                for path in self._cache_file.entry_files():
                    try:
                        path.unlink()
                        removed.append(path.name)
                    except OSError:
                        pass
                _warn_once(
                    "corrupt",
                    f"convgrad: the cached kernel {self._py_func.__qualname__} in "
                    f"{self._cache_path} could not be loaded ({type(err).__name__}: "
                    f"{err}); removed {', '.join(removed) or 'nothing'} and "
                    f"recompiling (further bad entries are healed silently)",
                )
                return None

        def save_overload(self, sig: Any, data: Any) -> None:
            try:
                super().save_overload(sig, data)
            except Exception as err:
                self.disable()
                _warn_once(
                    "save",
                    f"convgrad: could not write the kernel cache in "
                    f"{self._cache_path} ({type(err).__name__}: {err}); kernels "
                    f"compile in every process until it can be written",
                )
    for cls in (_CheckedFile, _Impl, _Locator, KernelCache):
        cls.__qualname__ = cls.__name__
    return KernelCache


def _plain_cache(dispatcher: Any) -> Any:
    """numba's own ``cache=True``; a kernel numba cannot find a cache
    directory for compiles in every process (one warning)."""
    try:
        dispatcher.enable_caching()
    except RuntimeError as err:  # numba: "no locator available"
        _warn_once("plain", f"convgrad: kernels are not cached ({err})")
    return dispatcher


def _cached(dispatcher: Any) -> Any:
    """Attach the kernel cache to a numba dispatcher (a plain function under
    ``NUMBA_DISABLE_JIT`` is returned as is)."""
    if not hasattr(dispatcher, "_cache"):
        return dispatcher
    hooks = kernel_cache_class()
    if hooks is None:
        return _plain_cache(dispatcher)
    if cache_place().path is not None:
        dispatcher._cache = hooks(dispatcher.py_func)
    return dispatcher


#: every kernel's options (the cache is attached by :func:`_cached`)
POLICY: dict[str, Any] = {"fastmath": False, "nogil": True}

# the only array types the kernels are compiled for (data, and int64 indices)
ARRAY_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int64))


def jit(fn: Callable) -> Callable:
    """Compile ``fn`` serially with the project policy."""
    return _cached(njit(**POLICY)(fn))


def jit_inline(fn: Callable) -> Callable:
    """As :func:`jit`, and inlined into every jitted caller (Numba's IR
    inliner): for small helpers called per row inside a kernel's loops,
    where a call's set-up and the vectoriser's run-time checks cost more
    than a short row's work (Winograd's row splits: 0.53 ms per pass over a
    medium conv's 16 384 input rows called, 0.11 ms inlined)."""
    return _cached(njit(inline="always", **POLICY)(fn))


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
        self.serial = _cached(njit(**POLICY)(fn))
        twin = _renamed(fn, "__parallel")
        self.parallel = _cached(njit(parallel=True, **POLICY)(twin))
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
