"""Grade one submitted notebook, in this process (a worker of
``python -m convgrad.course grade``, which starts one per notebook and
stops it at a time limit).

``python -m convgrad.exercises.submission NOTEBOOK RESULTS NAME...`` reads
the seed from ``CONVGRAD_GRADE_SEED`` and removes it from the environment
before any student code runs; runs what grading needs of the notebook
(:func:`run_definitions`); then grades each named exercise function with
:func:`convgrad.exercises.grade`, appending one JSON line per event to
RESULTS (``{"start": name}`` before each, then its result), so a run that
is stopped still tells which exercise it was grading.

It reads the notebook as plain JSON and imports neither nbformat nor
IPython unless a cell needs it: a worker starts in about a second.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import linecache
import os
import sys
import time
import warnings
from collections.abc import Iterable
from pathlib import Path


def one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text[:300]}" if text else type(err).__name__


def result(status: str, diagnosis: str, score: float = 0.0) -> dict:
    return {"status": status, "diagnosis": diagnosis, "score": score}


_KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
         ast.ClassDef)


def _is_check(node: ast.stmt) -> bool:
    """A practice check (``exercises.check(...)``) at a cell's top level."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    fn = node.value.func
    return (isinstance(fn, ast.Attribute) and fn.attr == "check") or (
        isinstance(fn, ast.Name) and fn.id == "check")


def _python(source: str) -> str:
    """A cell's source as Python (IPython's magics become calls)."""
    if not any(line.lstrip().startswith(("%", "!"))
               for line in source.splitlines()):
        return source  # importing IPython takes a second or two
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


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
    a wanted exercise (except its practice checks). Returns the namespace
    and, per cell that failed, why (``"cell 3: NameError: ..."``) keyed by
    the exercise it defines, or ``""`` for other cells."""
    wanted = set(wanted)
    namespace: dict = {"__name__": "__main__"}
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m convgrad.exercises.submission")
    parser.add_argument("notebook", type=Path)
    parser.add_argument("results", type=Path)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    os.environ.setdefault("MPLBACKEND", "Agg")
    from convgrad.exercises.graded import SEED_VARIABLE, grade, grade_seed

    seed = grade_seed()
    del os.environ[SEED_VARIABLE]  # out of the student code's reach

    with open(args.results, "a", encoding="utf-8") as out:

        def emit(record: dict) -> None:
            out.write(json.dumps(record) + "\n")
            out.flush()

        emit({"setup": str(args.notebook)})
        nb = _cells(args.notebook)
        with contextlib.redirect_stdout(open(os.devnull, "w")):  # noqa: SIM115
            namespace, failures = run_definitions(nb, args.names,
                                                  args.notebook.name)
        for name in args.names:
            emit({"start": name})
            fn = namespace.get(name)
            if not callable(fn):
                why = failures.get(name) or (
                    f"the notebook does not define {name}"
                    if fn is None else f"{name} is not a function")
                status = "error" if name in failures else "not-attempted"
                emit({"name": name, **result(status, why)})
                continue
            started = time.monotonic()
            try:
                with contextlib.redirect_stdout(open(os.devnull, "w")):  # noqa: SIM115
                    graded = grade(name, fn, seed=seed, quiet=True,
                                   time_limit=args.time_limit)
            except BaseException as err:  # sys.exit() in the answer, say
                emit({"name": name,
                      **result("error", f"{name} raised {one_line(err)}")})
                continue
            emit({"name": name, "status": graded.status,
                  "score": graded.score,
                  "diagnosis": "" if graded.status == "passed"
                  else graded.summary,
                  "seconds": round(time.monotonic() - started, 3)})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
