"""Is a direct-loop conv2d forward faster than im2col + GEMM for few channels?

A probe, not part of the package: a straightforward Numba direct convolution
(``y[n, o] += w[o, c, ki, kj] * shifted x[n, c]``, vectorised over output
columns) against convgrad's im2col + GEMM forward, at 1 and 2 threads of
BLAS, on the lesson-sized shapes where a direct loop has its best chance.

    python benchmarks/probe_direct_conv.py
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit
from threadpoolctl import threadpool_limits

import convgrad as cg
from convgrad import functional as F


@njit(cache=True, nogil=True)
def conv2d_direct(x, w, sh, sw, ph, pw, dh, dw, y):
    n_, c_, h_, w_ = x.shape
    o_, _, kh, kw = w.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    xf = x.reshape(x.size)
    yf = y.reshape(y.size)
    step = np.uint64(sw)
    yf[:] = 0
    for n in range(n_):
        for o in range(o_):
            for c in range(c_):
                for ki in range(kh):
                    for kj in range(kw):
                        wv = w[o, c, ki, kj]
                        off = kj * dw - pw
                        j0 = 0
                        if off < 0:
                            j0 = min(ow_, (-off + sw - 1) // sw)
                        j1 = 0
                        if w_ - 1 - off >= 0:
                            j1 = min(ow_, (w_ - 1 - off) // sw + 1)
                        j1 = max(j0, j1)
                        for i in range(oh_):
                            h = i * sh - ph + ki * dh
                            if h < 0 or h >= h_:
                                continue
                            dst = np.uint64(((n * o_ + o) * oh_ + i) * ow_ + j0)
                            row = ((n * c_ + c) * h_ + h) * w_
                            src = np.uint64(row + j0 * sw + off)
                            for j in range(np.uint64(j1 - j0)):
                                yf[dst + j] += wv * xf[src + j * step]


def main() -> None:
    rng = np.random.default_rng(0)
    print("shape (N, C_in, C_out, H)   dtype   threads  im2col+GEMM ms  direct ms")
    for n, ci, co, hw in [(8, 1, 8, 28), (8, 3, 16, 28), (32, 3, 16, 32),
                          (32, 16, 32, 32)]:
        for dtype in (np.float32, np.float64):
            x = rng.standard_normal((n, ci, hw, hw)).astype(dtype)
            w = rng.standard_normal((co, ci, 3, 3)).astype(dtype)
            y = np.empty((n, co, hw, hw), dtype)
            conv2d_direct(x, w, 1, 1, 1, 1, 1, 1, y)
            want = F.conv2d(cg.Tensor(x), cg.Tensor(w), padding=1).data
            tol = 1e-3 if dtype == np.float32 else 1e-9
            assert np.allclose(y, want, rtol=tol, atol=tol)
            for threads in (1, 2):
                with threadpool_limits(threads):
                    ts = {"gemm": [], "direct": []}
                    for _ in range(15):
                        t = time.perf_counter()
                        F.conv2d(cg.Tensor(x), cg.Tensor(w), padding=1)
                        ts["gemm"].append(time.perf_counter() - t)
                        t = time.perf_counter()
                        conv2d_direct(x, w, 1, 1, 1, 1, 1, 1, y)
                        ts["direct"].append(time.perf_counter() - t)
                med = {k: np.median(v) * 1e3 for k, v in ts.items()}
                print(f"{(n, ci, co, hw)!s:<27} {np.dtype(dtype).name:<7} {threads:^7}"
                      f"  {med['gemm']:14.3f}  {med['direct']:9.3f}")


if __name__ == "__main__":
    main()
