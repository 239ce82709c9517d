"""Fast convs leave NumPy's BLAS on the threads it had (issue 43).

OpenBLAS's thread count is one setting of the whole process. The fast
conv holds it to one thread while its image threads run (and while a wide
Winograd kernel transform runs), with threadpoolctl. Two convs on two
threads each used to take and put back the limit on their own, and so
interleaved: the second recorded the first's 1 as the value to put back,
and a 1500×1500 matmul afterwards ran on one core of two.
(``kernels/placement.py``: ``one_blas_thread`` counts the holds.)
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import convgrad as cg
from convgrad import F
from convgrad.kernels import placement

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads() -> dict[str, int]:
    """The thread count of each BLAS library convgrad limits (those loaded
    when it first asked threadpoolctl: NumPy's among them), as
    threadpoolctl reports it now."""
    mine = {lib.filepath for lib in placement.blas_controller().lib_controllers}
    return {i["filepath"]: i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas" and i["filepath"] in mine}


def _let_go():
    # threadpoolctl lets one thread at a time set OpenBLAS's count; the
    # test's own settings must leave none holding that right
    release = getattr(threadpoolctl.OpenBLASController,
                      "clear_controlling_thread", None)
    if release is not None:
        release()


@pytest.fixture
def two_blas_threads():
    """BLAS on two threads, so that one left at one is seen; put back as
    it was after the test."""
    if placement.blas_controller() is None:
        pytest.skip("threadpoolctl finds no BLAS library to limit")
    limiter = threadpoolctl.threadpool_limits(limits=2, user_api="blas")
    _let_go()
    before = _blas_threads()
    if max(before.values(), default=1) < 2:
        limiter.restore_original_limits()
        _let_go()
        pytest.skip("BLAS will not run on two threads here")
    yield before
    limiter.restore_original_limits()
    _let_go()


def _together(jobs: int, job) -> None:
    """Run ``job(k)`` on ``jobs`` threads started together; re-raise the
    first error."""
    start = threading.Barrier(jobs)
    errors = []

    def run(k):
        try:
            start.wait()
            job(k)
        except BaseException as err:  # reported below, not lost in a thread
            errors.append(err)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@pytest.mark.torch
@pytest.mark.parametrize("name", ["numba", "numpy"])
def test_convs_on_several_threads_leave_blas_threads_as_they_were(
        two_blas_threads, torch, name):
    """Four threads each run conv fwd+bwd big enough for the fast forwards
    (on Numba: its image threads and a held kernel transform, 32→32, 3×3:
    Winograd, 1024 kernels; on NumPy the textbook GEMMs, which hold
    nothing); afterwards every BLAS library runs on as many threads as
    before, and the gradients are torch's."""
    rng = np.random.default_rng(43)
    x = rng.standard_normal((2, 32, 32, 32)).astype(np.float32)
    w = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
    dys = rng.standard_normal((4, 2, 32, 32, 32)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    torch.nn.functional.conv2d(tx, tw, padding=1).backward(torch.tensor(dys[0]))
    got = [None] * 4

    def job(k):
        with cg.use_backend(name):  # the choice is each thread's own
            for _ in range(3):
                xt = cg.Tensor(x, requires_grad=True)
                wt = cg.Tensor(w, requires_grad=True)
                F.conv2d(xt, wt, padding=1).backward(dys[k])
        got[k] = xt.grad, wt.grad

    _together(4, job)
    assert _blas_threads() == two_blas_threads
    dx, dw = got[0]
    np.testing.assert_allclose(dx, tx.grad.numpy(), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(dw, tw.grad.numpy(), rtol=1e-3, atol=2e-2)


def test_overlapping_holds_put_back_what_the_first_found(two_blas_threads):
    """The interleaving that left BLAS at one thread, forced step by step:
    A holds, B holds, A lets go (B still holds: still one thread), B lets
    go (the count from before A). The last one out is not the first in."""
    steps = {name: threading.Event() for name in
             ("a_in", "b_in", "a_out", "b_go")}
    seen = {}

    def a(_):
        with placement.one_blas_thread():
            steps["a_in"].set()
            steps["b_in"].wait(10)
        steps["a_out"].set()

    def b(_):
        steps["a_in"].wait(10)
        with placement.one_blas_thread():
            seen["both"] = _blas_threads()
            steps["b_in"].set()
            steps["a_out"].wait(10)
            seen["b_alone"] = _blas_threads()

    _together(2, lambda k: (a, b)[k](k))
    assert all(steps[s].is_set() for s in ("a_in", "b_in", "a_out"))
    assert set(seen["both"].values()) == {1}
    assert set(seen["b_alone"].values()) == {1}
    assert _blas_threads() == two_blas_threads
