"""The checker's behaviour, pinned: what it says about a fixed set of answers.

For every exercise: the reference solution, every answer of
``tests/test_diagnosis.py`` (the learner-style mistakes in two styles, the
right answers in other styles, the generic wrong answers), and a few more
made here (one element off, a raise, ``None``, the wrong number of
outputs, the stub). Each is checked on the practice cases (seed 0) and
graded on the instructor's (seed 12345), without a time limit (a loaded
machine must not turn a verdict into ``time-limit``;
``test_check_isolation.py`` covers the limit). The status, the mistake code,
each output's verdict, the score and the whole report must be what
``tests/data/exercise_verdicts.json`` recorded, and so must each exercise's
declaration: its lesson and place in it, outputs, hint, tolerances, feeds,
the codes of its rules in order, its cases for three seeds (a digest) and
what graded mode watches for.

The data was recorded before issue 27 moved every exercise into a module of
its own, so the move changed nothing a learner or an instructor sees. After
a deliberate change to the checker, record it again and say in the commit
what changed and why::

    PYTHONPATH=src python tests/test_exercise_verdicts.py --write
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import test_diagnosis as D
from test_exercises import _perturb_first_output

from convgrad.exercises import EXERCISES, check, grade, solution, watch

DATA = Path(__file__).parent / "data" / "exercise_verdicts.json"
GRADE_SEED = 12345
CASE_SEEDS = (0, 1, GRADE_SEED)

# the answer functions of test_diagnosis.py, by the prefix of their names
PREFIXES = {
    "ng": "numeric_grad", "sp": "square_plus_backward", "i2c": "im2col",
    "c2i": "col2im", "cb": "conv2d_backward", "mp": "maxpool_backward",
    "mpb": "maxpool_backward", "mpf": "maxpool_forward",
    "mbf": "maxpool_backward_by_fold", "c2g": "col2im_gather",
    "mps": "maxpool_backward_split",
    "apb": "avgpool_backward", "ct": "conv_transpose2d",
    "cos": "conv_output_size", "gwm": "grouped_weight_matrix",
    "sgd": "sgd_momentum_step", "macs": "conv2d_macs",
    "dgb": "dilated_grouped_backward", "fwb": "find_wrong_backward",
    "cm": "conv_matrix", "cbd": "checkerboard_dx",
    "cdb": "conv_double_backward", "ag": "adjoint_gap",
    "bn": "batch_norm_backward",
}


# --------------------------------------------------------------------------
# the answers
# --------------------------------------------------------------------------


def _stub(*args, **kwargs):
    raise NotImplementedError


def _raises(*args, **kwargs):
    raise ValueError("operands could not be broadcast together")


def _returns_none(*args, **kwargs):
    return None


def _returns_text(*args, **kwargs):
    return "dx"


def _one_too_many(name: str) -> Callable:
    sol, n = solution(name), len(EXERCISES[name].outputs)

    def answer(**kwargs):
        out = sol(**kwargs)
        return (*out, 0.0) if n > 1 else (out, 0.0)

    return answer


def _own(name: str) -> dict[str, Callable[[], Callable]]:
    """Answers made here for ``name``: each a factory, since one of them
    counts its calls."""
    return {
        "solution": lambda: solution(name),
        "stub": lambda: _stub,
        "raises": lambda: _raises,
        "returns-none": lambda: _returns_none,
        "returns-text": lambda: _returns_text,
        "one-too-many": lambda: _one_too_many(name),
        **{f"one-off-{case}-{pos}": (
            lambda case=case, pos=pos: _perturb_first_output(name, case, pos))
           for case, pos in [(1, 0), (2, 7), (3, -1)]},
    }


def answers() -> dict[str, tuple[str, Callable[[], Callable]]]:
    """``key -> (exercise, factory)`` for every answer, in a fixed order."""
    out: dict[str, tuple[str, Callable[[], Callable]]] = {}

    def add(key: str, name: str, fn: Callable) -> None:
        assert key not in out, key
        out[key] = (name, lambda: fn)

    for i, (name, code, fn) in enumerate(D.MISTAKES):
        add(f"mistakes/{i}/{name}/{code}/{fn.__qualname__}", name, fn)
    for i, (name, fn) in enumerate(D.RIGHT):
        add(f"right/{i}/{name}/{fn.__qualname__}", name, fn)
    for i, (name, code, fn) in enumerate(D.GENERIC_WRONG):
        add(f"generic/{i}/{name}/{code}", name, fn)
    listed = {id(fn) for _, fn in (*((r[0], r[-1]) for r in D.MISTAKES),
                                   *D.RIGHT)}
    for key, fn in vars(D).items():
        prefix = key.split("_")[0]
        if (callable(fn) and prefix in PREFIXES and id(fn) not in listed
                and getattr(fn, "__module__", None) == D.__name__):
            add(f"diagnosis-file/{PREFIXES[prefix]}/{key}", PREFIXES[prefix],
                fn)
    for name in EXERCISES:
        for label, factory in _own(name).items():
            out[f"own/{name}/{label}"] = (name, factory)
    return out


ANSWERS = answers()


# --------------------------------------------------------------------------
# what is recorded
# --------------------------------------------------------------------------


def _digest(value, h) -> None:
    """Feed a case's value into the hash ``h``, arrays by their bytes."""
    if isinstance(value, np.ndarray):
        h.update(f"array {value.dtype.str} {value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, dict):
        for k, v in value.items():  # in order: the report follows it
            h.update(f"key {k!r}".encode())
            _digest(v, h)
    elif isinstance(value, (list, tuple)):
        h.update(f"{type(value).__name__} {len(value)}".encode())
        for v in value:
            _digest(v, h)
    elif hasattr(value, "fresh"):  # a Probe: its formula
        h.update(f"probe {value!r}".encode())
    elif hasattr(value, "inputs") and hasattr(value, "fn"):  # a Suspect
        owner = getattr(value.fn, "__self__", value.fn)
        h.update(f"suspect {value!r} {getattr(owner, '__name__', owner)} "
                 f"{value._bug!r}".encode())
        _digest(value.inputs, h)
    else:
        h.update(f"{type(value).__name__} {value!r}".encode())


def _cases_digest(name: str, seed: int) -> str:
    h = hashlib.sha256()
    _digest(EXERCISES[name].cases(np.random.default_rng(seed)), h)
    return h.hexdigest()


def declaration(name: str) -> dict:
    """What the checker knows of exercise ``name``, as plain data."""
    ex = EXERCISES[name]
    hint = ex.hint if isinstance(ex.hint, str) else dict(ex.hint)
    # the kernels watched depend on what this process imported: left out
    watched = Counter(label for label in watch._watched_codes(name).values()
                      if not label.startswith("the kernel convgrad.kernels."))
    return {
        "lesson": ex.lesson,
        "place": [n for n, e in EXERCISES.items()
                  if e.lesson == ex.lesson].index(name),
        "outputs": list(ex.outputs),
        "hint": hint,
        "rtol": ex.rtol,
        "atol": ex.atol,
        "expected": ex.expected is not None,
        "feeds": sorted(ex.feeds),
        "rules": [[r.code, None if r.outputs is None else list(r.outputs),
                   r.any_case, r.integrity, r.fix is not None]
                  for r in ex.rules],
        "cases": {str(seed): _cases_digest(name, seed) for seed in CASE_SEEDS},
        "watched": dict(sorted(watched.items())),
    }


def _report(message: str) -> dict:
    """A report as its first line and a hash of the whole (the data file
    stays small; a test that fails prints the new report in full)."""
    return {"headline": message.partition("\n")[0],
            "report": hashlib.sha256(message.encode()).hexdigest()[:20]}


def _steady(message: str, diagnosis: str | None) -> str:
    """An answer that draws its own random numbers (own-random) reports
    other numbers on every run: its report is pinned without them."""
    if diagnosis != "own-random":
        return message
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", message)


def checked(key: str, r=None) -> dict:
    if r is None:
        name, factory = ANSWERS[key]
        r = check(name, factory(), quiet=True, time_limit=None)
    return {"status": r.status, "diagnosis": r.diagnosis,
            "verdicts": dict(r.verdicts), "output": r.output,
            "index": None if r.index is None else list(r.index),
            "n_cases": r.n_cases, **_report(_steady(r.message, r.diagnosis))}


def _pinned(library) -> list[str]:
    """The calls of an answer that are pinned, as a set. Which kernels it
    reaches by name, and the order of its calls, depend on what the process
    imported and compiled before, and on the backend (the NumPy backend's
    kernels are the twins of ``convgrad.reference``): those are left out,
    the rest is pinned, not its order."""
    return sorted(x for x in library if not x.startswith(
        ("the kernel convgrad.kernels.", "convgrad.reference.")))


def graded_as(key: str, g=None) -> dict:
    if g is None:
        name, factory = ANSWERS[key]
        g = grade(name, factory(), seed=GRADE_SEED, quiet=True,
                  time_limit=None)
    return {"status": g.status, "score": g.score, "max_score": g.max_score,
            "diagnosis": g.diagnosis, "verdicts": dict(g.verdicts),
            "library": _pinned(g.library),
            **_report(re.sub(r"evidence: while your function ran, it "
                             r"called .*", "evidence: (the calls)",
                             _steady(g.message, g.diagnosis)))}


def record() -> dict:
    return {
        "exercises": {name: declaration(name) for name in sorted(EXERCISES)},
        "checks": {key: checked(key) for key in ANSWERS},
        "grades": {key: graded_as(key) for key in ANSWERS},
    }


# --------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------


def _recorded() -> dict:
    return json.loads(DATA.read_text())


RECORDED = _recorded() if DATA.exists() else {"exercises": {}, "checks": {},
                                             "grades": {}}


def test_the_answers_are_those_recorded():
    assert sorted(RECORDED["checks"]) == sorted(ANSWERS)
    assert sorted(RECORDED["grades"]) == sorted(ANSWERS)
    # the file holds real verdicts, not a copy of nothing
    statuses = Counter(r["status"] for r in RECORDED["checks"].values())
    assert statuses["passed"] >= 50 and statuses["wrong"] >= 300, statuses
    assert len({r["diagnosis"] for r in RECORDED["checks"].values()}) >= 35


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_each_exercise_is_declared_as_recorded(name):
    assert name in RECORDED["exercises"], f"{name} was not recorded"
    assert declaration(name) == RECORDED["exercises"][name]


def test_no_exercise_was_lost_or_added():
    assert sorted(EXERCISES) == sorted(RECORDED["exercises"])


@pytest.mark.parametrize("key", list(ANSWERS))
def test_each_answer_is_checked_as_recorded(key):
    name, factory = ANSWERS[key]
    want = RECORDED["checks"].get(key)
    assert want is not None, f"{key} was not recorded"
    result = check(name, factory(), quiet=True, time_limit=None)
    assert checked(key, result) == want, result.message


@pytest.mark.parametrize("key", list(ANSWERS))
def test_each_answer_is_graded_as_recorded(key):
    name, factory = ANSWERS[key]
    want = RECORDED["grades"].get(key)
    assert want is not None, f"{key} was not recorded"
    result = grade(name, factory(), seed=GRADE_SEED, quiet=True,
                  time_limit=None)
    want = {**want, "library": _pinned(want["library"])}
    assert graded_as(key, result) == want, result.message


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {sys.argv[0]} --write  (records {DATA})")
    warnings.simplefilter("error")  # as pytest's filterwarnings does
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(record(), indent=0, ensure_ascii=False)
                    + "\n")
    print(f"recorded {len(ANSWERS)} answers in {DATA}")
