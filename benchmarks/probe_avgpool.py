"""Avg-pool kernels: the col2im-order backward against the row-order one.

The previous kernels (commit e792d18) are kept here verbatim, compiled with
the project's jit policy, so that before and after are timed in one plain
process, sampled in turn (old, new, torch, old, new, torch, ...), with
medians and ratios as BENCHMARKING.md asks::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/probe_avgpool.py

* backward, kernel alone: each build called as the ops call it (the size
  switch: serial below 8M elements of ``dy``), into a reused ``dx``;
* forward, kernel alone, likewise;
* op level: ``F.avg_pool2d`` forward + backward on the Numba backend with
  the old or the new pair of kernels in the kernel table;
* torch 1 thread, the same pass, for scale.

Shapes: the pool cases of ``run.py`` (k3 s2 p1 on the conv output), plus
k3 s1 p1 (every pixel in 9 windows: stride 1's contiguous runs).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from numba import prange

import convgrad as cg
from convgrad import backend
from convgrad import functional as F
from convgrad.geometry import pool_window
from convgrad.kernels import pool as new
from convgrad.kernels._jit import jit_parallel
from convgrad.kernels.im2col import inside_run
from convgrad.kernels.pool import _divisor

# ---------------------------------------------------------------------------
# the previous kernels (e792d18), verbatim but for their names
# ---------------------------------------------------------------------------


@jit_parallel
def old_avgpool2d_forward(
    x, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, y
):
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    xf = x.reshape(x.size)
    yf = y.reshape(y.size)
    step = np.uint64(sw)
    for nc in prange(n_ * c_):
        acc = np.empty(ow_)  # float64 sums
        for i in range(oh_):
            acc[:] = 0.0
            h0 = i * sh - ph
            for ki in range(kh):
                h = h0 + ki
                if h < 0 or h >= h_:
                    continue
                for kj in range(kw):
                    off = kj - pw
                    j0, j1 = inside_run(off, sw, ow_, w_)
                    src = np.uint64((nc * h_ + h) * w_ + j0 * sw + off)
                    first = np.uint64(j0)
                    for j in range(np.uint64(j1 - j0)):
                        acc[first + j] += xf[src + j * step]
            rows_pad = min(h0 + kh, h_ + ph) - h0
            rows_real = min(h0 + kh, h_) - max(h0, 0)
            out = (nc * oh_ + i) * ow_
            for j in range(ow_):
                divisor = _divisor(
                    rows_pad, rows_real, j * sw - pw, kw, w_, pw,
                    count_include_pad, divisor_override,
                )
                yf[out + j] = acc[j] / divisor


@jit_parallel
def old_avgpool2d_backward(
    dy, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, dx
):
    n_, c_, oh_, ow_ = dy.shape
    h_, w_ = dx.shape[2], dx.shape[3]
    dyf = dy.reshape(dy.size)
    dxf = dx.reshape(dx.size)
    step = np.uint64(sw)
    for nc in prange(n_ * c_):
        share = np.empty(ow_, dyf.dtype)
        for i in range(oh_):
            h0 = i * sh - ph
            rows_pad = min(h0 + kh, h_ + ph) - h0
            rows_real = min(h0 + kh, h_) - max(h0, 0)
            out = (nc * oh_ + i) * ow_
            for j in range(ow_):
                divisor = _divisor(
                    rows_pad, rows_real, j * sw - pw, kw, w_, pw,
                    count_include_pad, divisor_override,
                )
                share[j] = dyf[out + j] / divisor
            for ki in range(kh):
                h = h0 + ki
                if h < 0 or h >= h_:
                    continue
                for kj in range(kw):
                    off = kj - pw
                    j0, j1 = inside_run(off, sw, ow_, w_)
                    dst = np.uint64((nc * h_ + h) * w_ + j0 * sw + off)
                    first = np.uint64(j0)
                    for j in range(np.uint64(j1 - j0)):
                        dxf[dst + j * step] += share[first + j]


# ---------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------

# pooling input (N, C, H, W): run.py's conv output shapes
SHAPES = {"small": (8, 16, 28, 28), "medium": (32, 32, 32, 32),
          "large": (64, 64, 56, 56)}
GEOMETRIES = {"k3s2": (3, 2, 1), "k3s1": (3, 1, 1)}


def interleaved(fns: dict, rounds: int) -> dict[str, float]:
    """Median seconds of each function, sampled in turn after one warm call."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {k: float(np.median(v)) for k, v in times.items()}


def case(shape, geometry, dtype, rounds, torch):
    k, s, p = GEOMETRIES[geometry]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPES[shape]).astype(dtype)
    win = pool_window(x.shape, k, s, p, 1, False)
    args = (*win.args[:6], True, 0)
    dy = rng.standard_normal((*x.shape[:2], *win.out)).astype(dtype)
    dx = np.zeros_like(x)
    y = np.empty_like(dy)
    table = backend.table("numba")
    tx, tdy = torch.from_numpy(x), torch.from_numpy(dy)

    def op(fwd, bwd):
        def run():
            table["avgpool2d_forward"], table["avgpool2d_backward"] = fwd, bwd
            t = cg.Tensor(x, requires_grad=True)
            F.avg_pool2d(t, k, s, p).backward(dy)
        return run

    def torch_pass():
        t = tx.detach().requires_grad_(True)
        torch.nn.functional.avg_pool2d(t, k, s, p).backward(tdy)

    res = {}
    res["bwd"] = interleaved({
        "old": lambda: old_avgpool2d_backward(dy, *args, dx),
        "new": lambda: new.avgpool2d_backward(dy, *args, dx),
    }, rounds)
    res["fwd"] = interleaved({
        "old": lambda: old_avgpool2d_forward(x, *args, y),
        "new": lambda: new.avgpool2d_forward(x, *args, y),
    }, rounds)
    saved = table["avgpool2d_forward"], table["avgpool2d_backward"]
    try:
        res["op"] = interleaved({
            "old": op(old_avgpool2d_forward, old_avgpool2d_backward),
            "new": op(new.avgpool2d_forward, new.avgpool2d_backward),
            "torch1": torch_pass,
        }, rounds)
    finally:
        table["avgpool2d_forward"], table["avgpool2d_backward"] = saved
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES))
    ns = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    print(f"load average {os.getloadavg()}; env MALLOC/OPENBLAS: "
          f"{[k for k in os.environ if k.startswith(('MALLOC_', 'OPENBLAS_'))]}")
    print("| shape | pool | dtype | bwd old | bwd new | new/old | fwd old | "
          "fwd new | new/old | op old | op new | new/old | torch 1t |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for shape in ns.shapes:
        rounds = ns.rounds if shape != "large" else max(5, ns.rounds // 3)
        for geometry in GEOMETRIES:
            for dtype in (np.float32, np.float64):
                r = case(shape, geometry, dtype, rounds, torch)
                cells = []
                for part in ("bwd", "fwd", "op"):
                    o, n_ = r[part]["old"], r[part]["new"]
                    cells += [f"{o * 1e3:.2f}", f"{n_ * 1e3:.2f}", f"{n_ / o:.2f}"]
                print(f"| {shape} | {geometry} | {np.dtype(dtype).name} | "
                      + " | ".join(cells) + f" | {r['op']['torch1'] * 1e3:.2f} |",
                      flush=True)


if __name__ == "__main__":
    main()
