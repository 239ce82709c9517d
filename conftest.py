"""nbval runs the lessons as git tracks them, so a learner's work in this
clone never fails the test suite.

``pytest`` runs every lesson in ``notebooks/`` with nbval (``testpaths`` and
``--nbval-lax`` in pyproject.toml). A learner who works through the course
in this clone edits those very files: JupyterLab autosaves their exercise
answers (wrong ones, and ones that raise), outputs and extra cells into
them. So when a lesson differs from git's copy (the index: what is
committed, or staged), nbval gets git's copy. The node ids stay the
working file's, and the kernel still starts in ``notebooks/``, so a lesson
that reads a file beside it reads the same file. Only the cells come from
git. The learner's file is neither read nor changed. A notebook that git
does not track and that is not named like a lesson (a learner's
``Untitled.ipynb``) is not run. The run's summary names every lesson
this happened to. Outside a git checkout (an sdist, a zip), the files run
as they are. The rules are in ``tests/tracked.py``, shared with the hygiene
tests.

``--lessons-as-saved`` runs the working files instead: for a contributor
who wants to test a lesson edit before ``git add``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
LESSONS = ROOT / "notebooks"
_REPORT = pytest.StashKey[list]()
_NOTEBOOKS = pytest.StashKey[dict]()


def _tracked():
    """tests/tracked.py, as the one module the tests import as ``tracked``."""
    if "tracked" not in sys.modules:
        path = ROOT / "tests" / "tracked.py"
        spec = importlib.util.spec_from_file_location("tracked", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["tracked"] = module
        spec.loader.exec_module(module)
    return sys.modules["tracked"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--lessons-as-saved", action="store_true",
        help="nbval: run the notebooks in notebooks/ as saved, also where they "
        "differ from git's copy (by default git's copy runs: a learner's edits "
        "must not fail the tests)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_REPORT] = []


class _ReadsText:
    """nbformat, except that ``read`` returns the notebook in ``text``."""

    def __init__(self, nbformat, text: str) -> None:
        self._nbformat, self._text = nbformat, text

    def read(self, fp, as_version: int, **kwargs):
        return self._nbformat.reads(self._text, as_version=as_version, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._nbformat, name)


def _git_copy(parent: pytest.Collector, path: Path, text: str) -> pytest.File:
    """An nbval notebook at ``path`` whose cells are those of ``text``."""
    import nbval.plugin as plugin

    class GitCopy(plugin.IPyNbFile):
        def collect(self):
            # nbval reads the notebook with nbformat.read(str(self.fspath))
            # in collect() and nowhere else; it gets git's copy instead
            saved = plugin.nbformat
            plugin.nbformat = _ReadsText(saved, text)
            try:
                return list(super().collect())
            finally:
                plugin.nbformat = saved

    return GitCopy.from_parent(parent, path=path)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    collected = yield
    if (
        file_path.suffix != ".ipynb"
        or file_path.parent != LESSONS
        or parent.config.getoption("lessons_as_saved")
    ):
        return collected
    try:
        from nbval.plugin import IPyNbFile
    except ImportError:
        return collected
    if not any(isinstance(node, IPyNbFile) for node in collected):
        return collected
    if _NOTEBOOKS not in parent.config.stash:  # git is asked once per run
        notebooks = _tracked().lesson_notebooks(ROOT, "notebooks")
        parent.config.stash[_NOTEBOOKS] = notebooks
    notebook = parent.config.stash[_NOTEBOOKS].get(file_path.name)
    if notebook is None or notebook.source == "file":
        return collected
    rel = file_path.relative_to(ROOT).as_posix()
    report = parent.config.stash[_REPORT]
    if notebook.source == "skip":
        report.append(f"{rel}: not tracked by git and not named like a lesson: not run")
        return [n for n in collected if not isinstance(n, IPyNbFile)]
    report.append(f"{rel}: differs from git's copy: nbval ran git's copy")
    return [_git_copy(parent, file_path, notebook.text)
            if isinstance(n, IPyNbFile) else n for n in collected]


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    report = config.stash.get(_REPORT, [])
    if not report:
        return
    terminalreporter.write_sep("-", "convgrad: the lessons as git tracks them")
    for line in report:
        terminalreporter.write_line(line)
    terminalreporter.write_line(
        "(a learner's edits in JupyterLab; the files are untouched. "
        "--lessons-as-saved runs the files as saved.)"
    )
