"""The convolution views: im2col, col2im, overlap counts, transposed conv.

Each view is a declaration on :class:`~._base.View`: defaults, controls, a
model built from one trace, its panels, and where an event's outlines go.
Without arrays of their own, views play seeded one-decimal numbers.
"""

from __future__ import annotations

import numpy as np

from .. import trace
from ..trace.events import fmt, ix
from ._base import Control, Model, View
from ._limits import bounded
from ._panel import Panel

KERNEL = Control("kernel_size", 1, 5)
STRIDE = Control("stride", 1, 4)
PAD = Control("padding", 0, 2)
DIL = Control("dilation", 1, 3)
GEOMETRY = (KERNEL, STRIDE, PAD, DIL)


def tap_labels(kh: int, kw: int) -> list[str]:
    return [f"{ki},{kj}" for ki in range(kh) for kj in range(kw)]


def pos_labels(oh: int, ow: int) -> list[str]:
    return [f"{i},{j}" for i in range(oh) for j in range(ow)]


def window_at(win, i: int, j: int) -> tuple[int, int, int, int]:
    """The outline ``(r, c, h, w)`` of window ``(i, j)``: its dilated span."""
    rows, cols = win.rows_of(i), win.columns_of(j)
    return rows.start, cols.start, *win.span


def frames_of(t: trace.Trace, plane: tuple[int, ...]):
    """A trace's events and every frame's destination, as ``plane``s (a
    single image and channel, the only kind these views play), kept as
    what each event changed (:class:`~convgrad.trace.Frames`)."""
    events = bounded(t)
    return events, trace.replay_changes(events, t.shape, t.dtype).reshape(plane)


def _geometry(p):
    return dict(
        kernel_size=p["kernel_size"],
        dilation=p["dilation"],
        padding=p["padding"],
        stride=p["stride"],
    )


def _col_panel(name, title, win, values=None, marks=()) -> Panel:
    (kh, kw), (oh, ow) = win.k, win.out
    return Panel(
        name,
        title,
        kh * kw,
        oh * ow,
        values=values,
        marks=marks,
        row_labels=tap_labels(kh, kw),
        col_labels=pos_labels(oh, ow),
        colored=values is None,
    )


def _col_cell(win, idx) -> tuple[int, int]:
    _, _, ki, kj, oh, ow = idx
    return ki * win.k[1] + kj, oh * win.out[1] + ow


class Im2colView(View):
    """im2col, the gather: each column cell copies the pixel its tap sees.

    Left: the input ``x`` (grey ring: padding). Right: the columns as
    torch's unfold matrix, one row per tap ``(ki, kj)``, one column per
    window ``(oh, ow)``."""

    title = "im2col: gather every window's pixels into columns"
    defaults = dict(
        input_size=(5, 5),
        kernel_size=3,
        stride=1,
        padding=0,
        dilation=1,
        seed=0,
        x=None,
    )
    controls = GEOMETRY

    def model(self, p):
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", (1, 1, *_size(p)), 0, synthetic)
        t = trace.im2col(x, **_geometry(p))
        win = t.window
        events, frames = frames_of(
            t, (win.k[0] * win.k[1], win.out[0] * win.out[1])
        )
        return Model(events, win, {"x": x[0, 0]}, frames, synthetic)

    def panels(self, m):
        win = m.window
        return [
            Panel(
                "x",
                "x  (input)",
                *m.planes["x"].shape,
                values=m.planes["x"],
                pad=win.p,
                marks=("src", "window"),
            ),
            _col_panel(
                "col", "col  (rows: taps, columns: windows)", win, marks=("dst",)
            ),
        ]

    def marks(self, e):
        win = self.model_.window
        return {
            "x.src": e.src[2:],
            "x.window": window_at(win, *e.dst[4:]),
            "col.dst": _col_cell(win, e.dst),
        }

    def describe(self, e):
        return e.describe("x", "col")


def _size(p) -> tuple[int, int]:
    """The input's (H, W): the learner's ``x`` decides it, else input_size."""
    from ..geometry import pair

    x = p.get("x")
    if x is not None and not callable(x) and not isinstance(x, str):
        shape = np.shape(x)
        if len(shape) >= 2:
            return int(shape[-2]), int(shape[-1])
    return pair(p["input_size"], "input_size", minimum=1)


class Col2imView(View):
    """col2im, the scatter-add: each entry of ``dcol`` lands on its pixel,
    and pixels that several windows share add up their entries.

    ``names`` = ``(columns, image)`` are what the panels and captions call
    the two arrays, ``("dcol", "dx")`` unless the lesson calls them
    otherwise (lesson 11 folds a direction ``u`` into ``dg``)."""

    defaults = dict(
        input_size=(7, 7),
        kernel_size=3,
        stride=2,
        padding=0,
        dilation=1,
        seed=0,
        dcol=None,
        names=("dcol", "dx"),
    )
    aliases = {"dy": "dcol"}
    controls = GEOMETRY

    @property
    def title(self) -> str:  # type: ignore[override]
        src = self._params["names"][0]
        return f"col2im: every {src} entry is added onto its input pixel"

    def model(self, p):
        _names(p["names"])
        win = trace.fold_window(p["input_size"], **_geometry(p))
        hw = _size(p)
        shape = (1, 1, *win.k, *win.out)
        taps, blocks = win.k[0] * win.k[1], win.out[0] * win.out[1]
        synthetic: dict[str, str] = {}
        dcol = self.data(p, "dcol", shape, 1, synthetic, also=((taps, blocks),))
        t = self.traced(dcol, hw, _geometry(p))
        events, frames = frames_of(t, hw)
        planes = {"dcol": dcol.reshape(taps, blocks)}
        return Model(events, win, planes, frames, synthetic)

    @staticmethod
    def traced(dcol, hw, geometry):
        """The trace this view plays: col2im's scatter."""
        return trace.col2im(dcol, hw, **geometry)

    def panels(self, m):
        win = m.window
        src, dst = self._params["names"]
        return [
            _col_panel(
                "dcol",
                f"{src}  (rows: taps, columns: windows)",
                win,
                values=m.planes["dcol"],
                marks=("src",),
            ),
            Panel(
                "dx",
                f"{dst} = col2im({src})",
                *m.shape,
                pad=win.p,
                marks=("dst", "window"),
                colored=True,
            ),
        ]

    def marks(self, e):
        win = self.model_.window
        return {
            "dcol.src": _col_cell(win, e.src),
            "dx.dst": e.dst[2:],
            "dx.window": window_at(win, *e.src[4:]),
        }

    def describe(self, e):
        return e.describe(*self._params["names"])


class Col2imGatherView(Col2imView):
    """col2im as a gather, the mirror of :class:`Col2imView`: pixel by
    pixel, each ``dx`` pixel pulls the ``dcol`` entries of the taps that
    land on it (the windows outlined in turn) and is finished before the
    next one starts. No two pixels share a write, so the pixels can be
    split between threads with no race; the last frame is the scatter's
    ``dx``, bit for bit."""

    @property
    def title(self) -> str:  # type: ignore[override]
        src, dst = self._params["names"]
        return f"col2im as a gather: each {dst} pixel pulls its {src} entries"

    @staticmethod
    def traced(dcol, hw, geometry):
        """The trace this view plays: the same sums, pixel by pixel."""
        return trace.col2im_gather(dcol, hw, **geometry)

    def panels(self, m):
        src, dst = self._params["names"]
        *cols, image = super().panels(m)
        image.title = f"{dst}: each pixel pulls its {src} entries, once"
        return [*cols, image]

    def describe(self, e):
        src, dst = self._params["names"]
        ki, kj, i, j = e.src[2:]
        return (f"{dst}{ix(e.dst)} pulls {src}{ix(e.src)} = {fmt(e.value)} "
                f"(window ({i}, {j}), tap ({ki}, {kj})) → {fmt(e.total)}")


def _names(names) -> tuple[str, str]:
    """Col2imView's ``names``: two different, non-empty strings."""
    if (not isinstance(names, (tuple, list)) or len(names) != 2
            or not all(isinstance(n, str) and n.strip() for n in names)):
        raise TypeError("names must be two non-empty strings (columns, "
                        f"image), such as ('dcol', 'dx'); got {names!r}")
    if names[0] == names[1]:
        raise ValueError(f"names must differ, got {names!r}")
    return names[0], names[1]
