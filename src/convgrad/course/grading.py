"""A course an instructor can grade: nbgrader assignments, and a grade file.

Two routes, both built on the checker's graded mode
(:func:`convgrad.exercises.grade`: the instructor's secret seed, a score
per output, nothing on stderr, no credit for calling the library):

- :func:`write_assignments` writes the lessons as an nbgrader *source*
  course: ``OUT/source/<lesson>/<lesson>.ipynb`` and a fitting
  ``OUT/nbgrader_config.py``. Each exercise cell becomes a ``solution``
  cell holding the reference solution between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION``; after it comes one locked ``autograded test`` cell
  whose ``### BEGIN HIDDEN TESTS`` block calls ``grade`` with the lesson's
  own seed, derived from the instructor's secret
  (``case_seed(secret, lesson)``). The secret is in
  ``OUT/grading-seed.txt`` and in no notebook; the lesson's seed is only in
  the hidden tests, which neither the released notebook nor the feedback
  shows, and no kernel's environment holds a seed. nbgrader's own steps do
  the rest (generate, release, collect, autograde, generate feedback).
- :func:`grade_class` grades a folder of submissions without nbgrader:
  ``SUBMISSIONS/<student>/**/*.ipynb``, each notebook matched to a lesson
  by the lesson its metadata names (the student copies carry it), else by
  its name (``03-col2im-scatter.ipynb`` or a copy's,
  ``03-col2im-scatter-Copy1.ipynb``); links out of a student's folder are
  refused. Each notebook runs in a process of its own with a time limit:
  its imports, definitions and exercise cells (not the views, training
  runs or practice checks), then each exercise function it defines through
  graded mode. :func:`write_csv` writes the rows, :func:`write_wide_csv` a
  row per student for an LMS (Canvas, Moodle).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import csv
import functools
import json
import math
import numbers
import os
import queue
import re
import secrets
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from convgrad.exercises.graded import STATUSES
from convgrad.exercises.graded import one_line as _one_line

from .lessons import IDENTITY, Lesson, find_lessons, identity, lesson_of
from .solutions import STUB, is_stub, notebook_body

CSV_COLUMNS = ("student", "lesson", "exercise", "score", "max_score", "status",
               "diagnosis")
SCHEMA_VERSION = 3

SEED_FILE = "grading-seed.txt"

CONFIG = '''\
"""nbgrader's configuration of the convgrad course (written by
``python -m convgrad.course assignments``). Run nbgrader from this folder."""

import os

c = get_config()  # noqa: F821 (nbgrader provides it)
here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = here
c.CourseDirectory.course_id = "convgrad"
# the released stub is the one the student copies have
c.ClearSolutions.code_stub = {{"python": "{stub}"}}
# a lesson's cells may compile kernels or train a small CNN
c.Execute.timeout = {timeout}
# the feedback leaves out the hidden tests' source (the graded call, with
# the lesson's seed), as the released notebook does; their output stays
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# The instructor's secret is in {seed_file}, which nbgrader never reads:
# each lesson's hidden tests hold that lesson's seed, derived from it.
'''


# --------------------------------------------------------------------------
# the exercises a notebook holds
# --------------------------------------------------------------------------


@functools.cache
def _held(number: int) -> tuple[str, ...] | None:
    """The exercises lesson ``number``'s notebook has a cell for, or None
    when the lessons are not at hand."""
    try:
        lessons = [x for x in find_lessons() if x.number == number]
    except (FileNotFoundError, ValueError):
        return None
    if not lessons:
        return None
    names = lesson_exercises(number, held=False)
    return tuple(exercise_cells(lessons[0].read(), number, names))


def lesson_exercises(number: int, held: bool = True) -> list[str]:
    """The exercises of lesson ``number``, in the registry's order. With
    ``held``, only those the lesson notebook has a cell for, when the
    lessons are at hand (the registry has exercises no lesson asks for)."""
    from convgrad.exercises import EXERCISES

    names = [name for name, ex in EXERCISES.items() if ex.lesson == number]
    cells = _held(number) if held else None
    return names if cells is None else [x for x in names if x in cells]


def _defines(source: str) -> list[str]:
    """Names of the functions a cell defines at its top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [n.name for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def exercise_cells(nb: nbformat.NotebookNode, number: int,
                   names: Iterable[str] | None = None) -> dict[str, int]:
    """Exercise name -> index of the code cell that defines it."""
    wanted = set(lesson_exercises(number, held=False) if names is None
                 else names)
    found: dict[str, int] = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for name in _defines(cell.source):
            if name in wanted and name not in found:
                found[name] = index
    return found


# --------------------------------------------------------------------------
# nbgrader assignments
# --------------------------------------------------------------------------


def _solution_cell(cell: nbformat.NotebookNode, name: str) -> None:
    """Put the reference solution of ``name`` in place of the stub."""
    lines = cell.source.splitlines()
    tree = ast.parse(cell.source)
    node = next(n for n in tree.body
                if isinstance(n, ast.FunctionDef) and n.name == name)
    for number in range(node.lineno, (node.end_lineno or node.lineno) + 1):
        line = lines[number - 1]
        if is_stub(line):
            indent = line[: len(line) - len(line.lstrip())]
            block = [f"{indent}### BEGIN SOLUTION",
                     *[f"{indent}{x}" if x else "" for x in notebook_body(name)],
                     f"{indent}### END SOLUTION"]
            lines[number - 1:number] = block
            break
    else:
        raise ValueError(f"exercise {name!r}: its cell has no stub ({STUB!r})")
    cell.source = "\n".join(lines)
    cell.metadata["nbgrader"] = {
        "grade": False, "grade_id": name, "locked": False,
        "schema_version": SCHEMA_VERSION, "solution": True, "task": False,
    }


def test_cell(name: str, points: int, seed: int) -> nbformat.NotebookNode:
    """The autograded test cell of exercise ``name``, whose hidden test
    grades it on the cases of ``seed`` (its lesson's). A cell that raised
    before it defined ``name`` gets an ``error`` (:func:`cell_error`), as
    in the grade file."""
    share = "one per output" if points > 1 else "all or nothing"
    source = "\n".join([
        f"# Graded test of {name}: {points} point{'s' if points > 1 else ''} "
        f"({share}).",
        "# It runs on cases only your instructor has, when your work is "
        "graded;",
        "# exercises.check above is your practice run.",
        "### BEGIN HIDDEN TESTS",
        "from convgrad.exercises.graded import cell_error, grade",
        "",
        f'grade("{name}", globals().get("{name}"),',
        f"      seed={int(seed)}, points={points},",
        f'      raised=cell_error("{name}")).score',
        "### END HIDDEN TESTS",
    ])
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True, "grade_id": f"test_{name}", "locked": True,
        "points": points, "schema_version": SCHEMA_VERSION, "solution": False,
        "task": False,
    }
    cell.metadata["tags"] = ["graded-test"]
    cell.metadata["slideshow"] = {"slide_type": "skip"}
    return cell


def assignment(lesson: Lesson, seed: int) -> nbformat.NotebookNode:
    """Lesson ``lesson`` as an nbgrader source notebook, graded on the
    cases of ``seed`` (the lesson's: ``case_seed(secret, lesson.stem)``)."""
    from convgrad.exercises.graded import grade_seed, points_for

    seed = grade_seed(seed)

    nb = copy.deepcopy(lesson.read())
    cells = exercise_cells(nb, lesson.number)
    by_cell: dict[int, list[str]] = {}
    for name, index in cells.items():
        by_cell.setdefault(index, []).append(name)
    out = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        out.append(cell)
        for name in by_cell.get(index, []):
            _solution_cell(cell, name)
        for name in by_cell.get(index, []):
            out.append(test_cell(name, points_for(name), seed))
    nb.cells = out
    nb.metadata.pop("widgets", None)
    nb.metadata[IDENTITY] = identity(lesson.stem)  # kept in the released copy
    return nb


@dataclass(frozen=True)
class Assignments:
    """What :func:`write_assignments` wrote."""

    root: Path
    config: Path
    seed_file: Path
    notebooks: tuple[Path, ...]
    #: the instructor's secret (in ``seed_file``, in no notebook)
    seed: int
    points: dict[str, int]
    #: each lesson's seed (its stem's), derived from the secret: what its
    #: hidden tests hold
    lesson_seeds: dict[str, int]


def write_assignments(
    out: Path, lessons: Iterable[Lesson] | None = None, seed: int | None = None,
    timeout: int = 600,
) -> Assignments:
    """Write ``lessons`` (default: all) as an nbgrader source course in
    ``out``. ``seed`` (default: a fresh random one) is the instructor's
    secret: it is written to ``out/grading-seed.txt`` (kept by the
    instructor, for the grade command), never into a notebook. Each
    lesson's hidden tests hold that lesson's seed,
    ``case_seed(secret, lesson.stem)``."""
    from convgrad.exercises.graded import case_seed, grade_seed, points_for

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must be a folder, but {out} is a file")
    seed = grade_seed(secrets.randbelow(2**31 - 1) + 1 if seed is None else seed)
    lessons = find_lessons() if lessons is None else list(lessons)
    if out.resolve() in {x.path.parent.resolve() for x in lessons}:
        raise ValueError(f"out={out} is the lessons' own folder")
    seeds = {lesson.stem: case_seed(seed, lesson.stem) for lesson in lessons}
    built = [(lesson, assignment(lesson, seeds[lesson.stem]))
             for lesson in lessons]
    paths, points = [], {}
    for lesson, nb in built:
        folder = out / "source" / lesson.stem
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / lesson.path.name
        nbformat.write(nb, path)
        paths.append(path)
        for name in exercise_cells(nb, lesson.number):
            points[name] = points_for(name)
    config = out / "nbgrader_config.py"
    config.write_text(CONFIG.format(stub=STUB, timeout=int(timeout),
                                    seed_file=SEED_FILE))
    seed_file = out / SEED_FILE
    seed_file.write_text(f"{seed}\n")
    with contextlib.suppress(OSError):
        seed_file.chmod(0o600)
    return Assignments(out, config, seed_file, tuple(paths), seed, points,
                       seeds)


# --------------------------------------------------------------------------
# the grade file
# --------------------------------------------------------------------------


#: the status of a row for a file that was not graded (its name is no
#: lesson's, another notebook of that lesson was graded, ...): a grade file
#: has it besides the checker's :data:`~convgrad.exercises.graded.STATUSES`
NOT_GRADED = "not-graded"
ROW_STATUSES = (*STATUSES, NOT_GRADED)

# the columns a Canvas gradebook export starts with; Moodle maps any of them
WIDE_ID_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "Points Possible"

# names looked at under a link to a folder outside a student's folder (only
# to say which lessons were refused; nothing there is read)
_LINKED_NAMES = 1000


@dataclass
class Row:
    student: str
    lesson: str
    exercise: str
    score: float
    max_score: float
    status: str
    diagnosis: str

    def cells(self) -> list[str]:
        return [self.student, self.lesson, self.exercise, f"{self.score:g}",
                f"{self.max_score:g}", self.status, self.diagnosis]


@dataclass
class Report:
    """What :func:`grade_class` found: the rows, the files it could not
    read (path, reason), and the files it did not grade (path, reason): a
    name that is no lesson's, another notebook of the lesson graded instead,
    a link out of the student's folder."""

    rows: list[Row]
    unreadable: list[tuple[Path, str]]
    skipped: list[tuple[Path, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Progress:
    """One step of :func:`grade_class`, for its ``progress`` callback.

    ``notebook`` (``alice/03-col2im-scatter.ipynb``, its path under the
    submissions folder; ``path`` in full) has just started when ``statuses``
    is None, or has finished with ``statuses`` (exercise -> status).
    ``done`` of ``total`` notebooks have finished; ``running`` are being
    graded now."""

    done: int
    total: int
    notebook: str
    path: Path
    statuses: dict[str, str] | None
    running: tuple[str, ...]


def _seconds(name: str, value: object) -> float:
    """``value`` as a time limit, or an error naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds, got {value!r}")
    if not math.isfinite(value) or not value > 0:
        raise ValueError(f"{name} must be a finite number of seconds above 0, "
                         f"got {value!r}")
    return float(value)


def _course(notebooks: Path | None,
            only: Iterable[str] | None) -> tuple[list[Lesson], set[str]]:
    """Every lesson of the course, and the stems of those to grade."""
    every = find_lessons(notebooks)
    if not every:
        raise ValueError(f"notebooks: no lesson (NN-title.ipynb) in "
                         f"{notebooks or 'the notebooks/ folder'}")
    stems = {x.stem for x in every}
    if only is None:
        return every, stems
    if isinstance(only, str):
        raise TypeError(f"lessons must be a list of lessons, got {only!r}")
    keep, unknown = set(), []
    for name in only:
        found = [x.stem for x in every
                 if name in (x.stem, x.path.name, f"{x.number:02d}")]
        keep.update(found)
        if not found:
            unknown.append(name)
    if unknown:
        raise ValueError(f"lessons must name lessons of the course (number, "
                         f"stem or file name), got unknown {unknown}")
    return every, keep


def _shown(path: Path, submissions: Path) -> str:
    """``path`` as an instructor reads it: under the submissions folder
    when it is there, else in full."""
    for base in (submissions, submissions.resolve()):
        with contextlib.suppress(ValueError):
            return path.relative_to(base).as_posix()
    return str(path)


def _students(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith("."))


def _names_under(folder: Path) -> list[Path]:
    """The notebooks under ``folder`` by name only: no link below it is
    followed, no file is read, at most ``_LINKED_NAMES`` entries seen."""
    found: list[Path] = []
    seen, stack = 0, [folder]
    while stack and seen < _LINKED_NAMES:
        try:
            entries = sorted(os.scandir(stack.pop()), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries[:_LINKED_NAMES - seen]:
            seen += 1
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.name.endswith(".ipynb"):
                found.append(Path(entry.path))
    return sorted(found)


def _search(student: Path, submissions: Path
            ) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The notebooks in ``student``'s folder that the student owns, and those
    refused (path, reason): a link to a file outside the folder, a file
    under a link to a folder outside it, something that is not a file.
    Folders and files whose name starts with a dot (``.ipynb_checkpoints``)
    are left out, and so are links to folders inside (their files are found
    where they are)."""
    root = student.resolve()
    owned: list[Path] = []
    refused: list[tuple[Path, str]] = []
    stack = [student]
    while stack:
        try:
            entries = sorted(os.scandir(stack.pop()), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            if entry.is_symlink():
                target = path.resolve()
                if target == root or target.is_relative_to(root):
                    if entry.name.endswith(".ipynb") and not path.is_dir():
                        owned.append(path)
                    continue
                where = _shown(target, submissions)
                if path.is_dir():
                    link = _shown(path, submissions)
                    for inner in _names_under(path):
                        refused.append((inner, (
                            f"it is under {link}, a link to {where}, a folder "
                            f"outside {student.name}/: only files in the "
                            f"student's own folder are graded")))
                elif entry.name.endswith(".ipynb"):
                    refused.append((path, (
                        f"it is a link to {where}, a file outside "
                        f"{student.name}/: only files in the student's own "
                        f"folder are graded")))
            elif entry.is_dir(follow_symlinks=False):
                stack.append(path)
            elif entry.name.endswith(".ipynb"):
                if entry.is_file(follow_symlinks=False):
                    owned.append(path)
                else:
                    refused.append((path, "it is not a regular file"))
    return sorted(owned), refused


def _by_name(name: str, lessons: list[Lesson]) -> tuple[Lesson | None, str]:
    """The lesson a file's name is a copy of (``03-col2im-scatter.ipynb``,
    ``03-col2im-scatter-Copy1.ipynb``, ``03-col2im-scatter (1).ipynb``), or
    None and why not."""
    stem = name.removesuffix(".ipynb").casefold()
    fits = [x for x in lessons if stem == x.stem.casefold() or (
        stem.startswith(x.stem.casefold())
        and not stem[len(x.stem)].isalnum())]
    if fits:
        return max(fits, key=lambda x: len(x.stem)), ""
    number = re.match(r"\d{2}(?!\d)", stem)
    same = [x for x in lessons if number and x.number == int(number[0])]
    if same:
        return None, (f"lesson {same[0].number:02d} is {same[0].path.name}: "
                      f"a copy's name must start with {same[0].stem}")
    if number:
        return None, f"the course has no lesson {number[0]}"
    return None, ("its name is no lesson's (they are named like "
                  "03-col2im-scatter.ipynb) and it does not say which lesson "
                  "it is")


def _said(path: Path) -> str | None:
    """The lesson a notebook says it is (its metadata), if it says one."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError):
        return None
    return lesson_of(raw.get("metadata")) if isinstance(raw, dict) else None


@dataclass
class _HandIn:
    """What one student handed in: the notebook to grade of each lesson,
    the lessons refused whole (stem -> reason), the files not graded
    (path, lesson stem or "", reason) and everything to report skipped
    (path, lesson stem or "", reason)."""

    chosen: dict[str, Path] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    aside: list[tuple[Path, str, str]] = field(default_factory=list)
    skipped: list[tuple[Path, str, str]] = field(default_factory=list)
    link: str | None = None  # why the whole folder is refused


def _hand_in(student: Path, submissions: Path,
             lessons: list[Lesson]) -> _HandIn:
    """Match ``student``'s notebooks to ``lessons``: by the lesson a
    notebook says it is, then by its name. Of several for one lesson, the
    one named as the lesson is graded; without one, none is (ambiguous)."""
    out = _HandIn()
    if student.is_symlink():
        out.link = (f"{student.name} is a link to "
                    f"{_shown(student.resolve(), submissions)}, not a folder "
                    f"of its own: nothing in it is graded")
        out.skipped.append((student, "", out.link))
        return out
    stems = {x.stem: x for x in lessons}
    owned, refused = _search(student, submissions)
    candidates: dict[str, list[Path]] = {}
    seen: dict[Path, Path] = {}  # a file's real path -> how it was found
    for path in sorted(owned, key=lambda p: (p.is_symlink(), p)):
        real = path.resolve()
        if real in seen:
            out.aside.append((path, "", (
                f"it is the same file as {_shown(seen[real], submissions)}")))
            continue
        seen[real] = path
        said = _said(path)
        lesson, why = ((stems[said], "") if said in stems else
                       _by_name(path.name, lessons))
        if lesson is None:
            out.aside.append((path, "", why))
        else:
            candidates.setdefault(lesson.stem, []).append(path)
    elsewhere: dict[str, list[tuple[Path, str]]] = {}
    for path, why in refused:
        lesson, _ = _by_name(path.name, lessons)
        if lesson is None:
            out.aside.append((path, "", why))
        else:
            elsewhere.setdefault(lesson.stem, []).append((path, why))
    for stem, paths in candidates.items():
        named = [p for p in paths if p.name == f"{stem}.ipynb"]
        pool = named or paths
        if len(pool) == 1:
            chosen = out.chosen[stem] = pool[0]
            for other in paths:
                if other != chosen:
                    out.aside.append((other, stem, (
                        f"{_shown(chosen, submissions)} is graded for lesson "
                        f"{stem} instead")))
        else:
            listed = ", ".join(_shown(p, submissions) for p in pool)
            out.refused[stem] = (
                f"{len(pool)} notebooks could be lesson {stem} ({listed}) and "
                f"none was graded: name the one to grade {stem}.ipynb")
            out.skipped += [(p, stem, out.refused[stem]) for p in pool]
            out.aside += [(p, stem, f"{_shown(pool[0], submissions)} and "
                          f"others could be lesson {stem}") for p in paths
                          if p not in pool]
    for stem, items in elsewhere.items():
        if stem in candidates:
            out.aside += [(path, stem, why) for path, why in items]
        else:
            out.refused[stem] = "; ".join(
                f"{_shown(path, submissions)}: {why}" for path, why in items)
            out.skipped += [(path, stem, why) for path, why in items]
    out.skipped += out.aside
    return out


def grade_class(
    submissions: Path, seed: int | None = None, *, time_limit: float = 10.0,
    notebook_limit: float = 300.0, lessons: Iterable[str] | None = None,
    jobs: int = 2, notebooks: Path | None = None,
    progress: Callable[[Progress], object] | None = None,
    sandbox: bool = True,
) -> Report:
    """Grade every student's lesson notebooks in ``submissions``.

    A student's notebook is matched to a lesson of the course (the lessons
    in ``notebooks``, default the checkout's) by the lesson its metadata
    names, else by its name: the lesson's file name, or a copy's
    (``03-col2im-scatter-Copy1.ipynb``). Of several for one lesson the one
    named as the lesson is graded, and without it none is. Files the
    student does not own (links out of their folder) are never graded.
    Every file left out is in the report's ``skipped`` and has a
    ``not-graded`` row (or, when it was the lesson's only notebook, the
    lesson's rows are ``error`` and say why).

    A lesson is graded for every student when any student handed it in (a
    student without it gets ``not-attempted`` rows). ``time_limit`` bounds
    each call of an answer, ``notebook_limit`` each notebook's process
    (seconds, finite, above 0). ``lessons`` keeps only those lessons (number,
    stem or file name). ``jobs`` notebooks are graded at once, each in its
    own process; each student's lesson is graded on cases of its own
    (:func:`~convgrad.exercises.graded.case_seed` of ``seed``).
    ``progress(Progress)`` is called as each notebook starts and finishes.
    ``sandbox`` (the default) runs each in a bubblewrap sandbox
    (:mod:`.sealed`), and raises :class:`~.sealed.SandboxError` where none
    can be made; ``sandbox=False`` runs the student code without one.
    """
    from concurrent.futures import ThreadPoolExecutor

    from convgrad.exercises.graded import case_seed, grade_seed, points_for

    from .sealed import SandboxError, sandbox_problem

    submissions = Path(submissions)
    if not submissions.is_dir():
        raise ValueError(f"submissions must be a folder, got {submissions}")
    seed = grade_seed(seed)
    time_limit = _seconds("time_limit", time_limit)
    notebook_limit = _seconds("notebook_limit", notebook_limit)
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise TypeError(f"jobs must be an integer, got {jobs!r}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, got {progress!r}")
    if not isinstance(sandbox, bool):
        raise TypeError(f"sandbox must be True or False, got {sandbox!r}")
    if sandbox and (problem := sandbox_problem()) is not None:
        raise SandboxError(
            f"{problem}. Without a sandbox each student's code runs with "
            f"your rights and can read the other submissions: pass "
            f"--no-sandbox (sandbox=False) to grade without one anyway")
    every, keep = _course(notebooks, lessons)
    students = _students(submissions)
    handed = {s.name: _hand_in(s, submissions, every) for s in students}
    given = {stem for h in handed.values() for stem in [*h.chosen, *h.refused]}
    graded = [x for x in every
              if x.stem in given & keep and lesson_exercises(x.number)]
    shown = {x.stem for x in graded} | {""}
    skipped = [(path, why) for h in handed.values()
               for path, stem, why in h.skipped if stem in shown]
    slots: list[list[Row]] = []  # the rows, in order; a task fills its slot
    tasks: list[tuple[int, Path, str, list[str], Callable, int]] = []
    finished: list[tuple[Path, str, dict[str, str]]] = []  # unreadable ones
    unreadable: list[tuple[Path, str]] = []
    for student in students:
        mine = handed[student.name]

        def aside(stem: str, _s=student.name, _h=mine) -> list[Row]:
            return [Row(_s, stem, "", 0.0, 0.0, NOT_GRADED,
                        f"{_shown(path, submissions)}: {why}")
                    for path, lesson, why in _h.aside if lesson == stem]

        slots.append(aside(""))
        for lesson in graded:
            wanted = lesson_exercises(lesson.number)
            stem = lesson.stem

            def row(name, score, status, diagnosis, _s=student.name, _l=stem):
                return Row(_s, _l, name, score, float(points_for(name)),
                           status, diagnosis)

            path = mine.chosen.get(stem)
            why = mine.link or mine.refused.get(stem)
            if why is not None:
                slots.append([row(x, 0.0, "error", why) for x in wanted])
            elif path is None:
                slots.append([row(x, 0.0, "not-attempted",
                                  f"no {lesson.path.name} handed in")
                              for x in wanted])
            else:
                try:
                    nbformat.read(path, as_version=4)
                except Exception as err:  # not JSON, not a notebook
                    reason = f"the notebook could not be read: {_one_line(err)}"
                    unreadable.append((path, _one_line(err)))
                    slots.append([row(x, 0.0, "error", reason) for x in wanted])
                    finished.append((path, _shown(path, submissions),
                                     dict.fromkeys(wanted, "error")))
                else:
                    slots.append([])
                    tasks.append((len(slots) - 1, path,
                                  _shown(path, submissions), wanted, row,
                                  case_seed(seed, stem, student.name)))
            slots.append(aside(stem))
    total = len(tasks) + len(finished)
    done = 0
    for path, label, statuses in finished:
        done += 1
        if progress is not None:
            progress(Progress(done, total, label, path, statuses, ()))

    def graded_rows(task) -> list[Row]:
        index, path, _, wanted, row, lesson_seed = task
        events.put(("start", index))
        results = _grade_notebook(path, wanted, lesson_seed, time_limit,
                                  notebook_limit, sandbox=sandbox)
        return [row(name, results[name]["score"], results[name]["status"],
                    results[name]["diagnosis"]) for name in wanted]

    events: queue.SimpleQueue = queue.SimpleQueue()
    pool = ThreadPoolExecutor(max_workers=jobs)
    # the checker runs here, on what the workers send: its warnings (an
    # overflow in a learner's numbers) are no concern of the grade file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            futures = {}
            for task in tasks:
                future = futures[task[0]] = pool.submit(graded_rows, task)
                future.add_done_callback(
                    lambda _, index=task[0]: events.put(("done", index)))
            labels = {task[0]: (task[2], task[1]) for task in tasks}
            running: dict[int, str] = {}
            left = len(tasks)
            while left:
                kind, index = events.get()
                label, path = labels[index]
                statuses = None
                if kind == "start":
                    running[index] = label
                else:
                    slots[index] = futures[index].result()
                    statuses = {r.exercise: r.status for r in slots[index]}
                    running.pop(index, None)
                    left -= 1
                    done += 1
                if progress is not None:
                    progress(Progress(done, total, label, path, statuses,
                                      tuple(running.values())))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return Report([r for rows in slots for r in rows], unreadable, skipped)


def write_csv(rows: Iterable[Row], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            writer.writerow(row.cells())


def _points(value: float) -> str:
    return f"[{value:g} pt{'' if value == 1 else 's'}]"


def wide_table(rows: Iterable[Row], points_possible: bool = False
               ) -> list[list[str]]:
    """The grade file's rows as a gradebook an LMS imports: one row per
    student, a column per exercise (``03-col2im-scatter/col2im [1 pt]``),
    a total per lesson and an overall total. The first columns are Canvas's
    (``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``);
    ``Student`` and ``SIS Login ID`` hold the student's folder name. With
    ``points_possible``, a second row gives each column's points, as
    Canvas's own export does (Moodle takes no such row)."""
    rows = list(rows)
    for row in rows:
        if not isinstance(row, Row):
            raise TypeError(f"rows must hold Row objects, got {row!r:.60}")
    scores: dict[tuple[str, str, str], float] = {}
    tops: dict[str, dict[str, float]] = {}  # lesson -> exercise -> points
    for row in rows:
        if not row.exercise:  # a file that was not graded
            continue
        key = (row.student, row.lesson, row.exercise)
        if key in scores:
            raise ValueError(f"rows holds two grades of {row.student}'s "
                             f"{row.lesson}/{row.exercise}")
        scores[key] = row.score
        top = tops.setdefault(row.lesson, {})
        top[row.exercise] = max(top.get(row.exercise, 0.0), row.max_score)
    students = sorted({row.student for row in rows})
    header = list(WIDE_ID_COLUMNS)
    possible = [POINTS_POSSIBLE, "", "", "", ""]
    for lesson in sorted(tops):
        for exercise, top in tops[lesson].items():
            header.append(f"{lesson}/{exercise} {_points(top)}")
            possible.append(f"{top:g}")
        top = sum(tops[lesson].values())
        header.append(f"{lesson} total {_points(top)}")
        possible.append(f"{top:g}")
    top = sum(sum(x.values()) for x in tops.values())
    header.append(f"convgrad total {_points(top)}")
    possible.append(f"{top:g}")
    table = [header, *([possible] if points_possible else [])]
    for student in students:
        line = [student, "", "", student, ""]
        overall = 0.0
        for lesson in sorted(tops):
            total = 0.0
            for exercise in tops[lesson]:
                score = scores.get((student, lesson, exercise), 0.0)
                total += score
                line.append(f"{score:g}")
            line.append(f"{total:g}")
            overall += total
        line.append(f"{overall:g}")
        table.append(line)
    return table


def write_wide_csv(rows: Iterable[Row], path: Path, *,
                   points_possible: bool = False) -> None:
    """Write :func:`wide_table` of ``rows`` to ``path`` (UTF-8 CSV)."""
    table = wide_table(rows, points_possible)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(table)


def _grade_notebook(path: Path, wanted: list[str], seed: int,
                    time_limit: float, limit: float, *,
                    sandbox: bool = True) -> dict[str, dict]:
    """Each wanted exercise's result, from a sealed run of the notebook
    (:mod:`.sealed`): ``seed`` is the (lesson, student)'s derived seed."""
    from .sealed import grade_notebook

    return grade_notebook(path, wanted, seed, time_limit, limit,
                          sandbox=sandbox)
