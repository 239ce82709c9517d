"""Where a large pool's fwd+bwd goes, against the memory it must move.

    python benchmarks/profile_pool.py [--op max|avg] [--k 3|2] [--threads 1]
        [--torch] [--stages]

One process per run (thread counts fixed before Numba, BLAS and torch
load), ``run.py``'s large pool cases: (64, 64, 56, 56) float32, 3×3
windows at stride 2, padding 1 (``--k 2``: 2×2 windows, stride 2, no
padding), a random upstream gradient. Prints the median wall time of the
forward alone, the backward alone (through the autograd engine:
``y.backward(dy)`` minus the forward), and, as the yardstick, one
``np.copyto`` of the input (51 MB read and written), each after an idle
pause of 0.25 s as ``workers.py`` does.

``--stages`` (convgrad only) also times each kernel alone, as the op
calls it (into a fresh output) and into an output whose pages were
already touched, and the first touch of a fresh ``dx`` alone; beside each
median, the process's page faults (minor) and system CPU time per call,
from ``getrusage``: what the kernel, not the kernel's own loops, spent.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--op", choices=("max", "avg"), default="max")
    ap.add_argument("--k", type=int, choices=(2, 3), default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--stages", action="store_true")
    ap.add_argument("--rounds", type=int, default=7)
    ns = ap.parse_args()
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(ns.threads)
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 64, 56, 56)).astype(np.float32)
    args = (3, 2, 1) if ns.k == 3 else (2, 2, 0)
    out = (64, 64, 28, 28)
    dy = rng.standard_normal(out).astype(np.float32)
    if ns.torch:
        import torch
        import torch.nn.functional as tf

        torch.set_num_threads(ns.threads)
        xt, dyt = torch.from_numpy(x), torch.from_numpy(dy)
        pool = tf.max_pool2d if ns.op == "max" else tf.avg_pool2d

        def fwd():
            return pool(xt, *args)

        def both():
            xg = xt.clone().requires_grad_(True)
            pool(xg, *args).backward(dyt)
    else:
        import convgrad as cg
        from convgrad import functional as F

        pool = F.max_pool2d if ns.op == "max" else F.avg_pool2d

        def fwd():
            return pool(cg.Tensor(x), *args)

        def both():
            xg = cg.Tensor(x, requires_grad=True)
            pool(xg, *args).backward(dy)

    scratch = np.empty_like(x)

    def copy():
        np.copyto(scratch, x)

    def timed(fn, setup=None):
        """Median wall ms, CPU ms (all threads), minor faults and system
        CPU ms per call of ``fn``."""
        wall, cpu, faults, sys_ms = [], [], [], []
        fn(*(setup() if setup else ()))
        for _ in range(ns.rounds):
            time.sleep(0.25)
            fn(*(setup() if setup else ()))  # as workers.py: untimed first
            made = setup() if setup else ()
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            t, p = time.perf_counter(), time.process_time()
            fn(*made)
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - p)
            r1 = resource.getrusage(resource.RUSAGE_SELF)
            faults.append(r1.ru_minflt - r0.ru_minflt)
            sys_ms.append((r1.ru_stime - r0.ru_stime) * 1e3)
        return (statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3,
                statistics.median(faults), statistics.median(sys_ms))

    f, b, c = (timed(fn)[0] for fn in (fwd, both, copy))
    who = "torch" if ns.torch else "convgrad"
    print(f"{who} {ns.op}-pool k{ns.k}s2 large, {ns.threads} thread(s): forward "
          f"{f:.1f} ms, backward {b - f:.1f} ms, fwd+bwd {b:.1f} ms; "
          f"a copy of the input {c:.1f} ms")
    if ns.stages and not ns.torch:
        stages(ns, x, dy, args, out, timed, {"op forward": fwd, "op fwd+bwd": both,
                                              "copy of the input": copy})


def stages(ns, x, dy, args, out, timed, whole) -> None:
    """The kernels alone, fresh and touched outputs, and the first touch."""
    import numpy as np

    from convgrad import backend
    from convgrad.geometry import pool_window

    k = backend.table("numba")
    win = pool_window(x.shape, args[0], args[1], args[2], 1, False)
    rows = dict(whole)
    y = np.empty(out, np.float32)
    dx = np.zeros_like(x)

    # np.zeros: calloc, pages untouched (np.zeros_like would fill them)
    def fresh_zeros():
        return (np.zeros(x.shape, x.dtype),)

    def fresh_empty():
        return (np.empty(x.shape, x.dtype),)

    if ns.op == "avg":
        a = (*win.args[:6], True, 0)
        rows["kernel forward, fresh y (np.empty)"] = (
            lambda: k["avgpool2d_forward"](x, *a, np.empty(out, np.float32)))
        rows["kernel forward, touched y"] = (
            lambda: k["avgpool2d_forward"](x, *a, y))
        # the op's dx: np.zeros before session 17 (the kernel added into
        # it), np.empty since (the kernel fills it)
        rows["kernel backward, fresh dx (np.zeros)"] = (
            lambda d: k["avgpool2d_backward"](dy, *a, d), fresh_zeros)
        rows["kernel backward, fresh dx (np.empty)"] = (
            lambda d: k["avgpool2d_backward"](dy, *a, d), fresh_empty)

        def touched():
            dx[...] = 0
            return (dx,)
        rows["kernel backward, touched dx"] = (
            lambda d: k["avgpool2d_backward"](dy, *a, d), touched)

        def empty_fill(d):
            d.fill(0)
            k["avgpool2d_backward"](dy, *a, d)
        rows["kernel backward, fresh np.empty + fill(0)"] = (empty_fill, fresh_empty)
    else:
        am = np.empty(out, np.int64)
        rows["kernel forward, fresh y, argmax"] = (
            lambda: k["maxpool2d_forward"](
                x, *win.args, np.empty(out, np.float32), np.empty(out, np.int64)))
        rows["kernel forward, touched y, argmax"] = (
            lambda: k["maxpool2d_forward"](x, *win.args, y, am))
        k["maxpool2d_forward"](x, *win.args, y, am)
        rows["kernel backward, fresh dx (np.zeros, as the op)"] = (
            lambda d: k["maxpool2d_backward"](dy, am, d), fresh_zeros)

        def touched():
            dx[...] = 0
            return (dx,)
        rows["kernel backward, touched dx"] = (
            lambda d: k["maxpool2d_backward"](dy, am, d), touched)
    rows["first touch: np.empty dx + fill(0) (NumPy, 1 thread)"] = (
        lambda d: d.fill(0), fresh_empty)
    rows["fill(0) of a touched dx"] = (lambda d: d.fill(0), lambda: (dx,))
    print(f"{'stage':56s} {'wall ms':>7s} {'CPU ms':>7s} {'faults':>7s} "
          f"{'sys ms':>7s}")
    for name, row in rows.items():
        fn, setup = row if isinstance(row, tuple) else (row, None)
        ms, cpu, faults, sys_ms = timed(fn, setup)
        print(f"{name:56s} {ms:7.1f} {cpu:7.1f} {faults:7.0f} {sys_ms:7.1f}")


if __name__ == "__main__":
    main()
