"""Where a large pool's fwd+bwd goes, against the memory it must move.

    python benchmarks/profile_pool.py [--op max|avg] [--threads 1] [--torch]

One process per run (thread counts fixed before Numba, BLAS and torch
load), ``run.py``'s large pool case: (64, 64, 56, 56) float32, 3×3
windows, stride 2, padding 1, a random upstream gradient. Prints the
median wall time of the forward alone, the backward alone (through the
autograd engine: ``y.backward(dy)`` minus the forward), and, as the
yardstick, one ``np.copyto`` of the input (51 MB read and written), each
after an idle pause of 0.25 s as ``workers.py`` does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--op", choices=("max", "avg"), default="max")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--rounds", type=int, default=7)
    ns = ap.parse_args()
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(ns.threads)
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 64, 56, 56)).astype(np.float32)
    dy = rng.standard_normal((64, 64, 28, 28)).astype(np.float32)
    if ns.torch:
        import torch
        import torch.nn.functional as tf

        torch.set_num_threads(ns.threads)
        xt, dyt = torch.from_numpy(x), torch.from_numpy(dy)
        pool = tf.max_pool2d if ns.op == "max" else tf.avg_pool2d

        def fwd():
            return pool(xt, 3, 2, 1)

        def both():
            xg = xt.clone().requires_grad_(True)
            pool(xg, 3, 2, 1).backward(dyt)
    else:
        import convgrad as cg
        from convgrad import functional as F

        pool = F.max_pool2d if ns.op == "max" else F.avg_pool2d

        def fwd():
            return pool(cg.Tensor(x), 3, 2, 1)

        def both():
            xg = cg.Tensor(x, requires_grad=True)
            pool(xg, 3, 2, 1).backward(dy)

    scratch = np.empty_like(x)

    def copy():
        np.copyto(scratch, x)

    def timed(fn):
        out = []
        fn()
        for _ in range(ns.rounds):
            time.sleep(0.25)
            fn()  # as workers.py: untimed calls first, then the median
            t = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t)
        return statistics.median(out) * 1e3

    f, b, c = timed(fwd), timed(both), timed(copy)
    who = "torch" if ns.torch else "convgrad"
    print(f"{who} {ns.op}-pool k3s2 large, {ns.threads} thread(s): forward "
          f"{f:.1f} ms, backward {b - f:.1f} ms, fwd+bwd {b:.1f} ms; "
          f"a copy of the input {c:.1f} ms")


if __name__ == "__main__":
    main()
