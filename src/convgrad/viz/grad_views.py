"""The gradient views: dw from the windows, and the channel sums.

A convolution's backward is two sums that the matrix products hide:

- ``dw[o, c] = Σ_n Σ_windows dy[n, o, i, j] · patch(i, j)``: every image
  and every window adds its patch, scaled by its ``dy``;
- ``dx[n, c] = Σ_o w[o, c] ⋆ dy[n, o]``: every output channel sends its
  gradient back through its own kernel, and the input channel adds them.

The views play :func:`convgrad.trace.conv2d_weight` and
:func:`convgrad.trace.conv2d_input`, one multiply-add per step.
"""

from __future__ import annotations

import numpy as np

from .. import trace
from ._base import Control, Model, View
from ._panel import Panel
from .views import GEOMETRY, _geometry, _size, frames_of, window_at


def _conv(p) -> dict:
    return dict(stride=p["stride"], padding=p["padding"], dilation=p["dilation"])


class WeightGradView(View):
    """``dw`` of a convolution: each ``dy`` entry multiplies the input patch
    under its window, and the products add into ``dw`` tap by tap."""

    title = "dw: each dy entry scales its window's patch into dw"
    defaults = dict(
        input_size=(5, 5),
        kernel_size=3,
        stride=1,
        padding=0,
        dilation=1,
        seed=0,
        x=None,
        dy=None,
    )
    controls = GEOMETRY

    def model(self, p):
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", (1, 1, *_size(p)), 0, synthetic)
        win = trace.fold_window(x.shape[2:], **_geometry(p))
        dy = self.data(p, "dy", (1, 1, *win.out), 6, synthetic)
        t = trace.conv2d_weight(x, (1, 1, *win.k), dy, **_conv(p))
        events, frames = frames_of(t, win.k)
        planes = {"x": x[0, 0], "dy": dy[0, 0]}
        return Model(events, win, planes, frames, synthetic)

    def panels(self, m):
        x, dy = m.planes["x"], m.planes["dy"]
        return [
            Panel(
                "x",
                "x  (the patch under the window)",
                *x.shape,
                values=x,
                pad=m.window.p,
                marks=("src", "window"),
            ),
            Panel("dy", "dy", *dy.shape, values=dy, marks=("src",)),
            Panel("dw", "dw so far", *m.window.k, marks=("dst",), colored=True),
        ]

    def marks(self, e):
        return {
            "x.src": e.b[2:],
            "x.window": window_at(self.model_.window, *e.a[2:]),
            "dy.src": e.a[2:],
            "dw.dst": e.dst[2:],
        }

    def describe(self, e):
        return e.describe("dy", "x", "dw")


def block(a: np.ndarray) -> np.ndarray:
    """A 4-D array (A, B, h, w) as one matrix of blocks: block ``(i, j)``
    is ``a[i, j]`` (a weight's kernels, a batch's channels)."""
    n, m, h, w = a.shape
    return a.transpose(0, 2, 1, 3).reshape(n * h, m * w)


def block_panel(name: str, title: str, shape, values=None, **kw) -> Panel:
    """A panel of a block matrix of ``shape`` (A, B, h, w), labelled by
    ``name``'s two indices."""
    a, b, h, w = shape
    rows, cols = {"w": "oc", "dw": "oc"}.get(name, "no" if name == "dy" else "nc")
    return Panel(
        name,
        title,
        a * h,
        b * w,
        values=values,
        blocks=(h, w),
        row_labels=[f"{rows}{i // h}  {i % h}" for i in range(a * h)],
        col_labels=[f"{cols}{j // w}" if j % w == 0 else "" for j in range(b * w)],
        **kw,
    )


class ChannelsView(View):
    """Several channels at once.

    ``mode="dx"``: ``dx[n, c]`` collects ``w[o, c]``-weighted ``dy[n, o]``
    from every output channel ``o``. ``mode="dw"``: ``dw[o, c]`` collects
    from every image ``n`` and every window. The weight is drawn as one
    block matrix: block ``(o, c)`` is the kernel ``w[o, c]``."""

    title = "channels: every gradient is a sum over the other tensor's channels"
    defaults = dict(
        mode="dx",
        in_channels=None,
        out_channels=2,
        batch=None,
        input_size=(3, 3),
        kernel_size=2,
        stride=1,
        padding=0,
        dilation=1,
        seed=0,
        x=None,
        w=None,
        dy=None,
    )
    controls = (
        Control("kernel_size", 1, 3),
        Control("stride", 1, 2),
        Control("padding", 0, 1),
    )

    def model(self, p):
        mode = p["mode"]
        if mode not in ("dx", "dw"):
            raise ValueError(f"mode must be 'dx' or 'dw', got {mode!r}")
        # dx: one image, two input channels; dw: two images, one channel
        n = p["batch"] or (1 if mode == "dx" else 2)
        c = p["in_channels"] or (2 if mode == "dx" else 1)
        o = p["out_channels"]
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", (n, c, *_size(p)), 0, synthetic)
        win = trace.fold_window(x.shape[2:], **_geometry(p))
        w = self.data(p, "w", (o, c, *win.k), 5, synthetic)
        dy = self.data(p, "dy", (n, o, *win.out), 6, synthetic)
        if mode == "dx":
            t = trace.conv2d_input(x.shape, w, dy, **_conv(p))
            events, frames = frames_of(t, x.shape)
            planes = {"dy": dy, "w": w}
        else:
            t = trace.conv2d_weight(x, w.shape, dy, **_conv(p))
            events, frames = frames_of(t, w.shape)
            # shown as one block matrix: cell (o·kh + ki, c·kw + kj)
            frames = frames.moved(block(np.arange(w.size).reshape(w.shape)))
            planes = {"x": x, "dy": dy}
        return Model(events, win, planes, frames, synthetic)

    def panels(self, m):
        dy = m.planes["dy"]
        dys = block_panel("dy", "dy: block (n, o)", dy.shape, block(dy), marks=("src",))
        if self.params["mode"] == "dx":
            w = m.planes["w"]
            n, c = m.shape[:2]
            dxs = [
                Panel(
                    f"dx{b}_{k}",
                    f"dx[{b},{k}]",
                    *m.shape[2:],
                    pad=m.window.p,
                    marks=("dst", "window"),
                    colored=True,
                    plane=(b, k),
                    column="dx",
                )
                for b in range(n)
                for k in range(c)
            ]
            wb = block_panel("w", "w: block (o, c)", w.shape, block(w), marks=("src",))
            return [dys, wb, *dxs]
        x = m.planes["x"]
        xs = [
            Panel(
                f"x{b}_{k}",
                f"x[{b},{k}]",
                *x.shape[2:],
                values=x[b, k],
                pad=m.window.p,
                marks=("src", "window"),
                column="x",
            )
            for b in range(x.shape[0])
            for k in range(x.shape[1])
        ]
        o, c = dy.shape[1], x.shape[1]
        dw = block_panel(
            "dw", "dw: block (o, c)", (o, c, *m.window.k), marks=("dst",), colored=True
        )
        return [*xs, dys, dw]

    def marks(self, e):
        win = self.model_.window
        (kh, kw), (oh, ow) = win.k, win.out
        # every outline hidden, then those of this product shown
        shown = dict.fromkeys(self.mark_keys)
        if self.params["mode"] == "dx":
            o, c, ki, kj = e.a
            n, _, i, j = e.b
            dx = f"dx{e.dst[0]}_{e.dst[1]}"
            return shown | {
                "w.src": (o * kh + ki, c * kw + kj),
                "dy.src": (n * oh + i, o * ow + j),
                f"{dx}.dst": e.dst[2:],
                f"{dx}.window": window_at(win, i, j),
            }
        n, o, i, j = e.a
        xk = f"x{e.b[0]}_{e.b[1]}"
        _, c, ki, kj = e.dst
        return shown | {
            "dy.src": (n * oh + i, o * ow + j),
            f"{xk}.src": e.b[2:],
            f"{xk}.window": window_at(win, i, j),
            "dw.dst": (o * kh + ki, c * kw + kj),
        }

    def describe(self, e):
        if self.params["mode"] == "dx":
            return e.describe("w", "dy", "dx")
        return e.describe("dy", "x", "dw")
