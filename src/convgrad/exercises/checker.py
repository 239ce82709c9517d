"""The checker: run the learner's function on every case, find the first
wrong element, and name the mistake the evidence points to."""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import display, isolation, raised
from .crash import name as crash_name
from .diagnosis import (
    CODES,
    Found,
    Run,
    Unreadable,
    as_numbers,
    diagnose,
    feeds_line,
)
from .exercise import Exercise
from .registry import exercise
from .split import SPLIT


@dataclass
class CheckResult:
    """What ``check`` found. ``status`` is one of ``passed``,
    ``not attempted``, ``wrong`` or ``error``; ``diagnosis`` is a code of
    :data:`~convgrad.exercises.CODES` naming the mistake, or ``None`` when
    the answer passed or no known mistake fits."""

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
    # each output on its own, for exercises with several: "right", the
    # code of the mistake it shows, or "wrong" (no known mistake fits)
    verdicts: dict[str, str] = field(default_factory=dict)
    # the wrong plane drawn as a grid, with its pointer to plot=True: the
    # last lines of ``message`` ("" when nothing is drawn)
    drawing: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def attempted(self) -> bool:
        return self.status != "not attempted"

    @property
    def report(self) -> str:
        """``message`` without the drawing: the headline, the case, each
        output's verdict, the diagnosis with its evidence and fix (what a
        grade file keeps)."""
        tail = f"\n{self.drawing}"
        if self.drawing and self.message.endswith(tail):
            return self.message[:-len(tail)]
        return self.message

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
    plot: bool = False, time_limit: float | None = 10.0,
) -> CheckResult:
    """Run ``fn`` on exercise ``name``'s random cases against the reference.

    Prints the verdict (unless ``quiet``) and returns a :class:`CheckResult`.
    With ``plot=True`` a wrong answer on an image is also drawn
    (:meth:`CheckResult.plot`). Each call of ``fn`` may take at most
    ``time_limit`` seconds (``None``: no limit), whatever it catches, and
    leaves nothing behind: it runs in a child process that is killed at the
    limit (on POSIX; elsewhere an alarm stops it), and grad mode, the
    backend and NumPy's error state here are as they were
    (:mod:`.isolation`). What ``fn`` prints is printed before the verdict.
    Never raises for a wrong answer, an unfinished stub, a runaway loop, a
    crash or a strange return value; a bad argument to ``check`` itself
    raises an error that names it. The verdict is printed wrapped at words
    (:func:`.display.wrap`); ``message`` keeps each line whole.
    """
    ex = exercise(name)
    if not callable(fn):
        raise TypeError(f"fn must be the function you wrote, got {fn!r}")
    _arguments(seed, quiet, plot, time_limit)
    cases = ex.cases(np.random.default_rng(seed))
    n = len(ex.outputs)
    source = _source(fn)
    # what the exercise forbids (autodiff, conv_transpose2d, ...), watched
    # where the answer runs; None when graded mode watches fn already
    from .graded import forbidden_lines, forbidden_watch

    watched = forbidden_watch(name, fn)
    # every call of fn, and every use of what it returned, in isolation
    answer = isolation.Answer(fn if watched is None else watched, time_limit,
                              read=lambda v: _read(v, n), build=_built)
    runs, stop = _run(ex, answer, cases, time_limit)
    # a CheckResult is falsy unless it passed: compare with None, never `or`
    result = stop if stop is not None and stop.status != "error" else None
    verdicts = _verdicts(ex, runs) if result is None and runs else {}
    for run in runs if result is None else ():
        result = _compare(ex, run, runs, source)
        if result is not None:
            break
    if result is None:
        result = stop if stop is not None else _integrity(ex, runs, source)
    ruled_out = [] if watched is None else forbidden_lines(
        name, watched.isolated_state.hits)
    if ruled_out:  # whatever the values: the exercise's skill is not in it
        result = CheckResult(name, "wrong", "\n".join(ruled_out),
                             n_cases=len(runs), diagnosis="forbidden-call")
    if result is None:
        result = CheckResult(
            name, "passed",
            f"{name}: passed all {len(cases)} random cases. Well done!",
            n_cases=len(cases),
        )
    elif len(ex.outputs) > 1 and verdicts and result.status in ("wrong", "error"):
        result.verdicts = verdicts
        line = _verdict_line(verdicts, len(runs), len(cases))
        head, _, rest = result.message.partition("\n")
        result.message = "\n".join(x for x in (head, line, rest) if x)
        if result.diagnosis is None:  # named on another output: say so
            _named_elsewhere(ex, runs, result, source)
    answer.close()  # the rules are done calling it again
    if not quiet:
        print(display.wrap(result.message))
    if plot:
        result.plot()
    return result


def _named_elsewhere(ex: Exercise, runs: list[Run], result: CheckResult,
                     source: str) -> None:
    """The first wrong output has no name, but another output's mistake
    has one: that is the diagnosis, said for the output it shows on."""
    for out, code in result.verdicts.items():
        if code in ("right", "wrong") or code not in CODES:
            continue
        found = diagnose(ex.rules, runs, out)
        if found is None or found.code != code:
            continue
        lines = _diagnosis_lines(found, out, "", source)
        lines[0] = lines[0].replace("diagnosis [", f"diagnosis on {out} [", 1)
        body = result.message.split("\n")
        # after the case line, before the hint and the grid
        at = next((i + 1 for i, x in enumerate(body)
                   if x.startswith("  case ")), len(body))
        result.message = "\n".join([*body[:at], *lines, *body[at:]])
        result.diagnosis = code
        return


def _arguments(seed, quiet, plot, time_limit) -> None:
    """``check``'s own arguments: a wrong one is named."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
            or seed < 0:
        raise TypeError(
            f"seed must be a non-negative integer (the cases' random seed), "
            f"got {seed!r}")
    for label, flag in (("quiet", quiet), ("plot", plot)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{label} must be True or False, got {flag!r}")
    if time_limit is not None and (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, (int, float, np.integer, np.floating))
            or not time_limit > 0):
        raise ValueError(
            f"time_limit must be a positive number of seconds per case, or "
            f"None for no limit, got {time_limit!r}")


def _source(fn: Callable) -> str:
    """The learner's function as text (for the fix in their form)."""
    text = getattr(fn, "learner_source", None)  # an answer run elsewhere
    if isinstance(text, str):
        return text
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


def _copy(case: dict) -> dict:
    out = {}
    for k, v in case.items():
        if isinstance(v, np.ndarray):
            v = v.copy()
        elif hasattr(v, "fresh"):
            v = v.fresh()
        out[k] = v
    return out


def _read(value: Any, n: int) -> tuple:
    """The outputs of one call, each read as numbers, as plain data: this
    runs where the call ran (:mod:`.isolation`), so the learner's
    ``__array__``, ``__len__`` and ``__repr__`` run inside its limit;
    :func:`_built` makes the checker's values of it. ``("count", kind)``
    for a return value that is not ``n`` outputs, else ``("values", ...)``
    with each output an array of numbers, ``("none",)``,
    ``("unreadable", error)`` or ``("kind", what it is)``."""
    if n == 1:
        return "values", (_reading(value),)
    try:
        count = len(value) if isinstance(value, (tuple, list)) else None
    except Exception:  # a list subclass whose __len__ raises
        count = None
    if count != n:
        return "count", display.safe_kind(value)
    return "values", tuple(_reading(v) for v in value)


def _reading(value: Any) -> Any:
    a = as_numbers(value)
    if isinstance(a, Unreadable):
        return "unreadable", a.error
    if a.dtype.kind in "biufc" and not a.dtype.hasobject:
        return a
    if a.dtype == object and a.shape == () and a.item() is None:
        return ("none",)
    return "kind", display.safe_kind(_original(a))


def _built(reading: tuple) -> tuple:
    """What :func:`_read` gave, as the checker's values: a tuple of arrays
    (a value that is not numbers: a 0-d object array holding ``None`` or
    its description), or a :class:`_Count`."""
    tag, body = reading
    if tag == "count":
        return _Count(display.Described(str(body)))
    if tag != "values" or not isinstance(body, tuple):
        raise ValueError(f"a reading of an unknown form {tag!r}")
    out = []
    for item in body:
        if isinstance(item, np.ndarray):
            out.append(item)
        elif item == ("none",):
            out.append(np.asarray(None))
        elif isinstance(item, tuple) and len(item) == 2 and item[0] == "unreadable":
            out.append(Unreadable(str(item[1])))
        elif isinstance(item, tuple) and len(item) == 2 and item[0] == "kind":
            holder = np.empty((), dtype=object)
            holder[()] = display.Described(str(item[1]))
            out.append(holder)
        else:
            raise ValueError("an output of an unknown form")
    return tuple(out)


def _run(ex: Exercise, answer: isolation.Answer, cases: list[dict],
         time_limit: float | None = None):
    """Every case up to the first exception: the runs, and the stop."""
    runs: list[Run] = []
    expected_fn = ex.expected or ex.solution
    n = len(ex.outputs)

    def again(case: dict) -> tuple:
        # for a rule (Run.again): the TimeLimit, a BaseException, must not
        # pass the rules' `except Exception`
        try:
            return answer(_copy(case))
        except isolation.TimeLimit:
            raise TimeoutError(f"ran past {time_limit:g} s") from None

    for number, case in enumerate(cases, 1):
        want = expected_fn(**_copy(case))
        want = (want,) if n == 1 else tuple(want)
        given = _copy(case)
        try:
            got = answer(given)
        except NotImplementedError:
            return runs, CheckResult(
                ex.name, "not attempted",
                f"{ex.name}: not attempted yet (the stub still raises "
                f"NotImplementedError). Replace it with your code and run "
                f"the cell again.",
            )
        except isolation.TimeLimit as stop:
            return runs, _timeout(ex, case, number, time_limit, stop.stage)
        except Exception as err:  # the learner's bug, reported, not raised
            if not isinstance(err, isolation.Raised):
                err = isolation.Raised(
                    traceback.format_exception_only(type(err), err)[-1].strip())
            crash = Run(number, case, given, None, want, ex.outputs, ex.rtol,
                        ex.atol, raised=err.text, again=again)
            rest = _rest(ex, answer, cases, number)
            return runs, _error(ex, [*runs, crash], crash, err, rest)
        runs.append(Run(number, case, given, got, want, ex.outputs, ex.rtol,
                        ex.atol, again=again))
    return runs, None


def _rest(ex: Exercise, answer: isolation.Answer, cases: list[dict],
          done: int) -> Callable[[], list[Run]]:
    """The cases after the one that raised, run only when asked (to see
    which cases fail, :mod:`.split`): their runs, up to a time limit."""

    def runs() -> list[Run]:
        expected_fn = ex.expected or ex.solution
        out = []
        for number, case in enumerate(cases[done:], done + 1):
            want = expected_fn(**_copy(case))
            want = (want,) if len(ex.outputs) == 1 else tuple(want)
            given = _copy(case)
            try:
                got, raised = answer(given), None
            except isolation.TimeLimit:
                return []  # a run that never ends says nothing of cases
            except Exception as err:  # the same bug, on another case
                got = None
                raised = getattr(err, "text", None) or type(err).__name__
            out.append(Run(number, case, given, got, want, ex.outputs,
                           ex.rtol, ex.atol, raised=raised))
        return out
    return runs


def _timeout(ex: Exercise, case: dict, number: int, limit,
             stage: str = "") -> CheckResult:
    what, fix = CODES["time-limit"]
    lines = [f"{ex.name}: stopped: your function ran {limit:g} s on case "
             f"{number} without returning",
             f"  case {number}: {display.describe(case)}",
             f"  diagnosis [time-limit]: {what}.",
             f"    evidence: case {number} was still running after "
             f"{limit:g} s, and every case is small (a few dozen numbers).",
             f"    fix: {fix}; if it is only slow, "
             f'exercises.check("{ex.name}", ..., time_limit=60).']
    if stage:  # it did return (or raise): what it gave never finished
        gave = ("what it returned (as numbers, its len() or its repr())"
                if stage == "returned" else "the text of its exception")
        lines[0] = (f"{ex.name}: stopped: your function {stage} on case "
                    f"{number}, but reading {gave} ran past {limit:g} s")
        lines[2] = (f"  diagnosis [time-limit]: what the function "
                    f"{stage} could not be read within the time limit.")
        lines[3] = (f"    evidence: case {number} {stage}, and reading "
                    f"{gave} was still running after {limit:g} s.")
        lines[4] = ("    fix: return a NumPy array (or a Tensor, or a "
                    "number): an object of your own whose __array__, "
                    "__len__, __repr__ or __str__ never finishes cannot be "
                    "read." if stage == "returned" else
                    "    fix: raise a plain exception (ValueError, "
                    "IndexError, ...): one whose __str__ never finishes "
                    "cannot be read.")
    return CheckResult(ex.name, "error", "\n".join(lines), case=case,
                       n_cases=number, diagnosis="time-limit")


def _error(ex: Exercise, runs: list[Run], crash: Run,
           err: isolation.Raised | None = None,
           rest: Callable[[], list[Run]] | None = None) -> CheckResult:
    """The call raised (or its process died): the learner's line it came
    from, a mistake that predicts this very error, named, or else what the
    exception itself says (crash.py); failing both, what its index or
    shapes mean there (raised.py)."""
    if err is not None and err.crash:
        lines = [f"{ex.name}: your function crashed: {err.crash}"]
    else:
        lines = [f"{ex.name}: your function raised {crash.raised}"]
    lines.append(f"  on case {crash.number}: {display.describe(crash.case)}")
    if err is not None and err.line is not None:
        lines.append(f"  at {err.line.said()}")
    # which cases fail is read over every case (.split), not those before
    # the crash alone
    rules = [r for r in ex.rules if not r.integrity and r not in SPLIT]
    found = next((f for out in ex.outputs
                  if (f := diagnose(rules, runs, out)) is not None), None)
    if found is None and rest is not None:
        every = [*runs, *rest()]
        found = next((f for out in ex.outputs
                      if (f := diagnose(SPLIT, every, out)) is not None),
                     None)
    if found is not None:
        lines += _diagnosis_lines(found, found.run.names[0], "", "")
        code = found.code
    else:  # what the exception itself says (crash.py)
        said = crash_name(crash.raised)
        code = said and said[0]
        if said is not None:
            lines += [f"  diagnosis [{code}]: {CODES[code][0]}.",
                      f"    evidence: {said[1]}.", f"    fix: {said[2]}."]
        elif not (err is not None and err.crash) and (
                meaning := raised.meaning(crash.raised)):
            lines.append(f"  what it means: {meaning}")
    return CheckResult(ex.name, "error", "\n".join(lines), case=crash.case,
                       n_cases=crash.number, diagnosis=code)


class _Count(tuple):
    """A return value with the wrong number of outputs (kept for the report)."""

    def __new__(cls, value: Any) -> _Count:
        self = super().__new__(cls)
        self.value = value
        return self


def _diagnosis_lines(found: Found | None, output, hint: str,
                     source: str) -> list[str]:
    if found is None:
        return [f"  hint: {hint}"] if hint else []
    what = CODES[found.code][0]
    return [f"  diagnosis [{found.code}]: {what}.",
            f"    evidence: {found.where(output)}.",
            f"    fix: {found.fix(output, source)}."]


def _verdicts(ex: Exercise, runs: list[Run]) -> dict[str, str]:
    """Each output on its own, over every case that ran: ``"right"``, the
    code of the mistake it shows, or ``"wrong"``."""
    out = {}
    for name in ex.outputs:
        if runs and all(run.right(name) for run in runs):
            out[name] = "right"
            continue
        found = diagnose(ex.rules, runs, name)
        out[name] = found.code if found is not None else "wrong"
    return out


def _verdict_line(verdicts: dict[str, str], ran: int, total: int) -> str:
    parts = [f"{name} ✓" if v == "right" else
             f"{name} ✗" + ("" if v == "wrong" else f" ({v})")
             for name, v in verdicts.items()]
    on = "" if ran == total else f" (on the {ran} cases before the error)"
    return f"  each output{on}: {'  '.join(parts)}"


def _bad_return(ex: Exercise, run: Run, out: str, value: Any,
                head: str) -> CheckResult:
    what, fix = CODES["bad-return"]
    if isinstance(value, Unreadable):
        got = "a value that cannot be read"
        evidence = f"reading your {out} as an array raised {value.error}"
    else:
        got = display.kind(_original(value))
        evidence = f"your {out} is {got}"
        if value.dtype == object and value.shape == () and value.item() is None:
            fix = ("end the function with `return` and the result: a "
                   "function without `return` gives None")
    lines = [f"{ex.name}: {out} must be numbers, got {got}",
             head, f"  diagnosis [bad-return]: {what}.",
             f"    evidence: on case {run.number} {evidence}.",
             f"    fix: {fix}."]
    return CheckResult(ex.name, "wrong", "\n".join(lines), case=run.case,
                       output=out, n_cases=run.number, diagnosis="bad-return")


def _original(value: np.ndarray) -> Any:
    return value.item() if value.shape == () and value.dtype == object else value


def _compare(ex: Exercise, run: Run, runs: list[Run],
             source: str = "") -> CheckResult | None:
    name, number, case = ex.name, run.number, run.case
    head = f"  case {number}: {display.describe(case)}"
    if isinstance(run.got, _Count):
        return CheckResult(
            name, "wrong",
            f"{name}: return {len(ex.outputs)} values ({', '.join(ex.outputs)}), "
            f"got {display.kind(run.got.value)}\n{head}",
            case=case, n_cases=number,
        )
    for out in ex.outputs:
        w = run.expected(out)
        g = run.got[ex.outputs.index(out)]
        if isinstance(g, Unreadable) or g.dtype.kind not in "biuf":
            return _bad_return(ex, run, out, g, head)
        if g.shape != w.shape:
            found = diagnose(ex.rules, runs, out)
            lines = [f"{name}: {out} has shape {g.shape}, expected {w.shape}",
                     head, *_diagnosis_lines(found, out, "", source)]
            return CheckResult(
                name, "wrong", "\n".join(lines), case=case, output=out,
                n_cases=number, diagnosis=found and found.code,
            )
        bad = ~np.isclose(g, w, rtol=ex.rtol, atol=ex.atol, equal_nan=True)
        if bad.any():
            return _wrong_element(ex, run, runs, out, g, w, bad, source)
    return None


def _wrong_element(ex, run, runs, out, g, w, bad, source="") -> CheckResult:
    index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    exp, val = w[index], g[index]
    lines = [
        f"{ex.name}: {out}{list(index) if index else ''} is wrong: "
        f"expected {display.num(exp)}, got {display.num(val)} "
        f"({display.differ(int(bad.sum()), bad.size)})",
        f"  case {run.number}: {display.describe(run.case)}",
    ]
    if out in ex.feeds:
        lines.append(f"  where: {feeds_line(ex.feeds[out](run.case), out, index)}")
    found = diagnose(ex.rules, runs, out)
    lines += _diagnosis_lines(found, out, ex.hint_for(out), source)
    text = display.grid(out, g, w, bad, index)
    extra = {}
    drawing = ""
    if text:
        lines.append(text)
        lines.append(f'  (exercises.check("{ex.name}", ..., plot=True) draws it)')
        drawing = "\n".join(lines[-2:])
    if g.ndim >= 2:
        lead = tuple(index[:-2])
        extra["planes"] = (g[lead], w[lead], bad[lead])
    return CheckResult(
        ex.name, "wrong", "\n".join(lines), case=run.case, output=out,
        index=index, expected=exp, got=val, n_cases=run.number, extra=extra,
        diagnosis=found and found.code, drawing=drawing,
    )


def _integrity(ex: Exercise, runs: list[Run],
               source: str = "") -> CheckResult | None:
    """Right values, but the call did what the exercise forbids."""
    found = diagnose(ex.rules, runs, None)
    if found is None:
        return None
    run = found.run
    lines = [f"{ex.name}: every value is right, but {CODES[found.code][0]}",
             f"  case {run.number}: {display.describe(run.case)}",
             *_diagnosis_lines(found, None, "", source)]
    return CheckResult(ex.name, "wrong", "\n".join(lines), case=run.case,
                       n_cases=run.number, diagnosis=found.code)
