"""The course command's output paths: a file, or the lessons' own folder,
is refused with one line, and nothing is written."""

from __future__ import annotations

import shutil

import pytest

from convgrad.course.__main__ import main
from convgrad.course.lessons import find_lessons, repo_root
from convgrad.course.student import write_student_copies


@pytest.fixture
def lessons(tmp_path):
    """Two lessons copied into a folder of their own."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for lesson in find_lessons()[:2]:
        shutil.copy(lesson.path, folder / lesson.path.name)
    return folder


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.ipynb"))}


def test_student_copies_refuse_the_lessons_own_folder(lessons):
    before = _snapshot(lessons)
    with pytest.raises(ValueError, match="lessons' own folder"):
        write_student_copies(lessons, find_lessons(lessons))
    # also when spelled differently
    with pytest.raises(ValueError, match="lessons' own folder"):
        write_student_copies(lessons / ".." / "notebooks", find_lessons(lessons))
    assert _snapshot(lessons) == before


def test_student_copies_refuse_the_repositorys_lessons():
    # (others edit these lessons: the copy above checks nothing is written)
    with pytest.raises(ValueError, match="overwrite the lessons"):
        write_student_copies(repo_root() / "notebooks")


def test_student_copies_refuse_a_file(tmp_path, lessons):
    out = tmp_path / "a-file"
    out.write_text("keep me")
    with pytest.raises(ValueError, match="is a file"):
        write_student_copies(out, find_lessons(lessons))
    assert out.read_text() == "keep me"


@pytest.mark.parametrize("where", ["file", "lessons", "below a file"])
def test_the_command_prints_one_line_and_exits_2(where, tmp_path, lessons, capsys):
    (tmp_path / "a-file").write_text("")
    out = {"file": tmp_path / "a-file", "lessons": lessons,
           "below a file": tmp_path / "a-file" / "copies"}[where]
    code = main(["--notebooks", str(lessons), "student-copies", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("error: ")
    assert "Traceback" not in err[0]


def test_the_command_still_writes_copies_elsewhere(tmp_path, lessons, capsys):
    out = tmp_path / "copies"
    assert main(["--notebooks", str(lessons), "student-copies", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(_snapshot(lessons))


# --------------------------------------------------------------------------
# notebooks that are not notebooks; slides' out; numbers that must be >= 1
# --------------------------------------------------------------------------

NOT_NOTEBOOKS = {
    "cells is a number": ('{"cells": 5}', "'cells' must be a list"),
    "source of ints": (
        '{"cells": [{"cell_type": "code", "source": [1, 2], "metadata": {},'
        ' "outputs": [], "execution_count": null}], "metadata": {},'
        ' "nbformat": 4, "nbformat_minor": 5}',
        "cell 0: 'source' must be a string or a list of strings",
    ),
    "a list": ("[]", "top level must be a JSON object"),
    "a cell that is a string": ('{"cells": ["x"]}', "cell 0 must be an object"),
    "tags that are a string": (
        '{"cells": [{"cell_type": "markdown", "source": "",'
        ' "metadata": {"tags": "solution"}}]}',
        "'metadata.tags' must be a list",
    ),
    "not JSON": ("{bad", "not valid JSON"),
}


@pytest.mark.parametrize("command", ["student-copies", "check", "slides", "site"])
@pytest.mark.parametrize("case", sorted(NOT_NOTEBOOKS))
def test_a_malformed_notebook_is_named_with_exit_2(
    case, command, tmp_path, lessons, capsys
):
    # (slides and site read every lesson before they build anything)
    text, words = NOT_NOTEBOOKS[case]
    bad = lessons / "07-broken-lesson.ipynb"
    bad.write_text(text)
    argv = ["--notebooks", str(lessons), command]
    if command != "check":
        argv.append(str(tmp_path / "copies"))
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("error: ")
    assert str(bad) in err[0] and words in err[0], err[0]
    assert not (tmp_path / "copies").exists()


def test_slides_refuse_a_file_as_out_like_student_copies(tmp_path, lessons, capsys):
    out = tmp_path / "a-file"
    out.write_text("keep me")
    for command in ("slides", "student-copies"):
        code = main(["--notebooks", str(lessons), command, str(out)])
        err = capsys.readouterr().err.strip()
        assert code == 2
        assert err == f"error: out must be a folder, but {out} is a file"
    assert out.read_text() == "keep me"


@pytest.mark.parametrize(
    "argv, option",
    [
        (["slides", "OUT", "--timeout", "-5"], "--timeout"),
        (["slides", "OUT", "--timeout", "0"], "--timeout"),
        (["slides", "OUT", "--jobs", "0"], "--jobs"),
        (["site", "OUT", "--jobs", "-2"], "--jobs"),
        (["link", "https://hub.org", "https://x.org/r.git", "--depth", "0"], "--depth"),
    ],
)
def test_numbers_below_one_are_refused(argv, option, tmp_path, capsys):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and ("at least 1" in err or "above 0" in err)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_warmup_refuses_fewer_than_one_job(jobs, capsys):
    from convgrad import warmup

    with pytest.raises(SystemExit) as info:
        warmup.main(["-j", jobs])
    assert info.value.code == 2
    assert "-j/--jobs: must be at least 1" in capsys.readouterr().err
