"""Traces of max-pool forward (the scan), max-pool backward (the routing)
and avg-pool backward (the spread).

Loop orders, as in the kernels:

- max-pool forward: ``n, c``, then output positions ``i, j`` in row-major
  order, then the window's taps ``ki, kj`` in row-major order;
- max-pool backward: ``n, c, i, j``, one route per ``dy`` entry;
- avg-pool backward: ``n, c``, then one tap ``ki, kj`` over every window
  ``i, j`` before the next tap (col2im's order). So each pixel receives
  its shares tap by tap, as in the Numba kernel and the NumPy twin.

Tap ``(ki, kj)`` of window ``(i, j)`` sits on input pixel
``window.pixel((i, j), (ki, kj))``, the index map of
:class:`convgrad.geometry.Window`::

    h = i * sh - ph + ki * dh
    w = j * sw - pw + kj * dw

Taps in the padding ring come out as ``padding=True`` events (max-pool
reads −∞ there, avg-pool adds nothing); ``skip_padding=True`` omits them.
In ``ceil_mode`` a last window may hang past the padded input; taps there
belong to no grid and are omitted, as the kernels clip them.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np

from .. import geometry as geo
from .conv import _array
from .events import RouteEvent, ScanEvent, SpreadEvent
from .replay import Trace


def maxpool_forward(
    x: object,
    kernel_size: object,
    stride: object = None,
    padding: object = 0,
    dilation: object = 1,
    ceil_mode: bool = False,
    *,
    skip_padding: bool = False,
) -> Trace:
    """One :class:`ScanEvent` per window tap: the max-pool scan.

    The tie rule is torch's: a value wins if ``value > best`` or it is NaN,
    so the first maximum in row-major window order keeps a tie.
    ``replay(events, y_shape)`` is ``y``; ``replay_argmax`` is the argmax.
    """
    x = _array(x, "input", 4, "N, C, H, W")
    win = geo.pool_window(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    shape = (*x.shape[:2], *win.out)
    return Trace(
        "maxpool_forward", shape, x.dtype, win, lambda: _scan(x, win, skip_padding)
    )


def _scan(x: np.ndarray, win: geo.Window, skip_padding: bool):
    n_, c_, h_, w_ = x.shape
    (kh, kw), (ph, pw), (oh_, ow_) = win.k, win.p, win.out
    for n, c, i, j in product(range(n_), range(c_), range(oh_), range(ow_)):
        rows, cols = win.rows_of(i), win.columns_of(j)  # tap by tap
        # the kernel starts from the first in-bounds pixel and −∞
        first_h = next((h for h in rows if h >= 0), 0)
        first_w = next((w for w in cols if w >= 0), 0)
        argmax = first_h * w_ + first_w
        best = x.dtype.type(-np.inf)
        dst = (n, c, i, j)
        for ki, kj in product(range(kh), range(kw)):
            h, w = rows[ki], cols[kj]
            if h >= h_ + ph or w >= w_ + pw:
                continue  # past the padded input (ceil_mode overhang)
            if not (0 <= h < h_ and 0 <= w < w_):
                if not skip_padding:
                    yield ScanEvent(
                        (n, c, h, w),
                        dst,
                        (ki, kj),
                        -math.inf,
                        False,
                        float(best),
                        argmax,
                        padding=True,
                    )
                continue
            v = x[n, c, h, w]
            taken = bool(v > best or np.isnan(v))
            if taken:
                best, argmax = v, h * w_ + w
            yield ScanEvent(
                (n, c, h, w), dst, (ki, kj), float(v), taken, float(best), argmax
            )


def maxpool_backward(dy: object, argmax: object, input_shape: object) -> Trace:
    """One :class:`RouteEvent` per ``dy`` entry, sent to its saved argmax.

    ``argmax`` holds flat indices ``h*W + w`` (torch's ``return_indices``).
    ``replay(events, input_shape)`` is ``dx``: windows that chose the same
    pixel add.
    """
    dy = _array(dy, "dy", 4, "N, C, OH, OW")
    idx = np.asarray(argmax)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"argmax must hold integer indices, got dtype {idx.dtype}")
    if idx.shape != dy.shape:
        raise ValueError(f"argmax must have dy's shape {dy.shape}, got {idx.shape}")
    shape = tuple(int(s) for s in input_shape)  # type: ignore[union-attr]
    geo.check_ndim(shape, 4, "input_shape", "N, C, H, W")
    if shape[:2] != dy.shape[:2]:
        raise ValueError(
            f"input_shape[:2] must equal dy's (N, C) = {dy.shape[:2]}, got {shape[:2]}"
        )
    plane = shape[2] * shape[3]
    if idx.size and (idx.min() < 0 or idx.max() >= plane):
        raise ValueError(
            f"argmax values must lie in [0, H*W) = [0, {plane}) for "
            f"input_shape={shape}, got values from {idx.min()} to {idx.max()}"
        )
    return Trace(
        "maxpool_backward", shape, dy.dtype, None, lambda: _route(dy, idx, shape)
    )


def _route(dy: np.ndarray, idx: np.ndarray, shape: tuple[int, ...]):
    n_, c_, oh_, ow_ = dy.shape
    w_ = shape[3]
    acc = np.zeros(shape[2:], dtype=dy.dtype)
    for n, c in product(range(n_), range(c_)):
        acc[...] = 0
        for i, j in product(range(oh_), range(ow_)):
            k = int(idx[n, c, i, j])
            h, w = divmod(k, w_)
            acc[h, w] += dy[n, c, i, j]
            yield RouteEvent(
                (n, c, i, j),
                (n, c, h, w),
                k,
                float(dy[n, c, i, j]),
                float(acc[h, w]),
            )


def avgpool_divisor(
    i: int,
    j: int,
    hw: tuple[int, int],
    win: geo.Window,
    count_include_pad: bool,
    divisor_override: int | None,
) -> int:
    """torch's divisor for window ``(i, j)`` (see the pool kernel contract)."""
    rows, cols = win.rows_of(i), win.columns_of(j)  # the window, uncut
    (h0, w0), (ph, pw) = (rows.start, cols.start), win.p
    h1, w1 = min(rows.stop, hw[0] + ph), min(cols.stop, hw[1] + pw)
    pool_size = (h1 - h0) * (w1 - w0)
    if divisor_override:
        return int(divisor_override)
    if count_include_pad:
        return pool_size
    return (min(h1, hw[0]) - max(h0, 0)) * (min(w1, hw[1]) - max(w0, 0))


def avgpool_backward(
    dy: object,
    input_shape: object,
    kernel_size: object,
    stride: object = None,
    padding: object = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    *,
    skip_padding: bool = False,
) -> Trace:
    """One :class:`SpreadEvent` per (tap, window): ``dy / divisor`` spread.

    col2im of the shares: for each tap ``(ki, kj)`` in row-major order,
    every window ``(i, j)`` sends its share ``dy / divisor`` (divided in
    ``dy``'s dtype) to the pixel under that tap; then the next tap. The
    replay, of shape ``input_shape``, is ``dx`` bit for bit (in float32
    too); overlapping windows add.
    """
    dy = _array(dy, "dy", 4, "N, C, OH, OW")
    shape = tuple(int(s) for s in input_shape)  # type: ignore[union-attr]
    win = geo.pool_window(shape, kernel_size, stride, padding, 1, ceil_mode)
    override = geo.avg_pool_options(count_include_pad, divisor_override)
    want = (*shape[:2], *win.out)
    if tuple(dy.shape) != want:
        raise ValueError(
            f"dy must have the pooled shape (N, C, OH, OW) = {want} for "
            f"input_shape={shape}, got {tuple(dy.shape)}"
        )
    include = bool(count_include_pad)
    return Trace(
        "avgpool_backward",
        shape,
        dy.dtype,
        win,
        lambda: _spread(dy, shape, win, include, override, skip_padding),
    )


def _spread(dy, shape, win, count_include_pad, divisor_override, skip_padding):
    n_, c_, h_, w_ = shape
    (kh, kw), (ph, pw), (oh_, ow_) = win.k, win.p, win.out
    hw = (h_, w_)
    div = {
        (i, j): avgpool_divisor(i, j, hw, win, count_include_pad, divisor_override)
        for i, j in product(range(oh_), range(ow_))
    }
    acc = np.zeros((h_, w_), dtype=dy.dtype)
    for n, c in product(range(n_), range(c_)):
        acc[...] = 0
        # col2im's order: one tap over every window, then the next tap
        for ki, kj, i, j in product(range(kh), range(kw), range(oh_), range(ow_)):
            h, w = win.pixel((i, j), (ki, kj))
            if h >= h_ + ph or w >= w_ + pw:
                continue  # past the padded input (ceil_mode overhang)
            g = dy[n, c, i, j]
            delta = g / dy.dtype.type(div[i, j])  # in dy's dtype, as the kernels
            src, dst = (n, c, i, j), (n, c, h, w)
            if 0 <= h < h_ and 0 <= w < w_:
                acc[h, w] += delta
                yield SpreadEvent(
                    src,
                    dst,
                    (ki, kj),
                    float(g),
                    div[i, j],
                    float(delta),
                    float(acc[h, w]),
                )
            elif not skip_padding:
                yield SpreadEvent(
                    src,
                    dst,
                    (ki, kj),
                    float(g),
                    div[i, j],
                    float(delta),
                    None,
                    padding=True,
                )


def pool_window(
    input_shape: object,
    kernel_size: object,
    stride: object = None,
    padding: object = 0,
    dilation: object = 1,
    ceil_mode: bool = False,
) -> geo.Window:
    """The pooling windows over ``input_shape`` (N, C, H, W), checked with
    the pools' rules: ``window.out`` is the shape ``dy`` must have."""
    shape = tuple(int(s) for s in input_shape)  # type: ignore[union-attr]
    return geo.pool_window(shape, kernel_size, stride, padding, dilation, ceil_mode)
