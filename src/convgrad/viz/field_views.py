"""How far one gradient reaches: the effective receptive field, and the
convolution as an explicit matrix.

:class:`ReceptiveFieldView` back-propagates a single ``dy = 1`` at the
centre of a stack of conv layers, with the package's own autodiff, and
shows ``|dx|`` at the input for a stack of 1, 2, ... layers: not only where
the gradient reaches (the receptive field) but how much arrives where (its
magnitude piles up in the middle). :func:`conv_matrix_figure` paints the
matrix ``C`` of a small convolution and its transpose (a still picture).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..geometry import same_padding
from ..trace import Frames
from ._base import Control, Model, View
from ._panel import Panel


@dataclass(frozen=True)
class FieldStep:
    """Frame ``layers``: the input gradient of a stack that deep."""

    layers: int
    box: tuple[int, int, int, int]  # (r, c, h, w): where |dx| is not 0
    centre_share: float  # the part of Σ|dx| in the central 3 x 3
    peak: float

    def describe(self) -> str:
        _, _, h, w = self.box
        return (
            f"{self.layers} layer{'s' * (self.layers != 1)}: |dx| reaches a "
            f"{h}×{w} square; its central 3×3 holds "
            f"{100 * self.centre_share:.0f}% of the total (peak {self.peak:g})"
        )


def input_gradient(hw, layers, kernel_size, stride, dilation, weights, seed):
    """|dx| at the input of ``layers`` convs for one ``dy = 1`` at the
    centre of the last output ('same'-style padding: ``d*(K-1)//2``)."""
    import convgrad as cg

    rng = np.random.default_rng(seed)
    k, d = kernel_size, dilation
    same, _ = same_padding((k, k), (d, d))  # d*(K-1)//2 a side
    x = cg.Tensor(np.zeros((1, 1, *hw)), requires_grad=True)
    y = x
    for _ in range(layers):
        w = (
            np.ones((1, 1, k, k))
            if weights == "ones"
            else rng.normal(size=(1, 1, k, k))
        )
        y = cg.F.conv2d(y, w, stride=stride, padding=same, dilation=d)
    dy = np.zeros(y.shape)
    dy[0, 0, y.shape[2] // 2, y.shape[3] // 2] = 1.0
    y.backward(dy)
    return np.abs(x.grad[0, 0])


class ReceptiveFieldView(View):
    """Frame k: ``|dx|`` of one ``dy = 1`` at the centre, through k conv
    layers of all-ones kernels (``weights="random"`` for seeded ones)."""

    title = "effective receptive field: |dx| of one dy, layer by layer"
    defaults = dict(
        layers=3,
        kernel_size=3,
        stride=1,
        dilation=1,
        input_size=(15, 15),
        weights="ones",
        seed=0,
    )
    controls = (
        Control("layers", 1, 5),
        Control("kernel_size", 1, 5),
        Control("stride", 1, 2),
        Control("dilation", 1, 3),
    )

    def model(self, p):
        from ..geometry import pair

        hw = pair(p["input_size"], "input_size", minimum=1)
        if p["weights"] not in ("ones", "random"):
            raise ValueError(
                f"weights must be 'ones' or 'random', got {p['weights']!r}"
            )
        layers = p["layers"]
        if not isinstance(layers, int) or layers < 1:
            raise ValueError(f"layers must be an int of at least 1, got {layers!r}")
        states, events = [], []
        for k in range(1, layers + 1):
            g = input_gradient(
                hw,
                k,
                p["kernel_size"],
                p["stride"],
                p["dilation"],
                p["weights"],
                p["seed"],
            )
            rows, cols = np.nonzero(g)
            box = (
                int(rows.min()),
                int(cols.min()),
                int(rows.max() - rows.min() + 1),
                int(cols.max() - cols.min() + 1),
            )
            r0, c0 = int(round(rows.mean())), int(round(cols.mean()))
            share = g[max(r0 - 1, 0) : r0 + 2, max(c0 - 1, 0) : c0 + 2].sum() / g.sum()
            states.append(g)
            events.append(FieldStep(k, box, float(share), float(g.max())))
        frames = Frames.of_states((g, g != 0) for g in states)
        return Model(tuple(events), None, {}, frames)

    def panels(self, m):
        return [
            Panel("dx", "|dx| at the input", *m.shape, marks=("window",), colored=True)
        ]

    def marks(self, e):
        return {"dx.window": e.box}

    def describe(self, e):
        return e.describe()


class StillPicture:
    """A picture of a scene's one step (a still, not a view): shown as a
    PNG wherever it is displayed; ``drawn()`` says what it holds."""

    def __init__(self, scene: dict[str, Any]) -> None:
        from .painter import Painter

        self.scene = scene
        self.painter = Painter(scene, steps=False)

    def drawn(self):
        """Its panels' numbers, texts and colours (:class:`~.painter.Drawn`)."""
        return self.painter.drawn(0)

    def png(self, dpi: float = 100) -> bytes:
        """PNG bytes, 800 px wide at ``dpi`` 100."""
        return self.painter.png(0, dpi)

    def _repr_png_(self) -> bytes:
        return self.png()


def conv_matrix_figure(
    input_size: Any = (4, 4), kernel_size: int = 3, seed: int = 0
) -> StillPicture:
    """The convolution ``y = C x`` as an explicit matrix, and ``Cᵀ``.

    Row ``k`` of ``C`` is output pixel ``k``'s window: the kernel's
    numbers at the input pixels it covers, zeros elsewhere. Column ``k`` of
    ``Cᵀ`` is the same window read the other way: where ``dy[k]`` goes.
    """
    from .. import adjoint
    from ..geometry import pair
    from ._data import numbers
    from .scene import still_scene

    hw = pair(input_size, "input_size", minimum=1)
    k = pair(kernel_size, "kernel_size", minimum=1)
    w = numbers(seed, k, 7)
    c = adjoint.conv_matrix(w, hw)
    pixel = [f"{i},{j}" for i in range(hw[0]) for j in range(hw[1])]
    oh = int(round(c.shape[0] ** 0.5)) if c.shape[0] else 0
    outs = [f"{i // max(oh, 1)},{i % max(oh, 1)}" for i in range(c.shape[0])]
    panels = [
        Panel("C", f"C  ({c.shape[0]} × {c.shape[1]}): rows = outputs", *c.shape,
              values=c, row_labels=outs, col_labels=pixel, colored=True),
        Panel("CT", f"Cᵀ ({c.shape[1]} × {c.shape[0]})", *c.T.shape,
              values=c.T, row_labels=pixel, col_labels=outs, colored=True),
    ]  # fmt: skip
    return StillPicture(still_scene(
        f"a {k[0]}×{k[1]} convolution of a {hw[0]}×{hw[1]} image as a matrix",
        "y = C·x,  dx = Cᵀ·dy",
        panels,
        "row k of C: output pixel k's window (zeros blank);  "
        "column k of Cᵀ: where dy[k] goes",
        blank=lambda values: values == 0,  # the sparsity
    ))  # fmt: skip
