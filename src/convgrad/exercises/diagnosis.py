"""How evidence for a mistake is weighed, and the kinds of rule.

A :class:`Rule` names one mistake (a code of :data:`CODES`) and says, for
one case the learner's function ran on, whether what it returned is
evidence *for* the mistake (``True``), *against* it (``False``), or says
nothing (``None``: on this case the mistake would give the right answer,
as ``=`` does where windows do not overlap). A rule is the diagnosis when
some case speaks for it and none against; an ``any_case`` rule (an input
changed by the call) needs one case only. Rules are tried in order, the
exercise's own first, so put the specific before the general.

Most rules are *models*: the bug's answer, computed (the reference with
stride 1, the scatter with one term per pixel, image 0's ``dw`` alone), and
compared with the learner's. A correct answer in any style matches no model
on a case that separates, so it is never diagnosed. :func:`model` and
:func:`overwrites` build such rules; the rules every exercise gets, and
those several share, are in :mod:`.shared`.

Where a crash leaves nothing to compare, a rule may call the learner's
function again on a case of its own (:attr:`Run.again`): an answer that
raised on a plane that is not square and is right on the same case made
square has H and W swapped (:func:`.shared.swapped_crash`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .display import num, plural
from .feeds import Scatter
from .vocabulary import CODES


@dataclass(frozen=True)
class Unreadable:
    """A returned value that raised when read as an array: the error."""

    error: str


def as_numbers(value: Any) -> np.ndarray | Unreadable:
    """What the learner returned, as an array: a Tensor's ``.data``, an
    array, a list or a number; :class:`Unreadable` if reading it raises
    (an ``__array__`` or a ``.data`` that raises is the learner's)."""
    try:
        return np.asarray(getattr(value, "data", value))
    except Exception as err:  # the learner's object, reported, not raised
        return Unreadable(f"{type(err).__name__}: {err}"[:200])


@dataclass
class Run:
    """One case, and what the learner's function did with it."""

    number: int
    case: dict  # the pristine inputs
    given: dict  # the copies the function was called with, after the call
    got: tuple | None  # one value per output, None if the count was wrong
    want: tuple
    names: tuple[str, ...]
    rtol: float
    atol: float
    raised: str | None = None  # the exception the call raised, if it did
    # the learner's function once more, on a case a rule made (isolated, and
    # under the same time limit): its outputs read as numbers; raises what
    # the call raises, a time limit as TimeoutError
    again: Callable[[dict], tuple] | None = None

    def out(self, name: str) -> np.ndarray | None:
        """The learner's ``name`` as numbers; ``None`` when it is missing,
        unreadable or not numbers."""
        got = self.got
        if not isinstance(got, tuple) or len(got) != len(self.names):
            return None
        value = got[self.names.index(name)]
        if not isinstance(value, np.ndarray):
            value = as_numbers(value)
        if isinstance(value, Unreadable):
            return None
        return value if value.dtype.kind in "biuf" else None

    def expected(self, name: str) -> np.ndarray:
        return np.asarray(self.want[self.names.index(name)])

    def same(self, a: Any, b: Any) -> bool:
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(
            np.allclose(a, b, rtol=self.rtol, atol=self.atol, equal_nan=True))

    def right(self, name: str) -> bool:
        got = self.out(name)
        return got is not None and self.same(got, self.expected(name))


# for one run: True (speaks for), False (against), None (says nothing); or
# that for each of several labelled hypotheses, weighed one by one
Evidence = Callable[[Run, str], "bool | None | dict[str, bool | None]"]


@dataclass(frozen=True)
class Rule:
    """Evidence for one mistake; ``where(run, output, label)`` says what
    the evidence was (``label`` names the hypothesis that held)."""

    code: str
    evidence: Evidence
    where: Callable[[Run, str, str], str]
    outputs: tuple[str, ...] | None = None  # None: any output
    any_case: bool = False  # one case that speaks for it is enough
    integrity: bool = False  # wrong even when every value is right
    # the fix for the form the learner used (their source, the output, the
    # hypothesis that held), or None for the vocabulary's own fix
    fix: Callable[[str, str | None, str], str | None] | None = None
    # evidence weighed over all the runs at once (a hypothesis that must
    # explain every wrong case): the first run that speaks for it and the
    # label, or None; used instead of ``evidence`` when given
    across: Callable[[Sequence[Run], str | None],
                     tuple[Run, str] | None] | None = None

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"code must be one of {sorted(CODES)}, got "
                             f"{self.code!r}")


@dataclass(frozen=True)
class Found:
    """A diagnosis: the rule, the first run that spoke for it, the label."""

    rule: Rule
    run: Run
    label: str

    @property
    def code(self) -> str:
        return self.rule.code

    def where(self, output: str | None) -> str:
        return self.rule.where(self.run, output, self.label)

    def fix(self, output: str | None, source: str) -> str:
        """How to fix it, in the form the learner used (``source`` is
        their function's text, ``""`` when unknown)."""
        said = None
        if self.rule.fix is not None:
            try:
                said = self.rule.fix(source, output, self.label)
            except Exception:  # a form we cannot read: the plain fix
                said = None
        return said or CODES[self.code][1]


def diagnose(rules: Sequence[Rule], runs: Sequence[Run],
             output: str | None) -> Found | None:
    """The first rule (and hypothesis) some run speaks for and none against,
    for ``output``; ``output=None`` tries the integrity rules only."""
    for rule in rules:
        if output is None and not rule.integrity:
            continue
        if rule.outputs is not None and output not in rule.outputs:
            continue
        if rule.across is not None:
            try:
                with np.errstate(all="ignore"):
                    hit = rule.across(runs, output)
            except Exception:  # the checker never raises for an answer
                hit = None
            if hit is not None:
                return Found(rule, *hit)
            continue
        said: dict[str, list[tuple[bool | None, Run]]] = {}
        for run in runs:
            e = _weigh(rule, run, output)
            for label, v in (e if isinstance(e, dict) else {"": e}).items():
                said.setdefault(label, []).append((v, run))
        for label, votes in said.items():
            first = next((run for v, run in votes if v is True), None)
            if first is None:
                continue
            if rule.any_case or not any(v is False for v, _ in votes):
                return Found(rule, first, label)
    return None


def _weigh(rule: Rule, run: Run, output: str | None):
    """A rule's evidence; one that cannot judge a strange answer (NaN, an
    odd shape) says nothing rather than break the check."""
    try:
        with np.errstate(all="ignore"):
            return rule.evidence(run, output)
    except Exception:  # the checker never raises for a learner's answer
        return None


# --------------------------------------------------------------------------
# the kinds of rule (the rules themselves: .shared and each exercise)
# --------------------------------------------------------------------------

Predict = Callable[[Run, str], "list[tuple[str, Any]]"]

# what a model predicts when the bug would index outside an array
CRASH = "crash"


@dataclass(frozen=True)
class CrashOr:
    """What a model predicts where the bug reaches outside an array: an
    error, or, from a loop that skips what falls outside, ``answer``."""

    answer: Any


def model(code: str, predict: Predict, outputs=None, fix=None,
          exact: bool = False) -> Rule:
    """The learner's output equals what the bug gives, on every case where
    that differs from the truth (on every case, when ``exact``: where the
    answers are few, a small integer say, a bug that agrees with the truth
    on a case must agree with the learner there too). ``predict`` gives
    the bug's answers, each labelled by the hypothesis it stands for
    (labels the same across cases: each hypothesis is weighed on its own);
    :data:`CRASH` where the bug would index outside an array, which a
    raised error confirms."""

    def evidence(run: Run, output: str) -> dict[str, bool | None]:
        got, want = run.out(output), run.expected(output)
        out: dict[str, bool | None] = {}
        for label, a in predict(run, output):
            if isinstance(a, str):  # CRASH
                out[label] = run.raised is not None
            elif isinstance(a, CrashOr):
                out[label] = run.raised is not None or (
                    got is not None and run.same(got, a.answer))
            elif got is None or a is None or (
                    run.same(a, want) and not exact):
                out[label] = None
            else:
                out[label] = run.same(got, a)
        return out

    def where(run: Run, output: str, label: str) -> str:
        if run.raised is not None:
            return (f"on case {run.number} {label} reaches outside the "
                    f"array, which is the error you see")
        a = dict(predict(run, output)).get(label)
        if isinstance(a, CrashOr):
            return (f"on case {run.number} {label} reaches outside the "
                    f"array, and your {output} is what skipping those "
                    f"indices gives")
        return (f"on case {run.number} your {output} is exactly what "
                f"{label} gives")

    return Rule(code, evidence, where, outputs, fix=fix)


def overwrite_fits(sc: Scatter, out: np.ndarray, run: Run) -> bool:
    """Every element holds one term that feeds it (or one group's sum), and
    an element nothing feeds holds 0: what one write per term leaves."""
    if out.shape != sc.size:
        return False
    canvas = np.full(sc.canvas, np.nan)
    sc.crop(canvas)[...] = out
    flat = canvas.reshape(-1)
    dest, value = sc.candidates()
    hit = np.zeros(flat.size, dtype=bool)
    close = np.isclose(flat[dest], value, rtol=run.rtol, atol=run.atol)
    hit[dest[close]] = True
    fed = np.zeros(flat.size, dtype=bool)
    fed[sc.dest] = True
    inside = ~np.isnan(flat)
    zero = np.isclose(flat, 0.0, atol=run.atol)
    return bool(np.all(~inside | np.where(fed, hit, zero)))


def overwrites(feed: Callable[[dict, str], Scatter], outputs=None) -> Rule:
    def evidence(run: Run, output: str) -> bool | None:
        got = run.out(output)
        sc = feed(run.case, output)
        if got is None or overwrite_fits(sc, run.expected(output), run):
            return None  # nothing overlaps here: '=' would be right
        return overwrite_fits(sc, got, run)

    def where(run: Run, output: str, label: str) -> str:
        return (f"on case {run.number} each of your {output}'s elements "
                f"holds just one of the terms that feed it, never their sum")

    return Rule("overwrites", evidence, where, outputs)


def feeds_line(sc: Scatter, output: str, index: tuple[int, ...]) -> str:
    """``dx[0, 1, 2, 2] is fed by 2 window taps: ...`` for a report."""
    terms = sc.feeding(index)
    at = f"{output}{list(index)}"
    if terms.size == 0:
        return f"nothing feeds {at}: it must stay 0"
    shown = [f"{sc.label.format(*sc.source[m])} = {num(sc.value[m])}"
             for m in terms[:4]]
    more = "; ..." if terms.size > 4 else ""
    total = f" (their sum: {num(sc.value[terms].sum())})" if terms.size > 1 else ""
    return (f"{at} {sc.verb} {plural(int(terms.size), sc.unit)}: "
            f"{'; '.join(shown)}{more}{total}")
