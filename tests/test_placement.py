"""Pool workers kept off the caller's core (kernels/placement.py).

After an idle pause Linux tends to wake a pool worker on its caller's core,
and both halves of a split call then share it for some 50 ms (issue 31).
:class:`placement.Workers` pins them apart for the length of a call, gives
up on a contended machine, and never leaves the caller's own affinity
changed.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import convgrad as cg
from convgrad import F
from convgrad.kernels import conv_fast, placement

pytestmark = pytest.mark.skipif(
    placement._getcpu is None or len(os.sched_getaffinity(0)) < 2,
    reason="needs sched_getcpu and two CPUs to run on",
)


@pytest.fixture
def pool():
    workers = placement.Workers()
    ex = ThreadPoolExecutor(1, initializer=workers.started)
    ex.submit(lambda: None).result()  # start the worker: its id is known
    yield ex, workers
    ex.shutdown()


def _cpus(tid=0):
    return frozenset(os.sched_getaffinity(tid))


def test_inside_a_call_the_worker_and_the_caller_have_separate_cores(pool):
    ex, workers = pool
    before = _cpus()
    with workers.apart() as timed:
        (tid,) = workers.tids
        mine, theirs = _cpus(), _cpus(tid)
        seen = ex.submit(timed(lambda: (placement._getcpu(), _cpus(0)))).result()
    assert len(mine) == 1
    assert theirs == before - mine
    assert seen[0] not in mine and seen[1] == theirs
    assert _cpus() == before  # the caller's own affinity is put back


def test_the_caller_is_put_back_when_the_call_raises(pool):
    _, workers = pool
    before = _cpus()
    with pytest.raises(KeyboardInterrupt), workers.apart():
        raise KeyboardInterrupt
    assert _cpus() == before


def test_a_contended_share_stops_the_pinning_for_a_while(pool, monkeypatch):
    ex, workers = pool
    before = _cpus()
    (tid,) = workers.tids

    def starved():  # a share that waits more than it computes
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.002:
            time.sleep(0.0005)

    with workers.apart() as timed:
        ex.submit(timed(starved)).result()
    assert _cpus(tid) == before  # the worker may run anywhere again
    assert workers.resume > time.monotonic()
    with workers.apart() as timed:  # backing off: nothing is pinned
        assert _cpus() == before and _cpus(tid) == before
        assert timed(starved) is starved

    monkeypatch.setattr(workers, "resume", 0.0)  # the back-off has passed
    with workers.apart() as timed:
        assert len(_cpus()) == 1


def test_a_refused_affinity_call_turns_the_pinning_off(pool, monkeypatch):
    _, workers = pool
    before = _cpus()

    def refuse(tid, cpus):
        raise PermissionError("not allowed here")

    monkeypatch.setattr(os, "sched_setaffinity", refuse)
    with workers.apart() as timed:
        assert timed(len)("ab") == 2
    assert not workers.enabled
    monkeypatch.undo()
    assert _cpus() == before


def test_a_split_conv_gives_the_same_bits_pinned_or_not(monkeypatch):
    import numba

    if numba.get_num_threads() < 2:
        pytest.skip("numba runs one thread here")
    rng = np.random.default_rng(31)
    x = rng.standard_normal((8, 16, 32, 32)).astype(np.float32)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((8, 32, 32, 32)).astype(np.float32)
    monkeypatch.setattr(conv_fast, "THREAD_MIN_WORK", 0)

    def run():
        with cg.use_backend("numba"):
            xt, wt = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
            y = F.conv2d(xt, wt, padding=1)
            y.backward(dy)
            return np.array(y.data), np.array(xt.grad), np.array(wt.grad)

    run()  # the pool's worker starts, and is known from here on
    workers = conv_fast._pool.workers
    assert workers is not None and workers.tids
    pinned = run()
    monkeypatch.setattr(workers, "enabled", False)
    loose = run()
    for a, b in zip(pinned, loose, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_workers_are_recorded_from_every_thread():
    workers = placement.Workers()
    ex = ThreadPoolExecutor(3, initializer=workers.started)
    barrier = threading.Barrier(3)
    for f in [ex.submit(barrier.wait) for _ in range(3)]:
        f.result()
    ex.shutdown()
    assert len(set(workers.tids)) == 3
