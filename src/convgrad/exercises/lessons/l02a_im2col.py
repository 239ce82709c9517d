"""Lesson 2: ``im2col``, every window's patch as a column.

The cases are :data:`~convgrad.exercises.shared.WINDOWS`: overlap and
none, stride 1 and 2, padding 0 and 1, dilation 1 and 2, a 1x1 kernel.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import WINDOWS, called, fit, kernel_fix, numbers, swapped_crash


def im2col(
    x: np.ndarray, kernel_size: int, stride: int = 1, padding: int = 0,
    dilation: int = 1,
) -> np.ndarray:
    """Patches of ``x`` (N, C, H, W) as columns (N, C, K, K, OH, OW)."""
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = geometry.window((h, w), k, s, p, d).out
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((n, c, k, k, oh, ow), dtype=x.dtype)
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    col[:, :, ki, kj, i, j] = xp[:, :, i * s + ki * d, j * s + kj * d]
    return col


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    # N != C on the later cases: an axis mixed up with the other shows
    batch = [(2, 2), (2, 2), (2, 2), (1, 3), (3, 1), (2, 3)]
    return [
        {"x": numbers(rng, *batch[i % len(batch)], h, w), "kernel_size": k,
         "stride": s, "padding": p, "dilation": d}
        for i, (k, s, p, d, h, w) in enumerate(WINDOWS)
    ]


# the mistakes ------------------------------------------------------------


def im2col_models(run: Run, output: str, **change):
    full = called(im2col, run.case, **change)
    return [(", ".join(f"{k}={v}" for k, v in change.items()),
             fit(full, run.expected(output))),
            (f"{', '.join(f'{k}={v}' for k, v in change.items())} "
             f"(sizes included)", full)]


def im2col_one_axis(run: Run, output: str):
    """im2col with the dilation on one axis only (sizes right)."""
    c = run.case
    x, k, s, p, d = (c["x"], c["kernel_size"], c.get("stride", 1),
                     c.get("padding", 0), c.get("dilation", 1))
    if d == 1:
        return []
    want = run.expected(output)
    oh, ow = want.shape[-2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    out = []
    for label, (dr, dc) in (("dilation on the rows only", (d, 1)),
                            ("dilation on the columns only", (1, d))):
        col = np.zeros_like(want)
        for ki, kj in np.ndindex(k, k):
            col[:, :, ki, kj] = xp[:, :, ki * dr : ki * dr + s * oh : s,
                                   kj * dc : kj * dc + s * ow : s][..., :oh, :ow]
        out.append((label, col))
    return out


def squares(case: dict) -> dict[int, dict]:
    """The case with its H x W plane made H x H and W x W (new numbers,
    the same windows); none when it is square."""
    n, c, h, w = case["x"].shape
    if h == w:
        return {}
    rng = np.random.default_rng(h * w)
    return {m: {**case, "x": numbers(rng, n, c, m, m)} for m in (h, w)}


def _gathered(run: Run, output: str, at) -> np.ndarray:
    """col with tap (ki, kj) of window (i, j) read at ``at(i, ki)`` rows and
    ``at(j, kj)`` columns of the padded image (0 off it)."""
    c = run.case
    x, p = c["x"], c.get("padding", 0)
    want = run.expected(output)
    k, (oh, ow) = c["kernel_size"], want.shape[-2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros_like(want)
    for ki, kj, i, j in np.ndindex(k, k, oh, ow):
        r, q = at(i, ki), at(j, kj)
        if r < xp.shape[2] and q < xp.shape[3]:
            col[:, :, ki, kj, i, j] = xp[:, :, r, q]
    return col


def swapped_roles(run: Run, output: str):
    """The stride spacing the taps and the dilation the windows."""
    s, d = run.case.get("stride", 1), run.case.get("dilation", 1)
    if s == d:
        return []
    return [("window i at i*d, tap ki at ki*s: the stride and the dilation "
             "swapped", _gathered(run, output, lambda i, ki: i * d + ki * s))]


def spread(run: Run, output: str):
    """The window's offset scaled by the stride as a whole: tap ki of
    window i at (i + ki*d)*s, so the taps are s apart too."""
    s, d = run.case.get("stride", 1), run.case.get("dilation", 1)
    if s == 1:
        return []
    return [("tap ki of window i at (i + ki*d)*s: the stride spreads the "
             "taps too", _gathered(run, output, lambda i, ki: (i + ki * d) * s))]


MISTAKES = [
    model("stride-ignored", lambda r, o: im2col_models(r, o, stride=1)),
    model("argument-mixed-up", swapped_roles),
    model("argument-mixed-up", spread,
          fix=lambda source, output, label: (
              "the stride moves the windows, the dilation spaces the taps: "
              "row i*s + ki*d, not (i + ki*d)*s")),
    model("dilation-ignored", lambda r, o: im2col_models(r, o, dilation=1)),
    model("kernel-flipped", lambda r, o: [
        ("the flipped kernel", r.expected(o)[:, :, ::-1, ::-1])],
        fix=kernel_fix),
    model("taps-swapped", lambda r, o: [
        ("taps (kj, ki) for (ki, kj)", r.expected(o).swapaxes(2, 3))]),
    model("dilation-ignored", im2col_one_axis),
    swapped_crash(im2col, squares),
]

EXERCISE = Exercise(
    "im2col", 2, im2col, cases,
    outputs=("col",),
    mistakes=MISTAKES,
    hint="col[:, :, ki, kj, i, j] is the padded input at "
         "(i*s + ki*d, j*s + kj*d).",
    outcomes=(1, 6),
)
