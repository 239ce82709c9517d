"""The Winograd planes' GEMMs alone: ``np.matmul`` (OpenBLAS) against the
explicit-vector kernels of ``kernels/simd.py``, one thread, GFLOP/s.

    python benchmarks/bench_planes.py [--reps 50] [--rounds 7]

Each shape is what :mod:`convgrad.kernels.winograd` hands ``np.matmul`` for
one block (16 planes per group, the planes :func:`winograd.padded` apart in
the scratch buffer, as the pipeline lays them out): the forward's ``M = Uᵀ
V``, the backward's ``dV = U dM`` (for ``dx``) and ``dU += V dMᵀ`` (for
``dw``), at the medium layer (N=32, 16→32, 32×32: blocks of 272 slots) and
the large one (64→64, 56×56: bands of 203 slots). Two shapes of the
stride-2 medium case's channels-last GEMMs (``conv_fast``) are added for
comparison. The contenders are asked in turn (A B A B), ``--rounds`` times
``--reps`` calls each; the table gives each one's best and median round in
GFLOP/s and the median of the per-round ratios, beside the 2048² sgemm
measured in the same process at one thread (the per-core peak).

Runs in a plain process (this host's OPENBLAS_* removed, as ``run.py``
does), BLAS and Numba held to one thread. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _env() -> None:
    from workers import plain_env

    clean = plain_env()
    for k in list(os.environ):
        if k not in clean:
            del os.environ[k]
    os.environ.update(NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1",
                      OPENBLAS_NUM_THREADS="1")


def winograd_shapes():
    """(label, kind, planes, m, k, n, block slots): the pipeline's GEMMs."""
    out = []
    for case, cin, cout, t in (("medium", 16, 32, 272), ("large", 64, 64, 203)):
        out.append((f"{case} fwd  M=Uᵀ·V", "fwd", 16, cout, cin, t))
        out.append((f"{case} dx   dV=U·dM", "dx", 16, cin, cout, t))
        out.append((f"{case} dw   dU+=V·dMᵀ", "dw", 16, cin, cout, t))
    return out


def operands(kind, planes, m, k, n, rng, np, padded):
    """The arrays and the two calls (numpy's, simd's) for one shape."""
    from convgrad.kernels import simd

    f32 = np.float32
    if kind in ("fwd", "dx"):
        # A (planes, m, k) contiguous; B planes (k × n) and C planes (m × n)
        # in flat scratch, padded() apart
        sb, sc = padded(k * n), padded(m * n)
        a = rng.standard_normal((planes, m, k)).astype(f32)
        bf = rng.standard_normal(planes * sb).astype(f32)
        cf = np.zeros(planes * sc, f32)
        b = bf.reshape(planes, sb)[:, : k * n].reshape(planes, k, n)
        c = cf.reshape(planes, sc)[:, : m * n].reshape(planes, m, n)
        af = a.reshape(-1)

        def numpy_call():
            np.matmul(a, b, out=c)

        def simd_call():
            simd.planes_nn(af, m * k, k, 1, bf, sb, n, cf, sc, n, planes, m, n, k,
                           False)

        return numpy_call, simd_call, lambda: c.copy(), a @ b.astype(np.float64)
    # dw: C (planes, m, n) += A (m × t) · B (n × t)ᵀ, A and B scratch planes
    t = n
    n = k  # C's columns: the output channels
    sa, sb = padded(m * t), padded(n * t)
    af = rng.standard_normal(planes * sa).astype(f32)
    bf = rng.standard_normal(planes * sb).astype(f32)
    a = af.reshape(planes, sa)[:, : m * t].reshape(planes, m, t)
    b = bf.reshape(planes, sb)[:, : n * t].reshape(planes, n, t)
    c = np.zeros((planes, m, n), f32)
    cflat = c.reshape(-1)

    def numpy_call():
        c[...] = 0
        c[...] += np.matmul(a, b.transpose(0, 2, 1))

    def simd_call():
        c[...] = 0
        simd.planes_nt(af, sa, t, bf, sb, t, cflat, m * n, n, planes, m, n, t, True)

    ref = a.astype(np.float64) @ b.astype(np.float64).transpose(0, 2, 1)
    return numpy_call, simd_call, lambda: c.copy(), ref


def s2_shapes():
    """The stride-2 medium case's channels-last GEMMs per block of 3 images
    (768 output pixels, 144 = 3·3·16 taps): forward ``rows · wᵀ`` and the
    weight gradient ``dy · rows`` (plain row-major products)."""
    return [("s2 fwd rows·wᵀ (768×144·144×32)", 768, 144, 32),
            ("s2 dw  dy·rows (32×768·768×144)", 32, 768, 144)]


def s2_operands(m, k, n, rng, np):
    from convgrad.kernels import simd

    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    af, bf, cf = a.reshape(-1), b.reshape(-1), c.reshape(-1)

    def numpy_call():
        np.matmul(a, b, out=c)

    def simd_call():
        simd.planes_nn(af, 0, k, 1, bf, 0, n, cf, 0, n, 1, m, n, k, False)

    return numpy_call, simd_call, lambda: c.copy(), a @ b.astype(np.float64)


def timed(fn, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--peak", type=float, default=None,
                   help="per-core sgemm GFLOP/s to quote %% of (default: the "
                        "best of five 2048² products here, at one thread)")
    a = p.parse_args(argv)
    _env()
    import numpy as np
    from threadpoolctl import threadpool_info, threadpool_limits

    from convgrad.kernels.winograd import padded

    threadpool_limits(1, user_api="blas")
    blas = [(i.get("internal_api"), i.get("architecture"), i.get("num_threads"))
            for i in threadpool_info() if i.get("user_api") == "blas"]
    rng = np.random.default_rng(0)
    big = rng.standard_normal((2048, 2048)).astype(np.float32)
    out = np.empty_like(big)
    peak = []
    for _ in range(5):
        t0 = time.perf_counter()
        np.matmul(big, big, out=out)
        peak.append(2 * 2048**3 / (time.perf_counter() - t0) / 1e9)
    best_peak = a.peak or max(peak)
    print(f"# one thread, load {os.getloadavg()[0]:.1f}, BLAS {blas}")
    print(f"# sgemm 2048², 1 thread: best {best_peak:.1f}, median "
          f"{statistics.median(peak):.1f} GFLOP/s; % below of {best_peak:.0f}")
    print("| shape | M×K×N × planes | np.matmul GFLOP/s (best / median) | "
          "simd GFLOP/s (best / median) | simd ÷ np.matmul time | simd % of "
          "sgemm peak | max rel. error vs float64 (numpy, simd) |")
    print("|---|---|---:|---:|---:|---:|---|")
    rows = []
    for label, kind, planes, m, k, n in winograd_shapes():
        calls = operands(kind, planes, m, k, n, rng, np, padded)
        if kind == "dw":
            mm, kk, nn = m, n, k  # M = C_in, K = slots, N = C_out
        else:
            mm, kk, nn = m, k, n
        rows.append((label, f"{mm}×{kk}×{nn} × {planes}", 2 * mm * kk * nn * planes,
                     calls))
    for label, m, k, n in s2_shapes():
        rows.append((label, f"{m}×{k}×{n} × 1", 2 * m * k * n,
                     s2_operands(m, k, n, rng, np)))
    for label, dims, flops, (numpy_call, simd_call, result, ref) in rows:
        errs = []
        for fn in (numpy_call, simd_call):
            fn()
            got = result()
            errs.append(float(np.abs(got - ref).max() / np.abs(ref).max()))
        ts = {"numpy": [], "simd": []}
        ratios = []
        for r in range(a.rounds):
            order = [("numpy", numpy_call), ("simd", simd_call)]
            if r % 2:
                order.reverse()
            got = {name: timed(fn, a.reps) for name, fn in order}
            for name, v in got.items():
                ts[name].append(v)
            ratios.append(got["simd"] / got["numpy"])
        g = {k: (flops / min(v) / 1e9, flops / statistics.median(v) / 1e9)
             for k, v in ts.items()}
        print(f"| {label} | {dims} | {g['numpy'][0]:.1f} / {g['numpy'][1]:.1f} | "
              f"{g['simd'][0]:.1f} / {g['simd'][1]:.1f} | "
              f"{statistics.median(ratios):.2f} | "
              f"{100 * g['simd'][0] / best_peak:.0f} % | "
              f"{errs[0]:.1e}, {errs[1]:.1e} |")
    print(f"# load at end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
