"""The lessons as git tracks them, not as JupyterLab last saved them.

A learner who works through the course in a clone edits the lesson files
themselves: JupyterLab autosaves their exercise code (right, wrong or
raising), outputs, execution counts, widget state and extra cells into
``notebooks/*.ipynb``, and its "New notebook" puts an ``Untitled.ipynb``
there. Neither the tests about how the lessons are *stored* (outputs
stripped, no widget state) nor nbval, which runs every lesson, may then fail:
using the course must not break the test suite.

:func:`lesson_notebooks` decides, for each notebook directly in the folder,
what the tests read:

* a notebook git tracks: git's copy from the index (what ``git add``
  staged, so a contributor's staged change is checked before it is
  committed; in a fresh clone the index is HEAD), and whether the working
  file differs from it (``git diff``, so git's own filters and line-ending
  rules apply);
* a notebook git does not track and named like a lesson
  (``NN-kebab-title.ipynb``): the working file, so a new lesson is tested
  before ``git add``;
* any other notebook git does not track (a learner's ``Untitled.ipynb``):
  left out;
* outside a git checkout (a zip or sdist), when git is missing, or when git
  tracks no notebook there: every working file, as it is.

:func:`tracked_notebooks` gives the hygiene and structure tests those texts;
:func:`lessons_folder` gives the course tooling's tests (student copies,
decks, assignments, grading) a folder of them; the repository's root
``conftest.py`` hands nbval git's copy of each lesson that differs from it.
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: a lesson's file name (convgrad.course.lessons.LESSON_NAME)
LESSON_NAME = re.compile(r"^\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*\.ipynb$")


def _git(root: Path, *args: str, text: bool = True, stdin: bytes | None = None):
    # a git hook's GIT_DIR or GIT_INDEX_FILE would point at another repository
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=text,
        check=True, timeout=60, env=env, input=stdin,
    ).stdout


def _in_folder(folder: str, path: str) -> str | None:
    """The file name of ``path`` when it is a notebook directly in ``folder``."""
    rel = Path(path).relative_to(folder)
    return rel.name if len(rel.parts) == 1 and rel.suffix == ".ipynb" else None


def _index_blobs(root: Path, folder: str) -> dict[str, str] | None:
    """``{name: blob id}`` of the ``*.ipynb`` files directly in ``folder``
    that git's index holds (merged entries only), or None when ``root`` is
    not in a git work tree or git is not installed."""
    if shutil.which("git") is None:
        return None
    try:
        inside = _git(root, "rev-parse", "--is-inside-work-tree").strip()
        if inside != "true":
            return None
        listing = _git(root, "ls-files", "-s", "-z", "--", f"{folder}/")
    except (subprocess.CalledProcessError, OSError):
        return None
    blobs = {}
    for entry in filter(None, listing.split("\0")):
        info, path = entry.split("\t", 1)
        _mode, blob, stage = info.split()
        name = _in_folder(folder, path)
        if stage == "0" and name is not None:
            blobs[name] = blob
    return blobs


def _modified(root: Path, folder: str) -> set[str]:
    """Names of the tracked notebooks in ``folder`` whose working file
    differs from the index."""
    listing = _git(root, "diff", "--name-only", "--relative", "-z", "--", f"{folder}/")
    names = (_in_folder(folder, path) for path in filter(None, listing.split("\0")))
    return {name for name in names if name is not None}


def _blob_texts(root: Path, blobs: dict[str, str]) -> dict[str, str]:
    """``{name: text}`` of ``blobs``, read with one ``git cat-file --batch``."""
    ids = list(blobs.values())
    raw = _git(root, "cat-file", "--batch", text=False,
               stdin="".join(f"{b}\n" for b in ids).encode())
    texts, at = {}, 0
    for name, blob in blobs.items():
        end = raw.index(b"\n", at)
        oid, kind, size = raw[at:end].decode().split()
        assert oid == blob and kind == "blob", raw[at:end]
        texts[name] = raw[end + 1 : end + 1 + int(size)].decode("utf-8")
        at = end + 1 + int(size) + 1
    return texts


@dataclass(frozen=True)
class Notebook:
    """What the tests read for one notebook of the folder.

    ``source``: ``"git"`` (run git's copy: the working file differs from
    it), ``"file"`` (run the working file: the same as git's copy, a lesson
    not tracked yet, or no git checkout) or ``"skip"`` (not tracked and not
    a lesson: not read at all). ``text``: git's copy, when git tracks it."""

    name: str
    source: str
    text: str | None = None


def lesson_notebooks(
    root: Path = REPO, folder: str = "notebooks"
) -> dict[str, Notebook]:
    """Every notebook of ``root/folder`` (and every one git tracks there),
    with what the tests read for it (see the module's docstring)."""
    on_disk = {p.name for p in (root / folder).glob("*.ipynb")}
    blobs = _index_blobs(root, folder)
    if not blobs:  # no checkout, no git, or git tracks no notebook here
        return {n: Notebook(n, "file") for n in sorted(on_disk)}
    texts = _blob_texts(root, blobs)
    modified = _modified(root, folder)
    out = {}
    for name in sorted(on_disk | set(blobs)):
        if name in blobs:
            changed = name in modified and name in on_disk
            out[name] = Notebook(name, "git" if changed else "file", texts[name])
        elif LESSON_NAME.match(name):
            out[name] = Notebook(name, "file")
        else:
            out[name] = Notebook(name, "skip")
    return out


def tracked_notebooks(root: Path = REPO, folder: str = "notebooks") -> dict[str, str]:
    """``{file name: text}`` of the notebooks in ``root/folder`` as stored:
    git's copy of each tracked one, the working file of a lesson git does
    not track yet; a learner's own untracked notebook is left out."""
    texts = {}
    for name, nb in lesson_notebooks(root, folder).items():
        if nb.source == "skip":
            continue
        if nb.text is not None:
            texts[name] = nb.text
        else:
            texts[name] = (root / folder / name).read_text(encoding="utf-8")
    return texts


@functools.lru_cache(maxsize=1)
def lessons_folder() -> Path:
    """The lessons folder for tests that run the course's tools on every
    lesson: ``notebooks/`` itself while each of its notebooks is as git
    tracks it, else a temporary ``notebooks/`` folder (made once, removed at
    exit) holding :func:`tracked_notebooks`, so that a learner's work in
    the clone is neither read nor changed."""
    folder = REPO / "notebooks"
    found = lesson_notebooks()
    if all(nb.source == "file" and (folder / name).is_file()
           for name, nb in found.items()):
        return folder
    top = Path(tempfile.mkdtemp(prefix="convgrad-lessons-"))
    atexit.register(shutil.rmtree, top, True)
    copy = top / "notebooks"
    copy.mkdir()
    for name, text in tracked_notebooks().items():
        (copy / name).write_text(text, encoding="utf-8")
    return copy
