"""im2col (gather) and col2im (scatter-add), compiled.

Same names, signatures and column layout as :mod:`convgrad.reference.im2col`:
``col[n, c, ki, kj, oh, ow]`` holds input pixel
``(oh*sh - ph + ki*dh, ow*sw - pw + kj*dw)``, 0 in the padding.

Both loop over ``(n, c)`` planes on the outside. Each plane of ``x`` is read
(im2col) or written (col2im) by its own iteration only, so the ``prange``
never races, even though windows overlap inside a plane.
"""

from __future__ import annotations

from numba import prange

from ._jit import jit_parallel


@jit_parallel
def im2col(x, kh, kw, sh, sw, ph, pw, dh, dw, col):
    """Fill ``col`` (N, C, KH, KW, OH, OW) with the patches of ``x``."""
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = col.shape[4], col.shape[5]
    for nc in prange(n_ * c_):
        n = nc // c_
        c = nc - n * c_
        xp = x[n, c]
        for ki in range(kh):
            for kj in range(kw):
                cp = col[n, c, ki, kj]
                # the columns j whose pixel w = j*sw + off lies in [0, W)
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
                        for j in range(ow_):
                            cp[i, j] = 0
                        continue
                    for j in range(j0):
                        cp[i, j] = 0
                    for j in range(j0, j1):
                        cp[i, j] = xp[h, j * sw + off]
                    for j in range(j1, ow_):
                        cp[i, j] = 0


@jit_parallel
def col2im(col, kh, kw, sh, sw, ph, pw, dh, dw, x):
    """Add every entry of ``col`` onto the pixel it came from, into ``x``.

    The adjoint of :func:`im2col`: overlapping windows add up. ``x`` must be
    zeroed (or hold what the sums should start from).
    """
    n_, c_, h_, w_ = x.shape
    oh_, ow_ = col.shape[4], col.shape[5]
    for nc in prange(n_ * c_):
        n = nc // c_
        c = nc - n * c_
        xp = x[n, c]
        for ki in range(kh):
            for kj in range(kw):
                cp = col[n, c, ki, kj]
                off = kj * dw - pw
                j0 = 0
                if off < 0:
                    j0 = min(ow_, (-off + sw - 1) // sw)
                j1 = 0
                if w_ - 1 - off >= 0:
                    j1 = min(ow_, (w_ - 1 - off) // sw + 1)
                for i in range(oh_):
                    h = i * sh - ph + ki * dh
                    if h < 0 or h >= h_:
                        continue
                    for j in range(j0, j1):
                        xp[h, j * sw + off] += cp[i, j]
