"""What grading runs of a submitted notebook: :func:`run_definitions` reads
its cells as a kernel does (IPython's syntax included) and runs its
imports, functions and classes, and the whole of each exercise cell.

The sealed grading worker (:mod:`.worker`) uses it inside its sandbox.
It reads the notebook as plain JSON (no nbformat validation) and imports
IPython only when a cell needs it.
"""

from __future__ import annotations

import ast
import json
import linecache
import re
from collections.abc import Iterable
from pathlib import Path

from convgrad.exercises.graded import one_line

_KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
         ast.ClassDef)


def _is_check(node: ast.stmt) -> bool:
    """A practice check (``exercises.check(...)``) at a cell's top level."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    fn = node.value.func
    return (isinstance(fn, ast.Attribute) and fn.attr == "check") or (
        isinstance(fn, ast.Name) and fn.id == "check")


# a line IPython reads as a magic, a shell command or a help request:
# ``%x``, ``%%x``, ``!x`` (alone or as an assignment's value), ``name?``
_IPYTHON = re.compile(r"^\s*[%!]|=\s*[%!]|^[^#\n]*[\w)\]]\?\??[ \t]*$",
                      re.M)

#: cell magics whose body a kernel runs as a cell, in the user namespace
#: (``%%timeit`` is not one: its body runs inside a timing function, so
#: nothing it defines is left in the namespace)
RUN_CELL_MAGICS = frozenset({"time", "capture", "prun"})
#: line magics whose statement a kernel runs in the user namespace
#: (``%timeit stmt`` runs it inside a timing function)
RUN_LINE_MAGICS = frozenset({"time", "prun"})


def _python(source: str) -> str:
    """A cell's source as Python, as a kernel reads it: IPython's
    ``TransformerManager`` turns its magics, shell commands and help
    requests into ``get_ipython()`` calls. A cell magic whose body a
    kernel runs in the user namespace (:data:`RUN_CELL_MAGICS`) gives
    that body, read the same way, on the lines it has in the cell; any
    other cell magic (``%%bash``, ``%%writefile``, ``%%timeit``, ...)
    gives nothing to run. The calls left are :func:`_without_magics`'s
    to replace."""
    if not _IPYTHON.search(source):
        return source  # importing IPython takes a second or two
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return source
    try:
        code = TransformerManager().transform_cell(source)
    except Exception:
        return source
    magic = _cell_magic(code)
    if magic is None:
        return code
    name, line, body = magic
    if name not in RUN_CELL_MAGICS or (name == "time" and line.strip()):
        return ""  # %%time with a statement on its line runs nothing
    lines = source.splitlines()
    first = next((i for i, x in enumerate(lines)
                  if x.lstrip().startswith("%%")), 0)
    return "\n" * (first + 1) + _python(body)  # the body keeps its lines


def _shell_call(node: ast.AST) -> tuple[str, list[ast.expr]] | None:
    """``get_ipython().METHOD(ARGS)``: (METHOD, ARGS)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "get_ipython"
            and not node.func.value.args):
        return node.func.attr, node.args
    return None


def _texts(args: list[ast.expr]) -> list[str] | None:
    if all(isinstance(a, ast.Constant) and isinstance(a.value, str)
           for a in args):
        return [a.value for a in args]  # type: ignore[attr-defined]
    return None


def _cell_magic(code: str) -> tuple[str, str, str] | None:
    """(name, line, body) when ``code`` (a transformed cell) is one cell
    magic's call."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = _shell_call(tree.body[0].value)
    if call is None or call[0] != "run_cell_magic":
        return None
    texts = _texts(call[1])
    return (texts[0], texts[1], texts[2]) if texts and len(texts) == 3 else None


def _statement(magic: str, line: str) -> str:
    """The statement of a line magic of :data:`RUN_LINE_MAGICS`, its
    options left out (``%prun -s cumulative -q f()`` runs ``f()``)."""
    if magic != "prun":
        return line
    words = line.split(" ")
    while words and (not words[0] or words[0].startswith("-")):
        flag = words.pop(0)
        if flag in ("-D", "-l", "-s", "-T") and words:
            words.pop(0)  # the option's value
    return " ".join(words)


class _Magics(ast.NodeTransformer):
    """What a kernel does with the ``get_ipython()`` calls a transformed
    cell holds, as far as the namespace goes: ``%time stmt`` and ``%prun
    stmt`` run ``stmt``; every other magic, shell command (``!ls``) or help
    request does nothing (no shell command ever runs). A value they would
    give is ``None`` (``[]`` for ``x = !cmd``)."""

    def _run_line(self, node: ast.AST) -> list[ast.stmt] | None:
        call = _shell_call(node)
        texts = _texts(call[1]) if call else None
        if not (call and call[0] == "run_line_magic" and texts
                and len(texts) == 2 and texts[0] in RUN_LINE_MAGICS):
            return None
        try:
            return ast.parse(_statement(*texts)).body
        except SyntaxError:
            return None

    def visit_Expr(self, node: ast.Expr) -> ast.AST | list[ast.stmt]:
        if _shell_call(node.value) is None:
            return self.generic_visit(node)
        body = self._run_line(node.value)
        if not body:
            return ast.copy_location(ast.Pass(), node)
        for stmt in body:
            ast.increment_lineno(stmt, node.lineno - 1)
        return [self.visit(stmt) for stmt in body]

    def visit_Call(self, node: ast.Call) -> ast.AST:
        call = _shell_call(node)
        if call is None:
            return self.generic_visit(node)
        body = self._run_line(node)
        if body and len(body) == 1 and isinstance(body[0], ast.Expr):
            value = body[0].value
            ast.increment_lineno(value, node.lineno - 1)
            return self.visit(value)  # x = %time f() is f()
        empty = ast.List(elts=[], ctx=ast.Load()) if call[0] == "getoutput" \
            else ast.Constant(None)
        return ast.copy_location(empty, node)


def _without_magics(tree: ast.Module) -> ast.Module:
    """``tree`` with its ``get_ipython()`` calls done as :class:`_Magics`
    says."""
    tree = _Magics().visit(tree)
    return ast.fix_missing_locations(tree)


class _Shell:
    """The namespace's ``get_ipython()``, for code that calls it by hand:
    every method does nothing."""

    def __getattr__(self, name: str):
        def nothing(*args, **kwargs):
            return [] if name == "getoutput" else None

        return nothing


def _get_ipython() -> _Shell:
    return _Shell()


def _cells(path: Path) -> list[tuple[str, str]]:
    """(cell type, source) of each cell of the notebook at ``path``, read as
    plain JSON (importing nbformat's validator takes seconds)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    out = []
    for cell in data.get("cells", []):
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        out.append((cell.get("cell_type", ""), source))
    return out


def run_definitions(nb: list[tuple[str, str]], wanted: Iterable[str],
                    filename: str) -> tuple[dict, dict[str, str]]:
    """Run what grading needs of ``nb`` in a fresh namespace: every cell's
    imports, functions and classes, and the whole of each cell that defines
    a wanted exercise (except its practice checks). Each cell is read as a
    kernel reads it (:func:`_python`): ``%%time``'s body runs, ``%%bash``
    runs nothing, ``%matplotlib inline`` and ``!ls`` do nothing, ``%time
    stmt`` runs ``stmt``; no shell command ever runs. Returns the namespace
    and, per cell that failed, why (``"cell 3: NameError: ..."``) keyed by
    the exercise it defines, or ``""`` for other cells."""
    wanted = set(wanted)
    namespace: dict = {"__name__": "__main__", "get_ipython": _get_ipython}
    failures: dict[str, str] = {}
    for index, (kind, text) in enumerate(nb):
        if kind != "code":
            continue
        source = _python(text)
        where = f"<{filename}, cell {index}>"
        try:
            tree = ast.parse(source, where)
        except SyntaxError as err:
            defined = [x for x in wanted if f"def {x}" in text]
            for name in defined or [""]:
                failures.setdefault(name, f"cell {index} does not parse: "
                                          f"{one_line(err)}")
            continue
        if "get_ipython" in source:
            tree = _without_magics(tree)
        defines = [n.name for n in tree.body if isinstance(n, _KEPT[2:])]
        mine = [x for x in defines if x in wanted]
        if mine:  # the exercise cell runs whole, as it would in the notebook
            keep = [n for n in tree.body if not _is_check(n)]
        else:
            keep = [n for n in tree.body if isinstance(n, _KEPT)]
        if not keep:
            continue
        linecache.cache[where] = (len(source), None,
                                  source.splitlines(keepends=True), where)
        module = ast.Module(body=keep, type_ignores=[])
        try:
            exec(compile(module, where, "exec"), namespace)
        except (Exception, SystemExit) as err:
            reason = f"cell {index} raised {one_line(err)}"
            for name in mine or [""]:
                failures.setdefault(name, reason)
    return namespace, failures
