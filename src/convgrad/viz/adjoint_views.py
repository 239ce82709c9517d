"""The adjoint, played: the convolution matrix, and the gradient's checkerboard.

:class:`ConvMatrixView` steps through the explicit matrix ``C`` of a small
single-channel convolution, ``y = C·x``. Forward, one entry per step: row
``k`` of ``C`` is output ``k``'s window, the kernel's numbers at the input
pixels it covers (``C[k, p] = w[ki, kj]``). Backward (``backward=True``):
``dx = Cᵀ·dy``, one column of ``Cᵀ`` after another, and column ``k`` is
the same window read the other way, a kernel-shaped stamp scaled by
``dy[k]``: what col2im adds.

:class:`GradientCheckerboardView` plays a strided ``conv2d``'s ``dx`` for
``dy = 1`` (:func:`convgrad.trace.conv2d_input`): every ``dy`` entry stamps
the kernel onto ``dx``, and where the stride does not divide the kernel the
stamps overlap unevenly. With ``w = 1`` too, ``dx`` *is* the overlap count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import adjoint, trace
from ..trace import Frames
from ..trace.events import fmt
from . import _limits
from ._base import Control, Model, View
from ._limits import bounded
from ._panel import Panel
from .views import GEOMETRY, _geometry, frames_of, window_at


@dataclass(frozen=True)
class MatrixEntry:
    """Tap ``tap`` of window ``window`` (output ``k``) on input pixel
    ``pixel`` (flat ``p``; ``None`` in the padding, where ``C`` has no
    column). Forward: ``C[k, p] = w``. Backward: ``dx[p] += w·dy``, and
    ``total`` is ``dx[p]`` after the add."""

    window: tuple[int, int]
    k: int
    tap: tuple[int, int]
    pixel: tuple[int, int]
    p: int | None
    w: float
    dy: float | None = None
    total: float | None = None

    @property
    def padding(self) -> bool:
        return self.p is None

    def describe(self) -> str:
        (i, j), (ki, kj), (h, w) = self.window, self.tap, self.pixel
        if self.dy is None:
            head = f"row k={self.k} (window ({i},{j})), tap ({ki},{kj})"
            if self.padding:
                return f"{head} is on padding: no column of C, nothing written"
            return (
                f"{head} on pixel ({h},{w}), p={self.p}: "
                f"C[{self.k},{self.p}] = w[{ki},{kj}] = {fmt(self.w)}"
            )
        head = (
            f"column k={self.k}: dy[{self.k}]·w[{ki},{kj}] = "
            f"{fmt(self.dy)}·{fmt(self.w)} = {fmt(self.w * self.dy)}"
        )
        if self.padding:
            return f"{head} lands on padding: dropped"
        return f"{head} added to dx at p={self.p} ({h},{w}) → {fmt(self.total)}"


class ConvMatrixView(View):
    """The convolution ``y = C·x`` as an explicit matrix, built one entry at
    a time (rows: outputs ``k``, columns: input pixels ``p``, both flattened
    row by row). ``backward=True`` plays ``dx = Cᵀ·dy`` column by column:
    each ``dy[k]`` scales its window's stamp of the kernel into ``dx``.

    ``w`` (the kernel) and ``dy`` are seeded numbers unless given."""

    defaults = dict(
        input_size=(4, 4),
        kernel_size=3,
        stride=1,
        padding=0,
        dilation=1,
        backward=False,
        seed=0,
        w=None,
        dy=None,
    )
    controls = (
        Control("kernel_size", 1, 4),
        Control("stride", 1, 3),
        Control("padding", 0, 1),
        Control("dilation", 1, 2),
        Control("backward", kind="bool"),
    )

    @property
    def title(self) -> str:  # type: ignore[override]
        if self._params["backward"]:
            return "dx = Cᵀ·dy: column k of Cᵀ stamps dy[k]·w (col2im)"
        return "y = C·x: row k of C is output k's window"

    def model(self, p):
        from ..geometry import pair

        backward = p["backward"]
        if not isinstance(backward, (bool, np.bool_)):
            raise ValueError(f"backward must be True or False, got {backward!r}")
        hw = pair(p["input_size"], "input_size", minimum=1)
        # the gather's events name, for every window and tap, the pixel read
        t = trace.im2col(np.zeros((1, 1, *hw)), **_geometry(p))
        win = t.window
        _matrix_fits(win.out[0] * win.out[1], hw[0] * hw[1])
        synthetic: dict[str, str] = {}
        w = self.data(p, "w", (1, 1, *win.k), 5, synthetic)[0, 0]
        c = adjoint.conv_matrix(w, hw, p["stride"], p["padding"], p["dilation"])
        ow = win.out[1]
        gathers = sorted(bounded(t),
                         key=lambda e: (e.dst[4], e.dst[5], e.dst[2], e.dst[3]))
        entries = [
            MatrixEntry(
                (e.dst[4], e.dst[5]),
                e.dst[4] * ow + e.dst[5],
                (e.dst[2], e.dst[3]),
                e.src[2:],
                None if e.padding else e.src[2] * hw[1] + e.src[3],
                float(w[e.dst[2], e.dst[3]]),
            )
            for e in gathers
        ]
        planes = {
            "C": c,
            "w": w,
            "x": np.arange(hw[0] * hw[1], dtype=float).reshape(hw),
        }
        if backward:
            dy = self.data(p, "dy", (1, 1, *win.out), 6, synthetic)[0, 0]
            planes["dy"] = dy
            entries, frames = _backward(entries, c, dy.ravel(), hw)
        else:
            frames = _forward(entries, c.shape)
        return Model(tuple(entries), win, planes, frames, synthetic)

    def panels(self, m):
        win = m.window
        (oh, ow), (h, w) = win.out, m.planes["x"].shape
        kernel = Panel("w", "w (kernel)", *win.k, values=m.planes["w"],
                       marks=("src",))  # fmt: skip
        if not self.params["backward"]:
            return [
                Panel(
                    "x",
                    "x: pixel p = h·W + w",
                    h,
                    w,
                    values=m.planes["x"],
                    pad=win.p,
                    marks=("src", "window"),
                ),
                kernel,
                Panel(
                    "C",
                    f"C ({oh * ow} × {h * w}): row k, column p",
                    oh * ow,
                    h * w,
                    marks=("dst",),
                    colored=True,
                ),
            ]
        return [
            Panel("dy", "dy (k = i·OW + j)", oh, ow, values=m.planes["dy"],
                  marks=("src",)),
            kernel,
            Panel("col", "column k of Cᵀ, as an image", h, w, pad=win.p,
                  marks=("src", "window"), colored=True, plane=(1,)),
            Panel("dx", "dx = Cᵀ·dy so far", h, w, pad=win.p,
                  marks=("dst", "window"), colored=True, plane=(0,)),
        ]  # fmt: skip

    def marks(self, e):
        box = window_at(self.model_.window, *e.window)
        if not self.params["backward"]:
            return {
                "x.src": e.pixel,
                "x.window": box,
                "w.src": e.tap,
                "C.dst": None if e.padding else (e.k, e.p),
            }
        return {
            "dy.src": divmod(e.k, self.model_.window.out[1]),
            "w.src": e.tap,
            "col.src": e.pixel,
            "col.window": box,
            "dx.dst": e.pixel,
            "dx.window": box,
        }


def _matrix_fits(rows: int, cols: int) -> None:
    """Refuse a matrix of more than ``MAX_CELLS`` entries (its cells grow
    with the square of the input's area)."""
    if rows * cols > _limits.MAX_CELLS:
        raise ValueError(
            f"input_size is too large for a view of C: {rows} × {cols} = "
            f"{rows * cols:,} entries, and a view draws at most "
            f"{_limits.MAX_CELLS:,}. A smaller input shows the same pattern, "
            "such as input_size=(6, 6)"
        )


def _forward(entries: list[MatrixEntry], shape: tuple[int, int]) -> Frames:
    """Every frame's ``C`` so far, and the entries written so far: each
    entry writes one cell of ``C``, once."""
    cells = [e.k * shape[1] + e.p for e in entries if not e.padding]
    values = [e.w for e in entries if not e.padding]
    written = np.cumsum([0] + [0 if e.padding else 1 for e in entries])
    return Frames(tuple(shape), written.astype(np.int64),
                  np.asarray(cells, np.int64), np.asarray(values, np.float64),
                  np.ones(len(cells), bool))  # fmt: skip


def _backward(entries: list[MatrixEntry], c: np.ndarray, dy: np.ndarray, hw):
    """``dx = Cᵀ·dy`` one product at a time, column ``k`` by column: plane
    0 is ``dx`` so far, plane 1 column ``k`` of ``Cᵀ`` drawn as the image."""
    played = []

    def frames():
        dx = np.zeros(hw)
        seen = np.zeros(hw, dtype=bool)
        for e in entries:
            total = None
            if not e.padding:
                dx[e.pixel] += e.w * dy[e.k]
                seen[e.pixel] = True
                total = float(dx[e.pixel])
            played.append(MatrixEntry(e.window, e.k, e.tap, e.pixel, e.p, e.w,
                                      float(dy[e.k]), total))  # fmt: skip
            column = c[e.k].reshape(hw)
            yield np.stack([dx, column]), np.stack([seen, column != 0])

    return played, Frames.of_states(frames(), (2, *hw))


class GradientCheckerboardView(View):
    """``dx`` of a strided conv2d, one product ``w[ki, kj]·dy[i, j]`` per
    step (the kernel's loop order: one tap over every window, then the
    next). ``dy`` and ``w`` are all ones unless given, so ``dx`` ends as the
    overlap count drawn beside it: the checkerboard in the gradient
    (``"random"`` for seeded numbers)."""

    title = "conv2d's dx for dy = 1: every dy stamps w onto dx"
    defaults = dict(
        input_size=(7, 7),
        kernel_size=3,
        stride=2,
        padding=0,
        dilation=1,
        seed=0,
        w="ones",
        dy="ones",
    )
    controls = GEOMETRY

    def model(self, p):
        from ..geometry import pair

        hw = pair(p["input_size"], "input_size", minimum=1)
        win = trace.fold_window(hw, **_geometry(p))
        synthetic: dict[str, str] = {}
        w = self.data(p, "w", (1, 1, *win.k), 5, synthetic)
        dy = self.data(p, "dy", (1, 1, *win.out), 6, synthetic)
        t = trace.conv2d_input(
            (1, 1, *hw), w, dy, p["stride"], p["padding"], p["dilation"]
        )
        events, frames = frames_of(t, hw)
        count = trace.overlap_count(hw, **_geometry(p)).astype(float)
        planes = {"dy": dy[0, 0], "w": w[0, 0], "count": count}
        return Model(events, win, planes, frames, synthetic)

    def panels(self, m):
        win, count = m.window, m.planes["count"]
        counts = ", ".join(str(int(v)) for v in np.unique(count))
        return [
            Panel("dy", "dy", *win.out, values=m.planes["dy"], marks=("src",)),
            Panel("w", "w (kernel)", *win.k, values=m.planes["w"], marks=("src",)),
            Panel("dx", "dx so far", *count.shape, pad=win.p,
                  marks=("dst", "window"), colored=True),
            Panel("count", f"overlap count: {counts}", *count.shape,
                  values=count, pad=win.p, marks=("window",), colored=True),
        ]  # fmt: skip

    def marks(self, e):
        box = window_at(self.model_.window, *e.b[2:])
        return {
            "dy.src": e.b[2:],
            "w.src": e.a[2:],
            "dx.dst": e.dst[2:],
            "dx.window": box,
            "count.window": box,
        }

    def describe(self, e):
        return e.describe("w", "dy", "dx")
