"""Issue 16's probe: the fast conv path's parts and variants, in one process.

Plain process as a user runs it (``OPENBLAS_CORETYPE``/``OPENBLAS_L2_SIZE``
removed by re-executing, no ``MALLOC_*``); contenders sampled in turn,
medians (and minima, the least disturbed sample on a shared box).

    python benchmarks/probe_conv_fast.py [--threads 1] [--case medium]
        [--block 524288 1048576 ...]

Contenders, each one conv2d forward+backward on arrays (no autodiff engine):
``textbook`` (im2col + column-major GEMMs, as ops/conv.py's NumPy path
computes it, with the Numba im2col/col2im kernels), ``fast@B`` (the
pixel-major block pipeline of ``kernels/conv_fast.py`` with BLOCK_BYTES=B),
and ``torch``.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import _CHILD_FLAG, plain_env  # noqa: E402

if __name__ == "__main__" and os.environ.get(_CHILD_FLAG) != "1":
    env = plain_env()
    env[_CHILD_FLAG] = "1"
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

import argparse  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import numpy as np  # noqa: E402

CASES = {  # N, C_in, C_out, H=W, kwargs
    "medium": (32, 16, 32, 32, dict(padding=1)),
    "dilation2": (32, 16, 32, 32, dict(padding=2, dilation=2)),
    "groups4": (32, 16, 32, 32, dict(padding=1, groups=4)),
    "stride2": (32, 16, 32, 32, dict(padding=1, stride=2)),
    "large": (64, 64, 64, 56, dict(padding=1)),
    "digits1": (32, 1, 16, 8, dict(padding=1)),
    "digits2": (32, 16, 32, 4, dict(padding=1)),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--case", default="medium", choices=CASES)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--block", type=int, nargs="*", default=[])
    ap.add_argument("--cpu", action="store_true",
                    help="time CPU seconds of the calling thread (1 thread only: "
                         "the work done, without the waits a loaded box adds)")
    ns = ap.parse_args()
    import numba
    import torch
    from threadpoolctl import threadpool_info, threadpool_limits

    from convgrad import kernels as K
    from convgrad.geometry import conv2d_geometry
    from convgrad.kernels import conv_fast as CF

    torch.set_num_threads(ns.threads)
    numba.set_num_threads(ns.threads)
    n, ci, co, hw, kw = CASES[ns.case]
    g = kw.get("groups", 1)
    dt = np.dtype(ns.dtype)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, ci, hw, hw)).astype(dt)
    w = (rng.standard_normal((co, ci // g, 3, 3)) / 10).astype(dt)
    geom = conv2d_geometry(x.shape, w.shape, None, kw.get("stride", 1),
                           kw["padding"], kw.get("dilation", 1), g)
    win = geom.win
    oh, ow = win.out
    dy = rng.standard_normal((n, co, oh, ow)).astype(dt)
    rows = ci // g * 9

    def textbook():
        col = np.empty((n, ci, 3, 3, oh, ow), dt)
        K.im2col(x, *win.args, col)
        col = col.reshape(n, g, rows, oh * ow)
        wm = w.reshape(g, co // g, rows)
        np.matmul(wm, col)
        dyg = dy.reshape(n, g, co // g, oh * ow)
        dcol = np.matmul(wm.transpose(0, 2, 1), dyg)
        dx = np.zeros_like(x)
        K.col2im(np.ascontiguousarray(dcol.reshape(n, ci, 3, 3, oh, ow)),
                 *win.args, dx)
        np.matmul(col, dyg.transpose(0, 1, 3, 2)).sum(axis=0)

    def fast(block):
        def run():
            CF.BLOCK_BYTES = block
            CF.conv2d_forward(x, w, win.args, g, win.out)
            CF.conv2d_backward(x, w, dy, win.args, g)
        return run

    tx, tw, tdy = (torch.from_numpy(a) for a in (x, w, dy))

    def theirs():
        a, b = tx.detach().requires_grad_(), tw.detach().requires_grad_()
        torch.nn.functional.conv2d(a, b, **kw).backward(tdy)

    pool = ThreadPoolExecutor(2)

    def halves(blas_threads=1):
        # threads over images: two Python threads, each a half batch with
        # single-threaded BLAS (the kernels and BLAS release the GIL)
        h = n // 2
        parts = [(x[:h], dy[:h]), (x[h:], dy[h:])]

        def one(a):
            CF.conv2d_forward(a[0], w, win.args, g, win.out)
            return CF.conv2d_backward(a[0], w, a[1], win.args, g)
        with threadpool_limits(blas_threads):
            res = list(pool.map(one, parts))
        return np.concatenate([res[0][0], res[1][0]]), res[0][1] + res[1][1]

    fns = {"textbook": textbook}
    for b in ns.block or [CF.BLOCK_BYTES]:
        fns[f"fast@{b}"] = fast(b)
    if ns.threads == 2:
        fns["fast 2 py threads"] = halves
        fns["fast 2 py thr, BLAS 2"] = lambda: halves(2)
    fns["torch"] = theirs
    clock = time.thread_time if ns.cpu else time.perf_counter
    with threadpool_limits(ns.threads):
        for f in fns.values():
            f()
        ts = {k: [] for k in fns}
        for _ in range(ns.rounds):
            for k, f in fns.items():
                t = clock()
                f()
                ts[k].append(clock() - t)
    blas = [(d["internal_api"], d.get("architecture")) for d in threadpool_info()]
    pool.shutdown()
    print(f"case {ns.case} {dt.name}, {ns.threads} thread(s), "
          f"{'CPU' if ns.cpu else 'wall'} time, BLAS {blas}, "
          f"load {os.getloadavg()[0]:.1f}")
    t_med = np.median(ts["torch"])
    for k, v in ts.items():
        print(f"  {k:<16} median {np.median(v) * 1e3:8.2f} ms  min "
              f"{min(v) * 1e3:8.2f} ms  median/torch {np.median(v) / t_med:5.2f}")


if __name__ == "__main__":
    main()
