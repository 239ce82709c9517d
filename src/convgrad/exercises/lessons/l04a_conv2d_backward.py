"""Lesson 4: ``conv2d_backward``, ``(dx, dw, db)`` of a conv2d.

Its mistakes are every conv backward's,
:data:`~convgrad.exercises.shared.CONV_BACKWARD`, weighed on the terms of
:func:`~convgrad.exercises.shared.conv`.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..exercise import Exercise
from ..shared import CONV_BACKWARD, conv_feeds, numbers


def conv2d_backward(
    x: np.ndarray, w: np.ndarray, dy: np.ndarray, stride: int = 1,
    padding: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dx, dw, db)`` of ``y = conv2d(x, w, b, stride, padding)``, one
    output element at a time: ``dy[n, o, i, j]`` adds ``w[o]`` onto its
    window of ``dx`` and its window of ``x`` into ``dw[o]``."""
    k, s, p = w.shape[2], stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n, o, i, j in np.ndindex(dy.shape):
        r, q = i * s, j * s  # the window's corner on the padded input
        dxp[n, :, r : r + k, q : q + k] += dy[n, o, i, j] * w[o]
        dw[o] += dy[n, o, i, j] * xp[n, :, r : r + k, q : q + k]
    db = dy.sum(axis=(0, 2, 3))
    h, wd = x.shape[2:]
    return dxp[:, :, p : p + h, p : p + wd], dw, db


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, c_in, c_out, k, s, p, h, w in [
        (2, 1, 1, 3, 1, 0, 5, 5),
        (2, 2, 3, 3, 2, 1, 6, 5),
        (3, 3, 2, 2, 1, 1, 4, 4),  # a third image: a mean is not a half
        (2, 2, 2, 3, 2, 0, 7, 7),
        (2, 2, 2, 3, 1, 1, 5, 7),  # OH != OW: a loop over OH twice fails
    ]:
        oh, ow = geometry.window((h, w), k, s, p, 1).out
        out.append({
            "x": numbers(rng, n, c_in, h, w), "w": numbers(rng, c_out, c_in, k, k),
            "dy": numbers(rng, n, c_out, oh, ow), "stride": s, "padding": p,
        })
    return out


# every conv backward's, shared with lesson 8's dilated, grouped one
MISTAKES = CONV_BACKWARD

def sums(case: dict) -> dict[str, tuple]:
    """db as a sum of dy (for the generated family)."""
    return {"db": (case["dy"], (0, 2, 3))}


EXERCISE = Exercise(
    "conv2d_backward", 4, conv2d_backward, cases,
    outputs=("dx", "dw", "db"),
    feeds=conv_feeds("dx", "dw", "db"),
    sums=sums,
    mistakes=MISTAKES,
    hint="dw sums dy times the input patch over images and "
         "windows; dx is col2im of w^T dy; db sums dy.",
    outcomes=(1, 2),
)
