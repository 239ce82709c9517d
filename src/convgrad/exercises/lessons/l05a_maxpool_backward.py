"""Lesson 5: ``maxpool_backward``, each ``dy`` routed to its window's max.

The cases take their ``argmax`` from lesson 5's other exercise,
:func:`~.l05b_maxpool_forward.maxpool_forward`, on integers in a small
range, so ties and pixels chosen by several windows are common.
"""

from __future__ import annotations

import numpy as np

from .. import feeds
from ..diagnosis import CrashOr, Run, model, overwrites
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import POOLS, numbers
from .l05b_maxpool_forward import maxpool_forward


def maxpool_backward(
    dy: np.ndarray, argmax: np.ndarray, input_shape: tuple[int, ...]
) -> np.ndarray:
    """Route each ``dy`` to the pixel its window chose; overlaps ADD."""
    dx = np.zeros(input_shape, dtype=dy.dtype)
    n, c, oh, ow = dy.shape
    for b in range(n):
        for ch in range(c):
            plane = dx[b, ch].reshape(-1)  # a view: flat index h*W + w
            for i in range(oh):
                for j in range(ow):
                    plane[argmax[b, ch, i, j]] += dy[b, ch, i, j]
    return dx


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    # N != C on the later cases: a loop over range(N) for the channels shows
    batch = [(2, 2), (2, 2), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2)]
    for i, (k, s, p, h, w) in enumerate(POOLS):
        # integers in a small range make ties common
        n, c = batch[i % len(batch)]
        x = rng.integers(-3, 3, size=(n, c, h, w)).astype(np.float64)
        _, argmax = maxpool_forward(x, k, s, p)
        dy = numbers(rng, *argmax.shape)
        out.append({"dy": dy, "argmax": argmax, "input_shape": x.shape})
    return out


# its scatter, and the mistakes ---------------------------------------------


def feed(case: dict, output: str = "dx", *, width=None,
         skip=False) -> Scatter:
    """Max-pool backward: each ``dy`` routed to its window's argmax, read
    as ``divmod(argmax, width)`` (the plane's width unless overridden);
    ``skip`` drops the terms that land outside the plane (a learner's loop
    that skips them) instead of failing."""
    dy, argmax, shape = case["dy"], case["argmax"], tuple(case["input_shape"])
    width = shape[3] if width is None else width
    b, c, i, j = np.indices(dy.shape).reshape(4, -1)
    r, q = np.divmod(argmax.reshape(-1), width)
    if skip:
        inside = (r < shape[2]) & (q < shape[3])
        b, c, i, j, r, q = (a[inside] for a in (b, c, i, j, r, q))
        value = dy.reshape(-1)[inside]
    else:
        value = dy.reshape(-1)
    terms = {"at": (b, c, r, q), "value": value, "batch": b,
             "source": (i, j)}
    return feeds.scatter(shape, (0, 0, 0, 0), shape, terms,
                         "window ({0}, {1})", unit="window",
                         verb="was chosen by")


def widths(run: Run, output: str):
    """Row lengths a learner may unravel the flat argmax with, by name."""
    case = run.case
    h, w = case["input_shape"][2:]
    oh, ow = case["dy"].shape[2:]
    out = []
    for label, width in (("H", h), ("OW", ow), ("OH", oh)):
        r, q = np.divmod(case["argmax"], width)
        if width == w:
            model_dx = None
        elif r.max() < h and q.max() < w:
            model_dx = feed(case, width=width).output()
        else:  # an error, or what a loop that skips those indices leaves
            model_dx = CrashOr(feed(case, width=width,
                                             skip=True).output())
        out.append((f"divmod(argmax, {label})", model_dx))
    return out


def unravel_swapped(run: Run, output: str):
    """maxpool_backward with row and column exchanged after unravelling:
    ``r, q = divmod(argmax, W)`` routed to ``(q, r)``."""
    case = run.case
    dy, shape = case["dy"], tuple(case["input_shape"])
    r, q = np.divmod(case["argmax"], shape[3])
    b, c = np.indices(dy.shape)[:2]
    inside = (q < shape[2]) & (r < shape[3])
    dx = np.zeros(shape)
    np.add.at(dx, (b[inside], c[inside], q[inside], r[inside]), dy[inside])
    return [("row and column swapped, dx[..., q, r]",
             dx if inside.all() else CrashOr(dx))]


def plane_offsets(run: Run, output: str):
    """The flat form, np.add.at(dx.ravel(), offset + argmax, dy), with
    each plane's offset computed wrong (or left out)."""
    case = run.case
    dy, argmax, shape = case["dy"], case["argmax"], tuple(case["input_shape"])
    n, c, h, w = shape
    oh, ow = dy.shape[2:]
    plane = np.arange(n * c).reshape(n, c, 1, 1)
    out = []
    for label, step in (("no plane offset: every plane's dy lands in plane 0",
                         0), ("planes offset by OH*OW, not H*W", oh * ow),
                        ("planes offset by H*W + 1", h * w + 1)):
        flat = (plane * step + argmax).reshape(-1)
        inside = flat < n * c * h * w
        dx = np.zeros(n * c * h * w)
        np.add.at(dx, flat[inside], dy.reshape(-1)[inside])
        out.append((label, dx.reshape(shape) if inside.all()
                    else CrashOr(dx.reshape(shape))))
    every = np.bincount(argmax.reshape(-1), weights=dy.reshape(-1),
                        minlength=h * w)[: h * w].reshape(h, w)
    if argmax.max() < h * w:
        out.append(("no plane offset: every plane gets the sum of all the "
                    "planes' dy", np.broadcast_to(every, shape).copy()))
    return out


def tiled(run: Run, output: str):
    """dy spread over tiles guessed from the shapes (H//OH by W//OW, as if
    the windows did not overlap), kept where a window chose the pixel."""
    case = run.case
    dy, shape = case["dy"], tuple(case["input_shape"])
    n, c, h, w = shape
    oh, ow = dy.shape[2:]
    kh, kw = max(h // oh, 1), max(w // ow, 1)
    up = np.repeat(np.repeat(dy, kh, axis=2), kw, axis=3)[:, :, :h, :w]
    grid = np.zeros(shape)
    grid[:, :, :up.shape[2], :up.shape[3]] = up
    chosen = np.zeros((n * c, h * w))
    chosen[np.arange(n * c)[:, None], case["argmax"].reshape(n * c, -1)] = 1
    return [("dy repeated over H//OH x W//OW tiles, as if the windows did "
             "not overlap, kept where a window chose the pixel",
             grid * chosen.reshape(shape))]


MISTAKES = [
    overwrites(feed),
    model("plane-offset", plane_offsets),
    model("wrong-index-width", widths),
    model("hw-swapped", unravel_swapped),
    model("stride-ignored", tiled),
]

EXERCISE = Exercise(
    "maxpool_backward", 5, maxpool_backward, cases,
    outputs=("dx",),
    feeds={"dx": feed},
    mistakes=MISTAKES,
    hint="each dy goes to the pixel its window chose; several "
         "windows may choose the same one.",
    outcomes=(2, 4, 6),
)
