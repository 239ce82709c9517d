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

from ._jit import jit, jit_parallel
from .im2col import inside_run


@jit
def _divisor(
    rows_pad, rows_real, w0, kw, w_, pw, count_include_pad, divisor_override
):
    """torch's avg-pool divisor for the window starting at column ``w0``
    (``rows_pad``/``rows_real``: its height cut at the padding's far edge /
    at the input)."""
    if divisor_override != 0:
        return divisor_override
    if count_include_pad:
        return rows_pad * (min(w0 + kw, w_ + pw) - w0)
    return rows_real * (min(w0 + kw, w_) - max(w0, 0))


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
    """Fill ``y`` with each window's mean, by torch's divisor rule.

    Row by row: for output row ``i``, every tap ``(ki, kj)`` adds a strided
    run of input row ``h`` into a row of sums (a long, vectorisable loop,
    as in im2col), then each sum is divided by its window's divisor.
    """
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
            # torch's divisor: the window cut at the padding's far edge
            # (with_pad), then at the input (real)
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
def avgpool2d_backward(
    dy, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, dx
):
    """Add ``dy / divisor`` to every input pixel of each window.

    Row by row, the transpose of the forward: the row of shares
    ``dy[i, :] / divisor`` is added, tap by tap, onto strided runs of
    ``dx`` (overlapping windows add up).
    """
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
