"""The reference solutions as notebook text, for the course's two writers.

Student copies (:mod:`.student`) replace a solution with :data:`STUB` and
look for solution lines that show through (:func:`solution_lines`); an
nbgrader assignment (:mod:`.grading`) replaces the stub with the solution
(:func:`notebook_body`). Both read a solution's body one way
(:func:`body`), from ``convgrad.exercises.solution(name)``.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import textwrap
import types
from collections.abc import Iterable

#: the line an exercise's body is in a student copy and a released notebook
STUB = "raise NotImplementedError  # your code here"

# what marks a line as the stub (its comment aside)
_RAISE = STUB.partition("#")[0].strip()

# a bare loop header, or unpacking a shape: common to any code on the topic
_GENERIC = re.compile(r"^(for \w+ in range\(\w+\):|[\w, ]+ = [\w.]+)$")


def is_stub(line: str) -> bool:
    """Does ``line`` hold the stub (whatever its comment says)?"""
    return line.strip().startswith(_RAISE)


def _parts(fn: types.FunctionType) -> tuple[ast.FunctionDef, list[str]]:
    """``fn``'s definition, parsed, and its source lines (dedented)."""
    source = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(source).body[0]
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        raise TypeError(f"fn must be a function, got {fn!r}")
    return node, source.splitlines()  # type: ignore[return-value]


def body(fn: types.FunctionType) -> tuple[list[str], list[ast.stmt]]:
    """The statement lines of ``fn``'s body (docstring left out), dedented,
    and the statements."""
    node, lines = _parts(fn)
    stmts = node.body
    if (stmts and isinstance(stmts[0], ast.Expr)
            and isinstance(stmts[0].value, ast.Constant)
            and isinstance(stmts[0].value.value, str)):
        stmts = stmts[1:]
    start, end = stmts[0].lineno, stmts[-1].end_lineno or stmts[-1].lineno
    return textwrap.dedent("\n".join(lines[start - 1:end])).splitlines(), stmts


# --------------------------------------------------------------------------
# into a notebook (nbgrader's solution cells)
# --------------------------------------------------------------------------


def _free_names(nodes: list[ast.stmt], bound: set[str]) -> list[str]:
    stored = set(bound)
    loaded: list[str] = []
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                (stored.add if isinstance(sub.ctx, ast.Store) else
                 loaded.append)(sub.id)
            elif isinstance(sub, ast.arg):
                stored.add(sub.arg)
            elif isinstance(sub, ast.FunctionDef | ast.ClassDef):
                stored.add(sub.name)
            elif isinstance(sub, ast.alias):
                stored.add((sub.asname or sub.name).split(".")[0])
    return [x for x in dict.fromkeys(loaded)
            if x not in stored and not hasattr(builtins, x)]


def _params(node: ast.FunctionDef) -> set[str]:
    return {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}


def notebook_body(name: str) -> list[str]:
    """The reference solution of ``name`` as body lines a notebook's own
    ``def`` can hold: the imports it needs, the helpers it calls (copied in,
    so the answer calls no solution of the library), then its body."""
    from convgrad.exercises import solution

    fn = solution(name)
    lines, nodes = body(fn)
    imports: list[str] = []
    helpers: list[str] = []
    seen: set[str] = set()

    def need(names: Iterable[str], scope: dict) -> None:
        for free in names:
            if free in seen:
                continue
            seen.add(free)
            value = scope.get(free)
            if isinstance(value, types.ModuleType):
                parent, _, last = value.__name__.rpartition(".")
                imports.append(
                    f"import {free}" if value.__name__ == free else
                    f"from {parent} import {free}" if last == free else
                    f"import {value.__name__} as {free}")
            elif isinstance(value, types.FunctionType):
                node, source = _parts(value)
                need(_free_names(node.body, _params(node)), value.__globals__)
                # its whole definition (no decorators)
                helpers.extend([*source[node.lineno - 1:node.end_lineno], ""])
            else:
                raise ValueError(
                    f"the solution of {name!r} uses {free!r}, which cannot be "
                    f"copied into a notebook")

    need(_free_names(nodes, _params(_parts(fn)[0])), fn.__globals__)
    return [*sorted(set(imports)), *([""] if imports else []), *helpers, *lines]


# --------------------------------------------------------------------------
# out of a notebook (leaks into student copies)
# --------------------------------------------------------------------------


def normal(line: str) -> str:
    """``line`` without a trailing comment, its whitespace made single
    spaces (how lines are compared when looking for a leak)."""
    line = re.sub(r"\s+#.*$", "", line)  # a trailing comment
    return " ".join(line.split())


def _distinctive(line: str) -> bool:
    """Long enough that finding it in a notebook is no coincidence."""
    compact = line.replace(" ", "")
    if _GENERIC.match(line):
        return False
    return len(compact) >= (18 if line.startswith("return ") else 14)


def solution_lines() -> dict[str, set[str]]:
    """Distinctive, whitespace-normalised lines of every reference solution
    in ``convgrad.exercises``, by exercise name."""
    from convgrad.exercises import EXERCISES

    out: dict[str, set[str]] = {}
    for name, ex in EXERCISES.items():
        lines = {normal(x) for x in body(ex.solution)[0]}
        out[name] = {x for x in lines if _distinctive(x)}
    return out
