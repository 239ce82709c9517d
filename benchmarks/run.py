"""convgrad's speed: Numba backend vs NumPy reference vs torch CPU (1 and 2 threads).

One command runs everything::

    python benchmarks/run.py            # full run
    python benchmarks/run.py --quick    # small and medium shapes only
    python benchmarks/run.py --bias 3   # issue 31: one process vs workers

The script re-executes itself once with ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` removed (this host sets them; a user's machine does not,
and with them OpenBLAS picks its half-speed Haswell kernel), as
``BENCHMARKING.md`` asks. Nothing else changes: no ``MALLOC_*`` allocator
variables (any found are dropped too), so the figures are those of the plain
process a user runs. The variables change for this command only, never for
tests or CI.

Each contender runs in a worker process of its own (``workers.py``: numba at
2 and 1 threads, the NumPy reference, torch at 1 and 2 threads, each count
fixed when the worker starts), since a user runs one library and calls
interleaved in one process steal the cores from each other (issue 31). The
workers are asked in turn (A B C D A B C D ...) with a pause between asks,
medians are reported, and ratios are taken at the same thread count.
Results go to ``benchmarks/results.json``, the tables between the GENERATED
markers of ``benchmarks/RESULTS.md`` and the plot ``benchmarks/results.png``.
The kernel-alone extras (col2im, the Python loop) run in this process;
start-up, peak memory and cache timings in short child processes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# workers.py imports only the standard library at its top
from workers import _DROP, plain_env  # noqa: E402

_CHILD_FLAG = "_CONVGRAD_BENCH_ENV"

__all__ = ["plain_env"]

if __name__ == "__main__" and os.environ.get(_CHILD_FLAG) != "1":
    env = plain_env()
    env[_CHILD_FLAG] = "1"
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

# ruff: noqa: E402  (the environment above must be fixed before numpy loads)
import argparse
import json
import platform
import shutil
import subprocess
import tempfile
import textwrap
import time
from collections.abc import Callable

import numpy as np
from workers import CONTENDERS as CONTENDERS_SPEC
from workers import Workers, case_key, case_spec, make_call

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# (name, N, C_in, C_out, H=W)
SHAPES = {
    "small": (8, 3, 16, 28),
    "medium": (32, 16, 32, 32),
    "large": (64, 64, 64, 56),
}
ROUNDS = {"small": 7, "medium": 15, "large": 5}
# numba1: the Numba backend with numba and BLAS at one thread; the order in
# which the workers are asked
CONTENDERS = ("numba", "numba1", "numpy", "torch1", "torch2")


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


def interleaved(
    fns: dict[str, Callable[[], object]], rounds: int, budget: float
) -> dict[str, list[float]]:
    """Time each function ``rounds`` times, in turn; one untimed call first.

    A contender whose single call exceeds ``budget`` seconds is run fewer
    times (at least 2), to keep the whole run near ten minutes.
    """
    times: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        fn()
    for r in range(rounds):
        for name, fn in fns.items():
            if r >= 2 and times[name] and np.median(times[name]) > budget:
                continue
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return times


# --------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------


def conv_flops(n, c_in, c_out, oh, ow, kh, kw, groups) -> float:
    return 2.0 * n * c_out * oh * ow * (c_in // groups) * kh * kw


# issue 16's and 31's cases (op, shape, dtype), all forward+backward:
# ``--issue``
ISSUE_CASES = {
    ("conv2d", "medium", "float32"),
    ("conv2d dilation 2", "medium", "float32"),
    ("conv2d groups 4", "medium", "float32"),
    ("conv2d stride 2", "medium", "float32"),
    ("conv_transpose2d", "medium", "float32"),
    ("conv2d", "large", "float32"),
    ("conv2d", "medium", "float64"),
    ("conv2d", "large", "float64"),
    ("max_pool2d k3s2", "large", "float32"),
    ("avg_pool2d k2s2", "large", "float32"),
    ("avg_pool2d k3s2", "large", "float32"),
}


def build_cases(
    shapes: list[str], dtypes: list[type], only: set | None = None
) -> list[dict]:
    """Every (op, shape, dtype) case as a spec for the workers
    (``workers.case_spec``); ``only``: the forward+backward cases named
    there."""
    cases = []

    def add(op, shape, dtype, kind, backward, **kw):
        name = np.dtype(dtype).name
        if only is not None and (not backward or (op, shape, name) not in only):
            return
        cases.append(case_spec(op, kind, SHAPES[shape], name, backward,
                               shape=shape, **kw))

    for shape in shapes:
        n, ci, co, hw = SHAPES[shape]
        for dtype in dtypes:
            fl = conv_flops(n, ci, co, hw, hw, 3, 3, 1)
            pad1 = {"padding": 1}
            add("conv2d", shape, dtype, "conv2d", False, kwargs=pad1, flops=fl)
            add("conv2d", shape, dtype, "conv2d", True, kwargs=pad1,
                flops=3 * fl)
            if shape == "medium":
                for label, kw, g in [
                    ("conv2d stride 2", {"stride": 2, "padding": 1}, 1),
                    ("conv2d dilation 2", {"dilation": 2, "padding": 2}, 1),
                    ("conv2d groups 4", {"groups": 4, "padding": 1}, 4),
                ]:
                    oh = (hw + 2 * kw["padding"] - kw.get("dilation", 1) * 2
                          - 1) // kw.get("stride", 1) + 1
                    add(label, shape, dtype, "conv2d", True, kwargs=kw,
                        groups=g,
                        flops=3 * conv_flops(n, ci, co, oh, oh, 3, 3, g))
            # the transposed conv of the same layer: C_out -> C_in channels
            add("conv_transpose2d", shape, dtype, "conv_transpose2d", True,
                kwargs=pad1, flops=3 * fl)
            # pooling runs on the conv's output, (N, C_out, H, W)
            for label, args in [
                ("max_pool2d k2s2", (2, 2, 0)),
                ("max_pool2d k3s2", (3, 2, 1)),
            ]:
                add(label, shape, dtype, "max_pool2d", True, args=args,
                    argmax=True)
            add("avg_pool2d k2s2", shape, dtype, "avg_pool2d", True,
                args=(2, 2), argmax=False)
            add("avg_pool2d k3s2", shape, dtype, "avg_pool2d", True,
                args=(3, 2, 1), argmax=False)
            add("unfold", shape, dtype, "unfold", False, args=(3,),
                kwargs=pad1)
            add("fold", shape, dtype, "fold", False, args=(hw, 3), kwargs=pad1)
    return cases


def run_cases(cases: list[dict], log, pause: float = 0.25,
              prewarm: int = 2, reps: int = 5) -> tuple[list[dict], dict]:
    """Each case timed in the contenders' worker processes; the rows and
    the workers' own reports (threads, BLAS)."""
    rows = []
    with Workers(CONTENDERS) as pool:
        for i, spec in enumerate(cases, 1):
            shapes = pool.setup(spec)
            times = pool.sample(ROUNDS[spec["shape"]], budget=4.0, pause=pause,
                                prewarm=prewarm, reps=reps)
            rows.append(case_row(spec, shapes, times))
            log(
                f"[{i:3d}/{len(cases)}] {spec['op']:<18} {spec['pass_']:<7} "
                f"{spec['shape']:<6} {spec['dtype']:<7} "
                + "  ".join(f"{k} {v * 1e3:9.2f} ms"
                            for k, v in rows[-1]["median_s"].items())
            )
        # asked after the calls: numba's threading layer is known by now
        info = {k: w.ask({"cmd": "info"}) for k, w in pool.workers.items()}
    info["exit_codes"] = pool.exit_codes
    return rows, info


def case_row(spec: dict, shapes: dict, times: dict[str, list[float]]) -> dict:
    """A case's row of results.json: medians, sample counts, rates."""
    med = {k: float(np.median(v)) for k, v in times.items()}
    counts = {k: len(v) for k, v in times.items()}
    row = {**spec, "y_shape": shapes["y_shape"],
           "in_shapes": shapes["in_shapes"], "median_s": med,
           "samples": counts}
    if "flops" in spec:
        row["gflops"] = {k: spec["flops"] / v / 1e9 for k, v in med.items()}
    if "argmax" in spec:
        item = np.dtype(spec["dtype"]).itemsize
        x_el = int(np.prod(shapes["in_shapes"][0]))
        y_el = int(np.prod(shapes["y_shape"]))
        nbytes = 2 * (x_el + y_el) * item + (16 * y_el if spec["argmax"] else 0)
        row["bytes"] = nbytes
        row["gbps"] = {k: nbytes / v / 1e9 for k, v in med.items()}
    return row


# --------------------------------------------------------------------------
# the bias of one process (issue 31)
# --------------------------------------------------------------------------


def in_process(spec: dict, rounds: int, pause: float = 0.0,
               prewarm: int = 0, reps: int = 1) -> dict:
    """The old way: every contender's call in this one process, sampled in
    turn (numba, numba 1t, torch 2t, torch 1t; the NumPy reference apart,
    after), thread counts set around each call; ``pause`` seconds and
    ``prewarm`` untimed calls before each sample, the median of ``reps``
    timed calls (the workers' way)."""
    import numba
    import torch
    from threadpoolctl import ThreadpoolController

    blas = ThreadpoolController()
    calls = {}
    for name in ("numba", "numba1", "torch2", "torch1", "numpy"):
        library, backend, threads = CONTENDERS_SPEC[name]
        call = make_call(spec, library, backend)[0]
        if library == "torch":
            def run(call=call, threads=threads):
                if torch.get_num_threads() != threads:
                    torch.set_num_threads(threads)
                call()
        elif threads == 1:
            def run(call=call):
                with blas.limit(limits=1):
                    numba.set_num_threads(1)
                    try:
                        call()
                    finally:
                        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        else:
            run = call
        calls[name] = run

    def turns(fns):
        for fn in fns.values():
            fn()
            fn()
        times = {k: [] for k in fns}
        for _ in range(rounds):
            for k, fn in fns.items():
                time.sleep(pause)
                for _ in range(prewarm):
                    fn()
                ts = []
                for _ in range(reps):
                    t = time.perf_counter()
                    fn()
                    ts.append(time.perf_counter() - t)
                times[k].append(float(np.median(ts)))
        return times

    ref = {"numpy": calls.pop("numpy")}
    times = turns(calls)
    times.update(turns(ref))
    return times


def bias_check(runs: int, log, rounds: int = 15) -> list[dict]:
    """The medium float32 conv2d fwd+bwd, ``runs`` times each way: in this
    one process as run.py sampled before issue 31 (in turn, no pause); in
    this process sampled as the workers are (a 0.25 s pause, two untimed
    calls, the median of five timed ones); in the worker processes."""
    spec = case_spec("conv2d", "conv2d", SHAPES["medium"], "float32", True,
                     kwargs={"padding": 1}, shape="medium")
    out = []
    with Workers(CONTENDERS) as pool:
        for r in range(runs):
            ways = {
                "one process, no pause": lambda: in_process(spec, rounds),
                "one process, as workers": lambda: in_process(
                    spec, rounds, 0.25, prewarm=2, reps=5),
                "workers": lambda: (pool.setup(spec),
                                    pool.sample(rounds))[1],
            }
            for way, fn in ways.items():
                load = os.getloadavg()[0]
                med = {k: float(np.median(v)) for k, v in fn().items()}
                row = {"run": r + 1, "way": way, "load": load, "median_s": med,
                       "2t": med["numba"] / med["torch2"],
                       "1t": med["numba1"] / med["torch1"]}
                out.append(row)
                log(f"run {r + 1} {way:<26} load {load:4.1f}  numba÷torch "
                    f"2t {row['2t']:.2f}  1t {row['1t']:.2f}  ("
                    + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in med.items())
                    + " ms)")
    return out


# --------------------------------------------------------------------------
# extra measurements
# --------------------------------------------------------------------------


def gemm_peak(log) -> dict:
    """Best and median GFLOP/s of a square numpy matmul, per dtype."""
    out = {}
    for dtype in (np.float32, np.float64):
        a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(dtype)
        c = np.empty_like(a)
        ts = []
        for _ in range(7):
            t = time.perf_counter()
            np.matmul(a, a, out=c)
            ts.append(time.perf_counter() - t)
        fl = 2 * 2048**3
        out[np.dtype(dtype).name] = {
            "best": fl / min(ts) / 1e9, "median": fl / float(np.median(ts)) / 1e9
        }
        log(f"GEMM 2048^2 {np.dtype(dtype).name}: best {out[np.dtype(dtype).name]}")
    return out


def copy_bandwidth(log) -> dict:
    """GB/s of a plain 64 MB array copy (read + write): the memory ceiling."""
    a = np.ones(8 << 20)
    b = np.empty_like(a)
    ts = []
    for _ in range(9):
        t = time.perf_counter()
        np.copyto(b, a)
        ts.append(time.perf_counter() - t)
    res = {"best": 2 * a.nbytes / min(ts) / 1e9,
           "median": 2 * a.nbytes / float(np.median(ts)) / 1e9}
    log(f"copy bandwidth: {res}")
    return res


def python_loop_maxpool_backward(log) -> dict:
    """Max-pool backward: the Numba kernel vs a per-element Python loop."""
    from convgrad import kernels as K
    from convgrad.geometry import pool_window

    n, _, co, hw = SHAPES["small"]
    x = np.random.default_rng(1).standard_normal((n, co, hw, hw))
    win = pool_window(x.shape, 2, 2, 0, 1, False)
    y = np.empty((n, co, *win.out))
    argmax = np.empty(y.shape, np.int64)
    K.maxpool2d_forward(x, *win.args, y, argmax)
    dy = np.random.default_rng(2).standard_normal(y.shape)

    def loop():
        dx = np.zeros_like(x)
        width = x.shape[3]
        for a in range(n):
            for c in range(co):
                for i in range(y.shape[2]):
                    for j in range(y.shape[3]):
                        k = argmax[a, c, i, j]
                        dx[a, c, k // width, k % width] += dy[a, c, i, j]
        return dx

    def kernel():
        dx = np.zeros_like(x)
        K.maxpool2d_backward(dy, argmax, dx)
        return dx

    assert np.allclose(loop(), kernel())
    times = interleaved({"numba": kernel, "python loop": loop}, 5, budget=30)
    med = {k: float(np.median(v)) for k, v in times.items()}
    med["ratio"] = med["python loop"] / med["numba"]
    log(f"max-pool backward vs Python loop: {med}")
    return med


def col2im_alone(log) -> list[dict]:
    """The col2im kernel alone (zeroed output included), Numba vs NumPy."""
    from convgrad import kernels as K
    from convgrad import reference as R
    from convgrad.geometry import window

    rows = []
    for shape in ("small", "medium"):
        n, ci, _, hw = SHAPES[shape]
        for dtype in (np.float32, np.float64):
            win = window((hw, hw), 3, 1, 1, 1)
            col = np.random.default_rng(3).standard_normal(
                (n, ci, 3, 3, hw, hw)).astype(dtype)

            def run(fn, col=col, n=n, ci=ci, hw=hw, win=win):
                def f():
                    x = np.zeros((n, ci, hw, hw), col.dtype)
                    fn(col, *win.args, x)
                return f

            times = interleaved(
                {"numba": run(K.col2im), "numpy": run(R.col2im)}, 7, budget=10
            )
            med = {k: float(np.median(v)) for k, v in times.items()}
            rows.append({"shape": shape, "dtype": np.dtype(dtype).name, **med,
                         "speedup": med["numpy"] / med["numba"]})
            log(f"col2im alone {shape} {np.dtype(dtype).name}: {rows[-1]}")
    return rows


_FIRST_CONV = textwrap.dedent(
    """
    import time
    import numpy as np
    import convgrad as cg
    from convgrad import functional as F
    x = cg.Tensor(np.ones((8, 3, 28, 28), np.float32), requires_grad=True)
    w = cg.Tensor(np.ones((16, 3, 3, 3), np.float32), requires_grad=True)
    F.conv2d(x, w, padding=1).sum().backward()
    print(time.time(), flush=True)  # the result is there: the learner's wait ends
    """
)


def fresh_process(log, repeats: int = 3) -> dict:
    """Launch → first conv fwd+bwd, with the kernel cache warm and cold.

    Timed from the launch to the moment the child has its result (the
    child prints the wall clock then), not to its exit: a learner does not
    wait for the interpreter to tear down, and that teardown (numba's,
    llvmlite's and scipy's modules) took 0.35-0.4 s of a 1.9 s launch-to-exit
    on the build box (benchmarks/RESULTS.md, issue 31, session 12). The
    launch-to-exit time is kept as ``exit_s``."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",)}
    subprocess.run([sys.executable, "-m", "convgrad.warmup", "-j", "1",
                    "im2col", "col2im", "im2row", "row2im"], env=env, check=True,
                   capture_output=True)
    out: dict[str, list[float]] = {"warm": [], "cold": []}
    at_exit: dict[str, list[float]] = {"warm": [], "cold": []}
    for _ in range(repeats):
        for kind in ("warm", "cold"):
            e = dict(env)
            tmp = None
            if kind == "cold":
                tmp = tempfile.mkdtemp(prefix="convgrad-cold-")
                e["NUMBA_CACHE_DIR"] = tmp
            t, wall = time.perf_counter(), time.time()
            done = subprocess.run([sys.executable, "-c", _FIRST_CONV], env=e,
                                  check=True, capture_output=True, text=True)
            at_exit[kind].append(time.perf_counter() - t)
            out[kind].append(float(done.stdout.split()[-1]) - wall)
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    med = {k: float(np.median(v)) for k, v in out.items()}
    ex = {k: float(np.median(v)) for k, v in at_exit.items()}
    log(f"fresh process -> first conv fwd+bwd: {med} (all: {out}); to exit: {ex}")
    return {"median_s": med, "all_s": out, "exit_s": ex}


_PEAK_RSS = textwrap.dedent(
    """
    import json, sys
    import numpy as np

    def hwm():  # peak resident set so far, MB
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024

    who = sys.argv[1]
    n, c, hw = 64, 64, 56
    rng = np.random.default_rng(0)
    if who == "torch":
        import torch
        F = torch.nn.functional
        T = lambda a, g: torch.from_numpy(a).requires_grad_(g)
        small = [T(np.ones((2, 3, 8, 8), np.float32), True),
                 T(np.ones((4, 3, 3, 3), np.float32), True)]
    else:
        import convgrad as cg
        from convgrad import functional as F
        T = lambda a, g: cg.Tensor(a, requires_grad=g)
        small = [T(np.ones((2, 3, 8, 8), np.float32), True),
                 T(np.ones((4, 3, 3, 3), np.float32), True)]
    F.conv2d(*small, padding=1).sum().backward()  # the kernels load
    # made in float32 directly: a float64 draw cast down would leave a
    # 100 MB transient in the high-water mark, under which y and dx hide
    x = rng.standard_normal((n, c, hw, hw), dtype=np.float32)
    w = rng.standard_normal((c, c, 3, 3), dtype=np.float32) / 10
    dy = rng.standard_normal((n, c, hw, hw), dtype=np.float32)
    tx, tw = T(x, True), T(w, True)
    tdy = torch.from_numpy(dy) if who == "torch" else dy
    base = hwm()
    F.conv2d(tx, tw, padding=1).backward(tdy)
    print(json.dumps({"growth_mb": hwm() - base, "base_mb": base,
                      "inputs_mb": (x.nbytes + dy.nbytes + w.nbytes) / 2**20}))
    """
)


def peak_memory(log, repeats: int = 3) -> dict:
    """Growth of peak RSS over one large float32 conv2d fwd+bwd, in a fresh
    process each time (kernels loaded and inputs made first), ours vs torch,
    sampled in turn."""
    per: dict[str, list[dict]] = {"convgrad": [], "torch": []}
    for _ in range(repeats):
        for who in per:
            done = subprocess.run([sys.executable, "-c", _PEAK_RSS, who],
                                  env=dict(os.environ), check=True,
                                  capture_output=True, text=True)
            per[who].append(json.loads(done.stdout.strip().splitlines()[-1]))
    res = {who: {"growth_mb": float(np.median([r["growth_mb"] for r in rs])),
                 "all_mb": [round(r["growth_mb"]) for r in rs]}
           for who, rs in per.items()}
    res["inputs_mb"] = per["torch"][0]["inputs_mb"]
    res["ratio"] = res["convgrad"]["growth_mb"] / res["torch"]["growth_mb"]
    log(f"peak RSS growth, large conv2d fwd+bwd float32: {res}")
    return res


def cold_warmup(log) -> dict:
    """``python -m convgrad.warmup`` against an empty cache, 1 and 2 jobs."""
    res = {}
    for jobs in (2,):
        tmp = tempfile.mkdtemp(prefix="convgrad-warmup-")
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "convgrad.warmup", "-j",
                               str(jobs)], env=env, check=True, capture_output=True,
                              text=True)
        res[f"jobs{jobs}"] = {"wall_s": time.perf_counter() - t,
                              "report": done.stdout.strip().splitlines()[-1]}
        shutil.rmtree(tmp, ignore_errors=True)
        log(f"cold warm-up, {jobs} job(s): {res[f'jobs{jobs}']}")
    return res


_CPU_PROBE = textwrap.dedent(
    """
    import json, time, numpy as np
    from convgrad import kernels as K
    from convgrad.geometry import pool_window, window
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 32, 32, 32)).astype(np.float32)
    win = window((32, 32), 3, 1, 1, 1)
    col = np.empty((32, 32, 3, 3, 32, 32), np.float32)
    pw = pool_window(x.shape, 3, 2, 1, 1, False)
    y = np.empty((32, 32, *pw.out), np.float32)
    am = np.empty(y.shape, np.int64)
    # serial builds: the code LLVM generates, without thread wake-up noise
    jobs = {
        "im2col": lambda: K.im2col.serial(x, *win.args, col),
        "col2im": lambda: K.col2im.serial(col, *win.args, np.zeros_like(x)),
        "maxpool fwd": lambda: K.maxpool2d_forward.serial(x, *pw.args, y, am),
        "maxpool bwd": lambda: K.maxpool2d_backward.serial(y, am, np.zeros_like(x)),
        "avgpool fwd": lambda: K.avgpool2d_forward.serial(
            x, *pw.args[:6], True, 0, y),
    }
    out = {}
    for name, f in jobs.items():
        f()
        ts = []
        for _ in range(15):
            t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
        out[name] = float(np.median(ts))
    print(json.dumps(out))
    """
)


def generic_cpu_cost(log, repeats: int = 3) -> dict:
    """Kernel speed with ``NUMBA_CPU_NAME=generic`` vs the host CPU name.

    Each setting keeps its own cache directory under ~/.cache so reruns do
    not recompile; child processes alternate host, generic, host, ...
    """
    base = Path.home() / ".cache" / "convgrad-bench"
    per: dict[str, list[dict]] = {"host": [], "generic": []}
    for _ in range(repeats):
        for kind in ("host", "generic"):
            env = dict(os.environ, NUMBA_CACHE_DIR=str(base / kind))
            env.pop("NUMBA_CPU_NAME", None)
            if kind == "generic":
                env["NUMBA_CPU_NAME"] = "generic"
            done = subprocess.run([sys.executable, "-c", _CPU_PROBE], env=env,
                                  check=True, capture_output=True, text=True)
            per[kind].append(json.loads(done.stdout.strip().splitlines()[-1]))
    res = {}
    for name in per["host"][0]:
        h = float(np.median([r[name] for r in per["host"]]))
        g = float(np.median([r[name] for r in per["generic"]]))
        res[name] = {"host_ms": h * 1e3, "generic_ms": g * 1e3, "generic/host": g / h}
    log(f"NUMBA_CPU_NAME=generic cost: {res}")
    return res


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def environment() -> dict:
    import numba
    import torch
    from threadpoolctl import threadpool_info

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "torch": torch.__version__,
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numba_threading_layer": _threading_layer(),
        "blas": [
            {k: d.get(k) for k in ("internal_api", "version", "architecture",
                                    "num_threads")}
            for d in threadpool_info()
        ],
        "load_average_at_start": os.getloadavg(),
        "env": {k: os.environ.get(k) for k in (*_DROP, "NUMBA_CPU_NAME")},
        "malloc_vars": sorted(k for k in os.environ if k.startswith("MALLOC_")),
    }


def _threading_layer() -> str:
    import numba

    try:
        return numba.threading_layer()
    except ValueError:
        return "not initialised"


def _fmt_ms(s: float) -> str:
    return f"{s * 1e3:.2f}" if s < 10 else f"{s * 1e3:.0f}"


def tables(data: dict) -> str:
    """The generated part of RESULTS.md."""
    env = data["environment"]
    lines = [
        f"Run: {data['when']}, {data['wall_s'] / 60:.1f} min. Python {env['python']}, "
        f"numpy {env['numpy']}, numba {env['numba']} "
        f"({env['numba_threads']} threads, layer {env['numba_threading_layer']}), "
        f"torch {env['torch']}, {env['cpu_count']} CPUs, load average at start "
        f"{', '.join(f'{v:.1f}' for v in env['load_average_at_start'])}.",
        "",
        "BLAS (threadpoolctl): "
        + "; ".join(f"{b['internal_api']} {b['version']} {b['architecture']} "
                    f"{b['num_threads']} threads" for b in env["blas"]),
        "",
        "GEMM peak (numpy 2048² matmul, 2 threads): "
        + ", ".join(f"{k} best {v['best']:.1f} / median {v['median']:.1f} GFLOP/s"
                    for k, v in data["gemm"].items()),
        "",
        "Memory copy bandwidth (np.copyto, 64 MB, read+write): "
        f"best {data['bandwidth']['best']:.1f} / median "
        f"{data['bandwidth']['median']:.1f} GB/s",
        "",
        "### Every case",
        "",
        "Median ms. `numba` = Numba backend, 2 threads (numba + BLAS); `numba 1t` "
        "= the same limited to 1 thread; ratios compare equal thread counts "
        "(numba÷torch2 at 2 threads, numba1t÷torch1 at 1 thread).",
        "",
        *_sampling_note(data),
        "",
        "| op | pass | shape | dtype | numba | numba 1t | numpy ref | torch 1t "
        "| torch 2t | numba÷torch2 | numba1t÷torch1 | numpy÷numba "
        "| numba GFLOP/s or GB/s |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in data["cases"]:
        m = r["median_s"]
        if "gflops" in r:
            rate = f"{r['gflops']['numba']:.1f} GFLOP/s"
        elif "gbps" in r:
            rate = f"{r['gbps']['numba']:.2f} GB/s"
        else:
            rate = ""
        lines.append(
            f"| {r['op']} | {r['pass_']} | {r['shape']} | {r['dtype']} | "
            f"{_fmt_ms(m['numba'])} | {_fmt_ms(m['numba1'])} | "
            f"{_fmt_ms(m['numpy'])} | "
            f"{_fmt_ms(m['torch1'])} | {_fmt_ms(m['torch2'])} | "
            f"{m['numba'] / m['torch2']:.2f} | {m['numba1'] / m['torch1']:.2f} | "
            f"{m['numpy'] / m['numba']:.2f} | {rate} |"
        )
    if "col2im" in data:
        lines += ["", "### col2im kernel alone (zeroing included)", "",
                  "| shape | dtype | numba ms | numpy ms | speed-up |",
                  "|---|---|---:|---:|---:|"]
        for r in data["col2im"]:
            lines.append(f"| {r['shape']} | {r['dtype']} | {_fmt_ms(r['numba'])} | "
                         f"{_fmt_ms(r['numpy'])} | {r['speedup']:.1f}× |")
    if "python_loop" in data:
        p = data["python_loop"]
        lines += ["", f"Max-pool backward, small shape, float64: Numba "
                  f"{p['numba'] * 1e3:.3f} ms, per-element Python loop "
                  f"{p['python loop'] * 1e3:.1f} ms: **{p['ratio']:.0f}×**."]
    if "fresh" in data:
        f = data["fresh"]
        lines += ["", "Fresh process → first conv2d forward+backward (small, float32), "
                  f"launch to result: warm cache **{f['median_s']['warm']:.2f} s**, "
                  f"cold cache {f['median_s']['cold']:.2f} s (medians of "
                  f"{len(f['all_s']['warm'])}"
                  + (f"; to the process's exit {f['exit_s']['warm']:.2f} / "
                     f"{f['exit_s']['cold']:.2f} s" if "exit_s" in f else "")
                  + ")."]
    if "peak" in data:
        m = data["peak"]
        lines += ["", "Peak memory, one large conv2d forward+backward (float32, "
                  "N=64 64→64 56×56), growth of peak RSS in a fresh process after "
                  f"the kernels load and the inputs ({m['inputs_mb']:.0f} MB) are "
                  f"made: convgrad **{m['convgrad']['growth_mb']:.0f} MB**, torch "
                  f"{m['torch']['growth_mb']:.0f} MB: **{m['ratio']:.2f}×** "
                  f"(medians of {len(m['torch']['all_mb'])}; all: "
                  f"{m['convgrad']['all_mb']} / {m['torch']['all_mb']})."]
    if "warmup" in data:
        lines += ["", "Cold `python -m convgrad.warmup` (every kernel, f32+f64, "
                  "serial+parallel builds): "
                  + "; ".join(f"{k}: wall {v['wall_s']:.1f} s — `{v['report']}`"
                              for k, v in data["warmup"].items())]
    if "generic" in data:
        lines += ["", "### NUMBA_CPU_NAME=generic vs host (serial kernels, medium, "
                  "float32, median ms over child processes)", "",
                  "| kernel | host | generic | generic ÷ host |",
                  "|---|---:|---:|---:|"]
        for k, v in data["generic"].items():
            lines.append(f"| {k} | {v['host_ms']:.2f} | {v['generic_ms']:.2f} | "
                         f"{v['generic/host']:.2f} |")
    return "\n".join(lines)


def _sampling_note(data: dict) -> list[str]:
    """How the cases were sampled: the workers and their threads."""
    if "workers" not in data:  # a results.json from before the workers
        return ["Every contender in this one process, sampled in turn."]
    smp = data.get("sampling", {})
    parts = []
    for name in CONTENDERS:
        info = data["workers"].get(name, {})
        threads = info.get("numba_threads", info.get("torch_threads"))
        blas = "/".join(str(b["num_threads"]) for b in info.get("blas", [])
                        if b["internal_api"] == "openblas")
        parts.append(f"{name} {threads} (BLAS {blas})")
    return [
        "Each contender in a worker process of its own (`workers.py`), asked "
        f"in turn with a {smp.get('pause_s', 0.25)} s pause before each ask; "
        f"a sample is the median of {smp.get('reps', 1)} timed calls after "
        f"{smp.get('prewarm', 1)} untimed ones (calls over 50 ms: 1 after 1). "
        "Threads per worker: " + ", ".join(parts) + ".",
    ]


def write_results_md(text: str) -> None:
    path = HERE / "RESULTS.md"
    begin = "<!-- BEGIN GENERATED (benchmarks/run.py) -->"
    end = "<!-- END GENERATED -->"
    fresh = f"# Benchmark results\n\n{begin}\n{end}\n"
    old = path.read_text() if path.exists() else fresh
    if begin not in old:
        old += f"\n{begin}\n{end}\n"
    head, rest = old.split(begin, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(f"{head}{begin}\n{text}\n{end}{tail}")


def plot(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in data["cases"] if r["pass_"] == "fwd+bwd"
            or r["op"] in ("unfold", "fold")]
    labels = [f"{r['op']} {r['pass_']} {r['shape']} {r['dtype']}" for r in rows]
    med = [r["median_s"] for r in rows]
    vs_t2 = [m["numba"] / m["torch2"] for m in med]
    vs_t1 = [m["numba1"] / m["torch1"] for m in med]
    vs_ref = [m["numpy"] / m["numba"] for m in med]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 0.3 * len(rows) + 1.5),
                                 sharey=True)
    ypos = np.arange(len(rows))
    a1.barh(ypos - 0.2, vs_t1, height=0.4, color="tab:blue",
            label="1 thread: numba ÷ torch")
    a1.barh(ypos + 0.2, vs_t2, height=0.4, color="tab:orange",
            label="2 threads: numba ÷ torch")
    a1.axvline(1, color="k", lw=1)
    a1.axvline(1.5, color="k", lw=1, ls="--")
    a1.set_xscale("log")
    a1.set_xlim(0.05, 20)
    a1.set_xlabel("time ÷ torch at the same thread count (< 1: faster; "
                  "dashed: 1.5)")
    a1.legend(loc="lower right", fontsize=8)
    a1.set_yticks(ypos, labels, fontsize=7)
    a1.invert_yaxis()
    a2.barh(ypos, vs_ref, color="tab:green")
    a2.axvline(1, color="k", lw=1)
    a2.set_xscale("log")
    a2.set_xlabel("speed-up of Numba over the NumPy reference")
    fig.suptitle(f"convgrad benchmarks ({data['when']}; shared, noisy 2-core machine)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small and medium shapes only, skip child-process timings")
    parser.add_argument("--issue", action="store_true",
                        help="issue 16's and 31's forward+backward cases, "
                             "first-conv time and peak memory only")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; do not touch RESULTS.md/json/png")
    parser.add_argument("--plot-only", action="store_true",
                        help="redraw results.png from results.json and stop")
    parser.add_argument("--bias", type=int, metavar="RUNS", default=0,
                        help="only time the medium float32 conv2d RUNS times "
                             "in one process and in worker processes (issue "
                             "31), print, and stop")
    parser.add_argument("--only", metavar="TEXT", default=None,
                        help="only the cases whose 'op pass shape dtype' "
                             "contains TEXT, e.g. 'dilation 2 fwd+bwd medium'")
    parser.add_argument("--pause", type=float, default=0.25,
                        help="seconds between two asks of the workers")
    parser.add_argument("--prewarm", type=int, default=2,
                        help="untimed calls a worker makes before each sample")
    parser.add_argument("--reps", type=int, default=5,
                        help="timed calls in a sample (its median), for calls "
                             "under 50 ms; longer ones take 1 after 1 untimed")
    ns = parser.parse_args(argv)
    if ns.plot_only:
        plot(json.loads((HERE / "results.json").read_text()), HERE / "results.png")
        return 0
    if ns.bias:
        import convgrad.warmup

        convgrad.warmup.warm_up(jobs=1, print_fn=lambda s: None)
        print(f"load average at start: {os.getloadavg()}", flush=True)
        rows = bias_check(ns.bias, lambda s: print(s, flush=True))
        print(json.dumps(rows, indent=1))
        return 0
    t_start = time.perf_counter()
    log = lambda s: print(s, flush=True)  # noqa: E731
    data: dict = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    import torch  # noqa: F401  (import cost kept out of the timings)

    import convgrad.warmup

    convgrad.warmup.warm_up(jobs=1, print_fn=lambda s: None)
    data["environment"] = environment()
    log(json.dumps(data["environment"], indent=1))
    data["gemm"] = gemm_peak(log)
    data["bandwidth"] = copy_bandwidth(log)
    shapes = ["small", "medium"] if ns.quick else list(SHAPES)
    only = ISSUE_CASES if ns.issue else None
    cases = build_cases(shapes, [np.float32, np.float64], only)
    if ns.only:
        cases = [c for c in cases if ns.only in case_key(c)]
    data["cases"], data["workers"] = run_cases(cases, log, pause=ns.pause,
                                               prewarm=ns.prewarm, reps=ns.reps)
    data["sampling"] = {"pause_s": ns.pause, "prewarm": ns.prewarm,
                        "reps": ns.reps}
    data["environment"]["numba_threading_layer"] = data["workers"]["numba"].get(
        "numba_threading_layer", _threading_layer())
    if ns.only:  # the cases alone
        pass
    elif ns.issue:
        data["fresh"] = fresh_process(log)
        data["peak"] = peak_memory(log)
    else:
        data["col2im"] = col2im_alone(log)
        data["python_loop"] = python_loop_maxpool_backward(log)
    if not (ns.quick or ns.issue or ns.only):
        data["peak"] = peak_memory(log)
        data["fresh"] = fresh_process(log)
        data["generic"] = generic_cpu_cost(log)
        data["warmup"] = cold_warmup(log)
    data["wall_s"] = time.perf_counter() - t_start
    text = tables(data)
    print(text)
    if not ns.no_write:
        for r in data["cases"]:
            r["in_shapes"] = [list(s) for s in r["in_shapes"]]
        (HERE / "results.json").write_text(json.dumps(data, indent=1, default=str))
        write_results_md(text)
        plot(data, HERE / "results.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
