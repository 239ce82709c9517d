"""Keep a thread pool's workers off the core of the thread that calls them.

:func:`.conv_fast._split` and :func:`.pool_threads.over_planes` hand a
share of a call to a pool worker and run the first share in the calling
thread. A worker sleeps between calls; when it is woken after an idle
pause, Linux often places it on the *caller's* core (the waker's core is
cache-warm), the GIL hand-offs between the two threads keep waking each on
the other's core, and the load balancer separates them only some 50 ms of
busy time later. Until then both shares run on one core: measured on the
2-core build box, the medium conv's fwd+bwd at 2 threads took 8-9 ms a call
for the first seven calls after a 0.25 s pause (both threads on one CPU,
read with ``sched_getcpu``), then 5-6 ms, against 7.8 ms at 1 thread
(benchmarks/RESULTS.md, issue 31, session 11). torch's OpenMP threads spin
between calls and are not moved.

So for the length of a call (:meth:`Workers.apart`) the pool's workers
may run on every CPU the caller may use but the one it is on now, and the
caller on that one alone; the caller's own affinity (and so the user's) is
put back when the call ends, an exception included. On a contended
machine a pinned thread cannot move away from the other work, so the
pinning backs off there (:data:`CONTENDED`, :data:`BACKOFF`). Where it is
impossible or not allowed (no ``sched_getcpu``, not Linux, one CPU, a
refused ``sched_setaffinity``) nothing is pinned. Either way the work is
the same and its results the same to the bit; only the placement differs.

:class:`Pool` is the one way both modules make their pool: an executor made
on first use, its :class:`Workers`, and a fresh start in a forked child.
:func:`blas_controller` lives here too, the threadpoolctl handle, and
:func:`one_blas_thread`, the one way the split and :mod:`.winograd` hold
BLAS to one thread (here, so that :mod:`.winograd` can use it without
importing :mod:`.conv_fast`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import time


def _load_getcpu():
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        fn = ctypes.CDLL(None).sched_getcpu
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_int, []
    return fn


_getcpu = _load_getcpu()

#: a pinned share given less of its wall time on the CPU than this was
#: sharing its core (:meth:`Workers.apart`)
CONTENDED = 0.75
#: shares shorter than this (seconds) are not judged: too noisy
MIN_SHARE = 5e-4
#: seconds without pinning after a contended share
BACKOFF = 2.0


def _untimed(fn):
    return fn


_blas = None


def blas_controller():
    """threadpoolctl's controller of this process's BLAS libraries, made
    once (it scans the loaded libraries); None without threadpoolctl, and
    then no call is split over threads (BLAS cannot be held to one)."""
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # no way to hold BLAS to one thread
            _blas = False
        else:
            _blas = ThreadpoolController()
    return _blas or None


class _BlasHold:
    """BLAS held to one thread while any caller in the process needs it.

    OpenBLAS's thread count is one setting of the whole process, so two
    threads each running ``with controller.limit(limits=1)`` interleave:
    the second records the first's 1 as the value to put back, the first
    puts back the user's, then the second puts back 1, and NumPy's BLAS
    stays on one thread after the convs (issue 43: a 1500×1500 matmul ran
    on half the CPU afterwards). So the holds are counted: the first one
    in sets the limit and records what it found, the last one out puts
    that back, whichever thread each runs on.

    threadpoolctl lets only one thread at a time set OpenBLAS's limit (its
    "controlling thread"; another thread's setting is silently dropped),
    and the last one out may not be the thread that came in first: after
    setting, this thread gives up that control again (only if it holds
    it: a user's own ``threadpool_limits`` elsewhere keeps it, and then
    neither setting of ours takes effect, and the user's count stands).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holders = 0
        self.limiter = None  # threadpoolctl's, holding the values to put back
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        # a forked child has none of the threads that hold; it inherits
        # the parent's one-thread limit, so it puts back what was found
        self.lock = threading.Lock()
        if self.holders and self.limiter is not None:
            _as_any_thread(self.limiter.restore_original_limits)
        self.holders, self.limiter = 0, None

    @contextlib.contextmanager
    def __call__(self, ctl):
        with self.lock:
            if not self.holders:
                self.limiter = _as_any_thread(
                    lambda: ctl.limit(limits=1, user_api="blas"))
            self.holders += 1
        try:
            yield
        finally:
            with self.lock:
                self.holders -= 1
                if not self.holders:
                    _as_any_thread(self.limiter.restore_original_limits)
                    self.limiter = None


def _as_any_thread(fn):
    """``fn()``, then give up threadpoolctl's control of OpenBLAS if this
    thread took it (versions before 3.6 have no such control)."""
    try:
        return fn()
    finally:
        try:
            from threadpoolctl import OpenBLASController
        except ImportError:
            pass
        else:
            release = getattr(OpenBLASController, "clear_controlling_thread", None)
            if release is not None:
                release()


_hold = _BlasHold()


def one_blas_thread():
    """A context that holds every BLAS library threadpoolctl finds to one
    thread for its length, and leaves each at its thread count from before
    the first of the overlapping holds (:class:`_BlasHold`); a no-op
    without threadpoolctl."""
    ctl = blas_controller()
    if ctl is None:
        return contextlib.nullcontext()
    return _hold(ctl)


class Workers:
    """The native ids of one executor's worker threads, recorded as they
    start (pass :meth:`started` as the executor's ``initializer``), and the
    CPU set each was last given."""

    def __init__(self) -> None:
        self.tids: list[int] = []
        self.given: dict[int, frozenset[int]] = {}
        self.lock = threading.Lock()
        self.enabled = _getcpu is not None
        self.resume = 0.0  # no pinning before this time.monotonic()

    def started(self) -> None:
        with self.lock:
            self.tids.append(threading.get_native_id())

    @contextlib.contextmanager
    def apart(self):
        """Allow the workers every CPU this thread may use but its current
        one, and this thread that one alone, until the block ends; a no-op
        where that cannot be done (see the module's notes), or while the
        cores are found contended.

        Yields ``timed``: ``timed(fn)`` is ``fn`` reporting how much of its
        wall time its thread got the CPU. A share that got less than
        :data:`CONTENDED` of it, pinned, shared its core with other work (a
        busy machine: a pinned thread cannot move away from it), so the
        pinning stops for :data:`BACKOFF` seconds and the workers may run
        anywhere again. Pinned threads on idle cores get 0.9-1.0 of it (the
        rest is waiting for the GIL); with two busy processes on the two
        cores, 0.2-0.5. A VM's host taking a vCPU away (steal time: 0.35-0.65
        of a share on a host with busy neighbours) counts as contention too:
        the scheduler may move work off a CPU its host takes time from, and a
        pinned thread cannot move.
        """
        mine = self._keep_apart()
        if mine is None:
            yield _untimed
            return
        shares: list[tuple[float, float]] = []

        def timed(fn):
            def run(*args):
                w0, c0 = time.perf_counter(), time.thread_time()
                try:
                    return fn(*args)
                finally:
                    shares.append((time.perf_counter() - w0, time.thread_time() - c0))
            return run

        try:
            yield timed
        finally:
            try:
                os.sched_setaffinity(0, mine)
            except OSError:
                self.enabled = False
            if any(cpu < CONTENDED * wall for wall, cpu in shares if wall > MIN_SHARE):
                self._release(mine)

    def _release(self, cpus) -> None:
        """Back off: let the workers run on any of ``cpus`` for a while."""
        self.resume = time.monotonic() + BACKOFF
        for tid in list(self.given):
            try:
                os.sched_setaffinity(tid, cpus)
            except OSError:
                pass
        self.given.clear()

    def _keep_apart(self):
        if not self.enabled or not self.tids or time.monotonic() < self.resume:
            return None
        try:
            cpu = _getcpu()
            mine = frozenset(os.sched_getaffinity(0))
        except OSError:
            self.enabled = False
            return None
        others = mine - {cpu}
        if cpu < 0 or not others:
            return None
        with self.lock:
            tids = list(self.tids)
        for tid in tids:
            if self.given.get(tid) == others:
                continue
            try:
                os.sched_setaffinity(tid, others)
            except OSError:  # refused (a sandbox), or the thread is gone
                self.enabled = False
                return None
            self.given[tid] = others
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:
            self.enabled = False
            return None
        return mine


class Pool:
    """A thread pool made on first use, with its :class:`Workers`.

    :meth:`get` returns ``(executor, workers)`` with at least the threads
    asked for. In a forked child the parent's executor is inherited without
    its threads (a submitted share would wait forever) and its lock perhaps
    held by a thread the child does not have, so both are dropped there and
    the next :meth:`get` makes new ones (torch re-creates its intra-op pool
    after a fork the same way)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.executor = None
        self.workers: Workers | None = None
        self.lock = threading.Lock()
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self.executor = self.workers = None
        self.lock = threading.Lock()

    def get(self, threads: int):
        with self.lock:
            if self.executor is None or self.executor._max_workers < threads:
                from concurrent.futures import ThreadPoolExecutor

                self.workers = Workers()
                self.executor = ThreadPoolExecutor(
                    threads, thread_name_prefix=self.prefix,
                    initializer=self.workers.started)
            return self.executor, self.workers
