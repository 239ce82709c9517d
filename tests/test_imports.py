"""No import cycle in ``src/convgrad`` (issue 27), and no import that runs
up a layer of docs/architecture.md's table (issue 43): a static analysis.

Every ``import`` and ``from ... import`` in every module is an edge, at
module level or inside a function alike (a lazy import is still a
dependency: it only moves the failure to the first call), and so is
``importlib.import_module`` with a literal name. Only imports under ``if
TYPE_CHECKING:`` are left out: they never run.

What an import statement depends on:

- ``import a.b.c``: the modules ``a.b`` and ``a.b.c`` (``a`` too), less
  the packages that contain the importer: Python has started those
  before the importer, so importing one again only finds it;
- ``from X import name``: the submodule ``X.name`` when there is one, and
  ``X`` itself, unless ``X`` contains the importer and every name is a
  submodule. ``from . import tensor`` in ``ops/basic.py`` needs only
  ``convgrad.tensor``; ``from . import F`` there would need ``convgrad``'s
  ``__init__`` to have reached ``F``, and is an edge to it.

An ``import_module`` whose name is computed cannot be read; each module
that has one declares its targets in :data:`COMPUTED`, and the test fails
on one that does not.

A cycle is a strongly connected component of more than one module.

The layers are read from docs/architecture.md's table, bottom row first:
a module may import modules of its own layer and of the layers below, and
every module of the package must sit in exactly one row. An import that
runs upward anyway is listed in :data:`UPWARD`, with its reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGE = "convgrad"

#: module -> what its computed ``importlib.import_module`` calls can load
COMPUTED = {
    "convgrad": {"convgrad.trace", "convgrad.viz"},  # __getattr__
    "convgrad.backend": {  # each backend's module, loaded on first use
        "convgrad.kernels", "convgrad.reference",
    },
    "convgrad.exercises.watch": {"convgrad.reference"},  # reference.<key>
    # one module per exercise, found by walking the package
    "convgrad.exercises.registry": {"convgrad.exercises.lessons"},
}


def _modules(root: Path = SRC) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _ancestors(name: str, modules: dict[str, Path]) -> set[str]:
    """The packages Python has started before module ``name`` runs."""
    parts = name.split(".")
    out = {".".join(parts[:i]) for i in range(1, len(parts))}
    if _is_package(name, modules):
        out.add(name)
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = getattr(test, "id", None) or getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for inner in node.body:
                    skip.update(id(n) for n in ast.walk(inner))
    return skip


def _resolve(importer: str, level: int, module: str | None,
             modules: dict[str, Path]) -> str:
    if not level:
        return module or ""
    base = importer if _is_package(importer, modules) else importer.rpartition(".")[0]
    for _ in range(level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{module}" if module else base


def _targets(importer: str, node: ast.AST, modules: dict[str, Path]) -> set[str]:
    """The package modules one import node makes ``importer`` depend on."""
    started = _ancestors(importer, modules)
    out: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            for i in range(1, len(parts) + 1):
                out.add(".".join(parts[:i]))
        return {m for m in out if m in modules and m not in started}
    if isinstance(node, ast.ImportFrom):
        base = _resolve(importer, node.level, node.module, modules)
        subs = {f"{base}.{a.name}" for a in node.names}
        subs &= modules.keys()
        out |= subs
        if len(subs) < len(node.names) or base not in started:
            out.add(base)
        parts = base.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts))} - started
        return {m for m in out if m in modules and m != importer}
    if isinstance(node, ast.Call):  # importlib.import_module("literal", ...)
        func = node.func
        name = getattr(func, "attr", None) or getattr(func, "id", None)
        if name != "import_module" or not node.args:
            return out
        arg = node.args[0]
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            return {"<computed>"}
        target = arg.value
        if target.startswith("."):
            level = len(target) - len(target.lstrip("."))
            target = _resolve(importer, level, target.lstrip(".") or None, modules)
        parts = target.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        return {m for m in out if m in modules and m not in started}
    return out


def import_graph(root: Path = SRC) -> dict[str, set[str]]:
    """Module -> the package modules it imports (see the module docstring)."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        skip = _type_checking_only(tree)
        edges: set[str] = set()
        for node in ast.walk(tree):
            if id(node) not in skip:
                edges |= _targets(name, node, modules)
        edges.discard(name)
        graph[name] = edges
    return graph


def _with_computed(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph with each computed import replaced by its declared
    targets (and all of a package's modules under a declared package)."""
    out = {}
    for name, edges in graph.items():
        if "<computed>" in edges:
            assert name in COMPUTED, (
                f"{name} has an importlib.import_module with a computed name: "
                f"declare what it can load in COMPUTED"
            )
            edges = (edges - {"<computed>"}) | {
                m for m in graph for p in COMPUTED[name]
                if m == p or m.startswith(p + ".")
            }
        out[name] = edges
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm, without recursion), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _edges_within(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    members = set(component)
    return [f"{a} -> {b}" for a in component for b in sorted(graph[a]) if b in members]


def test_src_convgrad_has_no_import_cycle():
    graph = _with_computed(import_graph())
    assert len(graph) > 30  # the walk found the package
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(
        "  " + "; ".join(_edges_within(graph, c)) for c in found
    )


# ------------------------------------------------ the layers' direction
#: imports that run up a layer, each with why it stands and until when
UPWARD: dict[tuple[str, str], str] = {}


def layers(text: str) -> list[tuple[str, list[str]]]:
    """``(layer, [entries])`` of the table under "## The layers", bottom
    row first; an entry is a backticked ``name.py`` or ``folder/``."""
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 3 or cells[0] in ("layer", ""):
            continue
        if set(cells[0]) <= set("-: "):
            continue
        entries = re.findall(r"`([\w/]+(?:\.py|/))`", cells[1])
        rows.append((cells[0], entries))
    return rows


def layer_of(modules, table) -> dict[str, int]:
    """Module -> its row's index in ``table`` (``layers``); a module in no
    row, or in two, fails the assertion."""
    where: dict[str, list[int]] = {m: [] for m in modules}
    for i, (_, entries) in enumerate(table):
        for entry in entries:
            if entry == "__init__.py":  # the package's own door
                hits = [PACKAGE] if PACKAGE in where else []
            elif entry.endswith(".py"):
                name = f"{PACKAGE}.{entry[:-3].replace('/', '.')}"
                hits = [name] if name in where else []
            else:
                base = f"{PACKAGE}.{entry.rstrip('/').replace('/', '.')}"
                hits = [m for m in where if m == base or m.startswith(base + ".")]
            for m in hits:
                where[m].append(i)
    homeless = sorted(m for m, rows in where.items() if not rows)
    assert not homeless, (
        f"modules in no row of the layers table in {ARCHITECTURE.name}: {homeless}"
    )
    twice = sorted(m for m, rows in where.items() if len(rows) > 1)
    assert not twice, f"modules in two rows of the layers table: {twice}"
    return {m: rows[0] for m, rows in where.items()}


def upward(graph, layer) -> set[tuple[str, str]]:
    """Every import ``(importer, imported)`` whose target sits in a higher
    layer than its importer."""
    return {(a, b) for a, edges in graph.items() for b in edges
            if b in layer and layer[b] > layer[a]}


def test_every_import_stays_in_its_layer_or_goes_down():
    table = layers(ARCHITECTURE.read_text(encoding="utf-8"))
    assert [name for name, _ in table][:2] == ["rules of arguments", "loops"]
    assert table[-1][0] == "lessons"
    graph = _with_computed(import_graph())
    layer = layer_of(graph, table)
    found = upward(graph, layer)
    names = [name for name, _ in table]
    wrong = sorted(found - UPWARD.keys())
    assert not wrong, "imports that run up a layer:\n" + "\n".join(
        f"  {a} ({names[layer[a]]}) -> {b} ({names[layer[b]]})" for a, b in wrong
    )
    stale = sorted(UPWARD.keys() - found)
    assert not stale, f"UPWARD lists imports that no longer run upward: {stale}"


def test_the_direction_check_on_an_example():
    table = layers(
        "## The layers\n\n| layer | modules | what |\n|---|---|---|\n"
        "| low | `a.py`, `k/` | x |\n| high | `__init__.py`, `b.py` | y |\n"
        "| lessons | `notebooks/` | z |\n\n## Next\n| not | `c.py` | read |\n"
    )
    assert table == [("low", ["a.py", "k/"]), ("high", ["__init__.py", "b.py"]),
                     ("lessons", ["notebooks/"])]
    graph = {"convgrad": {"convgrad.b"}, "convgrad.a": {"convgrad.k.x"},
             "convgrad.k": set(), "convgrad.k.x": {"convgrad.b"},
             "convgrad.b": {"convgrad.a"}}
    layer = layer_of(graph, table)
    assert layer == {"convgrad": 1, "convgrad.a": 0, "convgrad.k": 0,
                     "convgrad.k.x": 0, "convgrad.b": 1}
    assert upward(graph, layer) == {("convgrad.k.x", "convgrad.b")}
    with pytest.raises(AssertionError, match=r"in no row.*convgrad\.c"):
        layer_of({**graph, "convgrad.c": set()}, table)


# ------------------------------------------------ the analysis, on examples
def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / PACKAGE / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # the old knot: a bottom-of-module import closes the loop
        ({"__init__.py": "", "tensor.py": "from .ops import basic\n",
          "ops/__init__.py": "", "ops/basic.py": "from .. import tensor\n"},
         [["convgrad.ops.basic", "convgrad.tensor"]]),
        # a lazy import inside a function is an edge too
        ({"__init__.py": "", "a.py": "def f():\n    from . import b\n",
          "b.py": "from .a import f\n"},
         [["convgrad.a", "convgrad.b"]]),
        # importlib with a literal name
        ({"__init__.py": "", "a.py": "import importlib\n"
          "importlib.import_module('convgrad.b')\n",
          "b.py": "import convgrad.a\n"},
         [["convgrad.a", "convgrad.b"]]),
        # a submodule asking its package's __init__ for a name: a cycle
        ({"__init__.py": "from .a import g\nF = 1\n", "a.py": "from . import F\n"
          "def g():\n    pass\n"},
         [["convgrad", "convgrad.a"]]),
        # ... but asking it for a sibling submodule is not
        ({"__init__.py": "from .a import g\n", "a.py": "from . import b\n"
          "def g():\n    pass\n", "b.py": ""}, []),
        # nor is a package __init__ importing its children
        ({"__init__.py": "from . import a, b\n", "a.py": "from .b import x\n",
          "b.py": "x = 1\n"}, []),
        # TYPE_CHECKING imports never run
        ({"__init__.py": "", "a.py": "from typing import TYPE_CHECKING\n"
          "if TYPE_CHECKING:\n    from .b import y\n",
          "b.py": "from .a import z\n"}, []),
    ],
)
def test_the_analysis_finds_exactly_the_cycles(tmp_path, files, expected):
    assert cycles(import_graph(_package(tmp_path, files))) == expected


def test_a_computed_import_must_be_declared(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "", "b.py": "",
        "a.py": "import importlib\nname = 'b'\nimportlib.import_module(name)\n",
    })
    graph = import_graph(root)
    assert graph["convgrad.a"] == {"<computed>"}
    with pytest.raises(AssertionError, match="declare what it can load"):
        _with_computed(graph)
