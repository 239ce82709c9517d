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
  ``SUBMISSIONS/<student>/**/NN-title.ipynb`` (named as the student copies
  are). Each notebook runs in a process of its own with a time limit: its
  imports, definitions and exercise cells (not the views, training runs or
  practice checks), then each exercise function it defines through graded
  mode. :func:`write_csv` writes the rows.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import csv
import functools
import inspect
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import textwrap
import types
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from convgrad.exercises.submission import one_line as _one_line
from convgrad.exercises.submission import result as _result

from .lessons import LESSON_NAME, Lesson, find_lessons

CSV_COLUMNS = ("student", "lesson", "exercise", "score", "max_score", "status",
               "diagnosis")
STUB = "raise NotImplementedError"
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
c.ClearSolutions.code_stub = {{"python": "{stub}  # your code here"}}
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


def _free_names(nodes: list[ast.stmt], bound: set[str]) -> list[str]:
    import builtins

    stored = set(bound)
    loaded: list[str] = []
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                (stored.add if isinstance(sub.ctx, ast.Store) else
                 loaded.append)(sub.id)
            elif isinstance(sub, ast.arg):
                stored.add(sub.arg)
            elif isinstance(sub, ast.FunctionDef | ast.ClassDef):
                stored.add(sub.name)
            elif isinstance(sub, ast.alias):
                stored.add((sub.asname or sub.name).split(".")[0])
    return [x for x in dict.fromkeys(loaded)
            if x not in stored and not hasattr(builtins, x)]


def _parts(fn: types.FunctionType) -> tuple[ast.FunctionDef, list[str]]:
    source = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node, source.splitlines()


def _body(fn: types.FunctionType) -> tuple[list[str], list[ast.stmt]]:
    """The statement lines of ``fn``'s body (docstring left out), dedented."""
    node, lines = _parts(fn)
    body = node.body
    if (body and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        body = body[1:]
    start, end = body[0].lineno, body[-1].end_lineno or body[-1].lineno
    return textwrap.dedent("\n".join(lines[start - 1:end])).splitlines(), body


def _helper(fn: types.FunctionType) -> list[str]:
    """``fn``'s whole definition (no decorators, no annotations' imports)."""
    node, lines = _parts(fn)
    return lines[node.lineno - 1:node.end_lineno]


def solution_lines(name: str) -> list[str]:
    """The reference solution of ``name`` as body lines a notebook's own
    ``def`` can hold: the imports it needs, the helpers it calls (copied in,
    so the answer calls no solution of the library), then its body."""
    from convgrad.exercises import solution

    fn = solution(name)
    body, nodes = _body(fn)
    params = {a.arg for a in ast.walk(_parts(fn)[0].args)
              if isinstance(a, ast.arg)}
    imports: list[str] = []
    helpers: list[str] = []
    seen: set[str] = set()

    def need(names: Iterable[str], scope: dict) -> None:
        for free in names:
            if free in seen:
                continue
            seen.add(free)
            value = scope.get(free)
            if isinstance(value, types.ModuleType):
                parent, _, last = value.__name__.rpartition(".")
                imports.append(
                    f"import {free}" if value.__name__ == free else
                    f"from {parent} import {free}" if last == free else
                    f"import {value.__name__} as {free}")
            elif isinstance(value, types.FunctionType):
                node, _ = _parts(value)
                need(_free_names(node.body, {a.arg for a in ast.walk(node.args)
                                            if isinstance(a, ast.arg)}),
                     value.__globals__)
                helpers.extend([*_helper(value), ""])
            else:
                raise ValueError(
                    f"the solution of {name!r} uses {free!r}, which cannot be "
                    f"copied into a notebook")

    need(_free_names(nodes, params), fn.__globals__)
    return [*sorted(set(imports)), *([""] if imports else []), *helpers, *body]


def _solution_cell(cell: nbformat.NotebookNode, name: str) -> None:
    """Put the reference solution of ``name`` in place of the stub."""
    lines = cell.source.splitlines()
    tree = ast.parse(cell.source)
    node = next(n for n in tree.body
                if isinstance(n, ast.FunctionDef) and n.name == name)
    for number in range(node.lineno, (node.end_lineno or node.lineno) + 1):
        line = lines[number - 1]
        if line.strip().startswith(STUB):
            indent = line[: len(line) - len(line.lstrip())]
            block = [f"{indent}### BEGIN SOLUTION",
                     *[f"{indent}{x}" if x else "" for x in solution_lines(name)],
                     f"{indent}### END SOLUTION"]
            lines[number - 1:number] = block
            break
    else:
        raise ValueError(f"exercise {name!r}: its cell has no {STUB!r} stub")
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
    """What :func:`grade_class` found: the rows, and the files it could
    not read (path, reason)."""

    rows: list[Row]
    unreadable: list[tuple[Path, str]]


def _students(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith("."))


def _notebooks(student: Path) -> dict[str, Path]:
    """Lesson file name -> the student's notebook of that name."""
    found: dict[str, Path] = {}
    for path in sorted(student.rglob("*.ipynb")):
        if any(part.startswith(".") for part in path.relative_to(student).parts):
            continue  # .ipynb_checkpoints and the like
        if LESSON_NAME.match(path.name):
            found.setdefault(path.name, path)
    return found


def grade_class(
    submissions: Path, seed: int | None = None, *, time_limit: float = 10.0,
    notebook_limit: float = 300.0, lessons: Iterable[str] | None = None,
    jobs: int = 2,
) -> Report:
    """Grade every student's lesson notebooks in ``submissions``.

    A lesson is graded for every student when any student handed it in (a
    student without it gets ``not-attempted`` rows). ``time_limit`` bounds
    each call of an answer, ``notebook_limit`` each notebook's process
    (seconds). ``lessons`` keeps only those lesson file names or stems.
    ``jobs`` notebooks are graded at once, each in its own process.
    """
    from concurrent.futures import ThreadPoolExecutor

    from convgrad.exercises.graded import grade_seed, points_for

    submissions = Path(submissions)
    if not submissions.is_dir():
        raise ValueError(f"submissions must be a folder, got {submissions}")
    seed = grade_seed(seed)
    students = _students(submissions)
    handed = {s.name: _notebooks(s) for s in students}
    names = sorted({n for nbs in handed.values() for n in nbs})
    if lessons is not None:
        keep = set(lessons)
        names = [n for n in names if n in keep or n.removesuffix(".ipynb") in keep]
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    rows: list = []  # a Row, or a future of a notebook's rows
    unreadable: list[tuple[Path, str]] = []
    pool = ThreadPoolExecutor(max_workers=jobs)
    for student in students:
        for file in names:
            number = int(LESSON_NAME.match(file)["number"])
            wanted = lesson_exercises(number)
            lesson = file.removesuffix(".ipynb")
            path = handed[student.name].get(file)

            def row(name, score, status, diagnosis, _s=student.name, _l=lesson):
                return Row(_s, _l, name, score, float(points_for(name)),
                           status, diagnosis)

            if path is None:
                rows += [row(x, 0.0, "not-attempted", f"no {file} handed in")
                         for x in wanted]
                continue
            try:
                nbformat.read(path, as_version=4)
            except Exception as err:  # not JSON, not a notebook, unreadable
                reason = f"the notebook could not be read: {_one_line(err)}"
                unreadable.append((path, _one_line(err)))
                rows += [row(x, 0.0, "error", reason) for x in wanted]
                continue
            def graded(path=path, wanted=wanted, row=row) -> list[Row]:
                results = _grade_notebook(path, wanted, seed, time_limit,
                                          notebook_limit)
                return [row(name, results[name]["score"],
                            results[name]["status"], results[name]["diagnosis"])
                        for name in wanted]

            rows.append(pool.submit(graded))
    with pool:
        done = [x for item in rows
                for x in (item.result() if hasattr(item, "result") else [item])]
    return Report(done, unreadable)


def write_csv(rows: Iterable[Row], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            writer.writerow(row.cells())


def _grade_notebook(path: Path, wanted: list[str], seed: int,
                    time_limit: float, limit: float) -> dict[str, dict]:
    """Each wanted exercise's result, from worker processes: one for the
    notebook, and one more after each exercise that stopped its worker
    (past the time limit, or the process ended while grading it)."""
    results: dict[str, dict] = {}
    remaining = list(wanted)
    while remaining:
        run = _worker_run(path, remaining, seed, time_limit, limit)
        results.update(run.results)
        remaining = [x for x in remaining if x not in results]
        if not remaining:
            break
        blamed = run.current if run.current in remaining else None
        if blamed is None:  # it stopped before grading any of them
            why = (f"the notebook's imports and definitions did not finish "
                   f"within {limit:g} s" if run.timed_out else
                   f"the grading process stopped: {run.last}")
            for name in remaining:
                results[name] = _result("timeout" if run.timed_out else
                                        "error", why)
            break
        results[blamed] = (
            _result("timeout", f"grading {blamed} did not finish within "
                               f"{limit:g} s") if run.timed_out else
            _result("error", f"the grading process stopped while grading "
                             f"{blamed}: {run.last}"))
        remaining.remove(blamed)
    return results


@dataclass
class _Run:
    """One worker's run: its results, the exercise it was grading when it
    stopped (if any), whether the time limit stopped it, and the last line
    it wrote to stderr."""

    results: dict[str, dict]
    current: str | None
    timed_out: bool
    last: str


def _worker_run(path: Path, names: list[str], seed: int, time_limit: float,
                limit: float) -> _Run:
    """Grade ``names`` in ``path`` in one worker process."""
    import convgrad

    with tempfile.TemporaryDirectory(prefix="convgrad-grade-") as tmp:
        out, err = Path(tmp) / "results.jsonl", Path(tmp) / "stderr.txt"
        env = dict(os.environ)
        # the worker reads the seed and drops it before any student code runs
        env["CONVGRAD_GRADE_SEED"] = str(seed)
        package = str(Path(convgrad.__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(
            [package, *filter(None, [env.get("PYTHONPATH")])])
        env["PYTHONWARNINGS"] = "ignore"
        env.setdefault("MPLBACKEND", "Agg")
        command = [sys.executable, "-m", "convgrad.exercises.submission",
                   str(path.resolve()), str(out), "--time-limit",
                   str(time_limit), *names]
        with open(err, "wb") as stderr:
            proc = subprocess.Popen(
                command, cwd=path.parent, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr,
                start_new_session=True)
            try:
                proc.wait(timeout=limit)
                timed_out = False
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                timed_out = True
        results: dict[str, dict] = {}
        current = None
        text = out.read_text(encoding="utf-8") if out.exists() else ""
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # a line cut short by the kill
                continue
            if "start" in record:
                current = record["start"]
            elif "name" in record:
                results[record.pop("name")] = record
                current = None
        tail = err.read_text(encoding="utf-8", errors="replace").strip()
    last = tail.splitlines()[-1] if tail else f"exit code {proc.returncode}"
    return _Run(results, current, timed_out, last)
