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
