"""Every lesson follows the skeleton: objectives, a live view, a numeric
check, exercises, a summary, slide metadata, narrow code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tracked import tracked_notebooks

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
NUMBERED = [p for p in LESSONS if not p.name.startswith("00-")]
SLIDE_TYPES = {"slide", "subslide", "fragment", "-", "skip", "notes"}
# the lessons as committed: a learner's edits in this clone (an exercise
# solved, outputs autosaved) are not the lessons' structure (tracked.py)
TRACKED = tracked_notebooks()


def _cells(path: Path) -> list[dict]:
    return json.loads(TRACKED[path.name])["cells"]


def _src(cell: dict) -> str:
    s = cell["source"]
    return s if isinstance(s, str) else "".join(s)


def _md(path: Path) -> list[str]:
    return [_src(c) for c in _cells(path) if c["cell_type"] == "markdown"]


def _code(path: Path) -> list[str]:
    return [_src(c) for c in _cells(path) if c["cell_type"] == "code"]


def test_lessons_exist_and_are_numbered_in_order():
    numbers = [int(p.name[:2]) for p in NUMBERED]
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    for p in LESSONS:
        assert re.fullmatch(r"\d\d-[a-z0-9]+(-[a-z0-9]+)*\.ipynb", p.name), p.name


@pytest.mark.parametrize("path", NUMBERED, ids=lambda p: p.stem)
def test_skeleton(path):
    md = _md(path)
    code = _code(path)
    # starts with objectives: in one of the first three cells
    first = "\n".join(md[:3])
    assert re.search(r"^#+ Objectives|In this lesson you will", first, re.M)
    headings = [m for m in md if re.match(r"#+ ", m.strip())]
    assert any(re.match(r"#+ Summary", h.strip()) for h in headings)
    assert any(re.match(r"#+ Exercises", h.strip()) for h in headings)
    # summary and exercises come last, in that order
    summary = max(i for i, m in enumerate(md) if re.match(r"#+ Summary", m))
    exercises = max(i for i, m in enumerate(md) if re.match(r"#+ Exercises", m))
    assert summary < exercises
    joined = "\n".join(code)
    assert re.search(r"viz\.\w+View\(", joined), "no live view"
    assert re.search(r"\.widget\(\)\s*$", joined, re.M), "view not displayed"
    assert re.search(r"^\s*assert np\.allclose\(", joined, re.M), "no check"
    assert re.search(r'exercises\.check\("\w+"', joined), "no checked exercise"


@pytest.mark.parametrize("path", NUMBERED, ids=lambda p: p.stem)
def test_exercise_stubs_raise_not_implemented_and_hold_no_solution(path):
    from convgrad.exercises import EXERCISES

    code = _code(path)
    checked = re.findall(r'exercises\.check\("(\w+)", (\w+)\)', "\n".join(code))
    assert checked
    for name, fn in checked:
        assert name in EXERCISES
        assert EXERCISES[name].lesson == int(path.name[:2])
        cell = next(c for c in code if f'exercises.check("{name}"' in c)
        assert re.search(rf"^def {fn}\(", cell, re.M), "stub not in the cell"
        assert "raise NotImplementedError" in cell
        body = cell.split(f'exercises.check("{name}"')[0]
        statements = [
            ln for ln in body.splitlines()
            if ln.strip() and not ln.lstrip().startswith(("def ", '"""', "#"))
            and not ln.startswith(" " * 11)  # a continued signature
        ]
        # the docstring and the raise only: solutions live in convgrad/exercises/
        assert len(statements) <= 2, statements


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_slide_metadata_on_every_cell(path):
    for cell in _cells(path):
        kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
        assert kind in SLIDE_TYPES, (kind, _src(cell)[:60])
    assert _cells(path)[0]["metadata"]["slideshow"]["slide_type"] == "slide"


@pytest.mark.parametrize("path", NUMBERED, ids=lambda p: p.stem)
def test_setup_cell_seeds_and_sets_no_backend(path):
    # views are drawn by the browser (anywidget), plots inline: no lesson
    # switches matplotlib's backend, so nothing differs between a notebook,
    # a slide deck and the website
    code = _code(path)
    assert "%matplotlib" not in "\n".join(code)
    assert "default_rng(0)" in code[0]


@pytest.mark.parametrize("path", NUMBERED, ids=lambda p: p.stem)
def test_code_lines_are_narrow(path):
    for src in _code(path):
        for line in src.splitlines():
            assert len(line) <= 79, line


@pytest.mark.parametrize("path", NUMBERED, ids=lambda p: p.stem)
def test_notebook_defines_only_short_helpers(path):
    for src in _code(path):
        for m in re.finditer(r"^def (\w+)\(.*?(?=^\S|\Z)", src, re.M | re.S):
            body = [ln for ln in m.group(0).splitlines()[1:] if ln.strip()]
            assert len(body) <= 6, f"{m.group(1)} is {len(body)} lines long"


@pytest.mark.parametrize("path", NUMBERED, ids=lambda p: p.stem)
def test_imports_only_the_public_face(path):
    joined = "\n".join(_code(path))
    for mod in re.findall(r"^(?:from|import) (\S+)", joined, re.M):
        assert not re.match(r"convgrad\.(ops|kernels|reference|tensor)", mod), mod


@pytest.mark.parametrize("path", NUMBERED, ids=lambda p: p.stem)
def test_stub_signatures_match_the_reference(path):
    """A learner who fills the stub is called with the checker's keywords."""
    import ast
    import inspect

    from convgrad.exercises import solution

    for cell in _code(path):
        m = re.search(r'exercises\.check\("(\w+)", (\w+)\)', cell)
        if not m:
            continue
        tree = ast.parse(cell)
        stub = next(
            n for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name == m.group(2)
        )
        ours = [a.arg for a in stub.args.args]
        ref = inspect.signature(solution(m.group(1)))
        assert ours == list(ref.parameters), (m.group(1), ours)
        n_defaults = len(stub.args.defaults)
        ref_defaults = [
            p.default for p in ref.parameters.values()
            if p.default is not inspect.Parameter.empty
        ]
        assert [ast.literal_eval(d) for d in stub.args.defaults] == ref_defaults[
            len(ref_defaults) - n_defaults:
        ]
        assert n_defaults == len(ref_defaults), m.group(1)
