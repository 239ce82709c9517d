"""Lessons import only the public face (issue 43).

docs/architecture.md defines the public face in one paragraph ("What a
lesson imports: the public face."): the package ``convgrad`` and a list of
its modules, each for its names without a leading underscore. Every code
cell of every lesson (as git's index holds it: tracked.py) is read with
``ast``, after IPython's own transforms (magics, ``!`` lines), and held to
it:

- ``import convgrad.x`` and ``from convgrad.x import name`` need
  ``convgrad.x`` in the face; ``name`` must not start with ``_``, and if
  it is a module of the package, it must be in the face too;
- ``m.name`` on a name an import of the package bound (``cg.backend``,
  ``viz._base``, ``F._same_dtype``) must follow the same two rules.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from tracked import tracked_notebooks

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGE_DIR = ROOT / "src" / "convgrad"
HEADING = "**What a lesson imports: the public face.**"


def public_face(text: str) -> set[str]:
    """The modules the paragraph under :data:`HEADING` names."""
    start = text.index(HEADING)
    paragraph = text[start:].split("\n\n", 1)[0]
    return set(re.findall(r"`(convgrad(?:\.\w+)*)`", paragraph))


@functools.cache
def package_modules(root: Path = PACKAGE_DIR) -> frozenset[str]:
    """Every module and package of convgrad, dotted."""
    found = set()
    for path in root.rglob("*.py"):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found.add(".".join(parts))
    return frozenset(found)


def is_module(path: str) -> bool:
    """Whether ``path`` (``convgrad.trace.replay``) names a module of the
    package, as a lesson's code would reach it: ``trace.replay`` is the
    function the package re-exports, not its module of that name."""
    if path not in package_modules():
        return False
    base, _, attr = path.rpartition(".")
    obj = getattr(importlib.import_module(base), attr, None)
    return obj is None or inspect.ismodule(obj)


def _python(cell: str) -> str:
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(cell)


def breaches(code: str, face: set[str],
             module: Callable[[str], bool] = is_module) -> list[str]:
    """What in ``code`` reaches past the face, one line each."""
    tree = ast.parse(code)
    bound: dict[str, str] = {}  # a local name -> what of the package it is
    out = []

    module_named = module

    def reach(module: str, name: str, line: int) -> None:
        if name.startswith("_"):
            out.append(f"line {line}: {module}.{name} (a private name)")
        elif f"{module}.{name}" not in face and module_named(f"{module}.{name}"):
            out.append(f"line {line}: {module}.{name} (not in the public face)")

    for node in ast.walk(tree):  # imports first: names bound anywhere count
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "convgrad":
                    continue
                if alias.name not in face:
                    out.append(f"line {node.lineno}: import {alias.name} "
                               f"(not in the public face)")
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound["convgrad"] = "convgrad"
        elif isinstance(node, ast.ImportFrom) and node.module and (
                node.module.split(".")[0] == "convgrad"):
            if node.module not in face:
                out.append(f"line {node.lineno}: from {node.module} "
                           f"(not in the public face)")
            for alias in node.names:
                reach(node.module, alias.name, node.lineno)
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def module_of(node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return bound.get(node.id)
        if isinstance(node, ast.Attribute):  # only through modules
            base = module_of(node.value)
            if base and module_named(base) and module_named(f"{base}.{node.attr}"):
                return f"{base}.{node.attr}"
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = module_of(node.value)
            if base is not None:
                reach(base, node.attr, node.lineno)
    return sorted(set(out))


TRACKED = tracked_notebooks()
LESSONS = sorted(name for name in TRACKED if re.match(r"\d\d-", name))


def test_the_face_is_defined_and_is_made_of_real_modules():
    face = public_face(ARCHITECTURE.read_text(encoding="utf-8"))
    modules = package_modules()
    assert {"convgrad", "convgrad.functional", "convgrad.viz"} <= face
    assert face <= modules, sorted(face - modules)
    # the layers the face must never include
    assert not face & {"convgrad.backend", "convgrad.kernels", "convgrad.ops",
                       "convgrad.function", "convgrad.tensor", "convgrad.course"}


@pytest.mark.parametrize("name", LESSONS)
def test_the_lesson_imports_only_the_public_face(name):
    face = public_face(ARCHITECTURE.read_text(encoding="utf-8"))
    found = []
    for i, cell in enumerate(json.loads(TRACKED[name])["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        code = _python(source if isinstance(source, str) else "".join(source))
        found += [f"cell {i}, {b}" for b in breaches(code, face)]
    assert not found, f"{name} reaches past the public face:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import convgrad as cg\nfrom convgrad import F, viz\n"
         "cg.Tensor; viz.OverlapView; cg.viz.View", []),
        ("from convgrad import backend",
         ["line 1: convgrad.backend (not in the public face)"]),
        ("import convgrad.ops.conv as c",
         ["line 1: import convgrad.ops.conv (not in the public face)"]),
        ("from convgrad.kernels import im2col",
         ["line 1: from convgrad.kernels (not in the public face)"]),
        ("import convgrad as cg\ncg.backend.REGISTRY",
         ["line 2: convgrad.backend (not in the public face)"]),
        ("from convgrad import viz\nviz._base.MODES",
         ["line 2: convgrad.viz._base (a private name)"]),
        ("from convgrad import F\nF._same_dtype",
         ["line 2: convgrad.F._same_dtype (a private name)"]),
        ("%time x = 1\n!echo hi\nimport numpy", []),  # read as IPython does
    ],
)
def test_the_reading_on_examples(code, expected):
    face = {"convgrad", "convgrad.functional", "convgrad.viz"}
    modules = face | {"convgrad.backend", "convgrad.ops", "convgrad.ops.conv",
                      "convgrad.kernels", "convgrad.viz._base"}
    assert breaches(_python(code), face, modules.__contains__) == expected


def test_lesson_01_prints_the_whole_engine():
    # issue 43: the rule step (_run_rule) and the bookkeeping, not only the
    # three functions the lesson explains one by one
    from convgrad import engine

    cells = json.loads(TRACKED["01-autodiff-in-a-page.ipynb"])["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    whole = [c for c in code if "inspect.getsource(engine)" in c]
    assert len(whole) == 1
    # the cell's own expression, evaluated here: the text it shows is
    # engine.py, every line of it, with each function the walk runs
    tree = ast.parse(whole[0])
    shown = ast.Expression(tree.body[-1].value.args[0])  # Code(<this>, ...)
    text = eval(compile(shown, "<lesson 01>", "eval"),
                {"inspect": inspect, "engine": engine})
    source = Path(engine.__file__).read_text(encoding="utf-8")
    assert text == source
    defined = {n.name for n in ast.parse(source).body
               if isinstance(n, ast.FunctionDef)}
    assert {"backprop", "_run_rule", "_add", "accumulate", "topological_order",
            "_needed"} <= defined
