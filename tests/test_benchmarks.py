"""The benchmark harness runs (benchmarks/run.py, benchmarks/workers.py).

Nothing about speed is asserted: a tiny case goes through one worker
process per contender, every contender returns positive times, the
workers agree on the output and exit cleanly, and the report renders.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import run  # noqa: E402
import workers  # noqa: E402

TINY = (2, 3, 4, 6)  # N, C_in, C_out, H=W


@pytest.fixture(scope="module")
def pool():
    # the host's environment as it is: tests never unset OPENBLAS_*
    with workers.Workers(run.CONTENDERS, warm_kernels=False) as p:
        yield p
    assert p.exit_codes == dict.fromkeys(run.CONTENDERS, 0)
    for w in p.workers.values():
        assert w.proc.poll() == 0


def test_each_contender_in_its_own_process_with_its_threads(pool):
    pids = {w.info["pid"] for w in pool.workers.values()}
    assert len(pids) == len(run.CONTENDERS)
    for name, w in pool.workers.items():
        threads = workers.CONTENDERS[name][2]
        got = w.info.get("numba_threads", w.info.get("torch_threads"))
        assert got == threads, name
        openblas = [b for b in w.info["blas"] if b["internal_api"] == "openblas"]
        assert openblas and all(b["num_threads"] == threads for b in openblas)


@pytest.mark.parametrize("kind, backward, extra", [
    ("conv2d", True, {"kwargs": {"padding": 1, "stride": 2}}),
    ("conv2d", True, {"kwargs": {"padding": 1, "groups": 1}}),
    ("conv_transpose2d", True, {"kwargs": {"padding": 1}}),
    ("max_pool2d", True, {"args": (3, 2, 1), "argmax": True}),
    ("avg_pool2d", True, {"args": (2, 2), "argmax": False}),
    ("unfold", False, {"args": (3,), "kwargs": {"padding": 1}}),
    ("fold", False, {"args": (TINY[3], 3), "kwargs": {"padding": 1}}),
])
def test_a_tiny_case_through_the_workers(pool, kind, backward, extra):
    spec = workers.case_spec(kind, kind, TINY, "float32", backward,
                             shape="tiny", flops=1.0, **extra)
    shapes = pool.setup(spec, warmup=1)
    times = pool.sample(3, pause=0.0, prewarm=1)
    assert set(times) == set(run.CONTENDERS)
    for name, ts in times.items():
        assert len(ts) == 3 and all(t > 0 for t in ts), name
    row = run.case_row(spec, shapes, times)
    assert all(v > 0 for v in row["median_s"].values())
    if "argmax" in extra:
        assert row["bytes"] > 0


def test_same_inputs_in_every_worker():
    spec = workers.case_spec("conv2d", "conv2d", TINY, "float64", True,
                             groups=1, kwargs={"padding": 1})
    a = workers.case_arrays(spec)
    b = workers.case_arrays(spec)
    assert [x.shape for x in a] == [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    other = workers.case_spec("conv2d stride 2", "conv2d", TINY, "float64",
                              True, kwargs={"padding": 1, "stride": 2})
    assert not np.array_equal(workers.case_arrays(other)[0], a[0])
    dy = workers.upstream(spec, (2, 4, 6, 6))
    assert dy.dtype == np.float64 and np.array_equal(
        dy, workers.upstream(spec, (2, 4, 6, 6)))


def test_a_worker_error_is_reported_not_hung(pool):
    w = pool.workers["numpy"]
    with pytest.raises(workers.WorkerError, match="unknown cmd"):
        w.ask({"cmd": "nonsense"})
    spec = workers.case_spec("bad", "conv2d", (2, 3, 4, 2), "float32", True,
                             kwargs={"padding": 0})  # 3x3 kernel on 2x2
    with pytest.raises(workers.WorkerError, match="ValueError"):
        w.ask({"cmd": "case", "spec": spec})
    assert w.ask({"cmd": "info"})["pid"] == w.info["pid"]  # still serving


def test_bad_kind_is_refused():
    with pytest.raises(ValueError, match="kind must be one of"):
        workers.case_spec("x", "conv3d", TINY, "float32", True)


def test_every_issue_case_is_in_the_full_run():
    cases = run.build_cases(list(run.SHAPES), [np.float32, np.float64])
    have = {(c["op"], c["shape"], c["dtype"]) for c in cases
            if c["pass_"] == "fwd+bwd"}
    assert run.ISSUE_CASES <= have
    issue = run.build_cases(list(run.SHAPES), [np.float32, np.float64],
                            run.ISSUE_CASES)
    assert {(c["op"], c["shape"], c["dtype"]) for c in issue} == run.ISSUE_CASES


def test_the_report_renders_from_worker_rows():
    spec = workers.case_spec("conv2d", "conv2d", TINY, "float32", True,
                             kwargs={"padding": 1}, shape="tiny", flops=1e6)
    times = {k: [0.001 * (i + 1)] for i, k in enumerate(run.CONTENDERS)}
    row = run.case_row(spec, {"y_shape": [2, 4, 6, 6],
                              "in_shapes": [[2, 3, 6, 6]]}, times)
    blas = [{"internal_api": "openblas", "num_threads": 1}]
    data = {
        "when": "now", "wall_s": 60.0, "cases": [row],
        "environment": {"python": "3", "numpy": "2", "numba": "0",
                        "numba_threads": 2, "numba_threading_layer": "omp",
                        "torch": "2", "cpu_count": 2,
                        "load_average_at_start": (1.0, 1.0, 1.0),
                        "blas": [{"internal_api": "openblas", "version": "0",
                                  "architecture": "x", "num_threads": 2}]},
        "gemm": {"float32": {"best": 1.0, "median": 1.0}},
        "bandwidth": {"best": 1.0, "median": 1.0},
        "workers": {k: {"numba_threads": 1, "blas": blas}
                    for k in run.CONTENDERS},
        "sampling": {"pause_s": 0.25, "prewarm": 1},
    }
    text = run.tables(data)
    assert "worker process of its own" in text
    assert "\n\n\n" not in text  # one blank line between blocks
    # numba 1 ms ÷ torch2 5 ms, numba1 2 ms ÷ torch1 4 ms
    assert "| 0.20 | 0.50 |" in text


def test_a_worker_that_cannot_start_leaves_none_behind(monkeypatch):
    started = []
    real = workers.Worker

    class Broken(real):
        def __init__(self, contender, env, warm_kernels=True):
            super().__init__(contender, env, warm_kernels)
            started.append(self)
            if contender == "torch1":  # dies before it is ready
                self.proc.kill()
                self.proc.wait()

    monkeypatch.setattr(workers, "Worker", Broken)
    with pytest.raises(workers.WorkerError, match="torch1 exited"):
        workers.Workers(("numpy", "torch1"), warm_kernels=False)
    assert [w.name for w in started] == ["numpy", "torch1"]
    assert all(w.proc.poll() is not None for w in started)
