"""The lessons as git tracks them, not as JupyterLab last saved them.

A learner who works through the course in a clone edits the lesson files
themselves: JupyterLab autosaves their exercise code, outputs, execution
counts and widget state into ``notebooks/*.ipynb``. Tests about how the
lessons are *stored* (outputs stripped, no widget state) must read what
is committed, or using the course would break the test suite.

:func:`tracked_notebooks` reads each lesson's blob from git's index (what
``git add`` staged, so a contributor's staged change is checked before it
is committed; in a fresh clone the index is HEAD), and falls back to the
working files when the folder is not a git checkout (a zip or sdist),
when git is missing, or when git tracks no notebook there. A lesson that
is not tracked yet (a new file, before ``git add``) is read from disk, so
a new lesson is checked too; a learner's own new notebook would be read
as well, so a learner should keep new notebooks outside ``notebooks/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _git(root: Path, *args: str, text: bool = True):
    # a git hook's GIT_DIR or GIT_INDEX_FILE would point at another repository
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=text,
        check=True, timeout=60, env=env,
    ).stdout


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
        rel = Path(path).relative_to(folder)
        if stage == "0" and len(rel.parts) == 1 and rel.suffix == ".ipynb":
            blobs[rel.name] = blob
    return blobs


def tracked_notebooks(root: Path = REPO, folder: str = "notebooks") -> dict[str, str]:
    """``{file name: text}`` of every notebook in ``root/folder``: git's
    copy of each tracked one, the working file of the others."""
    on_disk = {p.name: p for p in sorted((root / folder).glob("*.ipynb"))}
    blobs = _index_blobs(root, folder) or {}
    texts = {}
    for name in sorted(set(on_disk) | set(blobs)):
        if name in blobs:
            raw = _git(root, "cat-file", "blob", blobs[name], text=False)
            texts[name] = raw.decode("utf-8")
        else:
            texts[name] = on_disk[name].read_text(encoding="utf-8")
    return texts
