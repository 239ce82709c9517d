"""Traces of im2col, col2im and the transposed convolution.

Loop order (the reference kernels' order, and the column layout's memory
order): ``n, c, ki, kj, oh, ow``. For one kernel tap ``(ki, kj)`` every
window position is visited before the next tap, just as the NumPy reference
adds one strided slice per tap. Tap ``(ki, kj)`` of window ``(oh, ow)``
touches input pixel ``window.pixel((oh, ow), (ki, kj))``, the index map
of :class:`convgrad.geometry.Window`::

    h = oh * sh - ph + ki * dh
    w = ow * sw - pw + kj * dw

Running totals are kept in the input's dtype, so :func:`~convgrad.trace.replay`
reproduces the kernel's rounding.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

import numpy as np

from .. import geometry as geo
from .events import GatherEvent, ScatterEvent
from .replay import Trace


def _array(a: object, name: str, ndim: int, layout: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    geo.check_ndim(arr.shape, ndim, name, layout)
    return arr


def _scatter(
    dcol: np.ndarray, win: geo.Window, hw: tuple[int, int], skip_padding: bool
) -> Iterator[ScatterEvent]:
    """The col2im loop shared by col2im and the transposed conv."""
    n_, c_, kh, kw, oh_, ow_ = dcol.shape
    h_, w_ = hw
    acc = np.zeros((h_, w_), dtype=dcol.dtype)
    for n, c in product(range(n_), range(c_)):
        acc[...] = 0
        for ki, kj, oh, ow in product(range(kh), range(kw), range(oh_), range(ow_)):
            h, w = win.pixel((oh, ow), (ki, kj))
            v = dcol[n, c, ki, kj, oh, ow]
            src = (n, c, ki, kj, oh, ow)
            if 0 <= h < h_ and 0 <= w < w_:
                acc[h, w] += v
                yield ScatterEvent(src, (n, c, h, w), float(v), float(acc[h, w]))
            elif not skip_padding:
                yield ScatterEvent(src, (n, c, h, w), float(v), None, padding=True)


def im2col(
    x: object,
    kernel_size: object,
    dilation: object = 1,
    padding: object = 0,
    stride: object = 1,
    *,
    skip_padding: bool = False,
) -> Trace:
    """One :class:`GatherEvent` per column cell ``col[n, c, ki, kj, oh, ow]``.

    Arguments as :func:`convgrad.functional.unfold`'s. The trace's replay,
    of shape ``(N, C, KH, KW, OH, OW)``, is ``im2col``'s column array.
    """
    x = _array(x, "input", 4, "N, C, H, W")
    win = geo.unfold_geometry(x.shape, kernel_size, dilation, padding, stride)
    shape = (*x.shape[:2], *win.k, *win.out)
    return Trace("im2col", shape, x.dtype, win, lambda: _gather(x, win, skip_padding))


def _gather(x: np.ndarray, win: geo.Window, skip_padding: bool):
    n_, c_, h_, w_ = x.shape
    (kh, kw), (oh_, ow_) = win.k, win.out
    for n, c in product(range(n_), range(c_)):
        for ki, kj, oh, ow in product(range(kh), range(kw), range(oh_), range(ow_)):
            h, w = win.pixel((oh, ow), (ki, kj))
            dst = (n, c, ki, kj, oh, ow)
            if 0 <= h < h_ and 0 <= w < w_:
                v = float(x[n, c, h, w])
                yield GatherEvent((n, c, h, w), dst, v, v)
            elif not skip_padding:
                yield GatherEvent((n, c, h, w), dst, 0.0, 0.0, padding=True)


def fold_window(
    output_size: object,
    kernel_size: object,
    dilation: object = 1,
    padding: object = 0,
    stride: object = 1,
) -> geo.Window:
    """The windows of an ``output_size`` image, checked (``F.fold``'s order):
    what :func:`col2im` scatters over, and the shape its ``col`` must have,
    ``(N, C, *window.k, *window.out)``."""
    hw = geo.pair(output_size, "output_size", minimum=1)
    return geo.window(hw, kernel_size, stride, padding, dilation)


def col2im(
    col: object,
    output_size: object,
    kernel_size: object,
    dilation: object = 1,
    padding: object = 0,
    stride: object = 1,
    *,
    skip_padding: bool = False,
) -> Trace:
    """One :class:`ScatterEvent` per column cell, added onto its pixel.

    Arguments as :func:`convgrad.functional.fold`'s. ``col`` is in the
    teaching layout (N, C, KH, KW, OH, OW), or fold's (N, C*KH*KW, L). The
    replay, of shape ``(N, C, H, W)``, is ``col2im``'s image: overlapping
    windows add. Cells that fall in the padding come out with
    ``padding=True`` and are dropped (``skip_padding=True`` omits them).
    """
    arr = np.asarray(col)
    win = fold_window(output_size, kernel_size, dilation, padding, stride)
    hw = geo.pair(output_size, "output_size", minimum=1)
    want = (*win.k, *win.out)
    if arr.ndim == 3:
        taps, blocks = win.k[0] * win.k[1], win.out[0] * win.out[1]
        if arr.shape[1] % taps or arr.shape[2] != blocks:
            raise ValueError(
                f"col of shape (N, C*KH*KW, L) must have C*KH*KW divisible by "
                f"KH*KW = {taps} and L = OH*OW = {blocks}; got {arr.shape}"
            )
        arr = arr.reshape(arr.shape[0], -1, *want)
    col = _array(arr, "col", 6, "N, C, KH, KW, OH, OW")
    if tuple(col.shape[2:]) != want:
        raise ValueError(
            f"col.shape[2:] must be (KH, KW, OH, OW) = {want} for "
            f"output_size={output_size!r}, kernel_size={kernel_size!r}, "
            f"dilation={dilation!r}, padding={padding!r}, stride={stride!r}; "
            f"got {tuple(col.shape[2:])}"
        )
    shape = (*col.shape[:2], *hw)
    return Trace(
        "col2im", shape, col.dtype, win, lambda: _scatter(col, win, hw, skip_padding)
    )


def col2im_gather(
    col: object,
    output_size: object,
    kernel_size: object,
    dilation: object = 1,
    padding: object = 0,
    stride: object = 1,
) -> Trace:
    """col2im read from the pixel's side: one :class:`ScatterEvent` per
    column cell that lands on the image, pixel by pixel.

    Arguments as :func:`col2im`'s. Loop order ``n, c, h, w, ki, kj``: for
    pixel ``(h, w)`` and tap ``ki``, window row ``i`` puts the tap there
    when ``h + ph - ki*dh`` is a multiple of ``sh`` and ``0 <= i = (h + ph
    - ki*dh) // sh < OH`` (the same along the columns). Each pixel gets all
    its entries in consecutive steps and no other pixel's, so threads may
    split the pixels any way (no step writes a pixel another owns). At a
    pixel the entries come in the order ``(ki, kj)``, as in col2im's
    scatter, so the replay equals col2im bit for bit. Cells that only
    reach the padding are never read.
    """
    arr = np.asarray(col)
    win = fold_window(output_size, kernel_size, dilation, padding, stride)
    hw = geo.pair(output_size, "output_size", minimum=1)
    full = col2im(arr, output_size, kernel_size, dilation, padding, stride)
    want = (*win.k, *win.out)
    cells = _array(arr.reshape(arr.shape[0], -1, *want) if arr.ndim == 3
                   else arr, "col", 6, "N, C, KH, KW, OH, OW")
    return Trace("col2im_gather", full.shape, cells.dtype, win,
                 lambda: _pull(cells, win, hw))


def _pull(col: np.ndarray, win: geo.Window, hw: tuple[int, int]):
    n_, c_, kh, kw = col.shape[:4]
    for n, c, h, w in product(range(n_), range(c_), range(hw[0]),
                              range(hw[1])):
        total = col.dtype.type(0)
        for ki in range(kh):
            i = win.window_row(h, ki)  # the window whose tap ki is on h
            if i is None:
                continue
            for kj in range(kw):
                j = win.window_column(w, kj)
                if j is None:
                    continue
                v = col[n, c, ki, kj, i, j]
                total += v
                yield ScatterEvent((n, c, ki, kj, i, j),
                                   (n, c, h, w), float(v), float(total))


def conv_transpose_dcol(x: np.ndarray, w: np.ndarray, groups: int = 1) -> np.ndarray:
    """``wᵀ · x`` per group, in the column layout (N, C_out, KH, KW, H, W).

    The same matmul, on the same shapes, as the transposed conv's forward
    (:class:`convgrad.ops.conv.ConvTranspose2d`), so the sums round alike.
    """
    n, c_in, h, w_ = x.shape
    _, c_out_g, kh, kw = w.shape
    xg = x.reshape(n, groups, c_in // groups, h * w_)
    wg = w.reshape(groups, c_in // groups, -1)
    dcol = np.matmul(wg.transpose(0, 2, 1), xg)
    return dcol.reshape(n, c_out_g * groups, kh, kw, h, w_)


def conv_transpose_forward(
    x: object,
    weight: object,
    bias: object = None,
    stride: object = 1,
    padding: object = 0,
    output_padding: object = 0,
    groups: object = 1,
    dilation: object = 1,
    *,
    skip_padding: bool = False,
) -> Trace:
    """The transposed conv's forward, ``col2im(wᵀ · x)``, one add per event.

    Arguments as :func:`convgrad.functional.conv_transpose2d`'s; ``weight``
    is (C_in, C_out/groups, KH, KW). Each event's ``src`` is the column cell
    ``(n, co, ki, kj, i, j)`` holding ``Σ_ci x[n, ci, i, j] * w[ci, co, ki,
    kj]``: input pixel ``(i, j)`` stamps the kernel, scaled, onto the
    output. The replay, of shape ``(N, C_out, OH, OW)``, is the transposed
    conv's output without its bias (the bias is an add, not a scatter: pass
    ``bias=None``).
    """
    if bias is not None:
        raise ValueError(
            "bias must be None: the trace plays the scatter col2im(wᵀ·x); "
            "the bias is added afterwards, to every pixel of its channel"
        )
    x = _array(x, "input", 4, "N, C_in, H, W")
    w = _array(weight, "weight", 4, "C_in, C_out/groups, KH, KW")
    geom = geo.conv_transpose2d_geometry(
        x.shape, w.shape, None, stride, padding, output_padding, groups, dilation
    )
    dtype = np.result_type(x.dtype, w.dtype)
    dcol = conv_transpose_dcol(x.astype(dtype), w.astype(dtype), geom.groups)
    shape = (x.shape[0], geom.c_out, *geom.out)
    return Trace(
        "conv_transpose",
        shape,
        dcol.dtype,
        geom,
        lambda: _scatter(dcol, geom.win, geom.out, skip_padding),
    )


def overlap_count(
    hw: object,
    kernel_size: object,
    dilation: object = 1,
    padding: object = 0,
    stride: object = 1,
) -> np.ndarray:
    """How many windows touch each pixel: an int array (H, W).

    It is ``col2im`` of a column of ones. When the stride does not divide
    the (dilated) kernel the counts are uneven: the checkerboard.
    """
    win = fold_window(hw, kernel_size, dilation, padding, stride)
    size = geo.pair(hw, "output_size", minimum=1)
    (kh, kw), (ph, pw) = win.k, win.p
    padded = np.zeros(win.padded(size), dtype=np.int64)
    for ki, kj in product(range(kh), range(kw)):
        padded[win.tap_slices(ki, kj)] += 1
    return padded[ph : ph + size[0], pw : pw + size[1]].copy()
