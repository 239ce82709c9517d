"""The course an instructor grades: ``course assignments`` writes an
nbgrader source course of the lessons; ``course grade`` grades a folder of
submissions into a CSV file, one process per notebook."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from grading_class import EXPECTED, build_course, dave, hand_in
from sandbox import CLI_FLAGS, SANDBOX
from tracked import lessons_folder

from convgrad.course import student_copy
from convgrad.course.grading import (
    CSV_COLUMNS,
    grade_class,
    write_assignments,
)
from convgrad.course.lessons import find_lessons
from convgrad.course.student import find_leaks
from convgrad.course.submission import run_definitions
from convgrad.exercises import EXERCISES, grade
from convgrad.exercises.graded import case_seed

SRC = str(Path(__file__).resolve().parents[1] / "src")
CHECK = re.compile(r'^exercises\.check\("(\w+)", (\w+)\)', re.M)


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SRC, env.get("PYTHONPATH")]))
    env.pop("CONVGRAD_GRADE_SEED", None)
    return env


def _cells_of(nb):
    return [(c.cell_type, c.source) for c in nb.cells]


@pytest.fixture(scope="module")
def every_lesson(tmp_path_factory):
    out = tmp_path_factory.mktemp("assignments")
    made = write_assignments(out, find_lessons(lessons_folder()))
    return out, made


def test_the_assignments_cover_all_thirteen_lessons(every_lesson):
    out, made = every_lesson
    lessons = find_lessons(lessons_folder())
    assert len(lessons) == 13
    assert [p.relative_to(out).as_posix() for p in made.notebooks] == [
        f"source/{x.stem}/{x.path.name}" for x in lessons]
    seed = str(made.seed)
    assert (out / "grading-seed.txt").read_text().strip() == seed
    # each lesson's hidden tests hold the lesson's own seed, derived from
    # the secret; no two lessons share one
    assert made.lesson_seeds == {x.stem: case_seed(made.seed, x.stem)
                                 for x in lessons}
    assert len(set(made.lesson_seeds.values())) == 13
    graded = []
    for lesson, path in zip(lessons, made.notebooks, strict=True):
        original, nb = lesson.read(), nbformat.read(path, as_version=4)
        # the exercises, found independently: each practice check line
        asked = [m[1] for c in original.cells if c.cell_type == "code"
                 for m in CHECK.finditer(c.source)]
        tests = [c for c in nb.cells
                 if c.metadata.get("nbgrader", {}).get("grade")]
        assert len(nb.cells) == len(original.cells) + len(asked)
        assert [c.metadata.nbgrader.grade_id for c in tests] == [
            f"test_{x}" for x in asked]
        for name in asked:
            index = next(i for i, c in enumerate(nb.cells)
                         if c.metadata.get("nbgrader", {}).get("grade_id") == name)
            cell, test = nb.cells[index], nb.cells[index + 1]
            meta = cell.metadata.nbgrader
            assert meta.solution and not meta.grade and not meta.locked
            body = cell.source.split("### BEGIN SOLUTION\n")[1]
            assert "### END SOLUTION" in body
            assert "raise NotImplementedError" not in cell.source
            t = test.metadata.nbgrader
            assert t.grade and t.locked and not t.solution
            assert t.points == len(EXERCISES[name].outputs)
            hidden = test.source.split("### BEGIN HIDDEN TESTS\n")[1]
            assert hidden.rstrip().endswith("### END HIDDEN TESTS")
            mine = made.lesson_seeds[lesson.stem]
            assert (f'grade("{name}", globals().get("{name}"),\n'
                    f"      seed={mine}, points={t.points},\n"
                    f'      raised=cell_error("{name}")).score') in hidden
            assert max(len(x) for x in test.source.splitlines()) <= 79
        # no notebook holds the secret; the lesson's seed is only in the
        # hidden tests (which nbgrader removes from the released copy)
        text = path.read_text()
        assert not re.search(rf"\b{seed}\b", text)
        mine = str(made.lesson_seeds[lesson.stem])
        shown = "\n".join(c.source.split("### BEGIN HIDDEN TESTS")[0]
                          for c in nb.cells)
        assert (mine in text) == bool(asked) and mine not in shown
        for other, theirs in made.lesson_seeds.items():
            assert other == lesson.stem or str(theirs) not in text
        # our own student copy strips the solutions these cells hold
        assert find_leaks(student_copy(nb, path.name)) == []
        graded += asked
    assert len(graded) == len(set(graded)) >= 17
    # nbgrader's configuration: the stub the student copies have, no seed
    # for the kernels' environment, the hidden tests kept out of the feedback
    config = {}
    namespace = {"get_config": lambda: _Config(config),
                 "__file__": str(out / "nbgrader_config.py")}
    text = (out / "nbgrader_config.py").read_text()
    assert "CONVGRAD_GRADE_SEED" not in text and "environ" not in text
    before = dict(os.environ)
    exec(text, namespace)
    assert dict(os.environ) == before
    assert config["CourseDirectory.root"] == str(out.resolve())
    assert config["ClearSolutions.code_stub"] == {
        "python": "raise NotImplementedError  # your code here"}
    assert "nbgrader.preprocessors.ClearHiddenTests" in config[
        "GenerateFeedback.preprocessors"]


class _Config:
    """Enough of traitlets' config object to run nbgrader_config.py."""

    def __init__(self, store, prefix=""):
        object.__setattr__(self, "_store", store)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, key):
        return _Config(self._store, f"{self._prefix}{key}.")

    def __setattr__(self, key, value):
        self._store[f"{self._prefix}{key}"] = value


def test_each_source_solution_passes_graded_mode(every_lesson):
    _, made = every_lesson
    for path in made.notebooks:
        nb = nbformat.read(path, as_version=4)
        names = [c.metadata.nbgrader.grade_id for c in nb.cells
                 if c.metadata.get("nbgrader", {}).get("solution")]
        namespace, failures = run_definitions(_cells_of(nb), names, path.name)
        assert failures == {}
        for name in names:
            graded = grade(name, namespace[name], quiet=True,
                           seed=made.lesson_seeds[path.parent.name])
            assert graded.status == "passed", graded.message


# --------------------------------------------------------------------------
# the grade command on the class
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def the_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    made = build_course(root)

    def released(lesson):  # our own stripping, as nbgrader's release does
        return student_copy(nbformat.read(
            made.root / "source" / lesson / f"{lesson}.ipynb", as_version=4))

    subs = hand_in(root / "submissions", made.root, released)
    (subs / "dave").mkdir()
    (subs / "dave" / "03-col2im-scatter.ipynb").write_text('{"cells": [ oops')
    for lesson in ("04-conv-backward", "11-differentiate-the-backward"):
        nbformat.write(dave(lesson, released(lesson)),
                       subs / "dave" / f"{lesson}.ipynb")
    return made, subs


DAVE = {
    ("dave", "03-col2im-scatter", "col2im"): (
        0, 1, "error", "the notebook could not be read: NotJSONError"),
    ("dave", "03-col2im-scatter", "conv_matrix"): (
        0, 1, "error", "the notebook could not be read: NotJSONError"),
    ("dave", "04-conv-backward", "conv2d_backward"): (
        0, 3, "timeout", "diagnosis [time-limit]"),
    ("dave", "11-differentiate-the-backward", "conv_double_backward"): (
        0, 2, "uses-library", "it called convgrad's kernels"),
    ("dave", "03-col2im-scatter", "adjoint_gap"): (
        0, 1, "error", "the notebook could not be read: NotJSONError"),
    ("dave", "04-conv-backward", "grad_check"): (
        0, 1, "not-attempted", "not attempted yet"),
    ("dave", "04-conv-backward", "dx_by_conv2d"): (
        0, 1, "not-attempted", "not attempted yet"),
    ("dave", "04-conv-backward", "dw_by_correlation"): (
        0, 1, "not-attempted", "not attempted yet"),
    ("dave", "11-differentiate-the-backward", "hessian_vector_product"): (
        0, 1, "not-attempted", "not attempted yet"),
}


def test_the_grade_command_writes_the_grade_file(the_class, tmp_path):
    made, subs = the_class
    out = tmp_path / "grades.csv"
    run = subprocess.run(
        [sys.executable, "-m", "convgrad.course", "grade", *CLI_FLAGS, str(subs),
         "--out", str(out), "--seed-file", str(made.seed_file),
         # dave's conv2d_backward loops forever; every other answer stays
         # well inside 5 s, even on a loaded machine (1 s was hit once)
         "--time-limit", "5", "--notebook-limit", "120"],
        capture_output=True, text=True, env=_env(), timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    bad = subs / "dave" / "03-col2im-scatter.ipynb"
    assert f"could not read {bad}: NotJSONError" in run.stdout
    with open(out, newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert tuple(table[0]) == CSV_COLUMNS
    expected = {**EXPECTED, **DAVE}
    assert len(table) - 1 == len(expected)
    for student, lesson, exercise, score, top, status, diagnosis in table[1:]:
        want = expected[(student, lesson, exercise)]
        assert (float(score), float(top), status) == want[:3], (
            student, exercise, diagnosis)
        if want[3]:
            assert want[3] in diagnosis, (student, exercise, diagnosis)
        else:
            assert diagnosis == ""
    # one row per exercise, by student and lesson, each lesson's exercises
    # in the notebook's order
    assert sorted(tuple(r[:3]) for r in table[1:]) == sorted(expected)
    assert [tuple(r[:2]) for r in table[1:]] == sorted(
        tuple(r[:2]) for r in table[1:])


def _one_notebook(folder: Path, col2im: str, conv_matrix: str) -> Path:
    """A lesson-03 notebook of two code cells."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np"),
                nbformat.v4.new_code_cell(col2im),
                nbformat.v4.new_code_cell(conv_matrix)]
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "03-col2im-scatter.ipynb")
    return folder


RIGHT_CONV_MATRIX = """\
def conv_matrix(w, input_size, stride=1, padding=0):
    from convgrad import geometry
    k = w.shape[0]
    h, wd = input_size
    oh, ow = geometry.window((h, wd), k, stride, padding, 1).out
    out = np.zeros((oh * ow, h * wd), dtype=w.dtype)
    for i, j, ki, kj in np.ndindex(oh, ow, k, k):
        r, q = i * stride - padding + ki, j * stride - padding + kj
        if 0 <= r < h and 0 <= q < wd:
            out[i * ow + j, r * wd + q] += w[ki, kj]
    return out
"""


def test_a_notebook_past_its_time_limit_still_gets_its_rows(tmp_path):
    # erin's col2im disarms the alarm and never returns: the grader stops
    # her worker from outside at the call's time limit all the same; her
    # conv_matrix is graded after it, in a fresh worker
    # frank's notebook never finishes defining its functions
    subs = tmp_path / "subs"
    _one_notebook(subs / "erin", (
        "import signal\n\n\n"
        "def col2im(col, input_size, kernel_size, stride=1, padding=0,\n"
        "           dilation=1):\n"
        "    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    while True:\n"
        "        pass\n"), RIGHT_CONV_MATRIX)
    _one_notebook(subs / "frank", "while True:\n    pass\n\n\ndef col2im():\n"
                  "    pass\n", RIGHT_CONV_MATRIX)
    # hana's col2im ends the process; ines's conv_matrix calls sys.exit()
    _one_notebook(subs / "hana", (
        "import os\n\n\n"
        "def col2im(col, input_size, kernel_size, stride=1, padding=0,\n"
        "           dilation=1):\n"
        "    os._exit(3)\n"), RIGHT_CONV_MATRIX)
    _one_notebook(subs / "ines", "import sys\n", (
        "def conv_matrix(w, input_size, stride=1, padding=0):\n"
        "    sys.exit('done')\n"))
    report = grade_class(subs, seed=5, time_limit=1, notebook_limit=12, sandbox=SANDBOX)
    rows = {(r.student, r.exercise): r for r in report.rows}
    assert rows["hana", "col2im"].status == "error"
    assert "stopped while grading col2im" in rows["hana", "col2im"].diagnosis
    assert rows["hana", "conv_matrix"].status == "passed"
    assert rows["ines", "conv_matrix"].status == "error"
    assert "raised SystemExit: done" in rows["ines", "conv_matrix"].diagnosis
    assert rows["ines", "col2im"].status == "not-attempted"
    assert rows["erin", "col2im"].status == "timeout"
    assert "your function ran 1 s on case 1" in rows["erin", "col2im"].diagnosis
    assert rows["erin", "conv_matrix"].status == "passed"
    assert rows["erin", "conv_matrix"].score == 1.0
    assert rows["frank", "col2im"].status == "timeout"
    assert rows["frank", "conv_matrix"].status == "timeout"
    assert "imports and definitions" in rows["frank", "conv_matrix"].diagnosis


def test_the_worker_keeps_the_seed_from_student_code(tmp_path):
    """The seed reaches the worker in its environment, and is gone before
    the notebook's code runs."""
    folder = _one_notebook(tmp_path / "subs" / "gina", (
        "import os\n"
        "SEEN = os.environ.get('CONVGRAD_GRADE_SEED')\n\n\n"
        "def col2im(col, input_size, kernel_size, stride=1, padding=0,\n"
        "           dilation=1):\n"
        "    assert SEEN is None, SEEN\n"
        "    raise NotImplementedError\n"), RIGHT_CONV_MATRIX)
    report = grade_class(folder.parent, seed=31337, notebook_limit=60, sandbox=SANDBOX)
    rows = {r.exercise: r for r in report.rows}
    assert rows["col2im"].status == "not-attempted", rows["col2im"].diagnosis


def test_grade_needs_a_seed_and_a_folder(tmp_path):
    env = _env()
    run = subprocess.run(
        [sys.executable, "-m", "convgrad.course", "grade", *CLI_FLAGS, str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 2
    assert "CONVGRAD_GRADE_SEED" in run.stderr
    with pytest.raises(ValueError, match="submissions must be a folder"):
        grade_class(tmp_path / "nowhere", seed=1, sandbox=SANDBOX)


