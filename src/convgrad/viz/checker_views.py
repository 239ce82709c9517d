"""The checkerboard views: overlap counts and the transposed conv's stamps."""

from __future__ import annotations

import numpy as np

from .. import trace
from ..trace.events import fmt, ix
from ._base import Model, View
from ._panel import Panel
from .views import GEOMETRY, _geometry, _size, frames_of, window_at


class OverlapView(View):
    """How many windows touch each pixel: col2im of a column of ones.

    Left: the count building up, one window tap at a time. Right: the final
    map. When the stride does not divide the (dilated) kernel the counts
    are uneven, a checkerboard, and so is every gradient col2im scatters."""

    title = "overlap count: how many windows touch each pixel"
    defaults = dict(input_size=(8, 8), kernel_size=3, stride=2, padding=0, dilation=1)
    controls = GEOMETRY

    def model(self, p):
        win = trace.fold_window(p["input_size"], **_geometry(p))
        hw = _size(p)
        ones = np.ones((1, 1, *win.k, *win.out))
        t = trace.col2im(ones, hw, **_geometry(p), skip_padding=True)
        events, frames = frames_of(t, hw)
        counts = trace.overlap_count(hw, **_geometry(p)).astype(float)
        return Model(events, win, {"count": counts}, frames)

    def panels(self, m):
        win, count = m.window, m.planes["count"]
        # the interior is even when the stride divides the dilated span
        uneven = any(
            s > 1 and span % s or s > span
            for s, span in zip(win.s, win.span, strict=True)
        )
        verdict = "uneven: a checkerboard" if uneven else "even"
        return [
            Panel(
                "so_far",
                "windows so far",
                *count.shape,
                pad=win.p,
                marks=("dst", "window"),
                colored=True,
            ),
            Panel(
                "count",
                f"final count ({verdict})",
                *count.shape,
                values=count,
                pad=win.p,
                marks=("window",),
                colored=True,
            ),
        ]

    def marks(self, e):
        box = window_at(self.model_.window, *e.src[4:])
        return {"so_far.dst": e.dst[2:], "so_far.window": box, "count.window": box}

    def describe(self, e):
        _, _, ki, kj, oh, ow = e.src
        n = int(e.total)
        return (
            f"window ({oh},{ow}), tap ({ki},{kj}) touches pixel "
            f"({e.dst[2]},{e.dst[3]}): {n} window{'s' * (n != 1)} so far"
        )


class ConvTransposeView(View):
    """The transposed conv's forward, ``col2im(wᵀ·x)``: each input pixel
    stamps the kernel, scaled, onto the output. Where stamps overlap
    unevenly (stride not dividing the kernel) the output checkerboards.
    ``x`` and ``w`` are all ones unless given, so every number on ``y`` is
    a count of stamps: the checkerboard itself (``"random"`` for seeded
    numbers)."""

    title = "transposed conv: each x pixel stamps a scaled kernel onto y"
    defaults = dict(
        input_size=(3, 3),
        kernel_size=3,
        stride=2,
        padding=0,
        output_padding=0,
        dilation=1,
        seed=0,
        x="ones",
        w="ones",
    )
    controls = GEOMETRY

    def model(self, p):
        from ..geometry import pair

        synthetic: dict[str, str] = {}
        x = self.data(p, "x", (1, 1, *_size(p)), 4, synthetic)
        k = pair(p["kernel_size"], "kernel_size", minimum=1)
        w = self.data(p, "w", (1, 1, *k), 5, synthetic)
        t = trace.conv_transpose_forward(
            x,
            w,
            stride=p["stride"],
            padding=p["padding"],
            output_padding=p["output_padding"],
            dilation=p["dilation"],
        )
        events, frames = frames_of(t, t.window.out)
        planes = {"x": x[0, 0], "w": w[0, 0]}
        return Model(events, t.window, planes, frames, synthetic)

    def panels(self, m):
        geom = m.window
        crop = "  (grey: cropped)" if max(geom.win.p) else ""
        return [
            Panel("x", "x", *m.planes["x"].shape, values=m.planes["x"], marks=("src",)),
            Panel(
                "w",
                "w (kernel)",
                *m.planes["w"].shape,
                values=m.planes["w"],
                marks=("src",),
            ),
            Panel(
                "y",
                "y = col2im(wᵀ·x)" + crop,
                *geom.out,
                pad=geom.win.p,
                marks=("dst", "window"),
                colored=True,
            ),
        ]

    def marks(self, e):
        _, _, ki, kj, i, j = e.src
        return {
            "x.src": (i, j),
            "w.src": (ki, kj),
            "y.dst": e.dst[2:],
            "y.window": window_at(self.model_.window.win, i, j),
        }

    def describe(self, e):
        _, _, ki, kj, i, j = e.src
        xv, wv = self.model_.planes["x"][i, j], self.model_.planes["w"][ki, kj]
        head = f"x[{i},{j}]·w[{ki},{kj}] = {fmt(xv)}·{fmt(wv)} = {fmt(e.value)}"
        if e.padding:
            return f"{head} falls outside y at {ix(e.dst[2:])}: cropped"
        return f"{head} added to y{ix(e.dst[2:])} → {fmt(e.total)}"
