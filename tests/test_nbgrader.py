"""The whole round trip with real nbgrader, on a made-up class of three
(alice right, bob with two bugs, carol's notebook raises): generate,
release, fetch and submit (nbgrader's exchange), collect, autograde,
generate feedback; each
score and the feedback text are checked, and the grade command on the same
submissions gives the same grades. Also: a graded test cell, run in a fresh
kernel, writes nothing to stderr."""

from __future__ import annotations

import csv
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from grading_class import EXPECTED, LESSONS, STUDENTS, build_course
from sandbox import CLI_FLAGS
from tracked import lessons_folder

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SRC, env.get("PYTHONPATH")]))
    env.pop("CONVGRAD_GRADE_SEED", None)  # no kernel needs it
    env["PYTHONWARNINGS"] = "ignore"  # nbgrader's own SQLAlchemy warnings
    return env


def _nbgrader(course: Path, *args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args, "--force"],
                         cwd=course, env=_env(), capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout + run.stderr


def _text(path: Path) -> str:
    """An HTML page's text, tags dropped."""
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text()))


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    pytest.importorskip("nbgrader")
    made = build_course(tmp_path_factory.mktemp("nbgrader"))
    course = made.root
    _nbgrader(course, "generate_assignment", "*")  # every lesson of source/
    # release, fetch, answer, submit, collect: nbgrader's exchange
    tests = str(Path(__file__).parent)
    run = subprocess.run(
        [sys.executable, "-c",
         f"import sys; sys.path.insert(0, {tests!r}); import grading_class; "
         f"grading_class.through_the_exchange(*map(grading_class.Path, "
         f"{[str(course), str(course.parent / 'class')]!r}))"],
        env=_env(), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    for student in STUDENTS:
        for lesson in LESSONS:
            assert (course / "submitted" / student / lesson
                    / f"{lesson}.ipynb").is_file()
    _nbgrader(course, "autograde", "*")
    _nbgrader(course, "generate_feedback", "*")
    return made


def test_the_released_notebooks_hold_no_solution_and_no_seed(graded_class):
    course = graded_class.root
    for lesson in LESSONS:
        text = (course / "release" / lesson / f"{lesson}.ipynb").read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        assert "raise NotImplementedError  # your code here" in text
        assert 'grade(\\"' not in text  # the graded call is hidden
        assert str(graded_class.seed) not in text
        assert str(graded_class.lesson_seeds[lesson]) not in text
        # the source notebook holds the lesson's seed, and no other's
        source = (course / "source" / lesson / f"{lesson}.ipynb").read_text()
        assert f"seed={graded_class.lesson_seeds[lesson]}, points=" in source
    assert len({graded_class.lesson_seeds[x] for x in LESSONS}) == len(LESSONS)
    assert "CONVGRAD_GRADE_SEED" not in (course / "nbgrader_config.py"
                                         ).read_text()


def test_nbgrader_scores_each_exercise(graded_class):
    from nbgrader.api import Gradebook

    scores = {}
    url = f"sqlite:///{graded_class.root / 'gradebook.db'}"
    with Gradebook(url) as gradebook:
        for lesson in LESSONS:
            for student in STUDENTS:
                submission = gradebook.find_submission(lesson, student)
                for notebook in submission.notebooks:
                    for g in notebook.grades:
                        name = g.name.removeprefix("test_")
                        scores[(student, lesson, name)] = (g.score, g.max_score)
    assert scores == {key: (float(v[0]), float(v[1]))
                      for key, v in EXPECTED.items()}


def test_the_feedback_shows_the_diagnosis(graded_class):
    feedback = graded_class.root / "feedback"

    def page(student, lesson):
        return _text(feedback / student / lesson / f"{lesson}.html")

    bob = page("bob", "04-conv-backward")
    assert "conv2d_backward: 2/3 points (wrong)" in bob
    assert "each output: dx ✗ (no-crop)  dw ✓  db ✓" in bob
    assert "diagnosis [no-crop]" in bob
    assert "fix: pad both sides by p" in bob
    assert re.search(r"Score: 2\.0 / 3\.0", bob)
    bob11 = page("bob", "11-differentiate-the-backward")
    assert "conv_double_backward: 0/2 points (not attempted)" in bob11
    bob3 = page("bob", "03-col2im-scatter")
    assert "col2im: 0/1 points (wrong)" in bob3
    assert "diagnosis [no-crop]" in bob3
    carol = page("carol", "03-col2im-scatter")
    assert "NameError" in carol  # her cell raised ...
    # ... and the test says so, as the grade file does
    assert "col2im: 0/1 points (error)" in carol
    # (the printed report is wrapped at words: compare it unwrapped)
    assert ("col2im: the cell that defines col2im raised NameError: name "
            "'col' is not defined, before it defined col2im.") \
        in " ".join(carol.split())
    assert "conv_matrix: 0/1 points (not attempted)" in carol
    carol4 = page("carol", "04-conv-backward")
    assert "your function raised IndexError" in carol4
    alice = page("alice", "04-conv-backward")
    assert "conv2d_backward: passed all" in alice
    for student in STUDENTS:
        for lesson in LESSONS:
            text = page(student, lesson)
            assert str(graded_class.seed) not in text
            for seed in graded_class.lesson_seeds.values():
                assert str(seed) not in text
            # the hidden tests' source is not shown; their report is
            assert "HIDDEN TESTS" not in text and "cell_error" not in text
            assert re.search(r"\w+: \d+/\d+ points \(", text)


def test_no_kernel_nbgrader_starts_holds_a_seed(graded_class):
    for lesson in LESSONS:
        page = _text(graded_class.root / "feedback" / "alice" / lesson
                     / f"{lesson}.html")
        seen = page.split("the kernel's environment:", 1)[1]
        assert "'PATH'" in seen  # her cell printed the environment ...
        assert "CONVGRAD_GRADE_SEED" not in seen  # ... and found no seed
        assert str(graded_class.seed) not in seen


def test_the_grade_command_agrees_with_nbgrader(graded_class, tmp_path):
    out = tmp_path / "grades.csv"
    run = subprocess.run(
        [sys.executable, "-m", "convgrad.course", "grade", *CLI_FLAGS,
         str(graded_class.root / "submitted"), "--out", str(out),
         "--seed-file", str(graded_class.seed_file)],
        capture_output=True, text=True, env=_env(), timeout=600)
    assert run.returncode == 0, run.stderr
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(EXPECTED)
    label = {"passed": "passed", "wrong": "wrong", "error": "error",
             "not-attempted": "not attempted", "timeout": "stopped: time limit",
             "uses-library": "uses the library"}
    for row in rows:
        want = EXPECTED[(row["student"], row["lesson"], row["exercise"])]
        assert (float(row["score"]), float(row["max_score"]),
                row["status"]) == want[:3], row
        assert want[3] in row["diagnosis"]
        # nbgrader's feedback gives the same score and status
        lesson = row["lesson"]
        page = _text(graded_class.root / "feedback" / row["student"] / lesson
                     / f"{lesson}.html")
        assert (f"{row['exercise']}: {float(row['score']):g}/"
                f"{float(row['max_score']):g} points "
                f"({label[row['status']]})") in page, row


# --------------------------------------------------------------------------
# nothing on stderr, in a fresh kernel
# --------------------------------------------------------------------------

NOISY = '''\
def square_plus_backward(x, dy):
    import os
    import sys
    import warnings

    warnings.warn("a learner's warning", UserWarning, stacklevel=1)
    np.log(np.zeros(1))  # NumPy's RuntimeWarning
    print("debugging on stderr", file=sys.stderr)
    os.write(2, b"straight to file descriptor 2\\n")
    return 2 * x * dy + dy
'''


def test_a_graded_test_cell_writes_nothing_to_stderr(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    from convgrad.course.grading import test_cell

    monkeypatch.delenv("CONVGRAD_GRADE_SEED", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [SRC, os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("PYTHONWARNINGS", "always")  # every warning shown
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    cells = [
        "import numpy as np\n\nfrom convgrad import exercises",
        NOISY,
        test_cell("square_plus_backward", 1, 2718).source,
        # one that calls the library: the kernels load or compile in the cell
        "def col2im(col, input_size, kernel_size, stride=1, padding=0,\n"
        "           dilation=1):\n"
        "    from convgrad import F\n"
        "    n, c, k, _, oh, ow = col.shape\n"
        "    return F.fold(col.reshape(n, c * k * k, oh * ow), input_size,\n"
        "                  kernel_size, dilation, padding, stride).data",
        test_cell("col2im", 1, 2718).source,
        # a cell that raises before its def
        "print(undefined_here)\n\n\ndef conv_matrix(w, input_size, "
        "stride=1, padding=0):\n    return w\n",
        test_cell("conv_matrix", 1, 2718).source,
    ]
    nb.cells = [nbformat.v4.new_code_cell(x) for x in cells]
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [i for i, c in enumerate(nb.cells)
              if any(o.output_type == "error" for o in c.outputs)]
    assert errors == [5]
    for index in (2, 4, 6):
        outputs = nb.cells[index].outputs
        assert [o for o in outputs if o.get("name") == "stderr"] == [], outputs
    third = nb.cells[6].outputs
    # the report as printed: wrapped at words (display.wrap)
    assert "".join(o.get("text", "") for o in third).splitlines() == [
        "conv_matrix: 0/1 points (error)",
        "conv_matrix: the cell that defines conv_matrix raised NameError: name "
        "'undefined_here'",
        "    is not defined, before it defined conv_matrix. Fix that cell, run "
        "it, then this one."]
    assert [o.data["text/plain"] for o in third
            if o.output_type == "execute_result"] == ["0.0"]
    first, second = nb.cells[2].outputs, nb.cells[4].outputs
    text = "".join(o.get("text", "") for o in first)
    assert "square_plus_backward: 1/1 points (passed)" in text
    assert "debugging on stderr" in text
    assert [o.data["text/plain"] for o in first
            if o.output_type == "execute_result"] == ["1.0"]
    assert "(uses the library)" in "".join(o.get("text", "") for o in second)
    assert [o.data["text/plain"] for o in second
            if o.output_type == "execute_result"] == ["0.0"]


def test_nbgrader_generates_all_thirteen_lessons(tmp_path):
    pytest.importorskip("nbgrader")
    from convgrad.course.grading import write_assignments
    from convgrad.course.lessons import find_lessons

    made = write_assignments(tmp_path / "course", find_lessons(lessons_folder()))
    _nbgrader(made.root, "generate_assignment", "*")
    released = sorted((made.root / "release").glob("*/*.ipynb"))
    assert [p.name for p in released] == [p.name for p in made.notebooks]
    assert len(released) == 13
    for path in released:
        text = path.read_text()
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
        tests = [c for c in nbformat.read(path, as_version=4).cells
                 if c.metadata.get("nbgrader", {}).get("grade")]
        names = {c.metadata.nbgrader.grade_id.removeprefix("test_")
                 for c in tests}
        assert names == {n for n, p in made.points.items()
                         if f'"{n}"' in (made.root / "source" / path.parent.name
                                         / path.name).read_text()}
