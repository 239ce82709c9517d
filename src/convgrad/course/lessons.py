"""Find the lessons: ``notebooks/NN-kebab-title.ipynb``, in order."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

LESSON_NAME = re.compile(
    r"^(?P<number>\d{2})-(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\.ipynb$"
)


#: the key of a notebook's metadata that says which lesson it is: the student
#: copies (and the nbgrader assignments) carry ``{"lesson": "03-col2im-scatter"}``
#: there, so a copy saved under another name is still known
IDENTITY = "convgrad"


def identity(stem: str) -> dict[str, str]:
    """The notebook metadata entry (under :data:`IDENTITY`) of lesson ``stem``."""
    return {"lesson": stem}


def lesson_of(metadata: object) -> str | None:
    """The lesson stem a notebook's ``metadata`` names, or None when it names
    none (or not as a string)."""
    entry = metadata.get(IDENTITY) if isinstance(metadata, dict) else None
    stem = entry.get("lesson") if isinstance(entry, dict) else None
    return stem if isinstance(stem, str) and stem else None


@dataclass(frozen=True)
class Lesson:
    """One lesson notebook: ``number`` 0..99, ``slug`` the kebab title."""

    path: Path
    number: int
    slug: str

    @property
    def stem(self) -> str:
        return self.path.stem

    def read(self) -> nbformat.NotebookNode:
        return nbformat.read(self.path, as_version=4)


def repo_root(start: Path | None = None) -> Path:
    """The checkout that holds ``notebooks/``.

    Walks up from ``start`` (default: the working directory), then falls back
    to the checkout this package was installed from (editable installs).
    """
    here = Path.cwd() if start is None else Path(start)
    for folder in [here.resolve(), *here.resolve().parents]:
        if (folder / "notebooks").is_dir() and (folder / "pyproject.toml").is_file():
            return folder
    source = Path(__file__).resolve().parents[3]
    if (source / "notebooks").is_dir():
        return source
    raise FileNotFoundError(
        f"no notebooks/ folder found above {here} or at {source}; run this "
        f"from a convgrad checkout or pass --notebooks"
    )


def find_lessons(
    notebooks: Path | None = None, only: list[str] | None = None
) -> list[Lesson]:
    """Every ``NN-title.ipynb`` in ``notebooks`` (default: the checkout's),
    sorted by number. ``only`` keeps lessons whose number or stem is listed
    (``["00", "03"]``)."""
    folder = repo_root() / "notebooks" if notebooks is None else Path(notebooks)
    if not folder.is_dir():
        raise FileNotFoundError(f"notebooks must be a folder, got {folder}")
    lessons = []
    for path in sorted(folder.glob("*.ipynb")):
        m = LESSON_NAME.match(path.name)
        if m is None:
            continue
        lessons.append(Lesson(path, int(m["number"]), m["slug"]))
    if only:
        wanted = set(only)
        unknown = wanted - {f"{x.number:02d}" for x in lessons} - {
            x.stem for x in lessons
        }
        if unknown:
            raise ValueError(
                f"only must name lessons in {folder} by number or stem, "
                f"got unknown {sorted(unknown)}"
            )
        lessons = [
            x for x in lessons if f"{x.number:02d}" in wanted or x.stem in wanted
        ]
    return lessons
