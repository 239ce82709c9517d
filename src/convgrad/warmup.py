"""Compile every Numba kernel once, so the first lesson does not wait.

Run ``python -m convgrad.warmup`` after installing (Binder's ``postBuild``
does, and CI). Every kernel of ``backend.KERNEL_NAMES`` is compiled for
float32 and float64, in its serial and its parallel build (from
:func:`examples`, the same calls in every backend), and so is each of the
Numba backend's own kernels, from the examples its object hands over
(``backend.get("numba").examples``, ``kernels/examples.py``: the fast conv
path's row kernels, its Winograd transforms, the saved arrays' checksum).
Everything is written to Numba's cache; the timing of each is printed. A
second run only loads the cache and takes a moment.

Set ``NUMBA_CPU_NAME=generic`` at build time *and* run time when the cache
is built on one machine and used on another. The last line says where the
cache was written (see :mod:`convgrad.kernels._jit` for the fallback chain:
``NUMBA_CACHE_DIR``, the package, the user cache, a private temporary
directory, or none).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator

import numpy as np

BUILDS = ("serial", "parallel")
DTYPES = (np.float32, np.float64)


def examples(dtype) -> Iterator[tuple[str, tuple]]:
    """(kernel name, arguments) for one small, valid call of each kernel."""
    x = np.ones((1, 2, 5, 5), dtype)
    win = (3, 3, 2, 2, 1, 1, 1, 1)  # kh, kw, sh, sw, ph, pw, dh, dw
    out = np.zeros((1, 2, 3, 3), dtype)
    col = np.zeros((1, 2, 3, 3, 3, 3), dtype)
    argmax = np.zeros(out.shape, np.int64)
    avg = (*win[:6], True, 0)
    yield "im2col", (x, *win, col)
    yield "col2im", (col, *win, np.zeros_like(x))
    yield "maxpool2d_forward", (x, *win, out, argmax)
    yield "maxpool2d_backward", (out, argmax, np.zeros_like(x))
    yield "avgpool2d_forward", (x, *avg, out)
    yield "avgpool2d_backward", (out, *avg, np.zeros_like(x))
    yield "maxunpool2d", (out, argmax, np.zeros_like(x))


def _own_examples() -> list[tuple[str, Callable[[], object]]]:
    """The Numba backend's examples for its own kernels: ``(label, call)``,
    the label naming the kernel first."""
    from .backend import get

    return list(get("numba").load().examples())


def _name(label: str) -> str:
    return label.split(" [")[0]


def own_names() -> tuple[str, ...]:
    """The Numba backend's own kernels that :func:`warm_up` compiles."""
    return tuple(dict.fromkeys(_name(label) for label, _ in _own_examples()))


def _cpu_seconds() -> float:
    t = os.times()  # children count once they have been waited for
    return t.user + t.system + t.children_user + t.children_system


def _compile(names: tuple[str, ...]) -> list[tuple[str, float]]:
    """Compile the named kernels in this process; (label, seconds) each."""
    from . import kernels

    done = []
    for label, call in _own_examples():
        if _name(label) in names:
            t = time.perf_counter()
            call()
            done.append((label, time.perf_counter() - t))
    for dtype in DTYPES:
        for name, args in examples(dtype):
            if name not in names:
                continue
            for which in BUILDS:
                t = time.perf_counter()
                getattr(getattr(kernels, name), which)(*args)
                label = f"{name} [{np.dtype(dtype).name}, {which}]"
                done.append((label, time.perf_counter() - t))
    return done


def warm_up(
    names: tuple[str, ...] | None = None,
    jobs: int = 1,
    print_fn: Callable[[str], object] = print,
) -> float:
    """Compile (or load from cache) each kernel; return the total seconds.

    With ``jobs > 1`` the kernels are shared among that many fresh worker
    processes (compilation is single-threaded; the cache is per kernel).
    """
    from .backend import KERNEL_NAMES

    names = tuple(names or KERNEL_NAMES + own_names())
    start, cpu0, start_wall = time.perf_counter(), _cpu_seconds(), time.time()
    if jobs <= 1:
        results = [_compile(names)]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        shares = [names[i::jobs] for i in range(jobs) if names[i::jobs]]
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(len(shares), mp_context=ctx) as pool:
            results = list(pool.map(_compile, shares))
    for result in results:
        for label, took in result:
            print_fn(f"{label:<44} {took:6.2f} s")
    total = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu0
    print_fn(f"{f'total ({jobs} process(es))':<44} {total:6.2f} s"
             f"  (CPU {cpu:.2f} s: on a busy machine wall time is larger)")
    print_fn(cache_report(start_wall))
    return total


def cache_report(since: float) -> str:
    """One line: where the kernel cache is, and how many entries this run
    wrote there (index files changed since ``since``, a ``time.time()``)."""
    from .kernels._jit import cache_place

    place = cache_place()
    if place.path is None:
        return f"cache: {place}: nothing was written"
    try:
        entries = [p.stat().st_mtime for p in place.path.glob("*.cg1*.nbi")]
    except OSError:
        entries = []
    fresh = sum(t >= since - 1 for t in entries)
    return (
        f"cache: {place}: {len(entries)} kernel entries, {fresh} written by this run"
    )


def _jobs(text: str) -> int:
    """``--jobs``: an int of at least 1 (``-j 0`` and ``-j -1`` are refused,
    not quietly run serially)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an int, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"must be at least 1 (the number of processes), got {value}"
        )
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m convgrad.warmup", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "kernels", nargs="*", help="only these kernels (default: all)"
    )
    parser.add_argument(
        "-j", "--jobs", type=_jobs, default=min(2, os.cpu_count() or 1),
        help="compile in this many processes (default: min(2, CPUs))",
    )
    ns = parser.parse_args(argv)
    from .backend import KERNEL_NAMES

    known = KERNEL_NAMES + own_names()
    unknown = sorted(set(ns.kernels) - set(known))
    if unknown:
        parser.error(f"unknown kernel(s) {unknown}; choose from {known}")
    from .kernels._jit import cache_place

    cpu = os.environ.get("NUMBA_CPU_NAME", "host")
    print(f"convgrad warm-up: NUMBA_CPU_NAME={cpu}, cache: {cache_place()}")
    warm_up(tuple(ns.kernels) or None, jobs=ns.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
