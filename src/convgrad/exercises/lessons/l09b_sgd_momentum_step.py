"""Lesson 9: ``sgd_momentum_step``, one step of SGD with momentum.

torch's rule: the velocity first, ``v = m*v + dw``, then ``w -= lr*v``. Its
own mistake is ``update-order`` (the two updates in another order or
form); the generic rules (scale, an argument changed, a term dropped)
still apply.

It grades outcome 8 of the syllabus (``course/README.md``), train with the
gradients: plan 09's objective "say what ``step()`` does for SGD with
momentum, and write it". Outcome 2 (gradients accumulate, ``+=``, where a
value is used more than once) is not it: ``dw`` is given, each is used
once, and the velocity is a decaying average over steps, not a gradient's
sum over the uses of a value.
"""

from __future__ import annotations

import numpy as np

from ..diagnosis import model
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


def steps(run, output: str):
    """The other ways to write a momentum step, each right somewhere."""
    c = run.case
    w, dw, v, lr, m = (c[k] for k in ("w", "dw", "v", "lr", "momentum"))
    new = m * v + dw
    out = {
        "the step taken with the old velocity, then v updated":
            (w - lr * v, new),
        "lr folded into the velocity, v = m*v + lr*dw; w -= v":
            (w - (m * v + lr * dw), m * v + lr * dw),
        "lr in the velocity and again in the step, v = m*v + lr*dw; "
        "w -= lr*v": (w - lr * (m * v + lr * dw), m * v + lr * dw),
        "a dampened velocity, v = m*v + (1 - m)*dw":
            (w - lr * (m * v + (1 - m) * dw), m * v + (1 - m) * dw),
        "the other convention, v = m*v - lr*dw; w += v":
            (w + m * v - lr * dw, m * v - lr * dw),
        "Nesterov's look-ahead, w - lr*(dw + m*v_new)":
            (w - lr * (dw + m * new), new),
        "v = m*(v + dw), the gradient inside the decay":
            (w - lr * m * (v + dw), m * (v + dw)),
    }
    at = ("w", "v").index(output)
    return [(label, pair[at]) for label, pair in out.items()]


def terms(case: dict) -> dict[str, list]:
    """Both outputs as sums of terms (for the generated family)."""
    w, dw, v, lr, m = (case[k] for k in ("w", "dw", "v", "lr", "momentum"))
    return {"w": [("w", w), ("-lr*m*v", -lr * m * v), ("-lr*dw", -lr * dw)],
            "v": [("m*v", m * v), ("dw", dw)]}


MISTAKES = [model("update-order", steps)]

EXERCISE = Exercise(
    "sgd_momentum_step", 9, sgd_momentum_step, cases,
    outputs=("w", "v"),
    mistakes=MISTAKES,
    hint="update the velocity first, then step with the new one.",
    outcomes=(8,),
    terms=terms,
)
