"""Lesson 8: ``grouped_weight_matrix``, the block-diagonal matrix of a
grouped conv.

Block ``g`` holds ``w``'s rows of group ``g``, its columns ordered
``(c, ki, kj)`` like im2col's rows.
"""

from __future__ import annotations

import numpy as np

from ..diagnosis import CRASH, Run, model
from ..exercise import Exercise
from ..shared import called, numbers


def grouped_weight_matrix(w: np.ndarray, groups: int) -> np.ndarray:
    """The (C_out, C_in*K*K) matrix a grouped conv multiplies: block-diagonal."""
    c_out, c_in_g, kh, kw = w.shape
    rows, cols = c_out // groups, c_in_g * kh * kw
    m = np.zeros((c_out, groups * cols), dtype=w.dtype)
    for g in range(groups):
        block = w[g * rows : (g + 1) * rows].reshape(rows, cols)
        m[g * rows : (g + 1) * rows, g * cols : (g + 1) * cols] = block
    return m


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    return [
        {"w": numbers(rng, c_out, c_in // g, k, k), "groups": g}
        for c_in, c_out, g, k in [(4, 4, 2, 1), (4, 6, 2, 2), (3, 3, 3, 2),
                                  (2, 4, 1, 1)]
    ]


# the mistakes ------------------------------------------------------------


def block_orders(run: Run, output: str):
    """grouped_weight_matrix with each block's columns ordered (ki, kj, c),
    or with block g's columns starting at g*rows (the row offset)."""
    w, g = run.case["w"], run.case["groups"]
    c_out, cig, kh, kw = w.shape
    reordered = grouped_weight_matrix(
        np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(w.shape), g)
    return [("columns ordered (ki, kj, c)", reordered)]


def block_offsets(run: Run, output: str):
    w, g = run.case["w"], run.case["groups"]
    c_out, cig, kh, kw = w.shape
    rows, cols = c_out // g, cig * kh * kw
    out = []
    for label, start in (("block g's columns at g*(C_out/groups)", rows),
                         ("block g's columns at g*(C_in/groups)", cig)):
        if start == cols:
            continue
        m = np.zeros((c_out, g * cols))
        for k in range(g):
            block = w[k * rows:(k + 1) * rows].reshape(rows, cols)
            c0 = k * start
            if c0 + cols > m.shape[1]:
                m = CRASH
                break
            m[k * rows:(k + 1) * rows, c0:c0 + cols] = block
        out.append((label, m))
    return out


MISTAKES = [
    model("kernel-flipped", lambda r, o: [("the flipped kernel", called(
        grouped_weight_matrix, r.case,
        w=r.case["w"][..., ::-1, ::-1]))]),
    model("taps-swapped", lambda r, o: [("the kernel transposed", called(
        grouped_weight_matrix, r.case,
        w=r.case["w"].swapaxes(-1, -2)))]),
    model("column-order", block_orders),
    model("group-offset", block_offsets),
]

EXERCISE = Exercise(
    "grouped_weight_matrix", 8, grouped_weight_matrix, cases,
    mistakes=MISTAKES,
    hint="block g holds w's rows of group g, its columns ordered "
         "(c, ki, kj) like im2col's rows.",
    outcomes=(1,),
)
