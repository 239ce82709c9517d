"""Lesson 7: ``conv_transpose2d``, each input pixel stamps its scaled kernel.

``w`` is (C_in, C_out, K, K); the stamps add on a canvas of
``(H - 1)*s + K + output_padding`` (padded), then the padding is cropped.
The solution is ``col2im`` (lesson 3's exercise) of ``wᵀ · x``.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from .. import feeds
from ..diagnosis import Run, model, overwrites
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import called, kernel_fix, no_crop, numbers, scattered
from .l03a_col2im import col2im


def conv_transpose2d(
    x: np.ndarray, w: np.ndarray, stride: int = 1, padding: int = 0,
    output_padding: int = 0,
) -> np.ndarray:
    """Transposed conv: ``col2im(wᵀ · x)``; ``w`` is (C_in, C_out, K, K)."""
    k = w.shape[2]
    out = geometry.conv_transpose2d_geometry(
        x.shape, w.shape, None, stride, padding, output_padding, 1, 1
    ).out
    dcol = np.einsum("cokl,nchw->noklhw", w, x)
    return col2im(dcol, out, k, stride, padding)


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    # one image on two cases: a reshape that mixes the batch into the
    # channels is right there and wrong on the others
    for n, c_in, c_out, k, s, p, op, h, w in [
        (2, 1, 1, 3, 2, 0, 0, 3, 3),
        (2, 2, 3, 3, 2, 1, 1, 3, 4),
        (1, 2, 1, 4, 2, 1, 0, 3, 3),
        (2, 1, 2, 3, 1, 1, 0, 4, 4),  # stride 1
        (1, 3, 2, 2, 2, 0, 1, 2, 3),
    ]:
        out.append({
            "x": numbers(rng, n, c_in, h, w), "w": numbers(rng, c_in, c_out, k, k),
            "stride": s, "padding": p, "output_padding": op,
        })
    return out


# its scatter, and the mistakes ---------------------------------------------


def feed(case: dict, output: str = "output", *, stride=None,
         flip=False, swap=False) -> Scatter:
    x, w = case["x"], case["w"]
    s0, p = case.get("stride", 1), case.get("padding", 0)
    s = s0 if stride is None else stride
    n, c_in, h, wd = x.shape
    _, c_out, k, _ = w.shape
    out = geometry.conv_transpose2d_geometry(
        x.shape, w.shape, None, s0, p, case.get("output_padding", 0), 1, 1).out
    b, c, o, ki, kj, i, j = np.indices((n, c_in, c_out, k, k, h, wd)).reshape(
        7, -1)
    ti, tj = feeds.taps(ki, kj, k, flip, swap)
    terms = {"at": (b, o, i * s + ti, j * s + tj),
             "value": w[c, o, ki, kj] * x[b, c, i, j], "batch": b,
             "group": feeds.ids(b, o, ki, kj, i, j), "source": (c, i, j, ki, kj)}
    canvas = (n, c_out, out[0] + 2 * p, out[1] + 2 * p)
    return feeds.scatter(canvas, (0, 0, p, p), (n, c_out, *out), terms,
                         "input channel {0} pixel ({1}, {2}) tap ({3}, {4})",
                         unit="term")


def output_paddings(run: Run, output: str):
    """conv_transpose2d with output_padding's rows and columns as zeros
    (after the crop) or at the top and left."""
    c = run.case
    op = c.get("output_padding", 0)
    if not op:
        return []
    short = called(conv_transpose2d, c, output_padding=0)
    pad = ((0, 0), (0, 0))
    return [("zeros appended after the crop",
             np.pad(short, (*pad, (0, op), (0, op)))),
            ("zeros put before the crop's first row and column",
             np.pad(short, (*pad, (op, 0), (op, 0)))),
            ("output_padding left out (sizes included)", short)]


MISTAKES = [
    model("output-padding", output_paddings),
    overwrites(feed),
    no_crop(feed),
    scattered("stride-ignored", feed, "stride=1", stride=1),
    scattered("kernel-flipped", feed, "the flipped kernel",
              fix=kernel_fix, flip=True),
    scattered("taps-swapped", feed, "the kernel transposed, "
              "w[..., kj, ki]", swap=True),
]

EXERCISE = Exercise(
    "conv_transpose2d", 7, conv_transpose2d, cases,
    feeds={"output": feed},
    mistakes=MISTAKES,
    hint="w is (C_in, C_out, K, K): each input pixel stamps its "
         "scaled kernel, the stamps add, then crop the padding.",
    outcomes=(6,),
)
