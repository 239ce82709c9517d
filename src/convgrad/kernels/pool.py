"""Pooling kernels, compiled: same names and signatures as the NumPy twins.

Every kernel loops over ``(n, c)`` planes on the outside; a plane's output
(and, for the scatters, its ``dx``) is written by that iteration alone, so
the ``prange`` never races even where windows overlap. For the same
reason a call can be cut into runs of planes: the four pool kernels below
are wrapped by :func:`.pool_threads.plane_threads`, which runs calls from
4M elements over numba's threads that way (the serial build on each run;
``serial`` and ``parallel`` stay reachable as attributes).

* ``maxpool2d_forward``: padding counts as -inf; the window is scanned in
  row-major order and a value is taken if ``val > best or isnan(val)``
  (first maximum wins a tie, NaN propagates), as torch does on the CPU.
  ``argmax`` is the flat index ``h*W + w`` into the input plane.
* scatters (``maxpool2d_backward``, ``avgpool2d_backward``, ``maxunpool2d``)
  add into an output the caller zeroed.
* ``avgpool2d_backward`` is col2im of the shares ``dy / divisor``: loop
  order ``n, c, ki, kj, i, j``, as the NumPy twin and the trace, so the
  three agree bit for bit in float32 and float64.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._jit import jit, jit_parallel
from .im2col import inside_run
from .pool_threads import plane_threads


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


@jit
def _divisors(
    div, h0, kh, kw, sw, h_, w_, ph, pw, count_include_pad, divisor_override
):
    """Fill ``div`` with torch's divisors for the row of windows that starts
    at input row ``h0``, stored in ``div``'s dtype (the data's), so that
    ``value / div[j]`` divides in that dtype, as the NumPy twin does."""
    # torch's divisor: the window cut at the padding's far edge (with_pad),
    # then at the input (real)
    rows_pad = min(h0 + kh, h_ + ph) - h0
    rows_real = min(h0 + kh, h_) - max(h0, 0)
    for j in range(div.size):
        div[j] = _divisor(
            rows_pad, rows_real, j * sw - pw, kw, w_, pw,
            count_include_pad, divisor_override,
        )


#: output planes of at most this many pixels take the window-by-window
#: scan: the row-by-row kernel's per-plane set-up (four scratch arrays, the
#: phases' -inf fill) cost more than it saved on lesson 9's 4×4 and 2×2
#: outputs (k2s2 of (32, 32, 4, 4): 69 µs window by window, 257 µs row by
#: row; of (32, 16, 8, 8): 113 against 160). At 8×8 outputs the row kernel
#: already wins (window by window took 20 ns an output, row by row 7).
#: A 2×2 kernel whose windows all lie inside takes the unrolled scan
#: (:func:`_maxpool2d_2x2`, issue 31: 3 ns an output)
SMALL_PLANE = 16


@jit
def _maxpool2d_windows(x, kh, kw, sh, sw, ph, pw, dh, dw, y, argmax):
    """:func:`maxpool2d_forward` window by window (small planes): each
    window's taps in row-major order, the same rule, the same bits."""
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    for nc in range(n_ * c_):
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


@jit
def _maxpool2d_2x2(x, sh, sw, dh, dw, y, argmax):
    """:func:`_maxpool2d_windows` for a 2×2 kernel whose windows all lie
    inside the input (no padding): the four taps unrolled, in row-major
    order, each by the same rule, branch-free. The first tap is always
    taken (a NaN by the rule, anything else beats the -inf start; a -inf
    leaves ``best`` -inf and ``idx`` on that tap either way), so the
    result is the scan's bit for bit. Lesson 9's 2×2 pools: 74 → 24 µs
    and 43 → 16 µs a call (a 2-trip loop per window row, and a branch
    per tap that random data mispredicts, were the cost)."""
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    xf = x.reshape(x.size)
    yf = y.reshape(y.size)
    af = argmax.reshape(argmax.size)
    down = dh * w_
    for nc in range(n_ * c_):
        base = nc * h_ * w_
        for i in range(oh_):
            for j in range(ow_):
                at = i * sh * w_ + j * sw
                p = np.uint64(base + at)
                best = xf[p]
                idx = at
                v = xf[p + np.uint64(dw)]
                take = (v > best) | (v != v)
                best = v if take else best
                idx = at + dw if take else idx
                v = xf[p + np.uint64(down)]
                take = (v > best) | (v != v)
                best = v if take else best
                idx = at + down if take else idx
                v = xf[p + np.uint64(down + dw)]
                take = (v > best) | (v != v)
                best = v if take else best
                idx = at + down + dw if take else idx
                o = np.uint64((nc * oh_ + i) * ow_ + j)
                yf[o] = best
                af[o] = idx


@plane_threads
@jit_parallel
def maxpool2d_forward(x, kh, kw, sh, sw, ph, pw, dh, dw, y, argmax):
    """Fill ``y`` with each window's maximum and ``argmax`` with where it was.

    Row by row, as avg-pool's forward: for output row ``i`` the windows'
    running maxima ``best`` and indices ``idx`` are updated tap by tap
    ``(ki, kj)``, each tap a contiguous run over the row's windows ``j``.
    The run is contiguous because input row ``h`` is first dealt into
    phases, phase ``r`` holding columns ``m*sw + r`` (so tap offset
    ``off = q*sw + r`` of window ``j`` is slot ``j + q`` of phase ``r``),
    with -inf for columns outside the input. Only phases ``r < W`` hold a
    column at all (a tap with ``r >= W`` is outside for every window, and
    skipped): ``min(sw, W)`` phases, so a huge stride needs no huge
    buffer. Each window still sees its taps in row-major order, and a
    padding -inf is never taken (it is neither ``> best`` nor NaN), so
    ``y`` and ``argmax`` are the window-by-window scan's bit for bit. The
    update is branch-free (``idx += take * (new - idx)``): a mispredicted
    branch per tap was the cost of the window-by-window kernel (4x slower
    on k3 s2).
    """
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    if oh_ * ow_ <= SMALL_PLANE:
        if (kh == 2 and kw == 2 and ph == 0 and pw == 0
                and (oh_ - 1) * sh + dh < h_ and (ow_ - 1) * sw + dw < w_):
            _maxpool2d_2x2(x, sh, sw, dh, dw, y, argmax)
        else:
            _maxpool2d_windows(x, kh, kw, sh, sw, ph, pw, dh, dw, y, argmax)
        return
    xf = x.reshape(x.size)
    yf = y.reshape(y.size)
    af = argmax.reshape(argmax.size)
    qmin = (-pw) // sw  # the lowest slot offset q, <= 0
    span = ow_ + ((kw - 1) * dw - pw) // sw - qmin  # slots per phase
    phases = min(sw, w_)
    step = np.uint64(sw)
    for nc in prange(n_ * c_):
        best = np.empty(ow_, xf.dtype)
        idx = np.empty(ow_, np.int64)
        # -inf where a slot's column is outside the input: the same slots
        # in every row, so only the inside runs are dealt, row by row
        phase = np.full(phases * span, -math.inf, xf.dtype)
        # first column inside the input, per window: with the first row
        # inside, the index torch reports when the whole window is -inf
        first = np.empty(ow_, np.int64)
        for j in range(ow_):
            ws = j * sw - pw
            while ws < 0:
                ws += dw
            first[j] = ws
        for i in range(oh_):
            h0 = i * sh - ph
            hs = h0
            while hs < 0:
                hs += dh
            for j in range(ow_):
                best[j] = -math.inf
                idx[j] = hs * w_ + first[j]
            for ki in range(kh):
                h = h0 + ki * dh
                if h < 0 or h >= h_:
                    continue
                row = (nc * h_ + h) * w_
                for r in range(phases):
                    # slot t of phase r: column (t + qmin)*sw + r, inside
                    # the input for t0 <= t < t1
                    t0 = min(-qmin, span)
                    t1 = max(t0, min(span, (w_ - 1 - r) // sw - qmin + 1))
                    src = np.uint64(row + (t0 + qmin) * sw + r)
                    dst = np.uint64(r * span + t0)
                    for t in range(np.uint64(t1 - t0)):
                        phase[dst + t] = xf[src + t * step]
                for kj in range(kw):
                    off = kj * dw - pw
                    q = off // sw
                    r = off - q * sw
                    if r >= phases:
                        continue
                    slot = np.uint64(r * span + q - qmin)
                    at = h * w_ + off  # the flat index of window 0's tap
                    for j in range(ow_):
                        v = phase[slot + np.uint64(j)]
                        b = best[j]
                        take = (v > b) | (v != v)  # torch's rule
                        best[j] = v if take else b
                        i0 = idx[np.uint64(j)]
                        idx[np.uint64(j)] = i0 + np.int64(take) * (at + j * sw - i0)
            out = (nc * oh_ + i) * ow_
            for j in range(ow_):
                yf[out + j] = best[j]
                af[out + j] = idx[j]


@plane_threads
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


@plane_threads
@jit_parallel
def avgpool2d_forward(
    x, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, y
):
    """Fill ``y`` with each window's mean, by torch's divisor rule.

    Row by row: for output row ``i``, every tap ``(ki, kj)`` adds a strided
    run of input row ``h`` into a row of sums (a long, vectorisable loop,
    as in im2col), then each sum is divided by its window's divisor. Sums
    and divisors are in ``x``'s dtype and each window adds its taps in
    row-major order, as the NumPy twin does: the two agree bit for bit.
    """
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    xf = x.reshape(x.size)
    yf = y.reshape(y.size)
    step = np.uint64(sw)
    for nc in prange(n_ * c_):
        acc = np.empty(ow_, xf.dtype)  # sums, in x's dtype
        div = np.empty(ow_, xf.dtype)  # divisors, in x's dtype
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
            _divisors(div, h0, kh, kw, sw, h_, w_, ph, pw,
                      count_include_pad, divisor_override)
            out = (nc * oh_ + i) * ow_
            for j in range(ow_):
                yf[out + j] = acc[j] / div[j]


@plane_threads
@jit_parallel
def avgpool2d_backward(
    dy, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, dx
):
    """Add ``dy / divisor`` to every input pixel of each window.

    col2im of the shares. First the plane of shares ``dy / divisor``
    (divided in ``dy``'s dtype); then, tap by tap ``(ki, kj)``, every
    window's share lands on that tap's pixel: for each output row ``i`` a
    strided run of ``dx``, as col2im adds a row of its column. Loop order
    ``n, c, ki, kj, i, j``, as the NumPy twin and the trace: so every pixel
    receives its shares in the same order (tap by tap) in all three, and
    they agree bit for bit. Overlapping windows add up.
    """
    n_, c_, oh_, ow_ = dy.shape
    h_, w_ = dx.shape[2], dx.shape[3]
    dyf = dy.reshape(dy.size)
    dxf = dx.reshape(dx.size)
    step = np.uint64(sw)
    for nc in prange(n_ * c_):
        share = np.empty(oh_ * ow_, dyf.dtype)  # this plane's dy / divisor
        div = np.empty(ow_, dyf.dtype)
        for i in range(oh_):
            _divisors(div, i * sh - ph, kh, kw, sw, h_, w_, ph, pw,
                      count_include_pad, divisor_override)
            row = i * ow_
            first = nc * oh_ * ow_ + row
            for j in range(ow_):
                share[row + j] = dyf[first + j] / div[j]
        for ki in range(kh):
            for kj in range(kw):
                off = kj - pw
                j0, j1 = inside_run(off, sw, ow_, w_)
                for i in range(oh_):
                    h = i * sh - ph + ki
                    if h < 0 or h >= h_:
                        continue
                    src = np.uint64(i * ow_ + j0)
                    dst = np.uint64((nc * h_ + h) * w_ + j0 * sw + off)
                    if sw == 1:  # a contiguous run: vectorised
                        for j in range(np.uint64(j1 - j0)):
                            dxf[dst + j] += share[src + j]
                    else:
                        for j in range(np.uint64(j1 - j0)):
                            dxf[dst + j * step] += share[src + j]


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
