"""Lesson 9: ``sgd_momentum_step``, one step of SGD with momentum.

torch's rule: the velocity first, ``v = m*v + dw``, then ``w -= lr*v``. No
mistake of its own is modelled; the generic rules (scale, an argument
changed) still apply.

It grades no learning outcome of the syllabus (``course/README.md``), so
it declares none: it is plan 09's objective "say what ``step()`` does for
SGD with momentum, and write it", and none of the seven outcomes is about
an optimiser. Outcome 2 (gradients accumulate, ``+=``, where a value is
used more than once) is not it: ``dw`` is given, each is used once, and
the velocity is a decaying average over steps, not a gradient's sum over
the uses of a value.
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
    outcomes=(),  # none of the syllabus's: see the docstring
)
