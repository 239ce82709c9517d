"""Lesson 1: ``numeric_grad``, central differences of a scalar function.

The cases call the learner's function with :class:`Probe` s, functions
that remember every ``x`` they saw (the evidence of a nudge left in place),
and an ``eps`` large enough that a one-sided difference is off by far more
than the tolerance. The truth is the exact central difference at that
``eps`` (:func:`expected`), not the derivative.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..diagnosis import Rule, Run, model
from ..display import num, plural
from ..exercise import Exercise
from ..shared import numbers


def numeric_grad(f: Callable, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of a scalar function ``f`` at ``x``."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


# the cases ---------------------------------------------------------------


class Probe:
    """A scalar function of an array that remembers every ``x`` it was
    called with (the evidence of nudges left in place). Its repr is a
    short formula, shown in reports; :meth:`fresh` gives an unused copy."""

    def __init__(self, fn: Callable, desc: str) -> None:
        self.fn, self.desc = fn, desc
        self.seen: list[np.ndarray] = []
        self.dtypes: list[np.dtype] = []  # the dtype of each x it saw

    def __call__(self, x: Any) -> Any:
        self.dtypes.append(np.asarray(x).dtype)
        self.seen.append(np.array(x, dtype=np.float64, copy=True))
        return self.fn(x)

    def fresh(self) -> Probe:
        return Probe(self.fn, self.desc)

    def __repr__(self) -> str:
        return f"f(x) = {self.desc}"


def _sinx(x: np.ndarray, e: float) -> np.ndarray:
    # (sin(x+e)(x+e) - sin(x-e)(x-e)) / 2e, without the cancellation
    return x * np.cos(x) * np.sin(e) / e + np.sin(x) * np.cos(e)


# (formula, f, its exact central difference at (x, eps))
FUNCS: list[tuple[str, Callable, Callable]] = [
    ("sum(x**3)", lambda x: float(np.sum(x**3)), lambda x, e: 3 * x**2 + e**2),
    ("sum(sin(x) * x)", lambda x: float(np.sum(np.sin(x) * x)), _sinx),
    (
        "sum(x)**2",
        lambda x: float(np.sum(x)) ** 2,
        lambda x, e: 2 * np.sum(x) * np.ones_like(x),
    ),
]


_CENTRAL = {desc: central for desc, _, central in FUNCS}


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    # the default eps first, then one large enough that a one-sided
    # difference is off by far more than the tolerance
    for eps, shapes in [(None, [(3,), (2, 3), (4,)]), (1e-2, [(2, 2)])]:
        for shape in shapes:
            for desc, f, _ in FUNCS:
                case = {"f": Probe(f, desc), "x": numbers(rng, *shape)}
                if eps is not None:
                    case["eps"] = eps
                out.append(case)
    return out


def expected(f: Probe, x: np.ndarray, eps: float = 1e-6):
    """The exact central difference at this ``eps`` (not the derivative)."""
    return _CENTRAL[f.desc](np.asarray(x, dtype=np.float64), eps)


# the mistakes ------------------------------------------------------------


def one_sided(f, x, eps, sign):
    x = np.array(x, dtype=np.float64)
    base, grad = f(x), np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + sign * eps
        grad[i] = sign * (f(x) - base) / eps
        x[i] = old
    return grad


def differences(run: Run, output: str):
    c = run.case
    eps = c.get("eps", 1e-6)
    out = [(f"a {word} difference", one_sided(c["f"].fresh(), c["x"], eps, sign))
           for word, sign in (("forward", 1), ("backward", -1))]
    # the x - eps copy is the x + eps one, moved back: a forward difference
    # divided by 2*eps
    out.append(("a forward difference over 2*eps (the minus nudge undone "
                "the plus one)", one_sided(c["f"].fresh(), c["x"], eps, 1) / 2))
    return out


def unbracketed(run: Run, output: str):
    """``/ 2 * eps`` for ``/ (2 * eps)``: divided by 2, then multiplied by
    eps (and the like)."""
    eps, central = run.case.get("eps", 1e-6), run.expected(output)
    f, x = run.case["f"].fresh(), np.array(run.case["x"], dtype=np.float64)
    plus, minus = np.zeros_like(x), np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus[i] = f(x)
        x[i] = old - eps
        minus[i] = f(x)
        x[i] = old
    return [("/ 2 * eps for / (2 * eps): divided by 2, then multiplied by "
             "eps", central * eps * eps),
            ("plus - minus / (2 * eps): only f(x - eps) divided",
             plus - minus / (2 * eps)),
            ("(plus - minus) / 2 * eps: divided by 2, then multiplied by "
             "eps", (plus - minus) / 2 * eps)]


def _unbracketed_fix(source: str, output: str | None, label: str) -> str:
    return "divide by the whole step: (plus - minus) / (2 * eps)"


def _moved(run: Run) -> tuple[str, int] | None:
    """Where the evidence of a nudge left in place is, if any."""
    x0, tol = run.case["x"], 1e-3 * run.case.get("eps", 1e-6)
    if not np.allclose(np.asarray(run.given["x"]), x0, rtol=0, atol=tol):
        return ("after", 0)
    for call, seen in enumerate(getattr(run.given["f"], "seen", []), 1):
        if seen.shape == x0.shape and np.sum(np.abs(seen - x0) > tol) > 1:
            return ("call", call)
    return None


def _moved_where(run: Run, output: str | None, label: str) -> str:
    kind, call = _moved(run)
    x0 = run.case["x"]
    if kind == "after":
        x = np.asarray(run.given["x"])
        at = tuple(int(i) for i in np.argwhere(~np.isclose(x, x0, rtol=0,
                                                           atol=1e-12))[0])
        return (f"case {run.number}: after your function returned, x{list(at)} "
                f"was {num(x[at])}, not {num(x0[at])}")
    seen = run.given["f"].seen[call - 1]
    tol = 1e-3 * run.case.get("eps", 1e-6)
    moved = int(np.sum(np.abs(seen - x0) > tol))
    return (f"case {run.number}: call {call} of f saw x with "
            f"{plural(moved, 'element')} moved; a nudge moves one")


NOT_RESTORED = Rule("not-restored", lambda run, _: _moved(run) is not None,
                    _moved_where, any_case=True, integrity=True)


def _first_nudge(run: Run) -> tuple[int, int] | None:
    """The first call of f that saw x moved, and how many elements it
    saw moved."""
    x0, tol = run.case["x"], 1e-3 * run.case.get("eps", 1e-6)
    for call, seen in enumerate(getattr(run.given["f"], "seen", []), 1):
        if seen.shape == x0.shape:
            moved = int(np.sum(np.abs(seen - x0) > tol))
            if moved:
                return call, moved
    return None


def _together(run: Run, output: str) -> bool | None:
    """Several elements nudged at once from the first nudge on (a nudge
    left in place moves one more element with each call instead)."""
    if run.right(output) or run.case["x"].size < 2:
        return None
    first = _first_nudge(run)
    return None if first is None else first[1] > 1


def _together_where(run: Run, output: str | None, label: str) -> str:
    call, moved = _first_nudge(run)
    return (f"case {run.number}: the first nudged x that f saw (call "
            f"{call}) had {plural(moved, 'element')} moved at once; a "
            f"partial derivative moves one")


NUDGED_TOGETHER = Rule("nudged-together", _together, _together_where)


def _narrow(run: Run) -> str | None:
    """The first low-precision dtype f was called with, if any."""
    for dtype in getattr(run.given.get("f"), "dtypes", []):
        if dtype.kind == "f" and dtype.itemsize < 8:
            return str(dtype)
    return None


def _narrow_where(run: Run, output: str | None, label: str) -> str:
    return f"case {run.number}: f was called with x of dtype {_narrow(run)}"


# before not-restored: float32's rounding moves every element a little
LOW_PRECISION = Rule("low-precision", lambda run, _: _narrow(run) is not None,
                     _narrow_where, any_case=True, integrity=True)


MISTAKES = [LOW_PRECISION, model("one-sided", differences),
            model("precedence", unbracketed, fix=_unbracketed_fix),
            NUDGED_TOGETHER,
            NOT_RESTORED]

EXERCISE = Exercise(
    "numeric_grad", 1, numeric_grad, cases,
    expected=expected,
    mistakes=MISTAKES,
    rtol=1e-4,
    atol=1e-6,
    hint="nudge one element at a time, both ways, and divide by "
         "2 * eps.",
    outcomes=(5,),
)
