"""Lesson 3: ``col2im``, the columns scattered back and ADDED.

Its scatter (:func:`feed`) lists every column entry as a term on the
padded canvas; the mistakes are that scatter built wrong: one term kept
per pixel, the padding left, the stride or the dilation ignored, the
kernel flipped or transposed.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from .. import feeds
from ..diagnosis import model, overwrites
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import (
    WINDOWS,
    kernel_fix,
    no_crop,
    numbers,
    one_axis_dilation,
    scattered,
    swapped_crash,
)


def col2im(
    col: np.ndarray, input_size: tuple[int, int], kernel_size: int,
    stride: int = 1, padding: int = 0, dilation: int = 1,
) -> np.ndarray:
    """Scatter-ADD columns (N, C, K, K, OH, OW) back onto (N, C, H, W)."""
    n, c, k, _, oh, ow = col.shape
    h, w = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p), dtype=col.dtype)
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    xp[:, :, i * s + ki * d, j * s + kj * d] += col[:, :, ki, kj, i, j]
    return xp[:, :, p : p + h, p : p + w]


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for k, s, p, d, h, w in WINDOWS:
        oh, ow = geometry.window((h, w), k, s, p, d).out
        out.append({
            "col": numbers(rng, 2, 2, k, k, oh, ow), "input_size": (h, w),
            "kernel_size": k, "stride": s, "padding": p, "dilation": d,
        })
    return out


# its scatter, and the mistakes ---------------------------------------------


def feed(case: dict, output: str = "output", *, stride=None,
         dilation=None, flip=False, swap=False) -> Scatter:
    """col2im's terms: every column entry where it lands on the padded
    canvas, with the geometry overridden as a mistake does."""
    col = case["col"]
    n, c, k, _, oh, ow = col.shape
    h, w = case["input_size"]
    s = case.get("stride", 1) if stride is None else stride
    dr, dc = feeds.pair(case.get("dilation", 1) if dilation is None else dilation)
    p = case.get("padding", 0)
    b, ch, ki, kj, i, j = np.indices(col.shape).reshape(6, -1)
    ti, tj = feeds.taps(ki, kj, k, flip, swap)
    # the window's map, on the padded canvas (p rows and columns on)
    win = geometry.Window((k, k), feeds.pair(s), (p, p), (dr, dc), (oh, ow))
    terms = {"at": (b, ch, win.row(i, ti) + p, win.column(j, tj) + p),
             "value": col.reshape(-1), "batch": b, "source": (i, j, ki, kj)}
    return feeds.scatter((n, c, h + 2 * p, w + 2 * p), (0, 0, p, p),
                         (n, c, h, w), terms,
                         "window ({0}, {1}) tap ({2}, {3})")


def squares(case: dict) -> dict[int, dict]:
    """The case with its H x W plane made H x H and W x W (new columns,
    the same windows); none when it is square."""
    h, w = case["input_size"]
    if h == w:
        return {}
    n, c, k = case["col"].shape[:3]
    s, p, d = case["stride"], case["padding"], case["dilation"]
    rng = np.random.default_rng(h * w)
    out = {}
    for m in (h, w):
        oh, ow = geometry.window((m, m), k, s, p, d).out
        out[m] = {**case, "col": numbers(rng, n, c, k, k, oh, ow),
                  "input_size": (m, m)}
    return out


MISTAKES = [
    overwrites(feed),
    no_crop(feed),
    scattered("stride-ignored", feed, "stride=1", stride=1),
    scattered("dilation-ignored", feed, "dilation=1", dilation=1),
    model("dilation-ignored", one_axis_dilation(feed)),
    scattered("kernel-flipped", feed, "the flipped kernel",
              fix=kernel_fix, flip=True),
    scattered("taps-swapped", feed, "taps (kj, ki) for (ki, kj)",
              swap=True),
    swapped_crash(col2im, squares),
]

EXERCISE = Exercise(
    "col2im", 3, col2im, cases,
    feeds={"output": feed},
    mistakes=MISTAKES,
    hint="add each column entry at (i*s + ki*d, j*s + kj*d) of "
         "the padded canvas, then crop the padding.",
    outcomes=(2, 6),
)
