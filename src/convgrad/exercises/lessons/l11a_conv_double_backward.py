"""Lesson 11: ``conv_double_backward``, differentiate conv2d's backward pass.

``conv_double_backward(w, dy, v, stride, padding)`` returns ``(ddy, dw)``,
the gradients of ``s = sum(v * dx)`` with respect to ``dy`` and to ``w``,
where ``dx`` is the input gradient of ``y = conv2d(x, w, stride=stride,
padding=padding)`` for the upstream ``dy`` (``x`` has ``v``'s shape).

Written out, ``s = Σ dy[n, o, i, j] · Σ w[o] · (v's patch under window
(i, j))``: the forward conv of ``v``, weighted by ``dy``. So ``ddy`` is
``conv2d(v, w)`` (the backward of the backward is the forward) and ``dw``
is ``dw`` of that conv: each ``dy`` times ``v``'s patch, summed over the
images and windows. ``cg.grad(..., create_graph=True)`` twice finds the
same without being told.

The cases separate the likely mistakes: a flipped kernel (the "backward is
a conv with the flipped kernel" rule applied once too often), the stride
ignored, ``dw`` from one image. Strides 1 and 2, padding 0 and 1, two and
three images, one and two input channels, square and non-square planes,
seeded kernels (never symmetric).
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import conv, numbers


def conv_double_backward(
    w: np.ndarray, dy: np.ndarray, v: np.ndarray, stride: int = 1,
    padding: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(ddy, dw)`` of ``s = sum(v * dx)``, ``dx`` conv2d's input gradient
    for ``(w, dy)``: ``ddy`` is the conv of ``v``; ``dw`` sums dy · patch."""
    k, s, p = w.shape[-1], stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros(dy.shape, dtype=np.result_type(v, w, dy))
    dw = np.zeros(w.shape, dtype=ddy.dtype)
    for n, o, i, j in np.ndindex(*dy.shape):
        patch = vp[n, :, i * s : i * s + k, j * s : j * s + k]
        ddy[n, o, i, j] = np.sum(w[o] * patch)  # the forward conv of v
        dw[o] += dy[n, o, i, j] * patch  # every image, every window adds
    return ddy, dw


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, c, c_out, k, s, p, h, wd in [
        (2, 1, 2, 3, 1, 0, 5, 5),  # stride 1, no padding
        (2, 2, 2, 3, 2, 1, 6, 5),  # the lesson's layer: stride 2, padding 1
        (3, 1, 2, 2, 2, 0, 6, 6),  # an exact tiling
        (2, 2, 3, 3, 2, 0, 7, 6),  # stride 2 without padding, not square
        (3, 1, 1, 3, 1, 1, 4, 5),  # padding 1, stride 1
    ]:
        oh, ow = geometry.window((h, wd), (k, k), s, p, 1).out
        out.append({"w": numbers(rng, c_out, c, k, k),
                    "dy": numbers(rng, n, c_out, oh, ow),
                    "v": numbers(rng, n, c, h, wd), "stride": s, "padding": p})
    return out


# the mistakes ------------------------------------------------------------


def _variant(case: dict, *, flip=False, step=None, first_image=False,
             swap=False):
    """``(ddy, dw)`` with the kernel flipped (or transposed), windows
    ``step`` apart, or ``dw`` from image 0 only."""
    w, dy, v = case["w"], case["dy"], case["v"]
    s, p = case.get("stride", 1), case.get("padding", 0)
    wk = w[..., ::-1, ::-1] if flip else w
    wk = wk.swapaxes(-1, -2) if swap else wk
    ddy, dw = conv_double_backward(wk, dy, v, s if step is None else step, p)
    if first_image:
        dw = conv_double_backward(w, dy[:1], v[:1], s, p)[1]
    dw = dw.swapaxes(-1, -2) if swap else dw
    return ddy, dw[..., ::-1, ::-1] if flip else dw


def _pick(output: str, answer) -> np.ndarray:
    return answer[("ddy", "dw").index(output)]


def flipped(run: Run, output: str):
    return [("the flipped kernel", _pick(output, _variant(run.case, flip=True)))]


def transposed(run: Run, output: str):
    return [("the kernel transposed, w[..., kj, ki]",
             _pick(output, _variant(run.case, swap=True)))]


def strides(run: Run, output: str):
    return [("windows one pixel apart (stride 1)",
             _pick(output, _variant(run.case, step=1)))]  # fmt: skip


def one_image(run: Run, output: str):
    return [("image 0 alone", _pick(output, _variant(run.case, first_image=True)))]


MISTAKES = [
    model("kernel-flipped", flipped),
    model("taps-swapped", transposed),
    model("stride-ignored", strides),
    model("missing-batch-sum", one_image, outputs=("dw",)),
]

def dw_feed(case: dict) -> Scatter:
    """dw as conv2d_backward's: dy times v's patch, summed over images and
    windows (for the generated family and the report)."""
    return conv({"x": case["v"], "w": case["w"], "dy": case["dy"],
                 "stride": case.get("stride", 1),
                 "padding": case.get("padding", 0)}, "dw")


EXERCISE = Exercise(
    "conv_double_backward", 11, conv_double_backward, cases,
    outputs=("ddy", "dw"),
    feeds={"dw": dw_feed},
    mistakes=MISTAKES,
    hint="sum(v * dx) = sum(dy * conv2d(v, w)): ddy is that conv "
         "of v; dw adds dy times v's patch, as in 4.1.",
    outcomes=(7,),
)
