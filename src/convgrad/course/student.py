"""Student copies: every lesson with its solutions removed and outputs cleared.

The convention (the lessons' authors mark; this module strips):

- a cell tagged ``solution`` is dropped whole (code or markdown, e.g. an
  instructor's worked answer);
- in a code cell, the lines from ``# BEGIN SOLUTION`` to ``# END SOLUTION``
  (any number of ``#``) become one ``raise NotImplementedError  # your code
  here`` at the indentation of the ``BEGIN`` line, so the exercise checker
  reports "not attempted yet";
- in a markdown cell, ``<!-- BEGIN SOLUTION -->`` … ``<!-- END SOLUTION -->``
  is dropped.

Reference solutions themselves live only in ``convgrad.exercises``.
:func:`find_leaks` looks for their lines in a notebook, and
:func:`write_student_copies` refuses to write a copy that contains one.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .lessons import IDENTITY, LESSON_NAME, Lesson, find_lessons, identity
from .solutions import STUB, normal, solution_lines

SOLUTION_TAG = "solution"

_CODE_BEGIN = re.compile(r"^(?P<indent>[ \t]*)#+\s*BEGIN SOLUTION\b")
_CODE_END = re.compile(r"^[ \t]*#+\s*END SOLUTION\b")
_MD_BEGIN = re.compile(r"<!--\s*BEGIN SOLUTION\s*-->")
_MD_END = re.compile(r"<!--\s*END SOLUTION\s*-->")

# cell metadata a run leaves behind; nothing a student needs
_RUN_METADATA = ("execution", "collapsed", "scrolled", "ExecuteTime")


def _shape_problem(raw: object) -> str | None:
    """What keeps parsed JSON from being a notebook the course tools can
    read (the parts they use), or None."""
    if not isinstance(raw, dict):
        return f"the top level must be a JSON object, got {type(raw).__name__}"
    cells = raw.get("cells")
    if not isinstance(cells, list):
        return f"'cells' must be a list of cells, got {cells!r:.40}"
    if not isinstance(raw.get("metadata", {}), dict):
        return "'metadata' must be an object"
    for index, cell in enumerate(cells):
        where = f"cell {index}"
        if not isinstance(cell, dict):
            return f"{where} must be an object, got {cell!r:.40}"
        kind = cell.get("cell_type")
        if kind not in ("code", "markdown", "raw"):
            return (f"{where}: 'cell_type' must be 'code', 'markdown' or "
                    f"'raw', got {kind!r:.40}")
        source = cell.get("source", "")
        if not isinstance(source, str) and not (
            isinstance(source, list) and all(isinstance(s, str) for s in source)
        ):
            return (f"{where}: 'source' must be a string or a list of "
                    f"strings, got {source!r:.40}")
        meta = cell.get("metadata", {})
        if not isinstance(meta, dict):
            return f"{where}: 'metadata' must be an object, got {meta!r:.40}"
        tags = meta.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            return (f"{where}: 'metadata.tags' must be a list of strings, "
                    f"got {tags!r:.40}")
        if not isinstance(meta.get("slideshow", {}), dict):
            return f"{where}: 'metadata.slideshow' must be an object"
        if not isinstance(cell.get("outputs", []), list):
            return f"{where}: 'outputs' must be a list"
    return None


def read_lesson(lesson: Lesson | Path) -> nbformat.NotebookNode:
    """Read a lesson notebook, or raise a ``ValueError`` that names the file
    and what is wrong: not UTF-8 text, not JSON, or JSON that is not a
    notebook (``{"cells": 5}``, a cell whose source is ``[1, 2]``, ``[]``)."""
    path = Path(getattr(lesson, "path", lesson))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON: {err}") from None
    problem = _shape_problem(raw)
    if problem is not None:
        raise ValueError(f"{path}: not a notebook: {problem}")
    try:
        return nbformat.reads(text, as_version=4)
    except Exception as err:  # nbformat's own complaint, with the file named
        raise ValueError(f"{path}: not a notebook nbformat can read: {err}") from None


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _strip_code(source: str, where: str) -> str:
    out: list[str] = []
    inside = False
    for number, line in enumerate(source.splitlines(), 1):
        begin, end = _CODE_BEGIN.match(line), _CODE_END.match(line)
        if begin:
            if inside:
                raise ValueError(
                    f"{where}: line {number} opens '# BEGIN SOLUTION' inside "
                    f"another; every BEGIN needs its END first"
                )
            inside = True
            out.append(begin["indent"] + STUB)
        elif end:
            if not inside:
                raise ValueError(
                    f"{where}: line {number} has '# END SOLUTION' without a "
                    f"'# BEGIN SOLUTION' before it"
                )
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(
            f"{where}: '# BEGIN SOLUTION' is never closed by '# END SOLUTION'"
        )
    return "\n".join(out)


def _strip_markdown(source: str, where: str) -> str:
    begins, ends = len(_MD_BEGIN.findall(source)), len(_MD_END.findall(source))
    if begins != ends:
        raise ValueError(
            f"{where}: {begins} '<!-- BEGIN SOLUTION -->' but {ends} "
            f"'<!-- END SOLUTION -->'; they must pair up"
        )
    pattern = re.compile(
        _MD_BEGIN.pattern + r".*?" + _MD_END.pattern + r"\n?", re.DOTALL
    )
    return pattern.sub("", source)


def student_copy(
    nb: nbformat.NotebookNode, name: str = "notebook"
) -> nbformat.NotebookNode:
    """A copy of ``nb`` with solutions stripped and every output cleared.

    When ``name`` is a lesson's file name (``03-col2im-scatter.ipynb``), the
    copy says which lesson it is in its metadata (``convgrad.lesson``), so
    the grade command knows it under any name a student saves it as."""
    nb = copy.deepcopy(nb)
    cells = []
    for index, cell in enumerate(nb.cells):
        if SOLUTION_TAG in _tags(cell):
            continue
        where = f"{name}, cell {index}"
        if cell.cell_type == "code":
            cell.source = _strip_code(cell.source, where)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source = _strip_markdown(cell.source, where)
        for key in _RUN_METADATA:
            cell.metadata.pop(key, None)
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)  # saved widget state of a past run
    if LESSON_NAME.match(name):
        nb.metadata[IDENTITY] = identity(name.removesuffix(".ipynb"))
    return nb


# --------------------------------------------------------------------------
# leaks
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Leak:
    """Lines of a reference solution found together in one code cell."""

    exercise: str
    cell: int
    lines: tuple[str, ...]

    def __str__(self) -> str:
        shown = "; ".join(repr(x) for x in self.lines[:3])
        return f"cell {self.cell}: {shown} (from solution {self.exercise!r})"


def find_leaks(
    nb: nbformat.NotebookNode, lines: dict[str, set[str]] | None = None
) -> list[Leak]:
    """Reference solutions that show through in ``nb``'s code cells.

    A code cell (its source or its outputs) leaks solution ``S`` when it
    holds two or more of ``S``'s distinctive lines, or ``S``'s only one.
    One shared line is allowed: a lesson may derive ``db = dy.sum(...)`` in
    the open and still ask the learner to assemble the whole backward pass.
    Markdown is not searched: it states the rule an exercise implements.
    """
    lines = solution_lines() if lines is None else lines
    leaks = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        texts = [cell.source]
        for output in cell.get("outputs", []):
            texts.append(str(output.get("text", "")))
            texts.extend(str(v) for v in output.get("data", {}).values())
        present = {normal(x) for text in texts for x in text.splitlines()}
        for name, wanted in lines.items():
            found = wanted & present
            if found and len(found) >= min(2, len(wanted)):
                leaks.append(Leak(name, index, tuple(sorted(found))))
    return leaks


def write_student_copies(
    out: Path, lessons: Iterable[Lesson] | None = None
) -> list[Path]:
    """Write a student copy of every lesson into ``out``; return the paths.

    Raises ``ValueError`` (naming the notebook, cell and line) if a copy
    would still contain a line of a reference solution, if ``out`` is a
    file, or if ``out`` is the lessons' own folder (the copies would
    overwrite the lessons). Nothing is written then.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must be a folder, but {out} is a file")
    lessons = find_lessons() if lessons is None else list(lessons)
    sources = {lesson.path.parent.resolve() for lesson in lessons}
    if out.resolve() in sources:
        raise ValueError(
            f"out={out} is the lessons' own folder: the student copies would "
            f"overwrite the lessons; write them to another folder"
        )
    lines = solution_lines()
    copies = []
    for lesson in lessons:
        nb = student_copy(read_lesson(lesson), lesson.path.name)
        leaks = find_leaks(nb, lines)
        if leaks:
            shown = "\n  ".join(str(x) for x in leaks[:5])
            raise ValueError(
                f"{lesson.path.name}: the student copy would contain solution "
                f"text; mark it with a 'solution' tag or '# BEGIN SOLUTION' / "
                f"'# END SOLUTION':\n  {shown}"
            )
        copies.append((lesson, nb))
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for lesson, nb in copies:
        path = out / lesson.path.name
        nbformat.write(nb, path)
        paths.append(path)
    return paths
