"""Pools at 1 and 2 threads: convgrad (threads by planes) against torch.

Issue 16's pool cases, forward + backward in float32 on (64, 64, 56, 56):
``max_pool2d(x, 3, 2, 1)`` (with its argmax), ``avg_pool2d(x, 2, 2)`` and
``avg_pool2d(x, 3, 2, 1)``. One plain process; the contenders are sampled
in turn (A B C A B C, ...), medians of ``--rounds`` samples, wall time::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python benchmarks/probe_pool_threads.py [--rounds 9] [--shape 64 64 56 56]

Contenders, at ``k`` = 1 and 2 threads (``torch.set_num_threads(k)``;
``numba.set_num_threads(k)`` and threadpoolctl's limit for ours):

* ``torch k``: torch's CPU kernels;
* ``ours k``: the Numba backend as it ships (``kernels/pool_threads.py``:
  calls from 4M elements cut into runs of planes over numba's threads);
* ``before k``: the same kernels, with the kernel table holding the plain
  size switches instead (serial below 8M elements of the first argument,
  numba's ``prange`` above): the threading the backend had before.

Printed: each median in ms and ours ÷ torch at the same thread count, with
the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--shape", type=int, nargs=4, default=[64, 64, 56, 56])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--no-before", action="store_true")
    ns = ap.parse_args()

    import numba
    import torch
    import torch.nn.functional as TF
    from threadpoolctl import ThreadpoolController

    import convgrad as cg
    from convgrad import backend
    from convgrad import functional as F
    from convgrad import kernels as K

    blas = ThreadpoolController()
    names = ("maxpool2d_forward", "maxpool2d_backward",
             "avgpool2d_forward", "avgpool2d_backward")
    table = backend.table("numba")
    shipped = {n: table[n] for n in names}
    switches = {n: getattr(K, n).switch for n in names}

    rng = np.random.default_rng(0)
    x = rng.standard_normal(ns.shape).astype(np.float32)
    cases = {
        "max_pool2d k3s2p1": (lambda t: F.max_pool2d(t, 3, 2, 1),
                              lambda t: TF.max_pool2d(t, 3, 2, 1)),
        "avg_pool2d k2s2": (lambda t: F.avg_pool2d(t, 2, 2),
                            lambda t: TF.avg_pool2d(t, 2, 2)),
        "avg_pool2d k3s2p1": (lambda t: F.avg_pool2d(t, 3, 2, 1),
                              lambda t: TF.avg_pool2d(t, 3, 2, 1)),
    }

    def ours(fn, dy, k, kernels):
        def run():
            table.update(kernels)
            numba.set_num_threads(k)
            try:
                with blas.limit(limits=k):
                    t = cg.Tensor(x, requires_grad=True)
                    fn(t).backward(dy)
            finally:
                table.update(shipped)
                numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        return run

    def theirs(fn, dy, k):
        tx, tdy = torch.from_numpy(x), torch.from_numpy(dy)

        def run():
            if torch.get_num_threads() != k:
                torch.set_num_threads(k)
            t = tx.detach().requires_grad_(True)
            fn(t).backward(tdy)
        return run

    print(f"load average {os.getloadavg()}; shape {tuple(ns.shape)} float32; "
          f"numba {numba.__version__} ({numba.config.NUMBA_NUM_THREADS} threads), "
          f"torch {torch.__version__}")
    for label, (our_fn, torch_fn) in cases.items():
        with cg.no_grad():
            y_shape = our_fn(cg.Tensor(x)).shape
        dy = rng.standard_normal(y_shape).astype(np.float32)
        fns = {}
        for k in ns.threads:
            fns[f"torch {k}"] = theirs(torch_fn, dy, k)
            fns[f"ours {k}"] = ours(our_fn, dy, k, shipped)
            if not ns.no_before:
                fns[f"before {k}"] = ours(our_fn, dy, k, switches)
        for fn in fns.values():  # compile, load, first touch
            fn()
        times = {name: [] for name in fns}
        for _ in range(ns.rounds):
            for name, fn in fns.items():
                t = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t)
        med = {name: float(np.median(v)) for name, v in times.items()}
        parts = []
        for k in ns.threads:
            base = med[f"torch {k}"]
            row = f"{k}t: torch {base * 1e3:.1f} ms, ours {med[f'ours {k}'] * 1e3:.1f}"
            row += f" ({med[f'ours {k}'] / base:.2f})"
            if not ns.no_before:
                row += (f", before {med[f'before {k}'] * 1e3:.1f}"
                        f" ({med[f'before {k}'] / base:.2f})")
            parts.append(row)
        print(f"{label}: " + "; ".join(parts), flush=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
