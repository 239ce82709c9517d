"""A fork after the threaded kernels ran: the child must not hang.

The fast conv (kernels/conv_fast.py) and the threaded pool kernels
(kernels/pool_threads.py) keep a module-level thread pool. A forked child
inherits the pool object but none of its threads, so work it submits
would wait forever, as a DataLoader-style worker on Linux would. Each test
runs the threaded path in the parent, forks, runs it again in the child
with a time limit, and compares the child's numbers with the parent's.
"""

from __future__ import annotations

import multiprocessing
import sys
import warnings

import numba
import numpy as np
import pytest

import convgrad as cg
from convgrad import F
from convgrad.kernels import SETTINGS, conv_fast
from convgrad.kernels import pool_threads as PT

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows"),
    pytest.mark.skipif(
        numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread"
    ),
]

LIMIT = 60  # seconds the child may take; a hang is caught here


@pytest.fixture
def threaded(monkeypatch):
    """On the Numba backend (whatever CONVGRAD_BACKEND says: its thread
    pools are what is tested), every conv takes the fast path and splits
    over two threads; every pool call splits over two threads, a plane per
    chunk."""
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    monkeypatch.setattr(conv_fast, "THREAD_MIN_WORK", 0)
    monkeypatch.setattr(PT, "MIN_ELEMENTS", 0)
    monkeypatch.setattr(PT, "CHUNK_ELEMENTS", 1)
    numba.set_num_threads(2)
    if conv_fast._blas_controller() is None:
        pytest.skip("threadpoolctl is missing: the fast conv stays serial")
    with cg.use_backend("numba"):
        yield
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def _in_fork_child(fn):
    """``fn()``'s result, computed in a forked child within ``LIMIT`` s."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()

    def child():
        try:
            queue.put(("ok", fn()))
        except BaseException as err:  # report it rather than hang the test
            queue.put(("error", repr(err)))

    with warnings.catch_warnings():  # 3.12+ warns on fork with threads
        warnings.simplefilter("ignore", DeprecationWarning)
        proc = ctx.Process(target=child)
        proc.start()
    try:
        kind, value = queue.get(timeout=LIMIT)
    except Exception:
        proc.kill()
        proc.join()
        pytest.fail(f"the forked child did not finish within {LIMIT} s (a hang)")
    proc.join(LIMIT)
    assert kind == "ok", value
    return value


def _conv(x, w):
    return F.conv2d(x, w, padding=1).data


def test_fast_conv_runs_in_a_fork_child(threaded, rng):
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    want = _conv(x, w)
    assert conv_fast._pool.executor is not None, "the parent call did not use the pool"
    got = _in_fork_child(lambda: _conv(x, w))
    np.testing.assert_array_equal(got, want)


def test_threaded_pool_kernels_run_in_a_fork_child(threaded, rng):
    x = rng.standard_normal((2, 3, 8, 8))
    want = F.max_pool2d(x, 2).data
    assert PT._pool.executor is not None, "the parent's call did not use the pool"
    got = _in_fork_child(lambda: F.max_pool2d(x, 2).data)
    np.testing.assert_array_equal(got, want)


def test_a_fork_while_another_thread_holds_the_pool_lock(threaded, rng):
    # another thread of the parent is inside Pool.get at the fork: the
    # child's copy of the lock is held by a thread it does not have
    x = rng.standard_normal((2, 3, 8, 8))
    want = F.avg_pool2d(x, 2).data
    with PT._pool.lock:
        got = _in_fork_child(lambda: F.avg_pool2d(x, 2).data)
    np.testing.assert_array_equal(got, want)
