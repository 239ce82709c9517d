"""The exercises by name: each one's solution, cases and rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import cases, hints, solutions


@dataclass(frozen=True)
class Exercise:
    """One exercise: its reference solution and how to test against it."""

    name: str
    lesson: int
    solution: Callable
    cases: Callable[[np.random.Generator], list[dict]]
    outputs: tuple[str, ...] = ("output",)
    expected: Callable | None = None  # defaults to ``solution``
    hint: Callable[[dict, str, tuple[int, ...]], str] | None = None
    # loose enough for an answer computed in float32, tight enough for a bug
    rtol: float = 1e-5
    atol: float = 1e-7


S, C = solutions, cases

EXERCISES: dict[str, Exercise] = {
    e.name: e
    for e in [
        Exercise("numeric_grad", 1, S.numeric_grad, C.numeric_grad,
                 expected=C.expected_numeric_grad, rtol=1e-4, atol=1e-6),
        Exercise("square_plus_backward", 1, S.square_plus_backward,
                 C.square_plus_backward, outputs=("dx",)),
        Exercise("im2col", 2, S.im2col, C.im2col, outputs=("col",)),
        Exercise("col2im", 3, S.col2im, C.col2im, hint=hints.overlap_hint),
        Exercise("conv2d_backward", 4, S.conv2d_backward, C.conv2d_backward,
                 outputs=("dx", "dw", "db"), hint=hints.overlap_hint),
        Exercise("maxpool_backward", 5, S.maxpool_backward, C.maxpool_backward,
                 outputs=("dx",), hint=hints.route_hint),
        Exercise("maxpool_forward", 5, S.maxpool_forward, C.maxpool_forward,
                 outputs=("y", "argmax"), hint=hints.maxpool_forward_hint),
        Exercise("avgpool_backward", 6, S.avgpool_backward, C.avgpool_backward,
                 outputs=("dx",), hint=hints.avgpool_hint),
        Exercise("conv_transpose2d", 7, S.conv_transpose2d, C.conv_transpose2d),
        Exercise("conv_output_size", 8, S.conv_output_size, C.conv_output_size),
        Exercise("grouped_weight_matrix", 8, S.grouped_weight_matrix,
                 C.grouped_weight_matrix),
        Exercise("sgd_momentum_step", 9, S.sgd_momentum_step,
                 C.sgd_momentum_step, outputs=("w", "v")),
        Exercise("conv2d_macs", 10, S.conv2d_macs, C.conv2d_macs),
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
