"""im2col (gather) and col2im (scatter-add), compiled.

Same names, signatures and column layout as :mod:`convgrad.reference.im2col`:
``col[n, c, ki, kj, oh, ow]`` holds input pixel
``(oh*sh - ph + ki*dh, ow*sw - pw + kj*dw)``, 0 in the padding.

Both loop over ``(n, c)`` planes on the outside. Each plane of ``x`` is read
(im2col) or written (col2im) by its own iteration only, so the ``prange``
never races, even though windows overlap inside a plane.

For one tap ``(ki, kj)`` and one output row ``i``, the columns ``j`` whose
pixel ``w = j*sw + kj*dw - pw`` lies inside the input form one range
``[j0, j1)``: the innermost loop runs over it with no test. Its indices are
unsigned, flat offsets: Numba then drops the negative-index wraparound
check, and LLVM vectorises the loop (4x faster than 2-D signed indexing,
measured). Every offset is computed so that it is never negative.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import jit, jit_parallel


@jit
def inside_run(off, sw, ow_, w_):
    """The output columns ``j0 <= j < j1`` whose tap at column offset
    ``off`` (``w = j*sw + off``) lands inside the ``w_`` input columns.

    No intermediate can wrap, for any int64 ``off`` and ``sw >= 1`` (a
    defence behind geometry's bounds): ``-(off + 1)`` never overflows, and
    the first column at or past pixel 0, ``sw - 1 - (-(off + 1)) % sw``, is
    found without multiplying ``j0 * sw``.
    """
    if off >= 0:
        if off >= w_:
            return 0, 0
        return 0, min(ow_, (w_ - 1 - off) // sw + 1)
    q = -(off + 1)  # >= 0
    if q // sw >= ow_:  # every column lies left of the input
        return ow_, ow_
    j0 = q // sw + 1  # ceil(-off / sw)
    first = sw - 1 - q % sw  # j0*sw + off, in [0, sw)
    if first >= w_:
        return j0, j0
    return j0, min(ow_, j0 + (w_ - 1 - first) // sw + 1)


@jit
def _im2col_flat_plane(xf, cf, nc, h_, w_, kh, kw, ph, pw, dh, dw, oh_):
    """:func:`im2col`'s plane ``nc`` at stride 1 when ``OW == W``.

    Tap ``(ki, kj)`` reads pixel ``(i - ph + ki*dh, j + off)`` into slot
    ``(i, j)``; with a row pitch of ``W`` on both sides, slot and pixel
    differ by one flat offset for every inside ``(i, j)``. So the run from
    the first inside slot to the last is one contiguous copy (measured on
    lesson 9's 4×4 planes: 122 → 76 µs a call, where a copy of 4 and two
    zero fills per output row cost more than the data), and the slots it
    wrongly filled, left and right of each row's inside columns, are then
    zeroed. Every read lies between the first and the last inside pixel,
    so inside the array; the result is the row-by-row loop's, bit for bit
    (a copy).
    """
    ow_ = w_
    for ki in range(kh):
        # the output rows i whose input row i - ph + ki*dh lies in [0, H)
        i0, i1 = inside_run(ki * dh - ph, 1, oh_, h_)
        for kj in range(kw):
            off = kj * dw - pw
            j0, j1 = inside_run(off, 1, ow_, w_)
            tap = np.uint64(((nc * kh + ki) * kw + kj) * oh_ * ow_)
            if i0 >= i1 or j0 >= j1:  # the tap sees only padding
                for t in range(np.uint64(oh_ * ow_)):
                    cf[tap + t] = 0
                continue
            for t in range(np.uint64(i0 * ow_)):
                cf[tap + t] = 0
            for t in range(np.uint64(i1 * ow_), np.uint64(oh_ * ow_)):
                cf[tap + t] = 0
            dst = tap + np.uint64(i0 * ow_ + j0)
            src = np.uint64((nc * h_ + i0 - ph + ki * dh) * w_ + j0 + off)
            for t in range(np.uint64((i1 - 1 - i0) * ow_ + j1 - j0)):
                cf[dst + t] = xf[src + t]
            if j0 > 0 or j1 < ow_:
                for i in range(i0, i1):
                    row = tap + np.uint64(i * ow_)
                    for j in range(np.uint64(j0)):
                        cf[row + j] = 0
                    for j in range(np.uint64(j1), np.uint64(ow_)):
                        cf[row + j] = 0


@jit_parallel
def im2col(x, kh, kw, sh, sw, ph, pw, dh, dw, col):
    """Fill ``col`` (N, C, KH, KW, OH, OW) with the patches of ``x``."""
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = col.shape[4], col.shape[5]
    xf = x.reshape(x.size)
    cf = col.reshape(col.size)
    step = np.uint64(sw)
    # stride 1 with as many output columns as input columns ('same'): a
    # tap's plane is its input plane shifted by one offset, so its inside
    # pixels are one contiguous run (then zero the edge columns)
    flat = sh == 1 and sw == 1 and ow_ == w_
    for nc in prange(n_ * c_):
        if flat:
            _im2col_flat_plane(xf, cf, nc, h_, w_, kh, kw, ph, pw, dh, dw, oh_)
            continue
        for ki in range(kh):
            for kj in range(kw):
                # the columns j whose pixel w = j*sw + off lies in [0, W)
                off = kj * dw - pw
                j0, j1 = inside_run(off, sw, ow_, w_)
                tap = ((nc * kh + ki) * kw + kj) * oh_ * ow_
                for i in range(oh_):
                    row = tap + i * ow_
                    h = i * sh - ph + ki * dh
                    if h < 0 or h >= h_:
                        cf[row : row + ow_] = 0
                        continue
                    cf[row : row + j0] = 0
                    cf[row + j1 : row + ow_] = 0
                    dst = np.uint64(row + j0)
                    src = np.uint64((nc * h_ + h) * w_ + j0 * sw + off)
                    if sw == 1:  # a contiguous copy: vectorised
                        for j in range(np.uint64(j1 - j0)):
                            cf[dst + j] = xf[src + j]
                    else:
                        for j in range(np.uint64(j1 - j0)):
                            cf[dst + j] = xf[src + j * step]


@jit_parallel
def col2im(col, kh, kw, sh, sw, ph, pw, dh, dw, x):
    """Add every entry of ``col`` onto the pixel it came from, into ``x``.

    The adjoint of :func:`im2col`: overlapping windows add up. ``x`` must be
    zeroed (or hold what the sums should start from).
    """
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = col.shape[4], col.shape[5]
    xf = x.reshape(x.size)
    cf = col.reshape(col.size)
    step = np.uint64(sw)
    for nc in prange(n_ * c_):
        for ki in range(kh):
            for kj in range(kw):
                off = kj * dw - pw
                j0, j1 = inside_run(off, sw, ow_, w_)
                tap = ((nc * kh + ki) * kw + kj) * oh_ * ow_
                for i in range(oh_):
                    h = i * sh - ph + ki * dh
                    if h < 0 or h >= h_:
                        continue
                    src = np.uint64(tap + i * ow_ + j0)
                    dst = np.uint64((nc * h_ + h) * w_ + j0 * sw + off)
                    if sw == 1:
                        for j in range(np.uint64(j1 - j0)):
                            xf[dst + j] += cf[src + j]
                    else:
                        for j in range(np.uint64(j1 - j0)):
                            xf[dst + j * step] += cf[src + j]
