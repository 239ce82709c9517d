"""The views: one per trace, plus the overlap-count map.

Each takes lesson-friendly keyword arguments, draws small seeded random
numbers (one decimal, so cells stay readable; ties happen on purpose) and
plays its trace one event per frame. Explicit arrays may be passed instead
(``x=``, ``dy=``, ``dcol=``, ``w=``); when a control change gives them a
shape that no longer fits, fresh seeded numbers take their place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import geometry as geo
from .. import trace
from ..trace.events import fmt, ix
from ._base import (
    BEST,
    DEST,
    SOURCE,
    WINDOW,
    Control,
    Grid,
    Panel,
    View,
    layout,
    norm_for,
    partial_states,
)

KERNEL = Control("kernel_size", 1, 5)
STRIDE = Control("stride", 1, 4)
PAD = Control("padding", 0, 2)
DIL = Control("dilation", 1, 3)
CEIL = Control("ceil_mode", kind="bool")
INCLUDE = Control("count_include_pad", kind="bool")


def _numbers(seed: int, shape: tuple[int, ...], salt: int = 0) -> np.ndarray:
    """Seeded one-decimal numbers in ±[0.1, 0.9]: readable, never 0 (every
    add shows), with ties."""
    rng = np.random.default_rng([seed, salt])
    magnitude = rng.integers(1, 10, size=shape) / 10.0
    return np.where(rng.random(shape) < 0.5, -magnitude, magnitude)


def _plane(a: Any, name: str) -> np.ndarray:
    """An explicit array as (1, 1, H, W): 2-D, or 4-D with N = C = 1."""
    arr = np.asarray(a, dtype=float)
    if arr.ndim == 2:
        return arr[None, None]
    if arr.ndim == 4 and arr.shape[:2] == (1, 1):
        return arr
    raise ValueError(
        f"{name} must be 2-D (H, W) or 4-D with N = C = 1, got shape {arr.shape}"
    )


def _size(params: dict[str, Any], x: np.ndarray | None) -> tuple[int, int]:
    if x is not None:
        return x.shape[2], x.shape[3]
    return geo.pair(params["input_size"], "input_size", minimum=1)


def _given(params: dict[str, Any], name: str, shape: tuple[int, ...]):
    """The explicit array ``name`` if it has ``shape``, else ``None``."""
    a = params.get(name)
    if a is None:
        return None
    arr = np.asarray(a, dtype=float)
    if arr.size == int(np.prod(shape)) and arr.ndim in (2, 4, 6):
        return arr.reshape(shape)
    return None


def _tap_labels(kh: int, kw: int) -> list[str]:
    return [f"{ki},{kj}" for ki in range(kh) for kj in range(kw)]


def _pos_labels(oh: int, ow: int) -> list[str]:
    return [f"{i},{j}" for i in range(oh) for j in range(ow)]


def _span(win: geo.Window) -> tuple[int, int]:
    (kh, kw), (dh, dw) = win.k, win.d
    return (kh - 1) * dh + 1, (kw - 1) * dw + 1


class _WindowBox:
    """The dashed outline of the window at output position (i, j)."""

    def __init__(self, grid: Grid, win: geo.Window) -> None:
        self.rect = grid.box(WINDOW, lw=2.5, ls="--")
        self.win = win

    def show(self, i: int, j: int) -> None:
        (sh, sw), (ph, pw) = self.win.s, self.win.p
        h, w = _span(self.win)
        Grid.place(self.rect, i * sh - ph, j * sw - pw, h, w)


# --------------------------------------------------------------------------
# im2col and col2im
# --------------------------------------------------------------------------


class Im2colView(View):
    """im2col, the gather: each column cell copies the pixel its tap sees.

    Left: the input ``x`` (grey ring: padding). Right: the columns as
    torch's unfold matrix, one row per kernel tap ``(ki, kj)``, one column
    per window position ``(oh, ow)``.
    """

    controls = (KERNEL, STRIDE, PAD, DIL)
    title = "im2col: gather every window's pixels into columns"

    def __init__(
        self,
        input_size: Any = (5, 5),
        kernel_size: Any = 3,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        seed: int = 0,
        x: Any = None,
    ) -> None:
        super().__init__(
            input_size=input_size,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            seed=seed,
            x=x,
        )

    def _model(self, p):
        x = None if p["x"] is None else _plane(p["x"], "x")
        hw = _size(p, x)
        if x is None:
            x = _numbers(p["seed"], (1, 1, *hw))
        args = (p["kernel_size"], p["stride"], p["padding"], p["dilation"])
        win = geo.unfold_geometry(x.shape, args[0], args[3], args[2], args[1])
        events = list(trace.im2col(x, *args))
        kh, kw = win.k
        oh, ow = win.out
        states, touched = partial_states(
            events,
            (kh * kw, oh * ow),
            lambda e: (e.dst[2] * kw + e.dst[3], e.dst[4] * ow + e.dst[5]),
        )
        return dict(x=x, win=win, events=events, states=states, touched=touched)

    def _artists(self):
        m, win = self.m, self.m["win"]
        (kh, kw), (oh, ow) = win.k, win.out
        x = m["x"][0, 0]
        panels = [
            Panel(*x.shape, pad=win.p),
            Panel(
                kh * kw,
                oh * ow,
                colorbar=True,
                row_labels=_tap_labels(kh, kw),
                col_labels=_pos_labels(oh, ow),
            ),
        ]
        (ax_x, ax_c), (_, cax), cell = layout(self.fig, panels)
        self.src_grid = Grid(ax_x, panels[0], cell, title="x  (input)", values=x)
        self.dst_grid = Grid(
            ax_c,
            panels[1],
            cell,
            title="col: rows = tap (ki,kj), columns = window (oh,ow)",
            norm=norm_for(m["states"]),
            cax=cax,
        )
        ax_c.set_xlabel("window position (oh, ow)", fontsize=10)
        ax_c.set_ylabel("kernel tap (ki, kj)", fontsize=10)
        self.src_box = self.src_grid.box(SOURCE)
        self.dst_box = self.dst_grid.box(DEST)
        self.window = _WindowBox(self.src_grid, win)

    def _show(self, i):
        e = self.events[i]
        kw, ow = self.m["win"].k[1], self.m["win"].out[1]
        _, _, ki, kj, oh, oj = e.dst
        Grid.place(self.src_box, e.src[2], e.src[3])
        Grid.place(self.dst_box, ki * kw + kj, oh * ow + oj)
        self.window.show(oh, oj)
        self.dst_grid.set_values(self.m["states"][i], ~self.m["touched"][i])
        return e.describe("x", "col")


class Col2imView(View):
    """col2im, the scatter-add: each entry of ``dcol`` lands on its pixel,
    and pixels that several windows share add up their entries."""

    controls = (KERNEL, STRIDE, PAD, DIL)
    title = "col2im: every dcol entry is added onto its input pixel"

    def __init__(
        self,
        input_size: Any = (7, 7),
        kernel_size: Any = 3,
        stride: Any = 2,
        padding: Any = 0,
        dilation: Any = 1,
        seed: int = 0,
        dcol: Any = None,
        dy: Any = None,
    ) -> None:
        super().__init__(
            input_size=input_size,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            seed=seed,
            dcol=dcol if dcol is not None else dy,
        )

    def _model(self, p):
        hw = geo.pair(p["input_size"], "input_size", minimum=1)
        args = (p["kernel_size"], p["stride"], p["padding"], p["dilation"])
        win = geo.window(hw, *args)
        shape = (1, 1, *win.k, *win.out)
        dcol = _given(p, "dcol", shape)
        if dcol is None:
            dcol = _numbers(p["seed"], shape, 1)
        events = list(trace.col2im(dcol, hw, *args))
        states, touched = partial_states(
            events, hw, lambda e: None if e.padding else e.dst[2:]
        )
        return dict(
            dcol=dcol, hw=hw, win=win, events=events, states=states, touched=touched
        )

    def _artists(self):
        m, win = self.m, self.m["win"]
        (kh, kw), (oh, ow) = win.k, win.out
        panels = [
            Panel(
                kh * kw,
                oh * ow,
                row_labels=_tap_labels(kh, kw),
                col_labels=_pos_labels(oh, ow),
            ),
            Panel(*m["hw"], pad=win.p, colorbar=True),
        ]
        (ax_c, ax_x), (_, cax), cell = layout(self.fig, panels)
        self.src_grid = Grid(
            ax_c,
            panels[0],
            cell,
            title="dcol: rows = tap, columns = window",
            values=m["dcol"].reshape(kh * kw, oh * ow),
        )
        ax_c.set_xlabel("window position (oh, ow)", fontsize=10)
        ax_c.set_ylabel("kernel tap (ki, kj)", fontsize=10)
        self.dst_grid = Grid(
            ax_x,
            panels[1],
            cell,
            title="dx = col2im(dcol)",
            norm=norm_for(m["states"]),
            cax=cax,
            cbar_label="dx so far",
        )
        self.src_box = self.src_grid.box(SOURCE)
        self.dst_box = self.dst_grid.box(DEST)
        self.window = _WindowBox(self.dst_grid, win)

    def _show(self, i):
        e = self.events[i]
        kw, ow = self.m["win"].k[1], self.m["win"].out[1]
        _, _, ki, kj, oh, oj = e.src
        Grid.place(self.src_box, ki * kw + kj, oh * ow + oj)
        Grid.place(self.dst_box, e.dst[2], e.dst[3])
        self.window.show(oh, oj)
        self.dst_grid.set_values(self.m["states"][i], ~self.m["touched"][i])
        return e.describe("dcol", "dx")


# --------------------------------------------------------------------------
# pooling
# --------------------------------------------------------------------------


def _pool_input(p, salt: int = 0):
    x = None if p.get("x") is None else _plane(p["x"], "x")
    hw = _size(p, x)
    if x is None:
        x = _numbers(p["seed"], (1, 1, *hw), salt)
    return x, hw


class MaxPoolForwardView(View):
    """Max-pool's scan: each window reads its taps in row-major order and
    keeps the first maximum (padding reads −∞); the argmax it saves is what
    the backward pass routes to."""

    controls = (KERNEL, STRIDE, PAD, DIL, CEIL)
    title = "max-pool forward: scan each window, keep the first maximum"

    def __init__(
        self,
        input_size: Any = (6, 6),
        kernel_size: Any = 3,
        stride: Any = 2,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        seed: int = 0,
        x: Any = None,
    ) -> None:
        super().__init__(
            input_size=input_size,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            seed=seed,
            x=x,
        )

    def _model(self, p):
        x, hw = _pool_input(p)
        args = (
            p["kernel_size"],
            p["stride"],
            p["padding"],
            p["dilation"],
            p["ceil_mode"],
        )
        win = geo.pool_window(x.shape, *args)
        events = list(trace.maxpool_forward(x, *args))
        states, touched = partial_states(
            events, win.out, lambda e: None if e.padding else e.dst[2:]
        )
        return dict(x=x, hw=hw, win=win, events=events, states=states, touched=touched)

    def _artists(self):
        m, win = self.m, self.m["win"]
        x = m["x"][0, 0]
        panels = [Panel(*m["hw"], pad=win.p), Panel(*win.out, colorbar=True)]
        (ax_x, ax_y), (_, cax), cell = layout(self.fig, panels)
        self.src_grid = Grid(ax_x, panels[0], cell, title="x  (padding = −∞)", values=x)
        self.dst_grid = Grid(
            ax_y,
            panels[1],
            cell,
            title="y = max over each window",
            norm=norm_for(m["states"], x),
            cax=cax,
        )
        self.src_box = self.src_grid.box(SOURCE)
        self.best_box = self.src_grid.box(BEST, lw=3, ls=":")
        self.dst_box = self.dst_grid.box(DEST)
        self.window = _WindowBox(self.src_grid, win)

    def _show(self, i):
        e = self.events[i]
        w_ = self.m["hw"][1]
        Grid.place(self.src_box, e.src[2], e.src[3])
        Grid.place(self.best_box, *divmod(e.argmax, w_))
        Grid.place(self.dst_box, e.dst[2], e.dst[3])
        self.window.show(e.dst[2], e.dst[3])
        self.dst_grid.set_values(self.m["states"][i], ~self.m["touched"][i])
        return e.describe("x", "y")


class MaxPoolRoutingView(View):
    """Max-pool's backward: each ``dy`` goes to the one pixel its window
    saved as argmax; windows that chose the same pixel add."""

    controls = (KERNEL, STRIDE, PAD, DIL, CEIL)
    title = "max-pool backward: dy is routed to the saved argmax"

    def __init__(
        self,
        input_size: Any = (6, 6),
        kernel_size: Any = 3,
        stride: Any = 2,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        seed: int = 0,
        x: Any = None,
        dy: Any = None,
    ) -> None:
        super().__init__(
            input_size=input_size,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            seed=seed,
            x=x,
            dy=dy,
        )

    def _model(self, p):
        x, hw = _pool_input(p)
        args = (
            p["kernel_size"],
            p["stride"],
            p["padding"],
            p["dilation"],
            p["ceil_mode"],
        )
        win = geo.pool_window(x.shape, *args)
        scan = list(trace.maxpool_forward(x, *args, skip_padding=True))
        y_shape = (1, 1, *win.out)
        argmax = trace.replay_argmax(scan, y_shape)
        dy = _given(p, "dy", y_shape)
        if dy is None:
            dy = _numbers(p["seed"], y_shape, 2)
        events = list(trace.maxpool_backward(dy, argmax, x.shape))
        states, touched = partial_states(events, hw, lambda e: e.dst[2:])
        return dict(
            x=x,
            hw=hw,
            win=win,
            dy=dy,
            argmax=argmax,
            events=events,
            states=states,
            touched=touched,
        )

    def _artists(self):
        m, win = self.m, self.m["win"]
        panels = [
            Panel(*m["hw"], pad=win.p),
            Panel(*win.out),
            Panel(*m["hw"], colorbar=True),
        ]
        (ax_x, ax_dy, ax_dx), (_, _, cax), cell = layout(self.fig, panels)
        self.x_grid = Grid(
            ax_x, panels[0], cell, title="x (argmax outlined)", values=m["x"][0, 0]
        )
        self.src_grid = Grid(ax_dy, panels[1], cell, title="dy", values=m["dy"][0, 0])
        self.dst_grid = Grid(
            ax_dx,
            panels[2],
            cell,
            title="dx: each dy lands on its argmax",
            norm=norm_for(m["states"]),
            cax=cax,
            cbar_label="dx so far",
        )
        self.argmax_box = self.x_grid.box(BEST, lw=3, ls=":")
        self.window = _WindowBox(self.x_grid, win)
        self.src_box = self.src_grid.box(SOURCE)
        self.dst_box = self.dst_grid.box(DEST)

    def _show(self, i):
        e = self.events[i]
        Grid.place(self.argmax_box, e.dst[2], e.dst[3])
        self.window.show(e.src[2], e.src[3])
        Grid.place(self.src_box, e.src[2], e.src[3])
        Grid.place(self.dst_box, e.dst[2], e.dst[3])
        self.dst_grid.set_values(self.m["states"][i], ~self.m["touched"][i])
        return e.describe("dy", "dx")


class AvgPoolSpreadView(View):
    """Avg-pool's backward: each ``dy`` is divided by its window's divisor
    and spread over the window's pixels; overlaps add."""

    controls = (KERNEL, STRIDE, PAD, CEIL, INCLUDE)
    title = "avg-pool backward: dy / divisor spread over the window"

    def __init__(
        self,
        input_size: Any = (5, 5),
        kernel_size: Any = 2,
        stride: Any = 2,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
        seed: int = 0,
        dy: Any = None,
    ) -> None:
        super().__init__(
            input_size=input_size,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            ceil_mode=ceil_mode,
            count_include_pad=count_include_pad,
            divisor_override=divisor_override,
            seed=seed,
            dy=dy,
        )

    def _model(self, p):
        hw = geo.pair(p["input_size"], "input_size", minimum=1)
        shape = (1, 1, *hw)
        win = geo.pool_window(
            shape, p["kernel_size"], p["stride"], p["padding"], 1, p["ceil_mode"]
        )
        y_shape = (1, 1, *win.out)
        dy = _given(p, "dy", y_shape)
        if dy is None:
            dy = _numbers(p["seed"], y_shape, 3)
        events = list(
            trace.avgpool_backward(
                dy,
                shape,
                p["kernel_size"],
                p["stride"],
                p["padding"],
                p["ceil_mode"],
                p["count_include_pad"],
                p["divisor_override"],
            )
        )
        states, touched = partial_states(
            events, hw, lambda e: None if e.padding else e.dst[2:]
        )
        return dict(
            hw=hw, win=win, dy=dy, events=events, states=states, touched=touched
        )

    def _artists(self):
        m, win = self.m, self.m["win"]
        panels = [Panel(*win.out), Panel(*m["hw"], pad=win.p, colorbar=True)]
        (ax_dy, ax_dx), (_, cax), cell = layout(self.fig, panels)
        self.src_grid = Grid(ax_dy, panels[0], cell, title="dy", values=m["dy"][0, 0])
        self.dst_grid = Grid(
            ax_dx,
            panels[1],
            cell,
            title="dx: dy / divisor on every pixel",
            norm=norm_for(m["states"]),
            cax=cax,
            cbar_label="dx so far",
        )
        self.src_box = self.src_grid.box(SOURCE)
        self.dst_box = self.dst_grid.box(DEST)
        self.window = _WindowBox(self.dst_grid, win)

    def _show(self, i):
        e = self.events[i]
        Grid.place(self.src_box, e.src[2], e.src[3])
        Grid.place(self.dst_box, e.dst[2], e.dst[3])
        self.window.show(e.src[2], e.src[3])
        self.dst_grid.set_values(self.m["states"][i], ~self.m["touched"][i])
        return e.describe("dy", "dx")


# --------------------------------------------------------------------------
# transposed convolution and overlap counts
# --------------------------------------------------------------------------


class ConvTransposeView(View):
    """The transposed conv's forward, ``col2im(wᵀ·x)``: each input pixel
    stamps the kernel, scaled, onto the output. Where stamps overlap
    unevenly (stride not dividing the kernel) the output checkerboards."""

    controls = (KERNEL, STRIDE, PAD, DIL)
    title = "transposed conv: each x pixel stamps a scaled kernel onto y"

    def __init__(
        self,
        input_size: Any = (3, 3),
        kernel_size: Any = 3,
        stride: Any = 2,
        padding: Any = 0,
        output_padding: Any = 0,
        dilation: Any = 1,
        seed: int = 0,
        x: Any = None,
        w: Any = None,
    ) -> None:
        super().__init__(
            input_size=input_size,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            output_padding=output_padding,
            dilation=dilation,
            seed=seed,
            x=x,
            w=w,
        )

    def _model(self, p):
        x, hw = _pool_input(p, salt=4)
        k = geo.pair(p["kernel_size"], "kernel_size", minimum=1)
        w = _given(p, "w", (1, 1, *k))
        if w is None:
            w = _numbers(p["seed"], (1, 1, *k), 5)
        geom = geo.conv_transpose2d_geometry(
            x.shape,
            w.shape,
            None,
            p["stride"],
            p["padding"],
            p["output_padding"],
            1,
            p["dilation"],
        )
        events = list(
            trace.conv_transpose_forward(
                x, w, p["stride"], p["padding"], p["output_padding"], p["dilation"]
            )
        )
        states, touched = partial_states(
            events, geom.out, lambda e: None if e.padding else e.dst[2:]
        )
        return dict(
            x=x, w=w, hw=hw, geom=geom, events=events, states=states, touched=touched
        )

    def _artists(self):
        m, geom = self.m, self.m["geom"]
        panels = [
            Panel(*m["hw"]),
            Panel(*m["w"].shape[2:]),
            Panel(*geom.out, pad=geom.win.p, colorbar=True),
        ]
        (ax_x, ax_w, ax_y), (_, _, cax), cell = layout(self.fig, panels)
        self.src_grid = Grid(ax_x, panels[0], cell, title="x", values=m["x"][0, 0])
        self.w_grid = Grid(
            ax_w, panels[1], cell, title="w (kernel)", values=m["w"][0, 0]
        )
        title = "y = col2im(wᵀ·x)" + ("  (grey: cropped)" if max(geom.win.p) else "")
        self.dst_grid = Grid(
            ax_y,
            panels[2],
            cell,
            title=title,
            norm=norm_for(m["states"]),
            cax=cax,
            cbar_label="y so far",
        )
        self.src_box = self.src_grid.box(SOURCE)
        self.w_box = self.w_grid.box(SOURCE)
        self.dst_box = self.dst_grid.box(DEST)
        self.window = _WindowBox(self.dst_grid, geom.win)

    def _show(self, i):
        e = self.events[i]
        _, _, ki, kj, oi, oj = e.src
        Grid.place(self.src_box, oi, oj)
        Grid.place(self.w_box, ki, kj)
        Grid.place(self.dst_box, e.dst[2], e.dst[3])
        self.window.show(oi, oj)
        self.dst_grid.set_values(self.m["states"][i], ~self.m["touched"][i])
        xv = self.m["x"][0, 0, oi, oj]
        wv = self.m["w"][0, 0, ki, kj]
        head = (
            f"x[0,0,{oi},{oj}]·w[0,0,{ki},{kj}] = {fmt(xv)}·{fmt(wv)} = {fmt(e.value)}"
        )
        if e.padding:
            return f"{head} falls outside y at {ix(e.dst)}: cropped"
        return f"{head} added to y{ix(e.dst)} → {fmt(e.total)}"


class OverlapView(View):
    """How many windows touch each pixel: col2im of a column of ones.

    Left: the count building up, one window tap at a time. Right: the final
    map. When the stride does not divide the (dilated) kernel the counts are
    uneven, a checkerboard, and so is every gradient col2im scatters."""

    controls = (KERNEL, STRIDE, PAD, DIL)
    title = "overlap count: how many windows touch each pixel"

    def __init__(
        self,
        input_size: Any = (8, 8),
        kernel_size: Any = 3,
        stride: Any = 2,
        padding: Any = 0,
        dilation: Any = 1,
    ) -> None:
        super().__init__(
            input_size=input_size,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
        )

    def _model(self, p):
        hw = geo.pair(p["input_size"], "input_size", minimum=1)
        args = (p["kernel_size"], p["stride"], p["padding"], p["dilation"])
        win = geo.window(hw, *args)
        ones = np.ones((1, 1, *win.k, *win.out))
        events = list(trace.col2im(ones, hw, *args, skip_padding=True))
        counts = trace.overlap_count(hw, *args)
        states, touched = partial_states(events, hw, lambda e: e.dst[2:])
        return dict(
            hw=hw, win=win, counts=counts, events=events, states=states, touched=touched
        )

    def _artists(self):
        m, win = self.m, self.m["win"]
        panels = [Panel(*m["hw"], pad=win.p), Panel(*m["hw"], pad=win.p, colorbar=True)]
        (ax_a, ax_b), (_, cax), cell = layout(self.fig, panels)
        norm = norm_for(m["counts"].astype(float))
        self.dst_grid = Grid(ax_a, panels[0], cell, title="windows so far", norm=norm)
        self.final_grid = Grid(
            ax_b,
            panels[1],
            cell,
            title=self._verdict(),
            norm=norm,
            cax=cax,
            cbar_label="windows touching the pixel",
            integer=True,
        )
        self.final_grid.set_values(m["counts"])  # 0: no window, no gradient
        self.dst_box = self.dst_grid.box(DEST)
        self.window = _WindowBox(self.dst_grid, win)
        self.final_window = _WindowBox(self.final_grid, win)

    def _verdict(self) -> str:
        win = self.m["win"]
        uneven = any(
            (d * (k - 1) + 1) % s and s > 1 or s > d * (k - 1) + 1
            for k, s, d in zip(win.k, win.s, win.d, strict=True)
        )
        if uneven:
            return "final count: uneven (stride does not divide the span)"
        return "final count"

    def _show(self, i):
        e = self.events[i]
        _, _, ki, kj, oh, ow = e.src
        Grid.place(self.dst_box, e.dst[2], e.dst[3])
        self.window.show(oh, ow)
        self.final_window.show(oh, ow)
        self.dst_grid.set_values(self.m["states"][i], ~self.m["touched"][i])
        n = int(e.total)
        return (
            f"window ({oh},{ow}), tap ({ki},{kj}) touches pixel "
            f"({e.dst[2]},{e.dst[3]}): {n} window{'s' if n != 1 else ''} so far"
        )
