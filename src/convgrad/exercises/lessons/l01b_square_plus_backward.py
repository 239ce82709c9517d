"""Lesson 1: ``square_plus_backward``, dx of ``y = x * x + x``.

``x`` is used three times; each use adds its own piece. The mistakes keep
one piece, or some of them (``=`` where ``+=`` is needed).
"""

from __future__ import annotations

import numpy as np

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import numbers


def square_plus_backward(x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """dx for ``y = x * x + x``: both paths through ``x`` add up."""
    return dy * x + dy * x + dy


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    return [
        {"x": numbers(rng, *shape), "dy": numbers(rng, *shape)}
        for shape in [(4,), (2, 3), (3, 3)]
    ]


# the mistakes ------------------------------------------------------------


def paths(run: Run, output: str):
    """One piece kept of the three: what `=` for `+=` leaves."""
    x, dy = run.case["x"], run.case["dy"]
    return [("only +x's piece, dy (as `=` keeps the last)", dy),
            ("only one piece of x*x, dy*x", dy * x)]


def factor_ignored(run: Run, output: str):
    """Every path handing dy on unchanged, as an addition does: the
    product's pieces without their factor x."""
    dy = run.case["dy"]
    return [("each of the three paths passing dy on unchanged, 3*dy: the "
             "factor x of the product's pieces left out", 3 * dy)]


def doubled(run: Run, output: str):
    """The square's derivative 2x given to each of its two factor paths."""
    x, dy = run.case["x"], run.case["dy"]
    return [("2*x for each of x*x's two paths: the square's derivative "
             "counted twice, 4*x*dy + dy", 4 * x * dy + dy)]


def multiplied(run: Run, output: str):
    """The three paths' pieces multiplied, not added."""
    x, dy = run.case["x"], run.case["dy"]
    return [("the pieces multiplied, (dy*x)*(x*dy)*dy, not added",
             (dy * x) * (x * dy) * dy),
            ("the local derivatives multiplied, dy*x*x*1, not added",
             dy * x * x)]


def dropped(run: Run, output: str):
    """A use of x left out of the sum: two pieces of the three."""
    x, dy = run.case["x"], run.case["dy"]
    return [("x*x's two pieces without +x's, 2*dy*x", 2 * dy * x),
            ("one piece of x*x and +x's, dy*x + dy: x*x counted as one "
             "use of x", dy * x + dy)]


def terms(case: dict) -> dict[str, list]:
    """dx as one term per use of x (for the generated family)."""
    x, dy = case["x"], case["dy"]
    return {"dx": [("the left x's piece of x*x, dy*x", dy * x),
                   ("the right x's piece of x*x, x*dy", x * dy),
                   ("+x's piece, dy", dy)]}


def output_for_input(run: Run, output: str):
    x, dy = run.case["x"], run.case["dy"]
    y = x * x + x
    return [("the forward's output y = x*x + x where x is meant, "
             "2*dy*y + dy", 2 * dy * y + dy),
            ("y where x is meant, in the pieces of x*x only, 2*dy*y + dy",
             2 * dy * y + dy),
            ("the forward's value times dy, dy*(x*x + x)", dy * y),
            ("x*x's value where its derivative is meant, dy*x*x + dy",
             dy * x * x + dy)]


MISTAKES = [model("overwrites", paths),
            model("term-dropped", dropped),
            model("term-doubled", doubled),
            model("misplaced-factor", multiplied,
                  fix=lambda source, output, label: (
                      "x reaches y by three paths: add their pieces, "
                      "dx = dy*x + x*dy + dy; the chain rule multiplies "
                      "along one path, the paths add")),
            model("input-ignored", factor_ignored),
            model("forward-for-derivative", output_for_input)]

EXERCISE = Exercise(
    "square_plus_backward", 1, square_plus_backward, cases,
    outputs=("dx",),
    mistakes=MISTAKES,
    hint="x is used three times (twice in x * x, once in + x): "
         "add one piece per use.",
    outcomes=(2,),
    terms=terms,
)
