"""One exercise, declared: its solution, its cases and its mistakes."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .diagnosis import Rule
from .feeds import Scatter
from .generated import family
from .shared import GENERIC, SHAPE
from .structure import structural


@dataclass(frozen=True)
class Exercise:
    """One exercise: its reference solution and how to test against it.

    Each module of :mod:`.lessons` declares one, as ``EXERCISE``.
    ``solution`` is the answer the learner is asked to write and
    ``cases(rng)`` the seeded cases it is checked on; ``expected`` gives
    the truth where it is not the solution's own answer. ``mistakes`` are
    the rules that name its likely mistakes, specific first; the checker
    tries them, then :data:`.shared.GENERIC` (together: :attr:`rules`).
    ``feeds`` maps an output that is a scatter to the terms that build it,
    so a report can say which windows feed a wrong element; ``hint`` is
    said when no rule fits (a dict: one per output). ``outcomes`` are the
    numbers of the syllabus's learning outcomes (``course/README.md``)
    whose skill the exercise grades; ``tests/test_outcomes.py`` fails if
    an outcome has none. ``forbids`` names what of convgrad the exercise's
    text rules out (keys of :data:`.watch.FORBIDDEN`: ``"autodiff"``,
    ``"conv_transpose2d"``, ``"fold"``, ``"adjoint"``): an answer that
    calls one gets the verdict ``forbidden-call``, in ``check`` and in
    graded mode alike.
    """

    name: str
    lesson: int
    solution: Callable
    cases: Callable[[np.random.Generator], list[dict]]
    outputs: tuple[str, ...] = ("output",)
    expected: Callable | None = None  # defaults to ``solution``
    hint: str | Mapping[str, str] = ""  # or one per output
    feeds: Mapping[str, Callable[[dict], Scatter]] = field(default_factory=dict)
    mistakes: Sequence[Rule] = ()
    # loose enough for an answer computed in float32, tight enough for a bug
    rtol: float = 1e-5
    atol: float = 1e-7
    outcomes: tuple[int, ...] = ()
    # the answer as a sum of named terms, per output (``terms(case)``):
    # the generated family drops, negates, doubles each one, or computes it
    # from a changed input (:mod:`.generated`)
    terms: Callable[[dict], Mapping[str, list]] | None = None
    # an output that is a sum over some axes of an array, per output
    # (``sums(case)`` gives ``{output: (array, axes)}``): the family sums
    # over the other axes
    sums: Callable[[dict], Mapping[str, tuple]] | None = None
    forbids: tuple[str, ...] = ()
    # outputs that follow one from another (a chain of gradients): output
    # -> its right step, ``link(case, outputs)`` from the learner's own
    # outputs; an output not listed is a root (:mod:`.structure`)
    links: Mapping[str, Callable[[dict, dict], np.ndarray]] = field(
        default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mistakes", tuple(self.mistakes))
        object.__setattr__(self, "outcomes", tuple(self.outcomes))
        object.__setattr__(self, "forbids", tuple(self.forbids))

    @functools.cached_property
    def rules(self) -> tuple[Rule, ...]:
        """The exercise's own rules, then the generated family
        (:mod:`.generated`: small changes to the right computation), then
        the generic ones; the structural ones (:mod:`.structure`) just
        before the catch-all ``shape``."""
        integer, zeros, scale, *rest = GENERIC
        early, late = family(self.expected or self.solution, self.feeds,
                             self.terms, self.sums)
        cut = rest.index(SHAPE)
        return (*self.mistakes, integer, zeros, *early, scale, *late,
                *rest[:cut], *structural(self.feeds, self.links, self.terms),
                *rest[cut:])

    def hint_for(self, output: str) -> str:
        if isinstance(self.hint, str):
            return self.hint
        return self.hint.get(output, "")
