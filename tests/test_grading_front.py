"""The grade command's front end (#40): which files are graded as which
lesson, links out of a student's folder, the limits, the wide grade table
an LMS imports, and progress.

Most tests replace the grading of one notebook (``_grade_notebook``, a
worker process) by a stand-in that records its calls, since they are about
what is graded, not how; one test runs the command for real on two tiny
notebooks."""

from __future__ import annotations

import csv
import io
import math
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from grading_class import COL2IM_NO_CROP, _replace_body
from sandbox import CLI_FLAGS, SANDBOX
from tracked import lessons_folder

from convgrad.course import __main__ as cli
from convgrad.course import grading, student_copy, write_student_copies
from convgrad.course.grading import (
    CSV_COLUMNS,
    NOT_GRADED,
    ROW_STATUSES,
    WIDE_ID_COLUMNS,
    Progress,
    Row,
    assignment,
    grade_class,
    lesson_exercises,
    wide_table,
    write_wide_csv,
)
from convgrad.course.lessons import find_lessons
from convgrad.exercises.graded import case_seed, points_for

SRC = str(Path(__file__).resolve().parents[1] / "src")
L03, L04 = "03-col2im-scatter", "04-conv-backward"


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _notebook(path: Path, *sources: str, lesson: str | None = None) -> Path:
    """A notebook of code cells at ``path``; ``lesson`` is the identity a
    student copy carries in its metadata."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources or ["x = 1"]]
    if lesson is not None:
        nb.metadata["convgrad"] = {"lesson": lesson}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture
def graded(monkeypatch):
    """``_grade_notebook`` replaced: every call recorded as (path, wanted,
    seed); col2im and conv2d_backward pass, every other exercise is
    wrong."""
    calls: list[tuple[Path, tuple[str, ...], int]] = []

    def grade_notebook(path, wanted, seed, time_limit, limit, *, sandbox):
        assert sandbox is SANDBOX
        calls.append((Path(path), tuple(wanted), seed))
        right = {"col2im", "conv2d_backward"}
        return {n: {"status": "passed" if n in right else "wrong",
                    "score": float(points_for(n)) if n in right else 0.0,
                    "diagnosis": "" if n in right else f"{n} is wrong"}
                for n in wanted}

    monkeypatch.setattr(grading, "_grade_notebook", grade_notebook)
    return calls


def _rows(report, student, lesson=None):
    return [r for r in report.rows if r.student == student
            and (lesson is None or r.lesson == lesson)]


def _statuses(report, student, lesson):
    return {r.exercise: r.status for r in _rows(report, student, lesson)}


# --------------------------------------------------------------------------
# files a student does not own
# --------------------------------------------------------------------------


def test_a_link_to_another_students_notebook_is_never_graded(tmp_path, graded):
    subs = tmp_path / "subs"
    eve = _notebook(subs / "eve" / f"{L03}.ipynb")
    (subs / "zed").mkdir()
    (subs / "zed" / f"{L03}.ipynb").symlink_to(Path("..") / "eve" / eve.name)
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert [c[0] for c in graded] == [eve]  # zed's link never reached a worker
    zed = _rows(report, "zed", L03)
    assert [r.exercise for r in zed] == lesson_exercises(3)
    for row in zed:
        assert (row.status, row.score) == ("error", 0.0)
        assert row.diagnosis == (
            f"zed/{L03}.ipynb: it is a link to eve/{L03}.ipynb, a file outside "
            f"zed/: only files in the student's own folder are graded")
    assert report.skipped == [(subs / "zed" / f"{L03}.ipynb",
                               zed[0].diagnosis.split(": ", 1)[1])]
    assert _statuses(report, "eve", L03)["col2im"] == "passed"


def test_a_linked_folder_out_of_the_student_folder_is_not_searched(
        tmp_path, graded):
    subs = tmp_path / "subs"
    eve = _notebook(subs / "eve" / "work" / f"{L03}.ipynb")
    _notebook(subs / "zed" / f"{L04}.ipynb")
    (subs / "zed" / "work").symlink_to(Path("..") / "eve" / "work")
    # a link to a folder inside one's own folder is fine: its files are
    # found where they are, once
    (subs / "zed" / "again").symlink_to(".")
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert sorted(c[0] for c in graded) == [eve, subs / "zed" / f"{L04}.ipynb"]
    assert {r.status for r in _rows(report, "zed", L03)} == {"error"}
    assert _rows(report, "zed", L03)[0].diagnosis.startswith(
        f"zed/work/{L03}.ipynb: it is under zed/work, a link to eve/work, a "
        f"folder outside zed/")
    assert _statuses(report, "zed", L04)["conv2d_backward"] == "passed"
    assert [p for p, _ in report.skipped] == [
        subs / "zed" / "work" / f"{L03}.ipynb"]


def test_a_student_folder_that_is_a_link_is_refused(tmp_path, graded):
    subs = tmp_path / "subs"
    _notebook(subs / "eve" / f"{L03}.ipynb")
    (subs / "mallory").symlink_to("eve")
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert len(graded) == 1  # eve's notebook, once
    rows = _rows(report, "mallory")
    assert [r.status for r in rows] == ["error"] * len(lesson_exercises(3))
    assert rows[0].diagnosis == (
        "mallory is a link to eve, not a folder of its own: nothing in it is "
        "graded")
    assert report.skipped == [(subs / "mallory", rows[0].diagnosis)]


def test_a_link_inside_the_student_folder_is_the_students_own(tmp_path,
                                                              graded):
    subs = tmp_path / "subs"
    real = _notebook(subs / "ann" / "drafts" / f"{L03}.ipynb")
    (subs / "ann" / f"{L03}.ipynb").symlink_to(Path("drafts") / real.name)
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert [c[0] for c in graded] == [real]  # graded once, not twice
    assert _statuses(report, "ann", L03)["col2im"] == "passed"
    (aside,) = [r for r in report.rows if r.status == NOT_GRADED]
    assert aside.diagnosis == (f"ann/{L03}.ipynb: it is the same file as "
                               f"ann/drafts/{L03}.ipynb")


# --------------------------------------------------------------------------
# matching notebooks to lessons
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", [
    f"{L03}-Copy1.ipynb", f"{L03}-final.ipynb", f"{L03} (1).ipynb",
    f"{L03.upper()}.ipynb"])
def test_a_copy_under_a_jupyterlab_name_is_graded_as_its_lesson(
        tmp_path, graded, name):
    subs = tmp_path / "subs"
    path = _notebook(subs / "ann" / name)
    _notebook(subs / "bob" / "notes.ipynb")
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert [c[0] for c in graded] == [path]
    # the lesson is the real one, for everyone: no lesson named after the file
    assert {r.lesson for r in report.rows if r.exercise} == {L03}
    assert _statuses(report, "ann", L03)["col2im"] == "passed"
    assert {r.status for r in _rows(report, "bob", L03)} == {"not-attempted"}


def test_the_real_name_wins_and_the_others_are_named(tmp_path, graded):
    subs = tmp_path / "subs"
    real = _notebook(subs / "ann" / f"{L03}.ipynb")
    _notebook(subs / "ann" / f"{L03}-final.ipynb")
    _notebook(subs / "ann" / "old" / f"{L03}-Copy1.ipynb")
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert [c[0] for c in graded] == [real]
    aside = [r for r in report.rows if r.status == NOT_GRADED]
    assert [(r.lesson, r.exercise, r.score, r.max_score) for r in aside] == [
        (L03, "", 0.0, 0.0)] * 2
    assert sorted(r.diagnosis for r in aside) == [
        f"ann/{L03}-final.ipynb: ann/{L03}.ipynb is graded for lesson {L03} "
        f"instead",
        f"ann/old/{L03}-Copy1.ipynb: ann/{L03}.ipynb is graded for lesson {L03} "
        f"instead"]
    assert sorted(p.name for p, _ in report.skipped) == [
        f"{L03}-Copy1.ipynb", f"{L03}-final.ipynb"]


def test_two_copies_without_the_real_name_are_ambiguous(tmp_path, graded):
    subs = tmp_path / "subs"
    _notebook(subs / "ann" / f"{L03}-Copy1.ipynb")
    _notebook(subs / "ann" / f"{L03}-Copy2.ipynb")
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert graded == []
    rows = _rows(report, "ann", L03)
    assert [r.exercise for r in rows] == lesson_exercises(3)
    assert {r.status for r in rows} == {"error"}
    assert rows[0].diagnosis == (
        f"2 notebooks could be lesson {L03} (ann/{L03}-Copy1.ipynb, "
        f"ann/{L03}-Copy2.ipynb) and none was graded: name the one to grade "
        f"{L03}.ipynb")
    assert len(report.skipped) == 2


def test_no_lesson_is_invented_from_a_file_name(tmp_path, graded):
    subs = tmp_path / "subs"
    _notebook(subs / "ann" / f"{L04}.ipynb")
    for name in ("14-extra-credit.ipynb", "03-my-notes.ipynb", "scratch.ipynb",
                 "3-col2im-scatter.ipynb"):
        _notebook(subs / "ann" / name)
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert len(graded) == 1
    assert {r.lesson for r in report.rows} == {"", L04}
    reasons = {r.diagnosis.split(": ", 1)[0]: r.diagnosis.split(": ", 1)[1]
               for r in report.rows if r.status == NOT_GRADED}
    assert reasons == {
        "ann/14-extra-credit.ipynb": "the course has no lesson 14",
        "ann/03-my-notes.ipynb": (f"lesson 03 is {L03}.ipynb: a copy's name "
                                  f"must start with {L03}"),
        "ann/scratch.ipynb": ("its name is no lesson's (they are named like "
                              "03-col2im-scatter.ipynb) and it does not say "
                              "which lesson it is"),
        "ann/3-col2im-scatter.ipynb": ("its name is no lesson's (they are "
                                       "named like 03-col2im-scatter.ipynb) "
                                       "and it does not say which lesson it "
                                       "is"),
    }
    assert all(r.status in ROW_STATUSES for r in report.rows)
    assert len(report.skipped) == 4


def test_the_lesson_a_notebook_says_it_is_comes_before_its_name(tmp_path,
                                                                 graded):
    subs = tmp_path / "subs"
    mine = _notebook(subs / "ann" / "homework.ipynb", lesson=L04)
    # saved under lesson 03's name, but it is lesson 04's copy
    other = _notebook(subs / "bob" / f"{L03}.ipynb", lesson=L04)
    # an identity that names no lesson: the name decides
    third = _notebook(subs / "cy" / f"{L03}.ipynb", lesson="99-gone")
    report = grade_class(subs, seed=3, sandbox=SANDBOX)
    assert sorted(c[0] for c in graded) == sorted([mine, other, third])
    assert {(c[0].parent.name, c[1]) for c in graded} == {
        ("ann", tuple(lesson_exercises(4))), ("bob", tuple(lesson_exercises(4))),
        ("cy", tuple(lesson_exercises(3)))}
    assert _statuses(report, "ann", L04)["conv2d_backward"] == "passed"
    assert {r.status for r in _rows(report, "ann", L03)} == {"not-attempted"}


def test_each_student_and_lesson_is_graded_on_cases_of_its_own(tmp_path,
                                                              graded):
    subs = tmp_path / "subs"
    for student in ("ann", "bob"):
        for lesson in (L03, L04):
            _notebook(subs / student / f"{lesson}.ipynb")
    grade_class(subs, seed=77, jobs=1, sandbox=SANDBOX)
    seeds = {(c[0].parent.name, c[0].stem): c[2] for c in graded}
    assert seeds == {(s, lesson): case_seed(77, lesson, s)
                     for s in ("ann", "bob") for lesson in (L03, L04)}
    assert len(set(seeds.values())) == 4


def test_only_lessons_of_the_course_can_be_picked(tmp_path, graded):
    subs = tmp_path / "subs"
    _notebook(subs / "ann" / f"{L03}.ipynb")
    _notebook(subs / "ann" / f"{L04}-Copy1.ipynb")
    _notebook(subs / "ann" / f"{L04}.ipynb")
    report = grade_class(subs, seed=3, lessons=["04"], sandbox=SANDBOX)
    assert [c[0].name for c in graded] == [f"{L04}.ipynb"]
    assert {r.lesson for r in report.rows} == {L04}
    with pytest.raises(ValueError, match=r"lessons must name lessons.*'14'"):
        grade_class(subs, seed=3, lessons=["14"], sandbox=SANDBOX)


def test_student_copies_say_which_lesson_they_are(tmp_path):
    (lesson,) = find_lessons(lessons_folder(), only=["03"])
    (path,) = write_student_copies(tmp_path / "copies", [lesson])
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata["convgrad"] == {"lesson": L03}
    nbformat.validate(nb)
    # a notebook that is no lesson gets no identity
    assert "convgrad" not in student_copy(lesson.read(), "x.ipynb").metadata
    # the lessons themselves carry none; the nbgrader assignment does
    assert "convgrad" not in lesson.read().metadata
    assert assignment(lesson, 7).metadata["convgrad"] == {"lesson": L03}


# --------------------------------------------------------------------------
# limits
# --------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--time-limit", "--notebook-limit"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "-inf", "ten"])
def test_the_command_refuses_a_bad_time_limit(tmp_path, capsys, flag, value):
    with pytest.raises(SystemExit) as stop:
        cli.main(["grade", *CLI_FLAGS, str(tmp_path), "--seed", "1", f"{flag}={value}"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: must be" in err
    assert value in err


@pytest.mark.parametrize("value", ["0", "-2", "1.5"])
def test_the_command_refuses_a_bad_jobs(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as stop:
        cli.main(["grade", *CLI_FLAGS, str(tmp_path), "--seed", "1", f"--jobs={value}"])
    assert stop.value.code == 2
    assert "argument --jobs: must be" in capsys.readouterr().err


def test_inf_is_no_time_for_any_command():
    parse = cli._at_least_one(float)
    assert parse("2.5") == 2.5
    for text in ("inf", "Infinity", "nan", "0", "-3"):
        with pytest.raises(Exception, match="finite number above 0"):
            parse(text)


@pytest.mark.parametrize("name", ["time_limit", "notebook_limit"])
@pytest.mark.parametrize("value", [0, -1, 0.0, math.nan, math.inf])
def test_grade_class_refuses_a_bad_time_limit(tmp_path, graded, name, value):
    with pytest.raises(ValueError, match=f"^{name} must be a finite number"):
        grade_class(tmp_path, seed=1, **{name: value}, sandbox=SANDBOX)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"time_limit": "5"}, TypeError, "time_limit must be a number"),
    ({"notebook_limit": True}, TypeError, "notebook_limit must be a number"),
    ({"jobs": 0}, ValueError, "jobs must be at least 1"),
    ({"jobs": 1.5}, TypeError, "jobs must be an integer"),
    ({"progress": "yes"}, TypeError, "progress must be callable"),
    ({"sandbox": "no"}, TypeError, "sandbox must be True or False"),
    ({"lessons": "03"}, TypeError, "lessons must be a list"),
])
def test_grade_class_names_the_bad_parameter(tmp_path, graded, kwargs, error,
                                             match):
    with pytest.raises(error, match=match):
        grade_class(tmp_path, seed=1, **{"sandbox": SANDBOX, **kwargs})


# --------------------------------------------------------------------------
# the wide table
# --------------------------------------------------------------------------


def _long_rows() -> list[Row]:
    rows = []
    for student, scores in (("bob", (1, 0, 0.5)), ("ann", (0, 1, 1))):
        for name, score in zip(("col2im", "conv_matrix", "adjoint_gap"), scores,
                               strict=True):
            rows.append(Row(student, L03, name, score, 1.0, "passed", ""))
        rows.append(Row(student, L04, "conv2d_backward", 2.0 if student == "bob"
                        else 0.0, 3.0, "wrong", "dx"))
    rows.append(Row("ann", "", "", 0.0, 0.0, NOT_GRADED, "ann/x.ipynb: ..."))
    return rows


def _check_wide(table: list[list[str]], rows: list[Row],
                points_row: bool) -> None:
    """Every cell of ``table`` (read back) against the long ``rows``."""
    header, *body = table
    assert tuple(header[:5]) == WIDE_ID_COLUMNS
    graded = [r for r in rows if r.exercise]
    lessons = sorted({r.lesson for r in graded})
    columns = []  # (lesson, exercise or None for the total)
    for lesson in lessons:
        names = list(dict.fromkeys(r.exercise for r in graded
                                   if r.lesson == lesson))
        columns += [(lesson, n) for n in names] + [(lesson, None)]
    columns.append((None, None))

    def top(lesson, exercise):
        return sum({(r.lesson, r.exercise): r.max_score for r in graded
                    if lesson in (None, r.lesson)
                    and exercise in (None, r.exercise)}.values())

    def plural(x):
        return f"[{x:g} pt{'' if x == 1 else 's'}]"

    assert header[5:] == [
        f"{lesson}/{ex} {plural(top(lesson, ex))}" if ex else
        f"{lesson} total {plural(top(lesson, None))}" if lesson else
        f"convgrad total {plural(top(None, None))}" for lesson, ex in columns]
    if points_row:
        possible, *body = body
        assert possible[:5] == ["Points Possible", "", "", "", ""]
        assert [float(x) for x in possible[5:]] == [top(*c) for c in columns]
    students = sorted({r.student for r in rows})
    assert [line[0] for line in body] == students
    for line in body:
        student = line[0]
        assert line[1:5] == ["", "", student, ""]
        for (lesson, ex), cell in zip(columns, line[5:], strict=True):
            want = sum(r.score for r in graded if r.student == student
                       and lesson in (None, r.lesson) and ex in (None, r.exercise))
            assert float(cell) == want, (student, lesson, ex)


@pytest.mark.parametrize("points_row", [False, True])
def test_the_wide_table_has_a_column_per_exercise_and_totals(tmp_path,
                                                             points_row):
    rows = _long_rows()
    path = tmp_path / "wide.csv"
    write_wide_csv(rows, path, points_possible=points_row)
    with open(path, newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    _check_wide(table, rows, points_row)
    assert table[0][5:8] == [f"{L03}/col2im [1 pt]", f"{L03}/conv_matrix [1 pt]",
                             f"{L03}/adjoint_gap [1 pt]"]
    assert table[-2][0] == "ann" and table[-2][-1] == "2"  # 0 + 1 + 1 + 0
    assert table[-1][0] == "bob" and table[-1][-1] == "3.5"  # 1 + 0 + .5 + 2


def test_the_wide_table_refuses_two_grades_of_one_exercise():
    rows = _long_rows()
    with pytest.raises(ValueError, match="two grades of bob's"):
        wide_table([*rows, rows[0]])
    with pytest.raises(TypeError, match="rows must hold Row objects"):
        wide_table([("bob", L03)])


# --------------------------------------------------------------------------
# progress
# --------------------------------------------------------------------------


def test_progress_is_called_as_each_notebook_starts_and_finishes(tmp_path,
                                                                 graded):
    subs = tmp_path / "subs"
    for student in ("ann", "bob"):
        _notebook(subs / student / f"{L03}.ipynb")
    (subs / "cy").mkdir()
    (subs / "cy" / f"{L03}.ipynb").write_text("not json")
    steps: list[Progress] = []
    grade_class(subs, seed=1, jobs=1, progress=steps.append, sandbox=SANDBOX)
    assert [(s.done, s.total, s.notebook, s.statuses is None, s.running)
            for s in steps] == [
        (1, 3, f"cy/{L03}.ipynb", False, ()),
        (1, 3, f"ann/{L03}.ipynb", True, (f"ann/{L03}.ipynb",)),
        (2, 3, f"ann/{L03}.ipynb", False, ()),
        (2, 3, f"bob/{L03}.ipynb", True, (f"bob/{L03}.ipynb",)),
        (3, 3, f"bob/{L03}.ipynb", False, ()),
    ]
    assert steps[0].statuses == dict.fromkeys(lesson_exercises(3), "error")
    assert steps[2].statuses == {"col2im": "passed", "conv_matrix": "wrong",
                                 "adjoint_gap": "wrong"}
    assert steps[2].path == subs / "ann" / f"{L03}.ipynb"


def test_the_command_prints_a_line_per_notebook_off_a_terminal(tmp_path,
                                                               graded, capsys):
    subs = tmp_path / "subs"
    _notebook(subs / "ann" / f"{L03}.ipynb")
    _notebook(subs / "ann" / f"{L04}-Copy1.ipynb")
    _notebook(subs / "bob" / f"{L03}.ipynb")
    _notebook(subs / "bob" / "scratch.ipynb")
    out = tmp_path / "grades.csv"
    code = cli.main(["grade", *CLI_FLAGS, str(subs), "--out", str(out), "--seed", "5",
                     "--jobs", "1"])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        f"[1/3] ann/{L03}.ipynb: 1 passed, 2 wrong",
        f"[2/3] ann/{L04}-Copy1.ipynb: 1 passed, 3 wrong",
        f"[3/3] bob/{L03}.ipynb: 1 passed, 2 wrong",
    ]
    assert lines[3] == (
        f"not graded: {subs / 'bob' / 'scratch.ipynb'}: its name is no "
        f"lesson's (they are named like 03-col2im-scatter.ipynb) and it does "
        f"not say which lesson it is")
    assert lines[4].endswith("; 1 files not graded")
    assert len(lines) == 5


def test_on_a_terminal_progress_is_one_updating_line():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    show = cli._Progress(out)
    a, b = f"ann/{L03}.ipynb", f"bob/{L03}.ipynb"
    show(Progress(0, 2, a, Path(a), None, (a,)))
    show(Progress(0, 2, b, Path(b), None, (a, b)))
    show(Progress(1, 2, a, Path(a), {"col2im": "error", "x": "passed"}, (b,)))
    show(Progress(2, 2, b, Path(b), {"col2im": "timeout"}, ()))
    show.close()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    frames = text.rstrip("\n").split("\r\x1b[K")[1:]
    assert frames == [
        f"[0/2]; grading {a}",
        f"[0/2]; grading {a}, {b}",
        f"[1/2] 1 passed, 1 error; grading {b}",
        "[2/2] 1 passed, 1 error, 1 timeout",
    ]


# --------------------------------------------------------------------------
# the whole command, for real
# --------------------------------------------------------------------------


def _lesson_03_cells() -> tuple[str, str]:
    """Lesson 03's import cell and its col2im cell, answered right."""
    (lesson,) = find_lessons(lessons_folder(), only=["03"])
    nb = assignment(lesson, 7)
    code = [c for c in nb.cells if c.cell_type == "code"]
    right = next(c.source for c in code
                 if c.metadata.get("nbgrader", {}).get("grade_id") == "col2im")
    return code[0].source, right


def test_the_grade_command_for_real(tmp_path):
    imports, right = _lesson_03_cells()
    released = student_copy(nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(right)]))
    wrong = _replace_body(released.cells[0].source, "col2im", COL2IM_NO_CROP)
    subs = tmp_path / "subs"
    _notebook(subs / "ann" / f"{L03}-Copy1.ipynb", imports, right)
    _notebook(subs / "bob" / f"{L03}.ipynb", imports, wrong)
    _notebook(subs / "bob" / f"{L03}-final.ipynb", imports, right)
    (subs / "zed").mkdir()
    (subs / "zed" / f"{L03}.ipynb").symlink_to(
        Path("..") / "ann" / f"{L03}-Copy1.ipynb")
    out, wide = tmp_path / "grades.csv", tmp_path / "wide.csv"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SRC, env.get("PYTHONPATH")]))
    env.pop("CONVGRAD_GRADE_SEED", None)
    run = subprocess.run(
        [sys.executable, "-m", "convgrad.course", "grade", *CLI_FLAGS, str(subs),
         "--out", str(out), "--wide", str(wide), "--seed", "11",
         "--time-limit", "5", "--notebook-limit", "120", "--jobs", "1"],
        capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    lines = run.stdout.splitlines()
    assert lines[:2] == [
        f"[1/2] ann/{L03}-Copy1.ipynb: 1 passed, 2 not-attempted",
        f"[2/2] bob/{L03}.ipynb: 1 wrong, 2 not-attempted",
    ]
    assert f"not graded: {subs / 'zed' / f'{L03}.ipynb'}: it is a link to " \
           f"ann/{L03}-Copy1.ipynb, a file outside zed/" in run.stdout
    assert f"not graded: {subs / 'bob' / f'{L03}-final.ipynb'}: " \
           f"bob/{L03}.ipynb is graded for lesson {L03} instead" in run.stdout
    with open(out, newline="", encoding="utf-8") as f:
        header, *table = list(csv.reader(f))
    assert tuple(header) == CSV_COLUMNS
    got = {(r[0], r[1], r[2]): (float(r[3]), r[5]) for r in table}
    assert got == {
        ("ann", L03, "col2im"): (1.0, "passed"),
        ("ann", L03, "conv_matrix"): (0.0, "not-attempted"),
        ("ann", L03, "adjoint_gap"): (0.0, "not-attempted"),
        ("bob", L03, "col2im"): (0.0, "wrong"),
        ("bob", L03, "conv_matrix"): (0.0, "not-attempted"),
        ("bob", L03, "adjoint_gap"): (0.0, "not-attempted"),
        ("bob", L03, ""): (0.0, NOT_GRADED),
        ("zed", L03, "col2im"): (0.0, "error"),
        ("zed", L03, "conv_matrix"): (0.0, "error"),
        ("zed", L03, "adjoint_gap"): (0.0, "error"),
    }
    rows = [Row(r[0], r[1], r[2], float(r[3]), float(r[4]), r[5], r[6])
            for r in table]
    with open(wide, newline="", encoding="utf-8") as f:
        wide_cells = list(csv.reader(f))
    _check_wide(wide_cells, rows, points_row=False)
    assert [line[-1] for line in wide_cells[1:]] == ["1", "0", "0"]
