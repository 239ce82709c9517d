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
                         ("block g's columns at g*(C_in/groups)", cig),
                         ("block g's columns at g*K*K, the channels of a "
                          "group forgotten", kh * kw)):
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


def _blocks(w: np.ndarray, g: int, rows: int, block, at) -> np.ndarray | str:
    """The matrix built block by block: ``block(k)`` the numbers of group k,
    ``at(k)`` their (first row, first column); CRASH past the edge."""
    c_out, cig, kh, kw = w.shape
    cols = cig * kh * kw
    m = np.zeros((c_out, g * cols))
    for k in range(g):
        b, (r0, c0) = block(k), at(k)
        if b is None or r0 + b.shape[0] > m.shape[0] \
                or c0 + b.shape[1] > m.shape[1]:
            return CRASH
        m[r0:r0 + b.shape[0], c0:c0 + b.shape[1]] = b
    return m


def group_rows(run: Run, output: str):
    """The rows of the groups taken wrong: output channel o in group
    o % groups (interleaved), or blocks of C_in/groups rows."""
    w, g = run.case["w"], run.case["groups"]
    c_out, cig, kh, kw = w.shape
    rows, cols = c_out // g, cig * kh * kw
    inter = np.zeros((c_out, g * cols))
    for o in range(c_out):
        k = o % g
        inter[o, k * cols:(k + 1) * cols] = w[o].reshape(-1)
    out = [("output channel o in group o % groups (interleaved), not "
            "o // (C_out/groups)", inter),
           ("group 0's filters in every block",
            _blocks(w, g, rows, lambda k: w[:rows].reshape(rows, cols),
                    lambda k: (k * rows, k * cols))),
           ("the blocks on the anti-diagonal: group g's rows in group "
            "groups - 1 - g's columns",
            _blocks(w, g, rows, lambda k: w[k * rows:(k + 1) * rows]
                    .reshape(rows, cols),
                    lambda k: (k * rows, (g - 1 - k) * cols)))]
    tiled = np.zeros((c_out, g * cols))
    for o in range(c_out):
        tiled[o] = np.tile(w[o].reshape(-1), g)
    out.append(("each filter repeated in every group's columns (dense), "
                "not only its own group's", tiled))
    # the whole weight as every group's block: np.kron(np.eye(groups), w2d)
    out.append(("the whole weight as every group's block, "
                "np.kron(np.eye(groups), w.reshape(C_out, -1))",
                np.kron(np.eye(g), w.reshape(c_out, -1))))
    if cig != rows:
        out.append(("blocks of C_in/groups rows, not C_out/groups",
                    _blocks(w, g, cig, lambda k: w[k * cig:(k + 1) * cig]
                            .reshape(-1, cols) if (k + 1) * cig <= c_out
                            else None, lambda k: (k * cig, k * cols))))
    return out


def block_reshaped(run: Run, output: str):
    """Each block reshaped to (C_in/groups*K*K, C_out/groups) and
    transposed: a reshape where the filters' rows were meant."""
    w, g = run.case["w"], run.case["groups"]
    c_out, cig, kh, kw = w.shape
    rows, cols = c_out // g, cig * kh * kw
    return [("each group's filters reshaped to (C_in/groups*K*K, "
             "C_out/groups), then transposed",
             _blocks(w, g, rows, lambda k: w[k * rows:(k + 1) * rows]
                     .reshape(cols, rows).T, lambda k: (k * rows, k * cols)))]


MISTAKES = [
    model("kernel-flipped", lambda r, o: [("the flipped kernel", called(
        grouped_weight_matrix, r.case,
        w=r.case["w"][..., ::-1, ::-1]))]),
    model("taps-swapped", lambda r, o: [("the kernel transposed", called(
        grouped_weight_matrix, r.case,
        w=r.case["w"].swapaxes(-1, -2)))]),
    model("column-order", block_orders),
    model("group-offset", block_offsets),
    model("group-offset", group_rows),
    model("reshape-for-transpose", block_reshaped),
]

EXERCISE = Exercise(
    "grouped_weight_matrix", 8, grouped_weight_matrix, cases,
    mistakes=MISTAKES,
    hint="block g holds w's rows of group g, its columns ordered "
         "(c, ki, kj) like im2col's rows.",
    outcomes=(1,),
)
