"""Pooling kernels, compiled: same names and signatures as the NumPy twins.

Every kernel loops over ``(n, c)`` planes on the outside; a plane's output
(and, for the scatters, its ``dx``) is written by that iteration alone, so
the ``prange`` never races even where windows overlap.

* ``maxpool2d_forward``: padding counts as -inf; the window is scanned in
  row-major order and a value is taken if ``val > best or isnan(val)``
  (first maximum wins a tie, NaN propagates), as torch does on the CPU.
  ``argmax`` is the flat index ``h*W + w`` into the input plane.
* scatters (``maxpool2d_backward``, ``avgpool2d_backward``, ``maxunpool2d``)
  add into an output the caller zeroed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._jit import jit_parallel


@jit_parallel
def maxpool2d_forward(x, kh, kw, sh, sw, ph, pw, dh, dw, y, argmax):
    """Fill ``y`` with each window's maximum and ``argmax`` with where it was."""
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    for nc in prange(n_ * c_):
        n = nc // c_
        c = nc - n * c_
        xp = x[n, c]
        yp = y[n, c]
        ap = argmax[n, c]
        for i in range(oh_):
            h0 = i * sh - ph
            # first tap inside the input: the index torch reports when the
            # whole window is -inf
            hs = h0
            while hs < 0:
                hs += dh
            for j in range(ow_):
                w0 = j * sw - pw
                ws = w0
                while ws < 0:
                    ws += dw
                best = -math.inf
                idx = hs * w_ + ws
                for ki in range(kh):
                    h = h0 + ki * dh
                    if h < 0 or h >= h_:
                        continue
                    for kj in range(kw):
                        w = w0 + kj * dw
                        if w < 0 or w >= w_:
                            continue
                        v = xp[h, w]
                        if v > best or math.isnan(v):
                            best = v
                            idx = h * w_ + w
                yp[i, j] = best
                ap[i, j] = idx


@jit_parallel
def maxpool2d_backward(dy, argmax, dx):
    """Add ``dy[n, c, i, j]`` into ``dx[n, c].flat[argmax[n, c, i, j]]``."""
    n_, c_, oh_, ow_ = dy.shape
    plane = dx.shape[2] * dx.shape[3]
    dyf = dy.reshape(dy.size)
    af = argmax.reshape(argmax.size)
    dxf = dx.reshape(dx.size)
    for nc in prange(n_ * c_):
        # unsigned flat offsets: no wraparound check in the hot loop
        base = np.uint64(nc * plane)
        first = np.uint64(nc * oh_ * ow_)
        for k in range(np.uint64(oh_ * ow_)):
            dxf[base + np.uint64(af[first + k])] += dyf[first + k]


@jit_parallel
def avgpool2d_forward(
    x, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, y
):
    """Fill ``y`` with each window's mean, by torch's divisor rule."""
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    for nc in prange(n_ * c_):
        n = nc // c_
        c = nc - n * c_
        xp = x[n, c]
        yp = y[n, c]
        for i in range(oh_):
            h0 = i * sh - ph
            h1 = min(h0 + kh, h_ + ph)
            for j in range(ow_):
                w0 = j * sw - pw
                w1 = min(w0 + kw, w_ + pw)
                pool_size = (h1 - h0) * (w1 - w0)
                a0 = max(h0, 0)
                a1 = min(h1, h_)
                b0 = max(w0, 0)
                b1 = min(w1, w_)
                if divisor_override != 0:
                    divisor = divisor_override
                elif count_include_pad:
                    divisor = pool_size
                else:
                    divisor = (a1 - a0) * (b1 - b0)
                s = 0.0
                for h in range(a0, a1):
                    for w in range(b0, b1):
                        s += xp[h, w]
                yp[i, j] = s / divisor


@jit_parallel
def avgpool2d_backward(
    dy, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, dx
):
    """Add ``dy / divisor`` to every input pixel of each window."""
    n_, c_, oh_, ow_ = dy.shape
    h_, w_ = dx.shape[2], dx.shape[3]
    for nc in prange(n_ * c_):
        n = nc // c_
        c = nc - n * c_
        dyp = dy[n, c]
        dxp = dx[n, c]
        for i in range(oh_):
            h0 = i * sh - ph
            h1 = min(h0 + kh, h_ + ph)
            for j in range(ow_):
                w0 = j * sw - pw
                w1 = min(w0 + kw, w_ + pw)
                pool_size = (h1 - h0) * (w1 - w0)
                a0 = max(h0, 0)
                a1 = min(h1, h_)
                b0 = max(w0, 0)
                b1 = min(w1, w_)
                if divisor_override != 0:
                    divisor = divisor_override
                elif count_include_pad:
                    divisor = pool_size
                else:
                    divisor = (a1 - a0) * (b1 - b0)
                g = dyp[i, j] / divisor
                for h in range(a0, a1):
                    for w in range(b0, b1):
                        dxp[h, w] += g


@jit_parallel
def maxunpool2d(x, indices, out):
    """``out[n, c].flat[indices[n, c, i, j]] = x[n, c, i, j]`` (out zeroed)."""
    n_, c_, oh_, ow_ = x.shape
    plane = out.shape[2] * out.shape[3]
    xf = x.reshape(x.size)
    idf = indices.reshape(indices.size)
    of = out.reshape(out.size)
    for nc in prange(n_ * c_):
        base = np.uint64(nc * plane)
        first = np.uint64(nc * oh_ * ow_)
        for k in range(np.uint64(oh_ * ow_)):
            of[base + np.uint64(idf[first + k])] = xf[first + k]
