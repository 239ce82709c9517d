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

from ._jit import jit, jit_inline, jit_parallel
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


@jit
def _divisor_table(
    like, oh_, ow_, kh, kw, sh, sw, h_, w_, ph, pw, count_include_pad,
    divisor_override,
):
    """torch's divisor of every window, ``(OH*OW,)`` row by row, in
    ``like``'s dtype: the same for every plane, so made once a call."""
    div = np.empty(oh_ * ow_, like.dtype)
    for i in range(oh_):
        _divisors(div[i * ow_:(i + 1) * ow_], i * sh - ph, kh, kw, sw, h_, w_,
                  ph, pw, count_include_pad, divisor_override)
    return div


@jit_inline
def _deal(xf, base, h_, w_, sw, span, phase):
    """Deal the plane ``xf[base:base + H*W]`` into its column phases:
    ``phase[(r*H + h)*span + t]`` holds column ``t*sw + r`` of row ``h``
    (``min(sw, W)`` phases of ``span = ceil(W / sw)`` slots a row; a slot
    past a row's end is not written, and no tap reads it). Stride 2 on
    even rows, the usual case, is one long de-interleave that LLVM
    vectorises; other strides go row by row."""
    if sw == 2 and w_ == 2 * span:
        half = np.uint64(h_ * span)
        src = np.uint64(base)
        two, one = np.uint64(2), np.uint64(1)
        for t in range(half):
            phase[t] = xf[src + two * t]
            phase[half + t] = xf[src + two * t + one]
        return
    for h in range(h_):
        row = base + h * w_
        for r in range(min(sw, w_)):
            dst = (r * h_ + h) * span
            for t in range((w_ - 1 - r) // sw + 1):
                phase[dst + t] = xf[row + t * sw + r]


@jit_inline
def _undeal_row(acc, span, sw, w_, dxf, row):
    """Write one row held by column phases (``acc[r*span + t]`` is column
    ``t*sw + r``) into ``dxf[row:row + W]``: every column once."""
    if sw == 1:
        for t in range(w_):
            dxf[row + t] = acc[t]
    elif sw == 2 and w_ == 2 * span:  # one interleaving loop, vectorised
        out = np.uint64(row)
        two, one, odd = np.uint64(2), np.uint64(1), np.uint64(span)
        for t in range(np.uint64(span)):
            dxf[out + two * t] = acc[t]
            dxf[out + two * t + one] = acc[odd + t]
    else:
        for r in range(min(sw, w_)):
            for t in range((w_ - 1 - r) // sw + 1):
                dxf[row + t * sw + r] = acc[r * span + t]


@jit
def _tap_runs(kw, sw, pw, ow_, w_, span, phase_rows):
    """For each column tap ``kj``: the windows ``j0 <= j < j0 + count``
    whose tap lands inside the input, and where window ``j0``'s tap sits
    in a plane dealt into phases (``(r*phase_rows)*span + j0 + q`` for
    tap offset ``off = q*sw + r``; add ``h*span`` for row ``h``). Made once
    a call: the integer divisions it takes cost more than a short row's
    adds when made per tap and row."""
    runs = np.empty((kw, 3), np.int64)  # j0, count, slot of window j0
    for kj in range(kw):
        off = kj - pw
        j0, j1 = inside_run(off, sw, ow_, w_)
        q = off // sw
        runs[kj, 0] = j0
        runs[kj, 1] = max(j1 - j0, 0)
        runs[kj, 2] = ((off - q * sw) * phase_rows) * span + j0 + q
    return runs


@plane_threads
@jit_parallel
def avgpool2d_forward(
    x, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, y
):
    """Fill ``y`` with each window's mean, by torch's divisor rule.

    Row by row: for output row ``i``, every tap ``(ki, kj)`` adds a run of
    input row ``h`` into a row of sums, then each sum is divided by its
    window's divisor (the table made once a call). The run is contiguous:
    at a stride above 1 the plane is first dealt into column phases
    (:func:`_deal`, as max-pool's forward deals a row), so tap offset
    ``off = q*sw + r`` of window ``j`` is slot ``j + q`` of phase ``r``,
    and each tap is a vectorised add of a contiguous run; where each tap's
    run starts is made once a call (:func:`_tap_runs`). A strided run per
    tap did not vectorise, and its integer divisions per tap and row cost
    more than its adds: k3s2 on the large case's 4096 planes, one thread,
    took 12.6 ms that way, 7.3 by phases. Sums and divisors are in ``x``'s dtype and
    each window adds its taps in row-major order, as the NumPy twin does:
    the two agree bit for bit. ``np.divide`` divides as ``/`` does, without
    the zero check Numba's ``/`` makes per element (a divisor is never 0),
    so the row's division vectorises too.
    """
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = y.shape[2], y.shape[3]
    xf = x.reshape(x.size)
    yf = y.reshape(y.size)
    div = _divisor_table(xf, oh_, ow_, kh, kw, sh, sw, h_, w_, ph, pw,
                         count_include_pad, divisor_override)
    span = (w_ + sw - 1) // sw  # slots a phase row
    runs = _tap_runs(kw, sw, pw, ow_, w_, span, h_)
    dealt = sw > 1
    for nc in prange(n_ * c_):
        acc = np.empty(ow_, xf.dtype)  # sums, in x's dtype
        if dealt:
            src = np.empty(min(sw, w_) * h_ * span, xf.dtype)
            _deal(xf, nc * h_ * w_, h_, w_, sw, span, src)
            base = 0
        else:  # stride 1: the plane is its own one phase
            src = xf
            base = nc * h_ * w_
        for i in range(oh_):
            for j in range(ow_):
                acc[j] = 0.0
            h0 = i * sh - ph
            for ki in range(kh):
                h = h0 + ki
                if h < 0 or h >= h_:
                    continue
                for kj in range(kw):
                    at = np.uint64(base + runs[kj, 2] + h * span)
                    first = np.uint64(runs[kj, 0])
                    for j in range(np.uint64(runs[kj, 1])):
                        acc[first + j] += src[at + j]
            out = np.uint64((nc * oh_ + i) * ow_)
            row = np.uint64(i * ow_)
            for j in range(np.uint64(ow_)):
                yf[out + j] = np.divide(acc[j], div[row + j])


@plane_threads
@jit_parallel
def avgpool2d_backward(
    dy, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, dx
):
    """Fill ``dx``: each pixel, the sum of the shares ``dy / divisor`` of
    the windows over it (0 where none is).

    First the plane of shares ``dy / divisor`` (divided in ``dy``'s dtype);
    then ``dx`` row by row: row ``h`` is summed in a row of its own, held
    by column phases (slot ``j + q`` of phase ``r`` for tap offset ``off =
    q*sw + r``, as the forward reads them, so each tap adds a contiguous,
    vectorised run), from 0, taking for each tap ``(ki, kj)`` in row-major
    order the window row ``i`` whose tap ``ki`` lands on ``h``; then the
    row is written out, every pixel once. So each pixel receives its
    shares in tap order, as col2im's order ``n, c, ki, kj, i, j`` (the
    NumPy twin's and the trace's) gives them, and the three agree bit for
    bit; overlapping windows add up.

    Written, not added: ``dx``'s old contents are never read, so the
    caller passes ``np.empty`` and each thread's first touch of a fresh
    ``dx`` is a write (into ``np.zeros``' untouched pages, the old
    read-add-write took a fault to map the zero page and a second to copy
    it, per page) and no zero-fill pass is needed.
    """
    n_, c_, oh_, ow_ = dy.shape
    h_, w_ = dx.shape[2], dx.shape[3]
    dyf = dy.reshape(dy.size)
    dxf = dx.reshape(dx.size)
    div = _divisor_table(dyf, oh_, ow_, kh, kw, sh, sw, h_, w_, ph, pw,
                         count_include_pad, divisor_override)
    span = (w_ + sw - 1) // sw
    slots = min(sw, w_) * span
    runs = _tap_runs(kw, sw, pw, ow_, w_, span, 1)
    # the window row whose tap ki lands on row h (-1: none), made once
    window_row = np.full(h_ * kh, -1, np.int64)
    for h in range(h_):
        for ki in range(kh):
            top = h + ph - ki  # i*sh
            if top >= 0 and top % sh == 0 and top // sh < oh_:
                window_row[h * kh + ki] = top // sh
    for nc in prange(n_ * c_):
        share = np.empty(oh_ * ow_, dyf.dtype)  # this plane's dy / divisor
        first = np.uint64(nc * oh_ * ow_)
        for k in range(np.uint64(oh_ * ow_)):
            share[k] = np.divide(dyf[first + k], div[k])
        acc = np.empty(slots, dyf.dtype)  # one row of dx, by phases
        for h in range(h_):
            for t in range(slots):
                acc[t] = 0.0
            for ki in range(kh):
                i = window_row[h * kh + ki]
                if i < 0:
                    continue
                for kj in range(kw):
                    at = np.uint64(runs[kj, 2])
                    src = np.uint64(i * ow_ + runs[kj, 0])
                    for j in range(np.uint64(runs[kj, 1])):
                        acc[at + j] += share[src + j]
            _undeal_row(acc, span, sw, w_, dxf, (nc * h_ + h) * w_)


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
