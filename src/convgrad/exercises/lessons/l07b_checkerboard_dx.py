"""Lesson 7: ``checkerboard_dx``, the checkerboard in a strided conv's gradient.

``checkerboard_dx(w, input_size, stride, padding)`` is ``dx`` of
``y = conv2d(x, w, stride=stride, padding=padding)`` (one channel, ``x`` of
size ``input_size``) when ``dy = 1`` everywhere: every window stamps the
kernel onto ``dx`` and the stamps add. With ``w = 1`` it is the overlap
count; with a kernel of 3 and stride 2, a checkerboard whose 4s sit where
an even row meets an even column.

The cases separate the likely mistakes: the overlap forgotten (stamps
written, not added), the stamps one pixel off (the 4s on odd indices), the
padding not cropped (or cropped at the wrong offset), the stride
ignored, a flipped kernel. Kernels of ones and of seeded numbers, strides
1, 2 and 3, padding 0 and 1, a stride that tiles, one that leaves gaps.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from .. import feeds
from ..diagnosis import Run, model, overwrites
from ..exercise import Exercise
from ..shared import no_crop, numbers


def checkerboard_dx(
    w: np.ndarray, input_size: tuple[int, int], stride: int = 1,
    padding: int = 0,
) -> np.ndarray:
    """``dx`` (H, W) of a single-channel ``conv2d(x, w, stride, padding)``
    for ``dy = 1``: each window adds ``w`` onto the padded canvas; crop."""
    kh, kw = w.shape
    h, wd = input_size
    s, p = stride, padding
    oh, ow = geometry.window((h, wd), w.shape, s, p, 1).out
    canvas = np.zeros((h + 2 * p, wd + 2 * p), dtype=np.result_type(w, float))
    for i in range(oh):
        for j in range(ow):
            canvas[i * s : i * s + kh, j * s : j * s + kw] += w  # dy[i, j] = 1
    return canvas[p : p + h, p : p + wd]


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for ones, k, s, p, h, w in [
        (True, 3, 2, 0, 7, 7),  # the lesson's checkerboard: 1, 2 and 4
        (False, 3, 2, 0, 7, 6),  # seeded numbers, not square
        (True, 4, 2, 1, 8, 8),  # a stride that divides the kernel
        (False, 3, 2, 1, 6, 5),  # padding
        (True, 2, 3, 0, 8, 8),  # gaps: pixels no window reaches
        (False, 2, 2, 0, 4, 6),  # an exact tiling: nothing overlaps
        (False, 3, 1, 0, 5, 5),  # stride 1
    ]:
        weight = np.ones((k, k)) if ones else numbers(rng, k, k)
        out.append({"w": weight, "input_size": (h, w), "stride": s, "padding": p})
    return out


# the mistakes ------------------------------------------------------------


def stamps(case: dict, *, stride=None, shift: int = 0, flip: bool = False,
           counts: str | None = None):
    """The windows' stamps as the terms of a scatter on the padded canvas:
    window ``(i, j)`` at ``(i*stride + shift, j*stride + shift)`` (terms off
    the canvas dropped), ``w`` flipped if ``flip``."""
    w = case["w"][::-1, ::-1] if flip else case["w"]
    h, wd = case["input_size"]
    s0, p = case.get("stride", 1), case.get("padding", 0)
    s = s0 if stride is None else stride
    kh, kw = w.shape
    oh, ow = geometry.window((h, wd), (kh, kw), s0, p, 1).out
    if counts == "H":  # both counts from the height (the kernel is square)
        ow = oh
    elif counts == "W":  # both from the width
        oh = ow
    i, j, ki, kj = np.indices((oh, ow, kh, kw)).reshape(4, -1)
    r, q = i * s + shift + ki, j * s + shift + kj
    inside = (r >= 0) & (r < h + 2 * p) & (q >= 0) & (q < wd + 2 * p)
    terms = {
        "at": (r[inside], q[inside]),
        "value": w[ki, kj][inside],
        "batch": np.zeros(int(inside.sum()), dtype=np.int64),
        "source": (i[inside], j[inside], ki[inside], kj[inside]),
    }
    return feeds.scatter((h + 2 * p, wd + 2 * p), (p, p), (h, wd), terms,
                         "window ({0}, {1}) tap ({2}, {3})")  # fmt: skip


def feed(case: dict, output: str = "output", **over):
    return stamps(case, **over)


def parities(run: Run, output: str):
    return [("windows starting one pixel late (i*s + 1)",
             stamps(run.case, shift=1).output()),
            ("windows starting one pixel early (i*s - 1)",
             stamps(run.case, shift=-1).output())]  # fmt: skip


def strides(run: Run, output: str):
    return [("windows one pixel apart (stride 1)",
             stamps(run.case, stride=1).output())]  # fmt: skip


def flipped(run: Run, output: str):
    return [("the flipped kernel", stamps(run.case, flip=True).output())]


def transposed(run: Run, output: str):
    case = {**run.case, "w": run.case["w"].T}
    return [("the kernel transposed, w.T", stamps(case).output())]


# parity before no-crop: with padding 1, stamps one pixel off and a crop
# one pixel off give the same answer; only the cases without padding (where
# any crop is right) tell them apart. Windows placed on the unpadded image
# are a crop at offset 0: no-crop names them.
def one_count(run: Run, output: str):
    """The windows counted on one axis and the count used for both."""
    h, w = run.case["input_size"]
    right = run.expected(output)
    return [(f"the window count of {a} used for both axes",
             right if h == w else stamps(run.case, counts=a).output())
            for a in ("H", "W")]


MISTAKES = [
    overwrites(feed),
    model("parity", parities),
    no_crop(feed),
    model("stride-ignored", strides),
    model("kernel-flipped", flipped),
    model("taps-swapped", transposed),
    # exact: right on every square case too (a count slip that happens to
    # agree on the other cases is wrong on some square one)
    model("square-assumed", one_count, exact=True),
]

EXERCISE = Exercise(
    "checkerboard_dx", 7, checkerboard_dx, cases,
    feeds={"output": feed},
    mistakes=MISTAKES,
    hint="every window (i, j) adds w at (i*s, j*s) of the "
         "padded canvas (dy = 1 there); the adds overlap; "
         "then crop the padding.",
    outcomes=(2,),
)
