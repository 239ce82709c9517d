"""The blind corpus: learners' answers written without reading the checker.

``tests/data/blind/`` holds, per exercise, a module of wrong answers in
``tune/`` (the checker may be tuned on them), another in ``heldout/``
(never read while tuning: it measures the tutor on bugs it has not seen)
and right answers in unusual styles in ``right/``. Each answer is a
function named ``wrong_...`` or ``right_...``; its docstring says what the
learner did.

An answer is *named* when the checker gives it a specific code: not
``None`` and not the catch-all ``shape``. Run this file to print the
naming rate per exercise (the table ``docs/tutor.md`` reports)::

    PYTHONPATH=src python tests/blind_corpus.py [PART]  # tune, heldout, fresh..fresh9

``heldout`` was written by the same helpers as ``tune`` (their reports
described its bugs in a line each to the lead, who never read its code);
``fresh`` was written by four others whose reports said nothing of their
bugs, and was the blind measure until the lead read the descriptions of
the answers it left unnamed (session 14). ``fresh2`` (six answers per
exercise) was written then by three more helpers who reported only counts;
it was measured blind once (76% named), then read like ``fresh``.
``fresh3`` (six per exercise, by three more) was measured blind three
times (84%, 86%, 87%), then read. ``fresh4`` (six per exercise, by three
more) was measured blind once (88%), then read. ``tune6`` (three per
exercise, by three more) was written to be read. ``fresh5`` (six per
exercise, by six more) was measured blind once (85%), then read.
``fresh6`` (four per exercise, by three more) is the blind measure now,
measured once (94%) and read only by a judge of the names' accuracy.
``tune7`` and ``fresh7`` (three each for the two exercises issue 45
added, ``dw_by_correlation`` and ``hessian_vector_product``, by one more
helper) were measured blind once together (6 of 12 named); ``tune7`` was
then read and tuned on, and ``fresh7`` is held out (4 of 6 named before
and after that tuning). ``tune8`` and ``fresh8`` (two each for the
three exercises added in session 16, ``conv1x1_backward``,
``head_backward`` and ``group_norm_backward``, by one more helper) were
measured blind once together (6 of 12 named); ``tune8`` was then read
and tuned on; ``fresh8`` is held out (2 of 6 named before and after).
``tune9`` and ``fresh9`` (ten each for ``maxpool_backward_by_fold``,
``col2im_gather``, ``hessian_vector_product`` and ``head_backward``,
written by one more helper in session 17 and split alternately) were
measured blind once: ``tune9`` 6 of 10 named, ``fresh9`` 5 of 10;
``tune9`` was then read and tuned on, and ``fresh9`` is held out
(8 of 10 named after that tuning; ``fresh8`` 4 of 6, ``fresh7`` 4 of 6).
``tune10`` and ``fresh10`` (12 answers by one helper in session 17 to
5.4 ``maxpool_backward_split`` and 9.8 ``block_backward``, split
alternately) were measured blind once: ``tune10`` 2 of 6 named,
``fresh10`` 4 of 6; ``tune10`` was then read and tuned on, ``fresh10``
is held out (5 of 6 named after that tuning).
``tune11`` and ``fresh11`` (eight answers by one helper in session 17
to 9.9 ``sanity_check``, split alternately) were measured blind once:
``tune11`` 2 of 4 named, ``fresh11`` 4 of 4; ``tune11`` was read by
the lead but not yet tuned on, ``fresh11`` is held out.
After a change to the checker, record the tuning part's codes and the
table of ``docs/tutor.md`` again::

    PYTHONPATH=src python tests/blind_corpus.py --write
"""

from __future__ import annotations

import runpy
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from convgrad.exercises import EXERCISES, check

ROOT = Path(__file__).parent / "data" / "blind"
PARTS = ("tune", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "tune6",
         "fresh5", "fresh6", "tune7", "fresh7", "tune8", "fresh8", "tune9",
         "fresh9", "tune10", "fresh10", "tune11", "fresh11", "right")
CATCH_ALL = (None, "shape")
SEEDS = (0, 12345)  # the practice cases and the instructor's


@dataclass(frozen=True)
class Answer:
    part: str
    exercise: str
    name: str
    doc: str
    fn: object


def answers(part: str) -> list[Answer]:
    out = []
    for path in sorted((ROOT / part).glob("*.py")):
        if path.stem not in EXERCISES:
            raise ValueError(f"{path}: no exercise called {path.stem!r}")
        space = runpy.run_path(str(path))
        prefix = "right_" if part == "right" else "wrong_"
        for name, fn in space.items():
            if name.startswith(prefix) and callable(fn):
                out.append(Answer(part, path.stem, name,
                                  (fn.__doc__ or "").strip(), fn))
    return out


@dataclass(frozen=True)
class Verdict:
    answer: Answer
    seed: int
    status: str
    diagnosis: str | None
    message: str

    @property
    def named(self) -> bool:
        return self.status != "passed" and self.diagnosis not in CATCH_ALL


def verdict(answer: Answer, seed: int = 0) -> Verdict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = check(answer.exercise, answer.fn, seed=seed, quiet=True,
                  time_limit=30.0)
    return Verdict(answer, seed, r.status, r.diagnosis, r.message)


def table(part: str, seed: int = 0, verdicts: list[Verdict] | None = None
          ) -> dict[str, tuple[int, int, int]]:
    """Per exercise: (answers, named, passed)."""
    rows: dict[str, list[int]] = {}
    for v in verdicts or [verdict(a, seed) for a in answers(part)]:
        a = v.answer
        row = rows.setdefault(a.exercise, [0, 0, 0])
        row[0] += 1
        row[1] += v.named
        row[2] += v.status == "passed"
    return {k: tuple(v) for k, v in sorted(rows.items())}


PINS = ROOT / "tune_codes.json"
DOCS = Path(__file__).parent.parent / "docs" / "tutor.md"
BEGIN, END = "<!-- naming-rates -->", "<!-- /naming-rates -->"


def rates_table() -> str:
    """The markdown table docs/tutor.md holds: per exercise, the answers
    of each held-out part and how many got a specific code."""
    parts = ("fresh6", "fresh7", "fresh8", "fresh9", "fresh10", "fresh11",
             "fresh5", "fresh4", "fresh3", "fresh2", "fresh", "heldout")
    tables = {part: table(part) for part in parts}
    lines = ["| exercise | fresh6 (blind) | fresh7 (blind) | fresh8 (blind) "
             "| fresh9 (blind) | fresh10 (blind) | fresh11 (blind) | fresh5 "
             "| fresh4 | fresh3 | fresh2 | fresh | held out |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    totals = {part: [0, 0] for part in parts}
    for name in sorted(EXERCISES):
        cells = []
        for part in parts:
            n, named, _ = tables[part].get(name, (0, 0, 0))
            totals[part][0] += n
            totals[part][1] += named
            cells.append(f"{named} / {n}")
        lines.append(f"| `{name}` | {' | '.join(cells)} |")
    cells = [f"**{named} / {n} ({named / max(n, 1):.0%})**"
             for n, named in (totals[p] for p in parts)]
    lines.append(f"| all | {' | '.join(cells)} |")
    return "\n".join(lines)


def write_docs() -> None:
    text = DOCS.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOCS.write_text(f"{head}{BEGIN}\n{rates_table()}\n{END}{tail}",
                    encoding="utf-8")


def write_pins() -> None:
    import json
    pins = {f"{v.answer.exercise}/{v.answer.name}": v.diagnosis
            for v in (verdict(a) for a in answers("tune"))}
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--write"]:  # the tuning part's codes and the docs
        write_pins()
        write_docs()
        return
    part = argv[0] if argv else "tune"
    verbose = "-v" in argv
    total = [0, 0, 0]
    verdicts = [verdict(a) for a in answers(part)]
    for v in verdicts:
        a = v.answer
        # only the tuning part is read answer by answer: the held-out
        # parts are measured, never looked at
        if part == "tune" and (verbose or not v.named):
            print(f"{a.exercise:26} {a.name:40} {v.status:8} "
                  f"{v.diagnosis}  # {a.doc[:70]}")
    rows = table(part, verdicts=verdicts)
    print(f"\n{'exercise':26} answers named passed")
    for name, (n, named, passed) in rows.items():
        print(f"{name:26} {n:7} {named:5} {passed:6}")
        total = [t + x for t, x in zip(total, (n, named, passed), strict=True)]
    n, named, passed = total
    print(f"{'all':26} {n:7} {named:5} {passed:6}   "
          f"named {named / max(n, 1):.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
