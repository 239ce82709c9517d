"""The checker: run the learner's function on the cases, report the verdict."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import display
from .registry import Exercise, exercise


@dataclass
class CheckResult:
    """What ``check`` found. ``status`` is one of ``passed``,
    ``not attempted``, ``wrong`` or ``error``."""

    name: str
    status: str
    message: str
    case: dict | None = None
    output: str | None = None
    index: tuple[int, ...] | None = None
    expected: Any = None
    got: Any = None
    n_cases: int = 0
    extra: dict = field(default_factory=dict)
    diagnosis: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def attempted(self) -> bool:
        return self.status != "not attempted"

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"CheckResult({self.name!r}, {self.status!r})"

    def _ipython_display_(self) -> None:
        # check() already printed the message; show nothing twice
        return None

    def plot(self) -> Any:
        """Draw the plane holding the first wrong element, yours beside the
        expected one, with that element outlined. Returns the figure, or
        ``None`` when there is no wrong element on a 2-D plane."""
        return display.plot(self)


def check(
    name: str, fn: Callable, *, seed: int = 0, quiet: bool = False,
    plot: bool = False,
) -> CheckResult:
    """Run ``fn`` on exercise ``name``'s random cases against the reference.

    Prints the verdict (unless ``quiet``) and returns a :class:`CheckResult`.
    With ``plot=True`` a wrong answer on an image is also drawn
    (:meth:`CheckResult.plot`). Never raises for a wrong answer or an
    unfinished stub.
    """
    ex = exercise(name)
    if not callable(fn):
        raise TypeError(f"fn must be the function you wrote, got {fn!r}")
    cases = ex.cases(np.random.default_rng(seed))
    expected_fn = ex.expected or ex.solution
    result = None
    for number, case in enumerate(cases, 1):
        want = _as_tuple(expected_fn(**_copy(case)), len(ex.outputs))
        try:
            got = fn(**_copy(case))
        except NotImplementedError:
            result = CheckResult(
                name, "not attempted",
                f"{name}: not attempted yet (the stub still raises "
                f"NotImplementedError). Replace it with your code and run "
                f"the cell again.",
            )
            break
        except Exception as err:  # the learner's bug, reported, not raised
            tb = traceback.format_exception_only(type(err), err)[-1].strip()
            result = CheckResult(
                name, "error",
                f"{name}: your function raised {tb}\n  on case {number}: "
                f"{display.describe(case)}",
                case=case, n_cases=number,
            )
            break
        result = _compare(ex, case, number, want, got)
        if result is not None:
            break
    if result is None:
        result = CheckResult(
            name, "passed",
            f"{name}: passed all {len(cases)} random cases. Well done!",
            n_cases=len(cases),
        )
    if not quiet:
        print(result.message)
    if plot:
        result.plot()
    return result


def _copy(case: dict) -> dict:
    out = {}
    for k, v in case.items():
        if isinstance(v, np.ndarray):
            v = v.copy()
        elif hasattr(v, "fresh"):
            v = v.fresh()
        out[k] = v
    return out


def _as_tuple(value: Any, n: int) -> tuple:
    if n == 1:
        return (value,)
    if not isinstance(value, (tuple, list)) or len(value) != n:
        return (value,)  # reported as a count mismatch by _compare
    return tuple(value)


def _array(value: Any) -> np.ndarray:
    return np.asarray(getattr(value, "data", value))


def _compare(ex: Exercise, case: dict, number: int, want: tuple, got: Any):
    names = ex.outputs
    describe = display.describe
    if len(names) > 1:
        if not isinstance(got, (tuple, list)) or len(got) != len(names):
            return CheckResult(
                ex.name, "wrong",
                f"{ex.name}: return {len(names)} values ({', '.join(names)}), "
                f"got {display.kind(got)}\n  case {number}: {describe(case)}",
                case=case, n_cases=number,
            )
    got = _as_tuple(got, len(names))
    for out_name, w, g in zip(names, want, got, strict=True):
        w, g = _array(w), _array(g)
        if g.dtype.kind not in "biuf":
            return CheckResult(
                ex.name, "wrong",
                f"{ex.name}: {out_name} must be numbers, got {display.kind(g)}\n"
                f"  case {number}: {describe(case)}",
                case=case, output=out_name, n_cases=number,
            )
        if g.shape != w.shape:
            return CheckResult(
                ex.name, "wrong",
                f"{ex.name}: {out_name} has shape {g.shape}, expected "
                f"{w.shape}\n  case {number}: {describe(case)}",
                case=case, output=out_name, n_cases=number,
            )
        bad = ~np.isclose(g, w, rtol=ex.rtol, atol=ex.atol, equal_nan=True)
        if not bad.any():
            continue
        index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
        exp, val = w[index], g[index]
        lines = [
            f"{ex.name}: {out_name}{list(index) if index else ''} is wrong: "
            f"expected {display.num(exp)}, got {display.num(val)} "
            f"({int(bad.sum())} of {bad.size} elements differ)",
            f"  case {number}: {describe(case)}",
        ]
        hint = ex.hint(case, out_name, index) if ex.hint else ""
        if hint:
            lines.append(f"  hint: {hint}")
        text = display.grid(out_name, g, w, bad, index)
        extra = {}
        if text:
            lines.append(text)
            lines.append(f'  (exercises.check("{ex.name}", ..., plot=True) '
                         f"draws it)")
        if g.ndim >= 2:
            lead = tuple(index[:-2])
            extra["planes"] = (g[lead], w[lead], bad[lead])
        return CheckResult(
            ex.name, "wrong", "\n".join(lines), case=case, output=out_name,
            index=index, expected=exp, got=val, n_cases=number, extra=extra,
        )
    return None
