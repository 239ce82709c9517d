"""The pooling views: max-pool's scan, its routing, avg-pool's spread."""

from __future__ import annotations

import numpy as np

from .. import trace
from ._base import Control, Model, View
from ._panel import Panel
from .views import (
    DIL,
    KERNEL,
    PAD,
    STRIDE,
    _col_cell,
    _col_panel,
    _size,
    frames_of,
    window_at,
)

CEIL = Control("ceil_mode", kind="bool")
INCLUDE = Control("count_include_pad", kind="bool")


def _pool(p) -> dict:
    return dict(
        kernel_size=p["kernel_size"],
        stride=p["stride"],
        padding=p["padding"],
        dilation=p["dilation"],
        ceil_mode=p["ceil_mode"],
    )


_MAX_DEFAULTS = dict(
    input_size=(6, 6),
    kernel_size=3,
    stride=2,
    padding=0,
    dilation=1,
    ceil_mode=False,
    seed=0,
    x=None,
)


class MaxPoolForwardView(View):
    """Max-pool's scan: each window reads its taps in row-major order and
    keeps the first maximum (padding reads −∞); the argmax it saves is what
    the backward pass routes to."""

    title = "max-pool forward: scan each window, keep the first maximum"
    defaults = _MAX_DEFAULTS
    controls = (KERNEL, STRIDE, PAD, DIL, CEIL)

    def model(self, p):
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", (1, 1, *_size(p)), 0, synthetic)
        t = trace.maxpool_forward(x, **_pool(p))
        events, frames = frames_of(t, t.window.out)
        return Model(events, t.window, {"x": x[0, 0]}, frames, synthetic)

    def panels(self, m):
        x = m.planes["x"]
        return [
            Panel(
                "x",
                "x  (padding = −∞)",
                *x.shape,
                values=x,
                pad=m.window.p,
                marks=("src", "best", "window"),
            ),
            Panel(
                "y",
                "y = max over each window",
                *m.window.out,
                marks=("dst",),
                colored=True,
            ),
        ]

    def marks(self, e):
        w_ = self.model_.planes["x"].shape[1]
        return {
            "x.src": e.src[2:],
            "x.best": divmod(e.argmax, w_),
            "x.window": window_at(self.model_.window, *e.dst[2:]),
            "y.dst": e.dst[2:],
        }

    def describe(self, e):
        return e.describe("x", "y")


class MaxPoolRoutingView(View):
    """Max-pool's backward: each ``dy`` goes to the one pixel its window
    saved as argmax; windows that chose the same pixel add."""

    title = "max-pool backward: dy is routed to the saved argmax"
    defaults = {**_MAX_DEFAULTS, "dy": None}
    controls = (KERNEL, STRIDE, PAD, DIL, CEIL)

    def model(self, p):
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", (1, 1, *_size(p)), 0, synthetic)
        scan = trace.maxpool_forward(x, **_pool(p), skip_padding=True)
        argmax = trace.replay_argmax(scan)
        dy = self.data(p, "dy", scan.shape, 2, synthetic)
        t = trace.maxpool_backward(dy, argmax, x.shape)
        events, frames = frames_of(t, x.shape[2:])
        planes = {"x": x[0, 0], "dy": dy[0, 0]}
        return Model(events, scan.window, planes, frames, synthetic)

    def panels(self, m):
        x, dy = m.planes["x"], m.planes["dy"]
        return [
            Panel(
                "x",
                "x (argmax dotted)",
                *x.shape,
                values=x,
                pad=m.window.p,
                marks=("best", "window"),
            ),
            Panel("dy", "dy", *dy.shape, values=dy, marks=("src",)),
            Panel(
                "dx",
                "dx: each dy lands on its argmax",
                *x.shape,
                marks=("dst",),
                colored=True,
            ),
        ]

    def marks(self, e):
        return {
            "x.best": e.dst[2:],
            "x.window": window_at(self.model_.window, *e.src[2:]),
            "dy.src": e.src[2:],
            "dx.dst": e.dst[2:],
        }

    def describe(self, e):
        return e.describe("dy", "dx")


def pool_columns(x: np.ndarray, dy: np.ndarray, win) -> tuple:
    """Max-pool in the column form: ``x``'s windows as columns ``(K*K,
    L)`` (padding −∞), each column's first maximum (``np.argmax``'s rule,
    torch's) and ``dcol`` ``(1, 1, K, K, OH, OW)``: ``dy`` at that tap, 0
    at the others."""
    (k, _), (s, _), (p, _) = win.k, win.s, win.p
    (oh, ow) = win.out
    xp = np.pad(x[0, 0], p, constant_values=-np.inf)
    ki, kj, i, j = np.meshgrid(np.arange(k), np.arange(k), np.arange(oh),
                               np.arange(ow), indexing="ij")
    cols = xp[i * s + ki, j * s + kj].reshape(k * k, oh * ow)
    best = cols.argmax(axis=0)
    dcol = np.zeros(cols.shape, dtype=dy.dtype)
    dcol[best, np.arange(oh * ow)] = dy.reshape(-1)
    return cols, best, dcol.reshape(1, 1, k, k, oh, ow)


class MaxPoolFoldView(View):
    """Max-pool's backward as col2im: ``x``'s windows as columns (padding
    −∞), ``dy`` put at each column's first maximum (a one-hot ``dcol``),
    and ``fold`` adding every ``dcol`` entry onto its pixel, zeros too, so
    a pixel that wins several windows adds their ``dy`` with no
    ``np.add.at``. The last frame is max-pool's ``dx``."""

    title = "max-pool backward as fold of a one-hot dcol"
    defaults = dict(
        input_size=(5, 5),
        kernel_size=3,
        stride=2,
        padding=0,
        seed=0,
        x=None,
        dy=None,
    )
    controls = (KERNEL, STRIDE, PAD)

    def model(self, p):
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", (1, 1, *_size(p)), 0, synthetic)
        win = trace.pool_window(x.shape, p["kernel_size"], p["stride"],
                                p["padding"])
        dy = self.data(p, "dy", (1, 1, *win.out), 2, synthetic)
        cols, best, dcol = pool_columns(x, dy, win)
        t = trace.col2im(dcol, x.shape[2:], win.k, 1, win.p, win.s)
        events, frames = frames_of(t, x.shape[2:])
        planes = {"cols": cols, "best": best, "dcol": dcol.reshape(cols.shape)}
        return Model(events, win, planes, frames, synthetic)

    def panels(self, m):
        win = m.window
        return [
            _col_panel("cols", "x's columns", win, values=m.planes["cols"],
                       marks=("src", "best")),
            _col_panel("dcol", "one-hot dcol", win,
                       values=m.planes["dcol"], marks=("src",)),
            # no window outline: a fourth outline's legend takes a second
            # line, which a slide's height has no room for (the columns'
            # labels name the window)
            Panel(
                "dx",
                "dx = fold(dcol)",
                *m.shape,
                pad=win.p,
                marks=("dst",),
                colored=True,
            ),
        ]

    def marks(self, e):
        cell = _col_cell(self.model_.window, e.src)
        return {
            "cols.src": cell,
            "cols.best": (int(self.model_.planes["best"][cell[1]]), cell[1]),
            "dcol.src": cell,
            "dx.dst": e.dst[2:],
        }

    def describe(self, e):
        return e.describe("dcol", "dx")


class AvgPoolSpreadView(View):
    """Avg-pool's backward: each ``dy`` is divided by its window's divisor
    and spread over the window's pixels; overlaps add."""

    title = "avg-pool backward: dy / divisor spread over the window"
    defaults = dict(
        input_size=(5, 5),
        kernel_size=2,
        stride=2,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
        seed=0,
        dy=None,
    )
    controls = (KERNEL, STRIDE, PAD, CEIL, INCLUDE)

    def model(self, p):
        shape = (1, 1, *_size(p))
        args = dict(
            kernel_size=p["kernel_size"],
            stride=p["stride"],
            padding=p["padding"],
            ceil_mode=p["ceil_mode"],
        )
        win = trace.pool_window(shape, **args)
        synthetic: dict[str, str] = {}
        dy = self.data(p, "dy", (1, 1, *win.out), 3, synthetic)
        t = trace.avgpool_backward(
            dy,
            shape,
            **args,
            count_include_pad=p["count_include_pad"],
            divisor_override=p["divisor_override"],
        )
        events, frames = frames_of(t, shape[2:])
        return Model(events, t.window, {"dy": dy[0, 0]}, frames, synthetic)

    def panels(self, m):
        dy = m.planes["dy"]
        return [
            Panel("dy", "dy", *dy.shape, values=dy, marks=("src",)),
            Panel(
                "dx",
                "dx: dy / divisor on every pixel",
                *m.shape,
                pad=m.window.p,
                marks=("dst", "window"),
                colored=True,
            ),
        ]

    def marks(self, e):
        return {
            "dy.src": e.src[2:],
            "dx.dst": e.dst[2:],
            "dx.window": window_at(self.model_.window, *e.src[2:]),
        }

    def describe(self, e):
        return e.describe("dy", "dx")
