"""Notebooks are stored clean: no outputs except nbval-checked text cells,
no widget state, no execution timing, valid nbformat with cell ids.

*Stored* is what git tracks (``tracked.py``): a learner who runs the
lessons in this clone has JupyterLab autosave outputs and edits into the
working files, and that must not fail the test suite. Outside a git
checkout the working files are checked.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tracked import LESSON_NAME, REPO, lesson_notebooks, tracked_notebooks

NOTEBOOKS = tracked_notebooks()
CHECKED = "nbval-check-output"


def check_nbformat(text: str) -> None:
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) >= (4, 5)
    ids = [c.get("id") for c in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids)


def check_outputs(nb: dict) -> None:
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        src = "".join(cell["source"])
        if CHECKED in tags or "# NBVAL_CHECK_OUTPUT" in src:
            # with nothing stored, nbval would compare nothing
            assert cell["outputs"], f"checked cell has no stored output: {src[:60]!r}"
            for out in cell["outputs"]:
                # small deterministic text only: no images, no widgets
                assert out["output_type"] in ("stream", "execute_result"), src
                assert set(out.get("data", {})) <= {"text/plain"}, src
                text = out.get("text") or out.get("data", {}).get("text/plain")
                assert len("".join(text)) < 2000, src
        else:
            assert cell["outputs"] == [], f"stored output in: {src[:60]!r}"
            assert cell["execution_count"] is None, src[:60]


def check_metadata(nb: dict) -> None:
    assert "widgets" not in nb["metadata"]
    for cell in nb["cells"]:
        assert "execution" not in cell.get("metadata", {}), "".join(
            cell["source"]
        )[:60]


def test_every_lesson_is_checked():
    on_disk = {p.name for p in (REPO / "notebooks").glob("*.ipynb")}
    # left out: only a learner's own notebooks, which git does not track
    left_out = {n for n, nb in lesson_notebooks().items() if nb.source == "skip"}
    assert not {n for n in left_out if LESSON_NAME.match(n)}
    assert on_disk and on_disk - left_out <= set(NOTEBOOKS)


@pytest.mark.parametrize("name", sorted(NOTEBOOKS), ids=lambda n: Path(n).stem)
def test_valid_nbformat_with_cell_ids(name):
    check_nbformat(NOTEBOOKS[name])


@pytest.mark.parametrize("name", sorted(NOTEBOOKS), ids=lambda n: Path(n).stem)
def test_outputs_stripped_except_checked_cells(name):
    check_outputs(json.loads(NOTEBOOKS[name]))


@pytest.mark.parametrize("name", sorted(NOTEBOOKS), ids=lambda n: Path(n).stem)
def test_no_widget_state_or_timing_metadata(name):
    check_metadata(json.loads(NOTEBOOKS[name]))


# --------------------------------------------------------------------------
# a learner's autosaved work does not fail the checks; a committed one does
# --------------------------------------------------------------------------

LESSON = "01-autodiff-in-a-page.ipynb"


def _as_a_learner_left_it(path: Path) -> None:
    """What JupyterLab autosaves after a learner ran every cell and typed
    into an exercise: outputs, execution counts, timing metadata, widget
    state, and an edited cell."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    count = 0
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            count += 1
            cell["execution_count"] = count
            cell["outputs"] = [{"output_type": "stream", "name": "stdout",
                                "text": ["ran\n"]}]
            cell["metadata"]["execution"] = {
                "iopub.execute_input": "2026-12-05T10:00:00.000000Z"}
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code["source"] = ["x = 1  # the learner's own line\n"]
    nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def _check_all(nb_text: str) -> None:
    check_nbformat(nb_text)
    check_outputs(json.loads(nb_text))
    check_metadata(json.loads(nb_text))


def _fails(nb_text: str) -> bool:
    try:
        _check_all(nb_text)
    except AssertionError:
        return True
    return False


@pytest.fixture
def a_clone(tmp_path):
    """A git checkout holding one clean lesson, committed."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / LESSON).write_text(NOTEBOOKS[LESSON], encoding="utf-8")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "notebooks"], ["commit", "-q", "-m", "c"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    return tmp_path


def test_a_learners_autosaved_lesson_does_not_fail_hygiene(a_clone):
    working = a_clone / "notebooks" / LESSON
    _as_a_learner_left_it(working)
    assert _fails(working.read_text(encoding="utf-8"))  # the edit is real
    texts = tracked_notebooks(a_clone)
    assert list(texts) == [LESSON]
    _check_all(texts[LESSON])  # git's copy is checked, and it is clean


def test_a_dirty_lesson_staged_for_commit_fails_hygiene(a_clone):
    working = a_clone / "notebooks" / LESSON
    _as_a_learner_left_it(working)
    subprocess.run(["git", "-C", str(a_clone), "add", "notebooks"], check=True)
    assert _fails(tracked_notebooks(a_clone)[LESSON])


def test_a_learners_own_notebook_is_left_out_and_a_new_lesson_is_not(a_clone):
    # JupyterLab's "New notebook" lands beside the lessons, run and saved
    untitled = a_clone / "notebooks" / "Untitled.ipynb"
    untitled.write_text(NOTEBOOKS[LESSON], encoding="utf-8")
    _as_a_learner_left_it(untitled)
    assert list(tracked_notebooks(a_clone)) == [LESSON]
    # a lesson written but not added yet is checked as it is
    new = a_clone / "notebooks" / "99-a-new-lesson.ipynb"
    shutil.copy(untitled, new)
    texts = tracked_notebooks(a_clone)
    assert list(texts) == [LESSON, new.name]
    assert _fails(texts[new.name])


def test_outside_a_git_checkout_the_working_files_are_checked(tmp_path):
    (tmp_path / "notebooks").mkdir()
    working = tmp_path / "notebooks" / LESSON
    working.write_text(NOTEBOOKS[LESSON], encoding="utf-8")
    _check_all(tracked_notebooks(tmp_path)[LESSON])
    _as_a_learner_left_it(working)
    assert _fails(tracked_notebooks(tmp_path)[LESSON])
