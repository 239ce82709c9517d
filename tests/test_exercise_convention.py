"""One convention for exercises (issue 27): each is one module of
``convgrad.exercises.lessons`` holding its solution, its cases and its
rules; what several share is in ``shared``; nothing of an exercise is
defined anywhere else."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
import types
import uuid
from pathlib import Path

import pytest

from convgrad import exercises
from convgrad.exercises import (
    EXERCISES,
    generated,
    lessons,
    registry,
    shared,
    structure,
)
from convgrad.exercises.diagnosis import Rule
from convgrad.exercises.exercise import Exercise

PACKAGE = Path(exercises.__file__).parent
MODULES = {info.name: importlib.import_module(f"{lessons.__name__}.{info.name}")
           for info in pkgutil.iter_modules(lessons.__path__)}
OWNER = {m.EXERCISE.name: m for m in MODULES.values()}
# the checker's modules: what an exercise's pieces may be built with
MACHINERY = {f"{exercises.__name__}.{key}" for key in
             ("shared", "diagnosis", "feeds", "display", "exercise")}


def _module_of(name: str) -> types.ModuleType:
    return OWNER[name]


def test_every_exercise_is_one_module_and_every_module_one_exercise():
    assert len(MODULES) == len(EXERCISES) >= 18
    assert sorted(OWNER) == sorted(EXERCISES)
    for key, module in MODULES.items():
        ex = module.EXERCISE
        assert isinstance(ex, Exercise), key
        assert EXERCISES[ex.name] is ex, key
        assert registry.MODULE_NAME.fullmatch(key), key
        assert key.startswith(f"l{ex.lesson:02d}") and key.endswith(
            f"_{ex.name}"), f"{key} declares {ex.name} of lesson {ex.lesson}"


def test_the_registry_keeps_each_lessons_exercises_in_module_order():
    order = [MODULES[key].EXERCISE.name for key in sorted(MODULES)]
    assert list(EXERCISES) == order


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_the_module_holds_the_solution_the_cases_and_the_rules(name):
    module, ex = _module_of(name), EXERCISES[name]
    # the solution has the exercise's name, as the learner's function does
    assert ex.solution.__name__ == name
    assert getattr(module, name) is ex.solution
    assert ex.solution.__module__ == module.__name__
    assert module.cases is ex.cases
    assert ex.cases.__module__ == module.__name__
    if ex.expected is not None:
        assert ex.expected.__module__ == module.__name__
    assert tuple(module.MISTAKES) == ex.mistakes
    assert all(isinstance(r, Rule) for r in ex.mistakes)
    assert ex.rules[:len(ex.mistakes)] == ex.mistakes
    # then the generic rules, in their order, with the generated family
    # (generated.py) and the structural rules (structure.py) between them
    rest = ex.rules[len(ex.mistakes):]
    assert tuple(r for r in rest if r in shared.GENERIC) == shared.GENERIC
    assert {r.code for r in rest if r not in shared.GENERIC} <= {
        *generated.CODES, *structure.CODES}


def _functions_in(obj, seen=None):
    """Every function ``obj`` is built from: closures, defaults, a
    rule's parts, the items of a list or dict, followed all the way."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, types.FunctionType):
        yield obj
        for cell in obj.__closure__ or ():
            try:
                yield from _functions_in(cell.cell_contents, seen)
            except ValueError:  # an empty cell
                pass
        for value in (obj.__defaults__ or ()):
            yield from _functions_in(value, seen)
    elif isinstance(obj, Rule):
        for part in (obj.evidence, obj.where, obj.fix):
            yield from _functions_in(part, seen)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _functions_in(item, seen)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _functions_in(item, seen)


def _allowed(module: types.ModuleType, fn) -> bool:
    """A piece of ``module``'s exercise may be built from the module
    itself, the checker's shared modules, and other exercises' solutions."""
    where = fn.__module__
    if where == module.__name__ or where in MACHINERY:
        return True
    other = next((m for m in MODULES.values() if m.__name__ == where), None)
    return other is not None and fn is other.EXERCISE.solution


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_no_piece_of_an_exercise_comes_from_another_exercise(name):
    module, ex = _module_of(name), EXERCISES[name]
    pieces = [ex.solution, ex.cases, ex.expected, dict(ex.feeds),
              list(ex.mistakes)]
    stray = [f"{fn.__module__}.{fn.__qualname__}"
             for fn in _functions_in(pieces)
             if fn.__module__.startswith("convgrad.exercises")
             and not _allowed(module, fn)]
    assert not stray, stray
    # and what the module imports of another exercise is its solution only
    for key, value in vars(module).items():
        if getattr(value, "__module__", None) in {
                m.__name__ for m in MODULES.values()} - {module.__name__}:
            assert _allowed(module, value), f"{module.__name__} imports {key}"


def _checker_modules() -> list[types.ModuleType]:
    return [importlib.import_module(f"{exercises.__name__}.{info.name}")
            for info in pkgutil.iter_modules(exercises.__path__)
            if info.name != "lessons"]


def test_no_exercise_is_defined_outside_its_module():
    names = set(EXERCISES)
    pieces = {id(p) for ex in EXERCISES.values()
              for p in (ex.solution, ex.cases, ex.expected) if p is not None}
    for module in [exercises, *_checker_modules()]:
        for key, value in vars(module).items():
            if getattr(value, "__module__", None) != module.__name__:
                continue  # imported
            assert key not in names, f"{module.__name__}.{key}"
            assert id(value) not in pieces, f"{module.__name__}.{key}"
        assert not {"EXERCISE", "MISTAKES", "cases"} & set(vars(module)), \
            module.__name__


def test_only_the_registry_and_the_package_import_the_lessons():
    importers = set()
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (
                    "lessons" in (node.module or "")
                    or any(a.name == "lessons" for a in node.names)):
                importers.add(path.name)
    assert importers == {"__init__.py", "registry.py"}, importers


def _shared_users() -> dict[str, set[str]]:
    """For each public top-level name of ``shared``, the exercises that use
    it: directly, or through another name of ``shared`` that they use."""
    tree = ast.parse(Path(shared.__file__).read_text())
    defined: dict[str, set[str]] = {}  # name -> the shared names it uses
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            targets = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = [t.id for t in (node.targets if isinstance(
                node, ast.Assign) else [node.target])
                if isinstance(t, ast.Name)]
        else:
            continue
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for target in targets:
            defined[target] = used - {target}
    direct: dict[str, set[str]] = {key: set() for key in defined}
    for module in MODULES.values():
        source = ast.parse(Path(module.__file__).read_text())
        for node in ast.walk(source):
            if isinstance(node, ast.ImportFrom) and node.module == "shared":
                for alias in node.names:
                    direct[alias.name].add(module.EXERCISE.name)
            elif (isinstance(node, ast.Attribute)
                  and isinstance(node.value, ast.Name)
                  and node.value.id == "shared"):
                direct[node.attr].add(module.EXERCISE.name)
    direct["GENERIC"] |= set(EXERCISES)  # exercise.py gives it to every one
    users = {key: set(found) for key, found in direct.items()}
    changed = True
    while changed:  # a name is used by whoever uses a name that uses it
        changed = False
        for key, uses in defined.items():
            for used in uses & set(users):
                if not users[key] <= users[used]:
                    users[used] |= users[key]
                    changed = True
    return users


def test_shared_holds_only_what_two_exercises_use_at_least():
    users = _shared_users()
    alone = {key: sorted(found) for key, found in users.items()
             if not key.startswith("_") and len(found) < 2}
    assert not alone, (f"move these into the one exercise that uses them: "
                       f"{alone}")
    # the check sees real uses: the conv scatter serves exactly these two
    assert {"conv2d_backward", "dilated_grouped_backward"} <= users["conv"]
    assert users["GENERIC"] == set(EXERCISES)


# --------------------------------------------------------------------------
# the registry refuses a module that breaks the convention
# --------------------------------------------------------------------------


def _package(tmp_path, monkeypatch, modules: dict[str, str]):
    """A throwaway package of exercise modules, imported."""
    name = f"fake_lessons_{uuid.uuid4().hex}"  # never one imported before
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    for key, source in modules.items():
        (root / f"{key}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name)


def _declaring(name: str, lesson: int) -> str:
    return f"""
        from convgrad.exercises.exercise import Exercise

        def {name}(x):
            return x

        def cases(rng):
            return [{{"x": 1.0}}]

        MISTAKES = []
        EXERCISE = Exercise("{name}", {lesson}, {name}, cases,
                            mistakes=MISTAKES)
        """


def test_solutions_are_reached_only_through_solution():
    """No reference solution sits in the package under a name a lesson's
    namespace could pick up (``exercises.col2im``, ``from
    convgrad.exercises import *``): ``exercises.solution(name)`` is the
    one way to it."""
    for name, ex in EXERCISES.items():
        assert exercises.solution(name) is ex.solution
        assert not hasattr(exercises, name), name
        assert name not in exercises.__all__, name
    exported = {id(getattr(exercises, key)) for key in exercises.__all__}
    assert not exported & {id(ex.solution) for ex in EXERCISES.values()}


def test_the_registry_finds_the_modules_in_order(tmp_path, monkeypatch):
    package = _package(tmp_path, monkeypatch, {
        "l02a_double": _declaring("double", 2),
        "l01b_second": _declaring("second", 1),
        "l01a_first": _declaring("first", 1),
    })
    found = registry.discover(package)
    assert list(found) == ["first", "second", "double"]
    assert inspect.getmodule(found["double"].solution).__name__.endswith(
        "l02a_double")


@pytest.mark.parametrize("modules, error, said", [
    ({"l01a_first": "X = 1\n"}, TypeError, "must declare EXERCISE"),
    ({"l01a_other": _declaring("first", 1)}, ValueError,
     "name the module l01<letter>_first"),
    ({"l02a_first": _declaring("first", 1)}, ValueError,
     "name the module l01<letter>_first"),
    ({"first": _declaring("first", 1)}, ValueError, "name the module"),
    ({"l01a_first": _declaring("first", 1),
      "l01b_first": _declaring("first", 1)}, ValueError, "declared twice"),
])
def test_the_registry_refuses_a_module_that_breaks_it(
        tmp_path, monkeypatch, modules, error, said):
    package = _package(tmp_path, monkeypatch, modules)
    with pytest.raises(error, match=said.replace("<", ".").replace(">", ".")):
        registry.discover(package)
