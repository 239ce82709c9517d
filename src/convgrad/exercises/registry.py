"""The exercises by name: each one's solution, cases, rules and feeds."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from . import (
    bug_hunt,
    cases,
    checkerboard,
    conv_matrix,
    dilated_grouped,
    double_backward,
    feeds,
    solutions,
)
from .diagnosis import GENERIC, Rule
from .feeds import Scatter
from .rules import rules_for


@dataclass(frozen=True)
class Exercise:
    """One exercise: its reference solution and how to test against it.

    ``rules`` diagnose its likely mistakes (default: ``rules.RULES[name]``
    then the generic ones); ``feeds`` maps an output that is a scatter to
    the terms that build it, so a report can say which windows feed a wrong
    element; ``hint`` is said when no rule fits (a dict: one per output).
    """

    def hint_for(self, output: str) -> str:
        if isinstance(self.hint, str):
            return self.hint
        return self.hint.get(output, "")

    name: str
    lesson: int
    solution: Callable
    cases: Callable[[np.random.Generator], list[dict]]
    outputs: tuple[str, ...] = ("output",)
    expected: Callable | None = None  # defaults to ``solution``
    hint: str | Mapping[str, str] = ""  # or one per output
    feeds: Mapping[str, Callable[[dict], Scatter]] = field(default_factory=dict)
    rules: tuple[Rule, ...] | None = None
    # loose enough for an answer computed in float32, tight enough for a bug
    rtol: float = 1e-5
    atol: float = 1e-7

    def __post_init__(self) -> None:
        if self.rules is None:
            object.__setattr__(self, "rules", rules_for(self.name))


S, C = solutions, cases


def _conv(output: str) -> Callable[[dict], Scatter]:
    return lambda case: feeds.conv(case, output)


EXERCISES: dict[str, Exercise] = {
    e.name: e
    for e in [
        Exercise("numeric_grad", 1, S.numeric_grad, C.numeric_grad,
                 expected=C.expected_numeric_grad, rtol=1e-4, atol=1e-6,
                 hint="nudge one element at a time, both ways, and divide by "
                      "2 * eps."),
        Exercise("square_plus_backward", 1, S.square_plus_backward,
                 C.square_plus_backward, outputs=("dx",),
                 hint="x is used three times (twice in x * x, once in + x): "
                      "add one piece per use."),
        Exercise("im2col", 2, S.im2col, C.im2col, outputs=("col",),
                 hint="col[:, :, ki, kj, i, j] is the padded input at "
                      "(i*s + ki*d, j*s + kj*d)."),
        Exercise("col2im", 3, S.col2im, C.col2im, feeds={"output": feeds.col2im},
                 hint="add each column entry at (i*s + ki*d, j*s + kj*d) of "
                      "the padded canvas, then crop the padding."),
        Exercise("conv2d_backward", 4, S.conv2d_backward, C.conv2d_backward,
                 outputs=("dx", "dw", "db"),
                 feeds={"dx": _conv("dx"), "dw": _conv("dw"), "db": _conv("db")},
                 hint="dw sums dy times the input patch over images and "
                      "windows; dx is col2im of w^T dy; db sums dy."),
        Exercise("maxpool_backward", 5, S.maxpool_backward, C.maxpool_backward,
                 outputs=("dx",), feeds={"dx": feeds.maxpool},
                 hint="each dy goes to the pixel its window chose; several "
                      "windows may choose the same one."),
        Exercise("maxpool_forward", 5, S.maxpool_forward, C.maxpool_forward,
                 outputs=("y", "argmax"),
                 hint={"y": "skip the padding (-inf), scan each window row "
                            "by row and keep the FIRST maximum (replace only "
                            "on >).",
                       "argmax": "argmax is r*W + q: the row r and column q "
                                 "of the chosen pixel in the unpadded input "
                                 "plane (not in the window, not on the "
                                 "padded plane); the FIRST maximum wins a "
                                 "tie."}),
        Exercise("avgpool_backward", 6, S.avgpool_backward, C.avgpool_backward,
                 outputs=("dx",), feeds={"dx": feeds.avgpool},
                 hint="every window adds dy / divisor to each pixel it covers; "
                      "the divisor follows count_include_pad."),
        Exercise("conv_transpose2d", 7, S.conv_transpose2d, C.conv_transpose2d,
                 feeds={"output": feeds.conv_transpose2d},
                 hint="w is (C_in, C_out, K, K): each input pixel stamps its "
                      "scaled kernel, the stamps add, then crop the padding."),
        Exercise("conv_output_size", 8, S.conv_output_size, C.conv_output_size,
                 expected=C.expected_conv_output_size,
                 hint="count the positions of a window spanning "
                      "d*(k - 1) + 1 pixels on the padded axis."),
        Exercise("grouped_weight_matrix", 8, S.grouped_weight_matrix,
                 C.grouped_weight_matrix,
                 hint="block g holds w's rows of group g, its columns ordered "
                      "(c, ki, kj) like im2col's rows."),
        Exercise("sgd_momentum_step", 9, S.sgd_momentum_step,
                 C.sgd_momentum_step, outputs=("w", "v"),
                 hint="update the velocity first, then step with the new one."),
        Exercise("conv2d_macs", 10, S.conv2d_macs, C.conv2d_macs,
                 hint="N * C_out * OH * OW multiply-adds of C_in * K * K each."),
        # issue 12: lesson 8's dilated, grouped backward; lesson 9's bug hunt
        Exercise("dilated_grouped_backward", 8,
                 dilated_grouped.dilated_grouped_backward,
                 dilated_grouped.cases, outputs=("dx", "dw"),
                 feeds={"dx": _conv("dx"), "dw": _conv("dw")},
                 rules=rules_for("conv2d_backward"),
                 hint="taps are dilation apart; output channel o reads only "
                      "the input channels of its group, which start at "
                      "c0 = (o // (C_out/groups)) * (C_in/groups)."),
        # issue 12: lesson 3's convolution matrix, lesson 7's checkerboard
        Exercise("conv_matrix", 3, conv_matrix.conv_matrix, conv_matrix.cases,
                 rules=(*conv_matrix.RULES, *GENERIC),
                 hint="row k = i*OW + j holds w[ki, kj] in column "
                      "p = (i*s - pad + ki)*W + (j*s - pad + kj); taps on "
                      "the padding have no column."),
        Exercise("checkerboard_dx", 7, checkerboard.checkerboard_dx,
                 checkerboard.cases, feeds={"output": checkerboard.feed},
                 rules=(*checkerboard.RULES, *GENERIC),
                 hint="every window (i, j) adds w at (i*s, j*s) of the "
                      "padded canvas (dy = 1 there); the adds overlap; "
                      "then crop the padding."),
        # issue 17: lesson 4's double backward
        Exercise("conv_double_backward", 4,
                 double_backward.conv_double_backward, double_backward.cases,
                 outputs=("ddy", "dw"),
                 rules=(*double_backward.RULES, *GENERIC),
                 hint="sum(v * dx) = sum(dy * conv2d(v, w)): ddy is that conv "
                      "of v; dw adds dy times v's patch, as in 4.1."),
        Exercise("find_wrong_backward", 9, bug_hunt.find_wrong_backward,
                 bug_hunt.cases, expected=bug_hunt.expected,
                 hint="cg.gradcheck(fn, inputs, raise_exception=False).ok is "
                      "False for exactly one suspect: return its index."),
    ]
}


def solution(name: str) -> Callable:
    """The reference solution of exercise ``name`` (for instructors, tests)."""
    return exercise(name).solution


def exercise(name: str) -> Exercise:
    if name not in EXERCISES:
        raise ValueError(
            f"name must be one of the exercises {sorted(EXERCISES)}, got {name!r}"
        )
    return EXERCISES[name]
