"""Lesson 9: ``sgd_momentum_step``, one step of SGD with momentum.

torch's rule: the velocity first, ``v = m*v + dw``, then ``w -= lr*v``. No
mistake of its own is modelled; the generic rules (scale, an argument
changed) still apply.
"""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise
from ..shared import numbers


def sgd_momentum_step(
    w: np.ndarray, dw: np.ndarray, v: np.ndarray, lr: float, momentum: float
) -> tuple[np.ndarray, np.ndarray]:
    """One SGD step with momentum, torch's rule: ``v = m*v + dw; w -= lr*v``."""
    v = momentum * v + dw
    return w - lr * v, v


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    return [
        {"w": numbers(rng, *shape), "dw": numbers(rng, *shape),
         "v": numbers(rng, *shape), "lr": lr, "momentum": m}
        for shape, lr, m in [((3,), 0.1, 0.9), ((2, 3), 0.05, 0.0),
                             ((4,), 0.5, 0.5)]
    ]


# none of its own: the generic rules (scale, an argument changed) apply
MISTAKES: list = []

EXERCISE = Exercise(
    "sgd_momentum_step", 9, sgd_momentum_step, cases,
    outputs=("w", "v"),
    mistakes=MISTAKES,
    hint="update the velocity first, then step with the new one.",
)
