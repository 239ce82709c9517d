"""Traces of im2col, col2im and the transposed convolution.

Loop order (the reference kernels' order, and the column layout's memory
order): ``n, c, ki, kj, oh, ow``. For one kernel tap ``(ki, kj)`` every
window position is visited before the next tap, just as the NumPy reference
adds one strided slice per tap. Tap ``(ki, kj)`` of window ``(oh, ow)``
touches input pixel::

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
    _, _, sh, sw, ph, pw, dh, dw = win.args
    acc = np.zeros((h_, w_), dtype=dcol.dtype)
    for n, c in product(range(n_), range(c_)):
        acc[...] = 0
        for ki, kj, oh, ow in product(range(kh), range(kw), range(oh_), range(ow_)):
            h = oh * sh - ph + ki * dh
            w = ow * sw - pw + kj * dw
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
    stride: object = 1,
    padding: object = 0,
    dilation: object = 1,
    *,
    skip_padding: bool = False,
) -> Iterator[GatherEvent]:
    """One :class:`GatherEvent` per column cell ``col[n, c, ki, kj, oh, ow]``.

    ``replay(events, (N, C, KH, KW, OH, OW))`` is ``im2col``'s column array.
    """
    x = _array(x, "input", 4, "N, C, H, W")
    win = geo.unfold_geometry(x.shape, kernel_size, dilation, padding, stride)
    return _gather(x, win, skip_padding)


def _gather(x: np.ndarray, win: geo.Window, skip_padding: bool):
    n_, c_, h_, w_ = x.shape
    kh, kw, sh, sw, ph, pw, dh, dw = win.args
    oh_, ow_ = win.out
    for n, c in product(range(n_), range(c_)):
        for ki, kj, oh, ow in product(range(kh), range(kw), range(oh_), range(ow_)):
            h = oh * sh - ph + ki * dh
            w = ow * sw - pw + kj * dw
            dst = (n, c, ki, kj, oh, ow)
            if 0 <= h < h_ and 0 <= w < w_:
                v = float(x[n, c, h, w])
                yield GatherEvent((n, c, h, w), dst, v, v)
            elif not skip_padding:
                yield GatherEvent((n, c, h, w), dst, 0.0, 0.0, padding=True)


def col2im(
    col: object,
    output_size: object,
    kernel_size: object,
    stride: object = 1,
    padding: object = 0,
    dilation: object = 1,
    *,
    skip_padding: bool = False,
) -> Iterator[ScatterEvent]:
    """One :class:`ScatterEvent` per column cell, added onto its pixel.

    ``col`` is in the teaching layout (N, C, KH, KW, OH, OW).
    ``replay(events, (N, C, H, W))`` is ``col2im``'s image: overlapping
    windows add. Cells that fall in the padding come out with
    ``padding=True`` and are dropped (``skip_padding=True`` omits them).
    """
    col = _array(col, "col", 6, "N, C, KH, KW, OH, OW")
    hw = geo.pair(output_size, "output_size", minimum=1)
    win = geo.window(hw, kernel_size, stride, padding, dilation)
    want = (*win.k, *win.out)
    if tuple(col.shape[2:]) != want:
        raise ValueError(
            f"col.shape[2:] must be (KH, KW, OH, OW) = {want} for "
            f"output_size={output_size!r}, kernel_size={kernel_size!r}, "
            f"stride={stride!r}, padding={padding!r}, dilation={dilation!r}; "
            f"got {tuple(col.shape[2:])}"
        )
    return _scatter(col, win, hw, skip_padding)


def conv_transpose_dcol(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``wᵀ · x`` in the column layout (N, C_out, KH, KW, H, W) (groups=1)."""
    n, c_in, h, w_ = x.shape
    _, c_out, kh, kw = w.shape
    dcol = np.matmul(w.reshape(c_in, -1).T, x.reshape(n, c_in, h * w_))
    return dcol.reshape(n, c_out, kh, kw, h, w_)


def conv_transpose_forward(
    x: object,
    w: object,
    stride: object = 1,
    padding: object = 0,
    output_padding: object = 0,
    dilation: object = 1,
    *,
    skip_padding: bool = False,
) -> Iterator[ScatterEvent]:
    """The transposed conv's forward, ``col2im(wᵀ · x)``, one add per event.

    ``w`` is (C_in, C_out, KH, KW) (groups=1). Each event's ``src`` is the
    column cell ``(n, co, ki, kj, i, j)`` holding
    ``Σ_ci x[n, ci, i, j] * w[ci, co, ki, kj]``: input pixel ``(i, j)``
    stamps the kernel, scaled, onto the output.
    ``replay(events, (N, C_out, OH, OW))`` is the transposed conv's output.
    """
    x = _array(x, "input", 4, "N, C_in, H, W")
    w = _array(w, "weight", 4, "C_in, C_out, KH, KW")
    geom = geo.conv_transpose2d_geometry(
        x.shape, w.shape, None, stride, padding, output_padding, 1, dilation
    )
    dtype = np.result_type(x.dtype, w.dtype)
    dcol = conv_transpose_dcol(x.astype(dtype), w.astype(dtype))
    return _scatter(dcol, geom.win, geom.out, skip_padding)


def overlap_count(
    hw: object,
    kernel_size: object,
    stride: object = 1,
    padding: object = 0,
    dilation: object = 1,
) -> np.ndarray:
    """How many windows touch each pixel: an int array (H, W).

    It is ``col2im`` of a column of ones. When the stride does not divide
    the (dilated) kernel the counts are uneven: the checkerboard.
    """
    size = geo.pair(hw, "hw", minimum=1)
    win = geo.window(size, kernel_size, stride, padding, dilation)
    kh, kw, sh, sw, ph, pw, dh, dw = win.args
    oh_, ow_ = win.out
    padded = np.zeros((size[0] + 2 * ph, size[1] + 2 * pw), dtype=np.int64)
    for ki, kj in product(range(kh), range(kw)):
        h0, w0 = ki * dh, kj * dw
        padded[h0 : h0 + sh * oh_ : sh, w0 : w0 + sw * ow_ : sw] += 1
    return padded[ph : ph + size[0], pw : pw + size[1]].copy()
