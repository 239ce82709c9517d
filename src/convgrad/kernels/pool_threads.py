"""Pool kernels over threads: runs of ``(n, c)`` planes, the caller working too.

Every pool kernel loops over the ``N*C`` planes, and a plane's output (and,
for the scatters, its ``dx``) is written from that plane alone. So a call
can be cut into runs of planes, views ``(P, 1, H, W)`` of each 4-D array,
and the runs handed to threads: each plane is still computed by the serial
kernel, in the same order, so the result is the serial one bit for bit.

As :func:`.conv_fast._split` threads over images, with
``numba.get_num_threads()`` the one knob (1: serial) and the kernels
releasing the GIL, but

* **in chunks, taken in turn.** The planes are cut into more chunks than
  threads, and each thread takes the next chunk when it is done: on this
  shared box a thread the scheduler parks holds up one chunk, not half the
  call.
* **The caller is one of the threads,** and a worker that has not started
  by the time the chunks are gone is cancelled, not waited for. (One that
  started a chunk and was then parked is waited for: that stall, a
  scheduler slice of a few ms on this box, is why small calls stay
  serial.)
* **No BLAS to hold down,** so no threadpoolctl.

For these four kernels it replaces the ``prange`` build (numba's OpenMP
threads, from 8M elements of the *first* argument: never the backward
passes of issue 16's large pools, whose ``dy`` has 3.2M). Measured
(a probe since removed, ``git show 1061830:benchmarks/probe_pool_threads.py``, large
float32, 2 threads): max-pool backward 4.2 ms against prange's 5.9,
avg-pool k2 forward 6.7 against 10.7, the others alike or better.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from . import placement
from ._jit import ARRAY_DTYPES

#: elements (of the call's largest array) from which a call is split over
#: threads; below it the serial kernel runs in the calling thread. The
#: kernels alone gain from ~0.4M elements when the second core is free;
#: but with the box's other load, forward + backward on (32, 32, 32, 32)
#: (1M) took 2.7-8.1 ms split against 2.4-6.8 serial, and at 3.2M no
#: better either; at 6.4M and 12.8M the split won (0.75-0.95x).
MIN_ELEMENTS = 1 << 22

#: elements per chunk, about: enough that the per-chunk Python cost (a
#: dispatch of some 10 us) stays under 1% of the chunk
CHUNK_ELEMENTS = 1 << 18

#: the chunks' threads (made on first use, and again in a forked child)
_pool = placement.Pool("convgrad-pool")


def threads_for(elements: int, planes: int) -> int:
    """Threads for a call: numba's thread count if the call is big enough."""
    if elements < MIN_ELEMENTS or planes < 2:
        return 1
    import numba

    return min(planes, numba.get_num_threads())


def over_planes(fn, args: tuple, threads: int, chunks: int) -> None:
    """Run ``fn(*args)`` as ``chunks`` calls on runs of planes, over
    ``threads`` threads (this one included). ``fn`` is a serial kernel
    whose 4-D arrays all have the same ``N*C`` planes."""
    views = [
        a.reshape(-1, 1, *a.shape[2:]) if isinstance(a, np.ndarray) else a
        for a in args
    ]
    planes = next(v.shape[0] for v in views if isinstance(v, np.ndarray))
    bounds = [planes * k // chunks for k in range(chunks + 1)]
    todo = iter(range(chunks))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                k = next(todo, None)
            if k is None:
                return
            lo, hi = bounds[k], bounds[k + 1]
            fn(*[v[lo:hi] if isinstance(v, np.ndarray) else v for v in views])

    pool, workers = _pool.get(threads - 1)
    with workers.apart() as timed:  # a woken worker is not to share this core
        futures = [pool.submit(timed(work)) for _ in range(threads - 1)]
        try:
            timed(work)()
        finally:
            for f in futures:
                if not f.cancel():  # started: it may still be writing a chunk
                    f.result()


class PlaneThreads:
    """A pool kernel (a :class:`._jit.SizeSwitch`) whose large calls run
    over threads by planes (:func:`over_planes`) and the rest serially.

    ``serial`` and ``parallel`` are the kernel's two builds, as before.
    """

    def __init__(self, switch: Any) -> None:
        self.switch = switch
        self.serial = switch.serial
        self.parallel = switch.parallel
        self.py_func = self.__wrapped__ = switch.py_func
        self.__name__, self.__qualname__ = switch.__name__, switch.__qualname__
        self.__doc__, self.__module__ = switch.__doc__, switch.__module__

    def __call__(self, *args: Any) -> None:
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        elements = max(a.size for a in arrays)
        if elements < MIN_ELEMENTS or not all(
            a.dtype in ARRAY_DTYPES and a.flags.c_contiguous for a in arrays
        ):  # small, or refused by the switch's own check
            return self.switch(*args)
        n, c = arrays[0].shape[:2]
        threads = threads_for(elements, n * c)
        if threads == 1:
            return self.serial(*args)
        chunks = min(n * c, max(threads, elements // CHUNK_ELEMENTS))
        return over_planes(self.serial, args, threads, chunks)

    def __repr__(self) -> str:
        return f"<kernel {self.__module__}.{self.__qualname__} (threads by planes)>"


def plane_threads(switch: Any) -> PlaneThreads:
    """Decorate a pool kernel: large calls run over threads by planes."""
    return PlaneThreads(switch)
