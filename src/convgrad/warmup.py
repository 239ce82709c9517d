"""Compile every Numba kernel once, so the first lesson does not wait.

Run ``python -m convgrad.warmup`` after installing (Binder's ``postBuild``
does, and CI). Every kernel is compiled for float32 and float64, in its
serial and its parallel build (the fast conv path's ``im2row``/``row2im``
and their channels-last kin ``im2row_cl``/``row2im_cl``/``to_cl``/``from_cl``:
serial only; its Winograd transforms, ``winograd``: float32 only, the one
dtype they run in; ``checksum``, the fingerprint of saved arrays: 4- and
8-byte words), and written to Numba's cache; the timing of
each is printed. A second run only loads the cache and takes a moment.

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
#: the fast conv path's kernels (kernels/conv_fast.py): serial builds only;
#: "winograd" is kernels/winograd.py's transforms, together; "checksum" the
#: one-pass fingerprint of saved arrays (kernels/checksum.py)
FAST = ("im2row", "row2im", "im2row_cl", "row2im_cl", "to_cl", "from_cl", "winograd",
        "checksum")


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


def fast_examples(dtype) -> Iterator[tuple[str, tuple]]:
    """(kernel name, arguments) for one small call of each fast-path kernel."""
    x = np.ones((1, 2, 5, 5), dtype)
    rows = np.zeros((1, 9, 18), dtype)  # (G, B*OH*OW, C/G*KH*KW)
    win = (3, 3, 2, 2, 1, 1, 1, 1)
    yield "im2row", (x, 0, *win, 3, 3, rows)
    yield "row2im", (rows, 0, *win, 3, 3, np.zeros_like(x))
    xc = np.ones((1, 5, 5, 2), dtype)  # channels-last (B, H, W, C)
    yield "im2row_cl", (xc, *win, 3, 3, rows)
    yield "row2im_cl", (rows, *win, 3, 3, np.zeros_like(xc))
    yield "to_cl", (x, 0, xc)
    yield "from_cl", (xc, 0, np.zeros_like(x))


def _winograd_example() -> None:
    """One forward and backward through every Winograd transform (float32;
    dilations 2 and 3 too, whose phases the transforms read and write in
    place), and the transposed conv's pair."""
    from .kernels import conv_fast, winograd

    x = np.ones((2, 2, 6, 6), np.float32)
    w = np.ones((2, 2, 3, 3), np.float32)
    b = np.ones(2, np.float32)
    for d in (1, 2, 3):
        args = (3, 3, 1, 1, d, d, d, d)
        # with the bias and the checks, as conv_fast calls them
        winograd.forward(x, w, args, 1, (6, 6), conv_fast._split, bias=b, check=True)
        winograd.backward(x, w, x, args, 1, True, True, conv_fast._split,
                          need_db=True, check=True)
        winograd.forward(x, w, args, 1, (6, 6), conv_fast._split, g=x, check=True,
                         sum_x=True)


def _cpu_seconds() -> float:
    t = os.times()  # children count once they have been waited for
    return t.user + t.system + t.children_user + t.children_system


def _compile(names: tuple[str, ...]) -> list[tuple[str, float]]:
    """Compile the named kernels in this process; (label, seconds) each."""
    from . import kernels
    from .kernels import conv_fast

    done = []
    if "checksum" in names:
        from .kernels import checksum

        t = time.perf_counter()
        for words in (np.ones(5, np.uint32), np.ones(5, np.uint64)):
            checksum.checksum(words, np.ones(checksum.BLOCK, words.dtype),
                              np.ones(1, words.dtype))
        done.append(("checksum [uint32, uint64, serial]", time.perf_counter() - t))
    if "winograd" in names:
        t = time.perf_counter()
        _winograd_example()
        done.append(("winograd [float32, serial]", time.perf_counter() - t))
    for dtype in DTYPES:
        for name, args in fast_examples(dtype):
            if name in names:
                t = time.perf_counter()
                getattr(conv_fast, name)(*args)
                label = f"{name} [{np.dtype(dtype).name}, serial]"
                done.append((label, time.perf_counter() - t))
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

    names = tuple(names or KERNEL_NAMES + FAST)
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

    unknown = sorted(set(ns.kernels) - set(KERNEL_NAMES + FAST))
    if unknown:
        parser.error(
            f"unknown kernel(s) {unknown}; choose from {KERNEL_NAMES + FAST}"
        )
    from .kernels._jit import cache_place

    cpu = os.environ.get("NUMBA_CPU_NAME", "host")
    print(f"convgrad warm-up: NUMBA_CPU_NAME={cpu}, cache: {cache_place()}")
    warm_up(tuple(ns.kernels) or None, jobs=ns.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
