"""Lesson 3: ``conv_matrix``, the convolution as an explicit matrix ``C``.

``conv_matrix(w, input_size, stride, padding)`` returns ``C`` of shape
``(OH*OW, H*W)`` with ``C @ x.ravel() == conv2d(x, w).ravel()``: row ``k``
(output pixel ``(i, j)``, ``k = i*OW + j``) holds the kernel's numbers at
the input pixels its window covers, column ``p = h*W + w``; taps on the
padding have no column. Its transpose is the backward pass.

The cases separate the likely mistakes: a flipped kernel (and flips of one
axis), C transposed, images flattened column by column, the stride or the
padding left out of where a window starts, columns kept for the padding.
Square and non-square inputs, stride 1 and 2, padding 0 and 1, a case where
C is square (so a transposed C has the right shape).
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import numbers


def place(
    w: np.ndarray, input_size: tuple[int, int], out: tuple[int, int],
    stride: int, offset: int,
) -> np.ndarray:
    """``C`` for ``out`` windows whose top-left tap sits at ``(i*stride -
    offset, j*stride - offset)`` on the image; taps outside it are dropped.
    The reference is ``offset = padding``; the mistakes change the rest."""
    kh, kw = w.shape
    h, wd = input_size
    oh, ow = out
    c = np.zeros((oh * ow, h * wd), dtype=np.result_type(w.dtype, float))
    for i, j, ki, kj in np.ndindex(oh, ow, kh, kw):
        r, q = i * stride - offset + ki, j * stride - offset + kj
        if 0 <= r < h and 0 <= q < wd:
            c[i * ow + j, r * wd + q] = w[ki, kj]
    return c


def conv_matrix(
    w: np.ndarray, input_size: tuple[int, int], stride: int = 1,
    padding: int = 0,
) -> np.ndarray:
    """The matrix ``C`` (OH*OW, H*W) of ``conv2d(x, w, stride, padding)``
    for a 2-D kernel ``w`` (KH, KW) and a single-channel ``x`` (H, W)."""
    out = geometry.window(tuple(input_size), w.shape, stride, padding, 1).out
    return place(w, input_size, out, stride, padding)


def cases(rng: np.random.Generator) -> list[dict]:
    return [
        {"w": numbers(rng, k, k), "input_size": (h, w), "stride": s, "padding": p}
        for k, s, p, h, w in [
            (3, 1, 0, 4, 4),  # the lesson's: 4 x 16
            (3, 2, 1, 5, 4),  # stride and padding, not square
            (2, 1, 0, 3, 5),  # an even kernel, not square
            (3, 1, 1, 3, 3),  # C is square (9 x 9)
            (3, 2, 0, 5, 5),  # stride 2, no padding
        ]
    ]


# the mistakes ------------------------------------------------------------


def _case(run: Run) -> tuple[np.ndarray, tuple[int, int], int, int]:
    c = run.case
    return c["w"], tuple(c["input_size"]), c.get("stride", 1), c.get("padding", 0)


def _out(run: Run) -> tuple[int, int]:
    w, hw, s, p = _case(run)
    return geometry.window(hw, w.shape, s, p, 1).out


def flips(run: Run, output: str):
    w, hw, s, p = _case(run)
    return [(label, conv_matrix(v, hw, s, p)) for label, v in (
        ("the flipped kernel w[::-1, ::-1]", w[::-1, ::-1]),
        ("the kernel flipped up-down only, w[::-1]", w[::-1]),
        ("the kernel flipped left-right only, w[:, ::-1]", w[:, ::-1]),
    )]  # fmt: skip


def taps_swapped(run: Run, output: str):
    w, hw, s, p = _case(run)
    return [("the kernel transposed, w.T", conv_matrix(w.T, hw, s, p))]


def transposed(run: Run, output: str):
    return [("Cᵀ (rows: pixels, columns: outputs)", run.expected(output).T)]


def orders(run: Run, output: str):
    """Pixels (columns) and/or outputs (rows) flattened column by column."""
    c = run.expected(output)
    (h, wd), (oh, ow) = _case(run)[1], _out(run)
    cols = c.reshape(-1, h, wd).transpose(0, 2, 1).reshape(c.shape)
    rows = c.reshape(oh, ow, -1).transpose(1, 0, 2).reshape(c.shape)
    both = cols.reshape(oh, ow, -1).transpose(1, 0, 2).reshape(c.shape)
    return [("pixels numbered column by column (p = w*H + h)", cols),
            ("outputs numbered column by column (k = j*OH + i)", rows),
            ("both numbered column by column", both)]  # fmt: skip


def strides(run: Run, output: str):
    w, hw, s, p = _case(run)
    return [("windows one pixel apart (stride 1)", place(w, hw, _out(run), 1, p)),
            ("stride 1, sizes included", conv_matrix(w, hw, 1, p))]  # fmt: skip


def paddings(run: Run, output: str):
    w, hw, s, p = _case(run)
    return [("windows starting at (i*s, j*s), no -padding",
             place(w, hw, _out(run), s, 0))]  # fmt: skip


def padded(run: Run, output: str):
    w, (h, wd), s, p = _case(run)
    return [("C of the padded image, padding columns kept",
             conv_matrix(w, (h + 2 * p, wd + 2 * p), s, 0))]  # fmt: skip


MISTAKES = [
    model("transposed", transposed),
    model("flat-order", orders),
    model("kernel-flipped", flips),
    model("taps-swapped", taps_swapped),
    model("no-crop", padded),
    model("padding-ignored", paddings),
    model("stride-ignored", strides),
]

EXERCISE = Exercise(
    "conv_matrix", 3, conv_matrix, cases,
    mistakes=MISTAKES,
    outcomes=(3,),
    hint="row k = i*OW + j holds w[ki, kj] in column "
         "p = (i*s - pad + ki)*W + (j*s - pad + kj); taps on "
         "the padding have no column.",
)
