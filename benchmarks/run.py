"""convgrad's speed: Numba backend vs NumPy reference vs torch CPU (1 and 2 threads).

One command runs everything in one process (plus a few short child processes
for start-up and cache timings)::

    python benchmarks/run.py            # full run, about 10 minutes
    python benchmarks/run.py --quick    # small and medium shapes only

The script re-executes itself once with ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` removed (this host sets them; a user's machine does not,
and with them OpenBLAS picks its half-speed Haswell kernel), as
``BENCHMARKING.md`` asks. Nothing else changes: no ``MALLOC_*`` allocator
variables (any found are dropped too), so the figures are those of the plain
process a user runs. The variables change for this command only, never for
tests or CI.

Contenders are sampled in turn (A B C D A B C D ...), medians are reported,
and ratios are taken within this one process. Results go to
``benchmarks/results.json``, the tables between the GENERATED markers of
``benchmarks/RESULTS.md`` and the plot ``benchmarks/results.png``.
"""

from __future__ import annotations

import os
import sys

_CHILD_FLAG = "_CONVGRAD_BENCH_ENV"
_DROP = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def plain_env(environ=os.environ) -> dict[str, str]:
    """A user's environment: this host's OPENBLAS_* and any MALLOC_* removed."""
    return {k: v for k, v in environ.items()
            if k not in _DROP and not k.startswith("MALLOC_")}


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
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# (name, N, C_in, C_out, H=W)
SHAPES = {
    "small": (8, 3, 16, 28),
    "medium": (32, 16, 32, 32),
    "large": (64, 64, 64, 56),
}
ROUNDS = {"small": 7, "medium": 15, "large": 5}
# numba1: the Numba backend with numba and BLAS limited to one thread
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


def _torch_threads(torch, n: int) -> None:
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


# --------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------


def conv_flops(n, c_in, c_out, oh, ow, kh, kw, groups) -> float:
    return 2.0 * n * c_out * oh * ow * (c_in // groups) * kh * kw


# issue 16's cases (op, shape, dtype), all forward+backward: ``--issue``
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
    """Every (op, shape, dtype) case with its contenders (``only``: the
    forward+backward cases named there)."""
    import torch
    import torch.nn.functional as TF

    import convgrad as cg
    from convgrad import functional as F

    rng = np.random.default_rng(0)
    cases = []

    import numba
    from threadpoolctl import ThreadpoolController

    blas = ThreadpoolController()  # scanned once: limiting is then cheap

    def ours(backend, fn, arrays, dy, threads=None):
        def run():
            if threads is not None:
                with blas.limit(limits=threads):
                    numba.set_num_threads(threads)
                    try:
                        return ours(backend, fn, arrays, dy)()
                    finally:
                        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
            with cg.use_backend(backend):
                # from_numpy shares the arrays, as torch.from_numpy does on the
                # torch side (Tensor() copies, as torch.tensor does)
                ts = [cg.from_numpy(a).requires_grad_(dy is not None)
                      for a in arrays]
                y = fn(*ts)
                if dy is not None:
                    y.backward(dy)
        return run

    def theirs(threads, fn, arrays, dy):
        tx = [torch.from_numpy(a) for a in arrays]
        tdy = None if dy is None else torch.from_numpy(dy)

        def run():
            _torch_threads(torch, threads)
            ts = [t.detach().requires_grad_(tdy is not None) for t in tx]
            y = fn(*ts)
            if tdy is not None:
                y.backward(tdy)
        return run

    def add(op, shape, dtype, our_fn, torch_fn, arrays, backward, **info):
        if only is not None and (
            not backward or (op, shape, np.dtype(dtype).name) not in only
        ):
            return
        with cg.no_grad():
            y = our_fn(*[cg.from_numpy(a) for a in arrays])
        dy = rng.standard_normal(y.shape).astype(dtype) if backward else None
        # sampled in this order (the NumPy reference apart, run_cases):
        # torch's 2-thread call leaves its OpenMP threads spinning on both
        # cores for a moment, and whoever comes next pays; torch's 1-thread
        # call barely notices, so it goes next (the medium conv2d at 2
        # threads: 15.0 ms right after torch's 2-thread call, 12.1-12.6 ms
        # with torch not run; a pause instead let this VM's cores idle
        # down, and torch's 2-thread call took 64-75 ms after one of 10 ms)
        fns = {
            "numba": ours("numba", our_fn, arrays, dy),
            "numba1": ours("numba", our_fn, arrays, dy, threads=1),
            "numpy": ours("numpy", our_fn, arrays, dy),
            "torch2": theirs(2, torch_fn, arrays, dy),
            "torch1": theirs(1, torch_fn, arrays, dy),
        }
        pass_ = "fwd+bwd" if backward else "fwd"
        cases.append(
            dict(op=op, pass_=pass_, shape=shape, dtype=np.dtype(dtype).name,
                 fns=fns, y_shape=tuple(y.shape), in_shapes=[a.shape for a in arrays],
                 **info)
        )

    for shape in shapes:
        n, ci, co, hw = SHAPES[shape]
        for dtype in dtypes:
            x = rng.standard_normal((n, ci, hw, hw)).astype(dtype)
            w = rng.standard_normal((co, ci, 3, 3)).astype(dtype) / 10
            b = rng.standard_normal(co).astype(dtype)
            fl = conv_flops(n, ci, co, hw, hw, 3, 3, 1)
            conv = (lambda x_, w_, b_: F.conv2d(x_, w_, b_, padding=1),
                    lambda x_, w_, b_: TF.conv2d(x_, w_, b_, padding=1))
            add("conv2d", shape, dtype, *conv, [x, w, b], False, flops=fl)
            add("conv2d", shape, dtype, *conv, [x, w, b], True, flops=3 * fl)
            if shape == "medium":
                for label, kw, g in [
                    ("conv2d stride 2", {"stride": 2, "padding": 1}, 1),
                    ("conv2d dilation 2", {"dilation": 2, "padding": 2}, 1),
                    ("conv2d groups 4", {"groups": 4, "padding": 1}, 4),
                ]:
                    wg = w[:, : ci // g].copy()
                    oh = (hw + 2 * kw["padding"] - kw.get("dilation", 1) * 2 - 1) // (
                        kw.get("stride", 1)) + 1
                    add(label, shape, dtype,
                        lambda x_, w_, b_, kw=kw: F.conv2d(x_, w_, b_, **kw),
                        lambda x_, w_, b_, kw=kw: TF.conv2d(x_, w_, b_, **kw),
                        [x, wg, b], True,
                        flops=3 * conv_flops(n, ci, co, oh, oh, 3, 3, g))
            # the transposed conv of the same layer: C_out -> C_in channels
            xt = rng.standard_normal((n, co, hw, hw)).astype(dtype)
            add("conv_transpose2d", shape, dtype,
                lambda x_, w_: F.conv_transpose2d(x_, w_, padding=1),
                lambda x_, w_: TF.conv_transpose2d(x_, w_, padding=1),
                [xt, w], True, flops=3 * fl)
            # pooling runs on the conv's output, (N, C_out, H, W)
            for label, args in [
                ("max_pool2d k2s2", (2, 2, 0)),
                ("max_pool2d k3s2", (3, 2, 1)),
            ]:
                add(label, shape, dtype,
                    lambda x_, a=args: F.max_pool2d(x_, *a),
                    lambda x_, a=args: TF.max_pool2d(x_, *a),
                    [xt], True, argmax=True)
            add("avg_pool2d k2s2", shape, dtype,
                lambda x_: F.avg_pool2d(x_, 2, 2),
                lambda x_: TF.avg_pool2d(x_, 2, 2),
                [xt], True, argmax=False)
            add("avg_pool2d k3s2", shape, dtype,
                lambda x_: F.avg_pool2d(x_, 3, 2, 1),
                lambda x_: TF.avg_pool2d(x_, 3, 2, 1),
                [xt], True, argmax=False)
            add("unfold", shape, dtype,
                lambda x_: F.unfold(x_, 3, padding=1),
                lambda x_: TF.unfold(x_, 3, padding=1), [x], False)
            col = rng.standard_normal((n, ci * 9, hw * hw)).astype(dtype)
            add("fold", shape, dtype,
                lambda c_, hw=hw: F.fold(c_, hw, 3, padding=1),
                lambda c_, hw=hw: TF.fold(c_, hw, 3, padding=1), [col], False)
    return cases


def run_cases(cases: list[dict], log) -> list[dict]:
    rows = []
    for i, case in enumerate(cases, 1):
        fns = case.pop("fns")
        # the NumPy reference is timed on its own after the others: its BLAS
        # threads spin on both cores after each call (OpenBLAS), and in the
        # rotation torch's 2-thread call after it took 21 ms against 7.4
        ref = {k: fns.pop(k) for k in ("numpy",) if k in fns}
        times = interleaved(fns, ROUNDS[case["shape"]], budget=4.0)
        if ref:
            times.update(interleaved(ref, ROUNDS[case["shape"]], budget=4.0))
        med = {k: float(np.median(v)) for k, v in times.items()}
        counts = {k: len(v) for k, v in times.items()}
        row = {**case, "median_s": med, "samples": counts}
        if "flops" in case:
            row["gflops"] = {k: case["flops"] / v / 1e9 for k, v in med.items()}
        if "argmax" in case:
            item = np.dtype(case["dtype"]).itemsize
            x_el = int(np.prod(case["in_shapes"][0]))
            y_el = int(np.prod(case["y_shape"]))
            nbytes = 2 * (x_el + y_el) * item + (16 * y_el if case["argmax"] else 0)
            row["bytes"] = nbytes
            row["gbps"] = {k: nbytes / v / 1e9 for k, v in med.items()}
        rows.append(row)
        log(
            f"[{i:3d}/{len(cases)}] {case['op']:<18} {case['pass_']:<7} "
            f"{case['shape']:<6} {case['dtype']:<7} "
            + "  ".join(f"{k} {v * 1e3:9.2f} ms" for k, v in med.items())
        )
    return rows


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
    t0 = time.perf_counter()
    import numpy as np
    import convgrad as cg
    from convgrad import functional as F
    x = cg.Tensor(np.ones((8, 3, 28, 28), np.float32), requires_grad=True)
    w = cg.Tensor(np.ones((16, 3, 3, 3), np.float32), requires_grad=True)
    F.conv2d(x, w, padding=1).sum().backward()
    print(time.perf_counter() - t0)
    """
)


def fresh_process(log, repeats: int = 3) -> dict:
    """Launch → first conv fwd+bwd, with the kernel cache warm and cold."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",)}
    subprocess.run([sys.executable, "-m", "convgrad.warmup", "-j", "1",
                    "im2col", "col2im", "im2row", "row2im"], env=env, check=True,
                   capture_output=True)
    out: dict[str, list[float]] = {"warm": [], "cold": []}
    for _ in range(repeats):
        for kind in ("warm", "cold"):
            e = dict(env)
            tmp = None
            if kind == "cold":
                tmp = tempfile.mkdtemp(prefix="convgrad-cold-")
                e["NUMBA_CACHE_DIR"] = tmp
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", _FIRST_CONV], env=e, check=True,
                           capture_output=True)
            out[kind].append(time.perf_counter() - t)
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    med = {k: float(np.median(v)) for k, v in out.items()}
    log(f"fresh process -> first conv fwd+bwd: {med} (all: {out})")
    return {"median_s": med, "all_s": out}


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
                  f"{len(f['all_s']['warm'])})."]
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
                        help="issue 16's forward+backward cases, first-conv time "
                             "and peak memory only")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; do not touch RESULTS.md/json/png")
    parser.add_argument("--plot-only", action="store_true",
                        help="redraw results.png from results.json and stop")
    ns = parser.parse_args(argv)
    if ns.plot_only:
        plot(json.loads((HERE / "results.json").read_text()), HERE / "results.png")
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
    data["cases"] = run_cases(
        build_cases(shapes, [np.float32, np.float64], only), log)
    data["environment"]["numba_threading_layer"] = _threading_layer()
    if ns.issue:
        data["fresh"] = fresh_process(log)
        data["peak"] = peak_memory(log)
    else:
        data["col2im"] = col2im_alone(log)
        data["python_loop"] = python_loop_maxpool_backward(log)
    if not ns.quick and not ns.issue:
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
