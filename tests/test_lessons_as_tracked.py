"""A learner's work in the clone never fails the test suite (issue #41,
point 6): nbval runs git's copy of a lesson that differs from it
(the root ``conftest.py``), and leaves a learner's own notebook alone.

Each run is a real ``pytest`` in a subprocess, in a small git repository
made of this checkout's pytest configuration, its root ``conftest.py``, its
``tests/tracked.py`` and one lesson, so nothing here touches the
checkout's own files.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tracked import REPO, tracked_notebooks

LESSON = "01-autodiff-in-a-page.ipynb"
HEADER = "convgrad: the lessons as git tracks them"
# git's copy gets one cell more, first: the kernel must still start in the
# checkout's notebooks/ folder, beside the lesson's own file
WHERE = f"import os\nassert os.path.isfile({LESSON!r}), os.getcwd()"
_IDS = itertools.count()


def _code(source: str, outputs: list | None = None, count: int | None = None) -> dict:
    return {"cell_type": "code", "id": f"test-cell-{next(_IDS)}",
            "metadata": {}, "source": source, "outputs": outputs or [],
            "execution_count": count}


def _as_a_learner_left_it(path: Path) -> None:
    """What JupyterLab autosaves after a learner ran the lesson: their
    answer to the first exercise, wrong and raising when they try it by
    hand, every cell's output and count, and a cell of their own."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    exercise = next(c for c in nb["cells"] if c["cell_type"] == "code"
                    and "def numeric_grad" in "".join(c["source"]))
    exercise["source"] = (
        "def numeric_grad(f, x, eps=1e-6):\n"
        "    return x.shape[5]  # the learner's wrong answer\n\n\n"
        "numeric_grad(lambda t: (t ** 2).sum(), np.ones(3))  # tried by hand\n"
    )
    for k, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        cell["execution_count"] = k + 1
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
    nb["cells"].append(_code("print('my notes')", count=99, outputs=[
        {"output_type": "stream", "name": "stdout", "text": "my notes\n"}]))
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def _untitled(path: Path) -> None:
    """A learner's own notebook from JupyterLab's launcher, mid-thought."""
    nb = json.loads(tracked_notebooks()[LESSON])
    nb["cells"] = [_code("1 / 0")]
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A git checkout of one lesson (plus the cell that checks where its
    kernel starts) under the repository's pytest configuration, committed,
    then used by a learner."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("clone")
    (root / "notebooks").mkdir()
    (root / "tests").mkdir()
    shutil.copy(REPO / "pyproject.toml", root)
    shutil.copy(REPO / "conftest.py", root)
    shutil.copy(REPO / "tests" / "tracked.py", root / "tests")
    nb = json.loads(tracked_notebooks()[LESSON])
    nb["cells"].insert(0, _code(WHERE))
    (root / "notebooks" / LESSON).write_text(json.dumps(nb, indent=1), encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "lesson"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    _as_a_learner_left_it(root / "notebooks" / LESSON)
    _untitled(root / "notebooks" / "Untitled.ipynb")
    return root


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess:
    src = str(REPO / "src")
    path = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "PYTEST_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
         *args], cwd=root, env={**env, "PYTHONPATH": path},
        capture_output=True, text=True, timeout=600, check=False,
    )


def test_a_learners_lessons_pass_the_suite_as_git_tracks_them(clone):
    lesson = clone / "notebooks" / LESSON
    before = lesson.read_bytes()
    run = _pytest(clone, "notebooks/")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    # git's copy ran (its cells: the working file's less the learner's own,
    # and the first, which checks the kernel's folder, passed), under the
    # working file's name (CI's log check looks for it)
    cells = sum(c["cell_type"] == "code" for c in json.loads(before)["cells"])
    assert f"{cells - 1} passed" in out, out[-2000:]
    assert f"notebooks/{LESSON}" in out
    # said once, in the summary, with the learner's notebook that did not run
    assert out.count(HEADER) == 1
    assert f"notebooks/{LESSON}: differs from git's copy: nbval ran git's copy" in out
    assert ("notebooks/Untitled.ipynb: not tracked by git and not named like a "
            "lesson: not run") in out  # fmt: skip
    assert lesson.read_bytes() == before, "the learner's file is untouched"


def test_the_learners_files_as_saved_do_fail(clone):
    """The edits are real: run as saved, the lesson's raising cell and the
    learner's own notebook fail."""
    run = _pytest(clone, "--lessons-as-saved", "-v", "notebooks/")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out[-4000:]
    assert "IndexError" in out and "ZeroDivisionError" in out
    assert HEADER not in out


def test_outside_a_git_checkout_the_files_run_as_they_are(clone, tmp_path):
    """An sdist or a zip has no git copy to fall back on."""
    copy = tmp_path / "unpacked"
    shutil.copytree(clone, copy, ignore=shutil.ignore_patterns(".git"))
    run = _pytest(copy, f"notebooks/{LESSON}")
    out = run.stdout + run.stderr
    assert run.returncode == 1 and "IndexError" in out, out[-4000:]
    assert HEADER not in out


def test_a_clean_checkout_runs_its_files_and_says_nothing(tmp_path):
    """No learner yet: the lesson runs from its file, with no summary."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "tests").mkdir()
    for name in ("pyproject.toml", "conftest.py", "tests/tracked.py"):
        shutil.copy(REPO / name, tmp_path / name)
    nb = json.loads(tracked_notebooks()[LESSON])
    nb["cells"] = [_code("x = 2"), _code("assert x == 2")]
    (tmp_path / "notebooks" / LESSON).write_text(json.dumps(nb), encoding="utf-8")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "lesson"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    run = _pytest(tmp_path, "notebooks/")
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "2 passed" in out, out[-3000:]
    assert HEADER not in out
