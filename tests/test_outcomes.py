"""Every learning outcome of the syllabus is graded by an exercise (issue 28),
and every exercise grades an outcome (issue 45).

The outcomes are the numbered list under "## Learning outcomes" in
``course/README.md``; each exercise declares the outcomes whose skill it
grades (``Exercise.outcomes``). An outcome no exercise declares fails
here, so adding an outcome to the syllabus without an exercise fails too.
An outcome known to lack one is listed in :data:`PENDING` with the reason,
and its test is a strict xfail: the gap stays visible, and once an
exercise grades it the xfail passes and fails the run, until the entry is
removed. An exercise that declares no outcome fails too: either it grades
a skill the syllabus names, or the syllabus is missing an outcome.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from convgrad.exercises import EXERCISES

SYLLABUS = Path(__file__).parents[1] / "course" / "README.md"

# outcome -> why no exercise grades it yet
PENDING: dict[int, str] = {}


def syllabus_outcomes(text: str) -> dict[int, str]:
    """The numbered outcomes under ``## Learning outcomes``: number -> its
    first line, in the order written."""
    section = re.search(r"^## Learning outcomes\n(.*?)(?=^## |\Z)", text,
                        re.S | re.M)
    assert section, "the syllabus has no '## Learning outcomes' section"
    found = re.findall(r"^(\d+)\. (.+)$", section[1], re.M)
    return {int(n): line for n, line in found}


OUTCOMES = syllabus_outcomes(SYLLABUS.read_text(encoding="utf-8"))


def graders(outcome: int) -> list[str]:
    return [name for name, ex in EXERCISES.items() if outcome in ex.outcomes]


def test_the_syllabus_numbers_its_outcomes_from_one():
    assert list(OUTCOMES) == list(range(1, len(OUTCOMES) + 1))
    assert len(OUTCOMES) >= 7


def test_the_parser_sees_an_outcome_added_to_the_syllabus():
    text = SYLLABUS.read_text(encoding="utf-8").replace(
        "\n\n## Suggested timings",
        f"\n{len(OUTCOMES) + 1}. **Profile** a backward pass.\n\n"
        "## Suggested timings", 1)
    added = syllabus_outcomes(text)
    assert len(added) == len(OUTCOMES) + 1
    assert not graders(len(added))  # so its test below would fail


def test_every_exercise_names_outcomes_the_syllabus_has():
    stray = {name: ex.outcomes for name, ex in EXERCISES.items()
             if set(ex.outcomes) - set(OUTCOMES)}
    assert not stray, stray


def test_pending_outcomes_are_outcomes_and_say_why():
    assert set(PENDING) <= set(OUTCOMES)
    assert all(len(reason) > 20 for reason in PENDING.values())


@pytest.mark.parametrize("outcome", [
    pytest.param(n, marks=pytest.mark.xfail(reason=PENDING[n], strict=True))
    if n in PENDING else n
    for n in OUTCOMES
])
def test_the_outcome_is_graded_by_an_exercise(outcome):
    assert graders(outcome), (
        f"outcome {outcome} ({OUTCOMES[outcome][:60]}...) has no exercise: "
        f"declare outcomes=({outcome},) on the one that grades it")


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_exercise_grades_an_outcome(name):
    outcomes = EXERCISES[name].outcomes
    assert outcomes, (
        f"exercise {name} declares no outcome: give its Exercise(...) the "
        "syllabus outcome it grades, outcomes=(n,), or add one to "
        "course/README.md")
    assert set(outcomes) <= set(OUTCOMES), outcomes


def test_an_exercise_without_an_outcome_would_fail(monkeypatch):
    """The check above is not vacuous: an exercise declaring none fails."""
    import dataclasses

    name = sorted(EXERCISES)[0]
    bare = dataclasses.replace(EXERCISES[name], outcomes=())
    monkeypatch.setitem(EXERCISES, name, bare)
    with pytest.raises(AssertionError, match="declares no outcome"):
        test_every_exercise_grades_an_outcome(name)
