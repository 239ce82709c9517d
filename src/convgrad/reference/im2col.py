"""im2col (gather patches) and col2im (scatter-add them back), in NumPy.

The column layout is the teaching layout ``col[n, c, ki, kj, oh, ow]``:
the value the kernel tap ``(ki, kj)`` sees when the window sits at output
position ``(oh, ow)``. Reshaped to ``(N, C*KH*KW, OH*OW)`` it is exactly
``torch.nn.functional.unfold``'s layout, so the GEMM wants no copy.

With ``ph, pw`` of padding, tap ``(ki, kj)`` of window ``(oh, ow)`` reads
input pixel ``Window.pixel((oh, ow), (ki, kj))`` (the index map, written
once in :class:`convgrad.geometry.Window`)::

    h = oh * sh - ph + ki * dh
    w = ow * sw - pw + kj * dw

and reads 0 when that pixel lies in the padding. These functions take the
kernels' eight ints and ask :meth:`Window.of` for the window they make.

:func:`im2col` and :func:`col2im` loop over the kernel's taps only and
move every window at once with one strided slice per tap
(``Window.tap_slices``): ``KH*KW`` slices, whatever the image size.
:func:`im2col_by_window` and :func:`col2im_by_window` compute the same
with four nested loops, one window position and one tap at a time
(``OH*OW*KH*KW`` small copies), the form lesson 2 times the tap loop
against. They are no kernel: no backend runs them.
"""

from __future__ import annotations

import numpy as np

from ..geometry import Window


def im2col(x, kh, kw, sh, sw, ph, pw, dh, dw, col):
    """Fill ``col`` (N, C, KH, KW, OH, OW) with the patches of ``x``."""
    win = Window.of((kh, kw, sh, sw, ph, pw, dh, dw), col.shape[4:])
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    for ki in range(kh):
        for kj in range(kw):
            # every window's tap (ki, kj) at once: a strided slice
            rows, cols = win.tap_slices(ki, kj)
            col[:, :, ki, kj] = xp[:, :, rows, cols]


def col2im(col, kh, kw, sh, sw, ph, pw, dh, dw, x):
    """Add every entry of ``col`` onto the pixel it came from, into ``x``.

    This is the adjoint of :func:`im2col`, not its inverse: a pixel that
    ``k`` windows overlap receives the sum of ``k`` column entries, tap by
    tap, starting from ``x``'s own value (the kernel's order of adds).
    """
    n, c, h, w = x.shape
    win = Window.of((kh, kw, sh, sw, ph, pw, dh, dw), col.shape[4:])
    xp = np.zeros((n, c, *win.padded((h, w))), dtype=x.dtype)
    xp[:, :, ph : ph + h, pw : pw + w] = x
    for ki in range(kh):
        for kj in range(kw):
            rows, cols = win.tap_slices(ki, kj)
            # within one tap the destinations are distinct, so += is safe;
            # across taps they overlap and the sums add up
            xp[:, :, rows, cols] += col[:, :, ki, kj]
    x[...] = xp[:, :, ph : ph + h, pw : pw + w]


def im2col_by_window(x, kh, kw, sh, sw, ph, pw, dh, dw, col):
    """:func:`im2col` one window position and one tap at a time."""
    oh, ow = col.shape[4], col.shape[5]
    win = Window.of((kh, kw, sh, sw, ph, pw, dh, dw), (oh, ow))
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    for i in range(oh):
        for j in range(ow):
            for ki in range(kh):
                for kj in range(kw):
                    h, w = win.pixel((i, j), (ki, kj))
                    col[:, :, ki, kj, i, j] = xp[:, :, ph + h, pw + w]


def col2im_by_window(col, kh, kw, sh, sw, ph, pw, dh, dw, x):
    """:func:`col2im` one window position and one tap at a time."""
    n, c, h, w = x.shape
    oh, ow = col.shape[4], col.shape[5]
    win = Window.of((kh, kw, sh, sw, ph, pw, dh, dw), (oh, ow))
    xp = np.zeros((n, c, *win.padded((h, w))), dtype=x.dtype)
    xp[:, :, ph : ph + h, pw : pw + w] = x
    for i in range(oh):
        for j in range(ow):
            for ki in range(kh):
                for kj in range(kw):
                    r, q = win.pixel((i, j), (ki, kj))
                    xp[:, :, ph + r, pw + q] += col[:, :, ki, kj, i, j]
    x[...] = xp[:, :, ph : ph + h, pw : pw + w]
