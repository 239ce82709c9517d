"""Where a fast conv's fwd+bwd goes, stage by stage (issue 31's profiles).

    python benchmarks/profile_stages.py [--case medium|large|groups4|dilation2|tconv|s2
                                               |phases16]
                                        [--threads 1|2] [--calls 40]
                                        [--pause 0.05] [--torch] [--forward]
                                        [--set winograd.BLOCK_TILES=1024,...]

Runs in a process of its own with the thread counts fixed before Numba
and BLAS load (as ``workers.py`` does), on ``workers.py``'s own case
inputs. Each Winograd / row kernel the rules call, each ``np.matmul`` the
Winograd pipeline makes, the fingerprint of saved arrays and the two
top-level kernel entry points are wrapped (and the GEMMs of the direct
pipeline, ``conv_fast``'s ``np.matmul``, and the explicit-vector GEMMs of
``kernels/simd.py`` where a ``--set`` switch runs them) with a timer that
adds the *thread* CPU time it took to a per-stage total, summed over the threads
(so at 2 threads a stage's figure is the CPU both threads spent in it).
The report gives each stage's median per call, the process CPU and the
wall time per call; what the stages do not cover is the op around the
kernels (the engine, argument handling, allocation).

``--set`` sets module attributes of ``convgrad.kernels`` first, as
``ab_trees.py``'s contenders do (a setting of the tree under test).

``--torch`` times torch on the same case in this process instead (no
stages: torch's own profile is not broken down here), median wall.

The wrappers cost about a microsecond a call; a medium conv makes a few
hundred kernel calls, so expect the wrapped wall time to read 2-4 % above
an unwrapped one.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = {
    "medium": ("conv2d", (32, 16, 32, 32), {"padding": 1}, 1),
    "large": ("conv2d", (64, 64, 64, 56), {"padding": 1}, 1),
    "groups4": ("conv2d", (32, 16, 32, 32), {"padding": 1, "groups": 4}, 4),
    "dilation2": ("conv2d", (32, 16, 32, 32), {"padding": 2, "dilation": 2}, 1),
    # run.py's transposed conv of the medium layer: 32 -> 16 channels
    "tconv": ("conv_transpose2d", (32, 16, 32, 32), {"padding": 1}, 1),
    "s2": ("conv2d", (32, 16, 32, 32), {"padding": 1, "stride": 2}, 1),
    # dilation 2's four phases as dense planes: the same slots, 16x16
    # images at dilation 1 (is the phases' cost the short rows or the
    # strided reads?)
    "phases16": ("conv2d", (128, 16, 32, 16), {"padding": 1}, 1),
}


def _env(threads: int) -> None:
    from workers import plain_env

    clean = plain_env()
    for k in list(os.environ):
        if k not in clean:
            del os.environ[k]
    t = str(threads)
    os.environ.update(NUMBA_NUM_THREADS=t, OMP_NUM_THREADS=t, OPENBLAS_NUM_THREADS=t)


class Stages:
    """Per-stage thread-CPU totals of the current call."""

    def __init__(self):
        self.lock = threading.Lock()
        self.now = defaultdict(float)

    def wrap(self, name, fn):
        def timed(*a, **k):
            t0 = time.thread_time()
            try:
                return fn(*a, **k)
            finally:
                dt = time.thread_time() - t0
                with self.lock:
                    self.now[name] += dt
        return timed


def instrument(stages: Stages) -> None:
    import numpy as np

    from convgrad import backend
    from convgrad.kernels import conv_fast, winograd

    for name in ("input_tiles", "input_tiles_adjoint", "output_tiles", "grad_tiles",
                 "kernel_transform", "kernel_transform_adjoint", "_all_finite",
                 "glue", "unglue"):
        setattr(winograd, name, stages.wrap(name, getattr(winograd, name)))
    # every np.matmul the drivers make (not a module's ``np`` replaced: the
    # kernels of that module, compiled later, would read the replacement)
    np.matmul = stages.wrap("GEMMs", np.matmul)
    from convgrad.kernels import simd

    for name in ("planes_nn", "planes_nt"):
        setattr(simd, name, stages.wrap("GEMMs", getattr(simd, name)))
    for name in ("im2row", "row2im", "im2row_cl", "row2im_cl", "to_cl", "from_cl",
                 "_store", "_channels_first", "_add_bias", "_taps_last"):
        if hasattr(conv_fast, name):
            setattr(conv_fast, name, stages.wrap(name, getattr(conv_fast, name)))
    hooks = backend.get("numba").load().hooks
    if hooks.get("checksum") is not None:
        hooks["checksum"] = stages.wrap("fingerprint", hooks["checksum"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", choices=sorted(CASES), default="medium")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--calls", type=int, default=40)
    p.add_argument("--torch", action="store_true")
    p.add_argument("--pause", type=float, default=0.05,
                   help="seconds idle before each call (0: back to back)")
    p.add_argument("--forward", action="store_true",
                   help="time the forward alone (default: fwd+bwd)")
    p.add_argument("--set", action="append", default=[],
                   metavar="MOD.ATTR=VALUE,...",
                   help="module attributes of convgrad.kernels to set first, "
                        "as ab_trees.py's contenders take them (repeatable)")
    a = p.parse_args(argv)
    _env(a.threads)
    import importlib

    for item in (x for arg in a.set for x in arg.split(",") if x):
        key, val = item.split("=")
        mod, attr = key.rsplit(".", 1)
        setattr(importlib.import_module("convgrad.kernels." + mod), attr, eval(val))

    import numpy as np
    from workers import case_spec, make_call

    kind, dims, kwargs, groups = CASES[a.case]
    spec = case_spec(kind, kind, dims, "float32", not a.forward, kwargs=kwargs,
                     groups=groups, shape=a.case)
    library = "torch" if a.torch else "convgrad"
    if a.torch:
        import torch

        torch.set_num_threads(a.threads)
    call, _, _ = make_call(spec, library, None if a.torch else "numba")
    stages = Stages()
    if not a.torch:
        import numba

        numba.set_num_threads(a.threads)
        instrument(stages)
    for _ in range(3):
        call()
    per = defaultdict(list)
    walls, cpus = [], []
    for _ in range(a.calls):
        stages.now.clear()
        time.sleep(a.pause)
        c0, t0 = time.process_time(), time.perf_counter()
        call()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        for k, v in stages.now.items():
            per[k].append(v)
    ms = lambda xs: 1e3 * float(np.median(xs))  # noqa: E731
    what = "forward" if a.forward else "fwd+bwd"
    print(f"# {library} {a.case} {what}, {a.threads} thread(s), {a.calls} calls, "
          f"load {os.getloadavg()[0]:.1f}" + (f", {a.set}" if a.set else ""))
    if per:
        total = 0.0
        for k in sorted(per, key=lambda k: -ms(per[k])):
            # a stage not met on every call still counts its calls' share
            v = ms(per[k] + [0.0] * (a.calls - len(per[k])))
            total += v
            print(f"{k:26s} {v:7.2f} ms")
        print(f"{'stages, sum':26s} {total:7.2f} ms")
    print(f"{'process CPU':26s} {ms(cpus):7.2f} ms")
    print(f"{'wall':26s} {ms(walls):7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
