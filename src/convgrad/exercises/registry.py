"""The exercises by name, found in :mod:`.lessons`: one module each.

A module ``lNN<letter>_<name>`` declares exercise ``name`` of lesson ``NN``
as ``EXERCISE``; the letter orders a lesson's exercises as its notebook
does. :data:`EXERCISES` holds them in that order, lesson by lesson.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from types import ModuleType

from . import lessons
from .exercise import Exercise

MODULE_NAME = re.compile(r"l(\d\d)[a-z]_(\w+)")


def discover(package: ModuleType = lessons) -> dict[str, Exercise]:
    """Every exercise declared in ``package``'s modules, by name."""
    found: dict[str, Exercise] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__),
                       key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        ex = getattr(module, "EXERCISE", None)
        if not isinstance(ex, Exercise):
            raise TypeError(f"{module.__name__} must declare EXERCISE = "
                            f"Exercise(...), got {ex!r}")
        match = MODULE_NAME.fullmatch(info.name)
        want = f"l{ex.lesson:02d}<letter>_{ex.name}"
        if match is None or (int(match[1]), match[2]) != (ex.lesson, ex.name):
            raise ValueError(f"{module.__name__} declares exercise {ex.name!r} "
                             f"of lesson {ex.lesson}: name the module {want}")
        if ex.name in found:
            raise ValueError(f"exercise {ex.name!r} is declared twice, the "
                             f"second time in {module.__name__}")
        found[ex.name] = ex
    return found


EXERCISES: dict[str, Exercise] = discover()


def solution(name: str) -> Callable:
    """The reference solution of exercise ``name`` (for instructors, tests)."""
    return exercise(name).solution


def exercise(name: str) -> Exercise:
    if name not in EXERCISES:
        raise ValueError(
            f"name must be one of the exercises {sorted(EXERCISES)}, got {name!r}"
        )
    return EXERCISES[name]
