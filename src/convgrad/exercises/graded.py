"""Graded mode: the checker as an instructor's autograder.

:func:`grade` runs the same cases, comparisons and diagnosis as
:func:`~convgrad.exercises.check`, with four differences:

- the cases come from a seed only the instructor holds (``seed=`` or the
  ``CONVGRAD_GRADE_SEED`` environment variable), so they differ from the
  practice cases (seed 0) an answer could be fitted to;
- it scores: ``points`` for a right answer, and for an exercise with
  several outputs (``dx``, ``dw``, ``db``) an equal share per output that
  is right on every case; nothing for an answer that raises, runs past
  the time limit, changes its inputs, or calls the library;
- an answer that calls convgrad's own implementation (``F.unfold`` /
  ``F.fold``, the reference twins in :mod:`convgrad.reference`, the
  kernels, a reference solution, ``exercises.solution`` included, or the
  checker's code beside them: a solution's helpers, the scatters and
  models of :mod:`.lessons` and :mod:`.shared`) scores 0 with status
  ``uses-library``. The evidence is the call itself:
  while the answer runs, a profile hook watches for those functions' code
  being entered (a compiled kernel's entry point, whose ``__call__`` is a
  Python method, included). Nothing of the learner's namespace is watched
  or changed: no reference solution is in it, since the package
  exports none under an exercise's name (:func:`~.registry.solution` is
  the only way to reach one, and calling it is watched like the rest).
  Where an exercise asks for ``F.conv2d`` (lesson 4's ``dx_by_conv2d`` and
  ``dw_by_correlation``) the watch is off while ``F.conv2d`` runs; what
  an exercise's text rules out (``Exercise.forbids``: autodiff,
  ``conv_transpose2d``, ``fold``, ``convgrad.adjoint``) is watched for it
  in ``check`` too, and its verdict is ``forbidden-call``, with the
  exercise's hint as the fix;
- it writes nothing to stderr: warnings are silenced and anything the
  answer writes to stderr goes to stdout, because nbgrader gives a test
  cell 0 points when it writes to stderr.

The report is the checker's message (the first wrong element, the
diagnosis, its evidence and fix) under one line with the score. In an
nbgrader test cell the score is the cell's last expression, and the seed is
the lesson's, derived from the instructor's secret (:func:`case_seed`)::

    grade("col2im", globals().get("col2im"),
          seed=..., points=1,
          raised=cell_error("col2im")).score

Self-study is unchanged: ``check`` and ``exercises.solution`` stay as they
are.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import linecache
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .checker import CheckResult, check
from .display import wrap
from .registry import exercise
from .watch import _Watch, forbidden_lines

SEED_VARIABLE = "CONVGRAD_GRADE_SEED"

#: every status :func:`grade` gives
STATUSES = ("passed", "wrong", "not-attempted", "error", "timeout",
            "uses-library")

# how a score line says each status
_SAID = {"passed": "passed", "wrong": "wrong",
         "not-attempted": "not attempted", "error": "error",
         "timeout": "stopped: time limit", "uses-library": "uses the library"}


@dataclass
class Graded:
    """What :func:`grade` found: ``status`` is one of :data:`STATUSES`;
    ``score`` of ``max_score`` points (plain floats); ``message`` the
    report printed; ``diagnosis`` the checker's code of the mistake, if
    one fits; ``verdicts`` each output's verdict; ``library`` what of
    convgrad's own implementation the answer called; ``summary`` the
    report under the score line, without the drawn grid."""

    name: str
    status: str
    score: float
    max_score: float
    message: str
    diagnosis: str | None = None
    verdicts: dict[str, str] = field(default_factory=dict)
    library: tuple[str, ...] = ()
    result: CheckResult | None = None
    #: the checker's headline, the case, each output's verdict, the
    #: diagnosis with its evidence and fix (a grade file's ``diagnosis``)
    summary: str = ""

    def __repr__(self) -> str:
        return (f"Graded({self.name!r}, {self.status!r}, "
                f"{self.score:g}/{self.max_score:g})")


def points_for(name: str) -> int:
    """The default points of exercise ``name``: one per output."""
    return len(exercise(name).outputs)


def grade_seed(seed: int | None = None) -> int:
    """``seed``, or the ``CONVGRAD_GRADE_SEED`` environment variable's."""
    if seed is None:
        text = os.environ.get(SEED_VARIABLE, "").strip()
        if not text:
            raise ValueError(
                f"seed must be given: pass seed=... or set {SEED_VARIABLE} "
                f"(the instructor's secret seed of the graded cases)")
        try:
            seed = int(text)
        except ValueError:
            raise ValueError(
                f"{SEED_VARIABLE} must be a non-negative integer, got "
                f"{text!r}") from None
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return seed


def case_seed(secret: int, lesson: str, student: str = "") -> int:
    """The seed of one (lesson, student)'s graded cases, derived from the
    instructor's ``secret``: an HMAC-SHA256 of the lesson and the student,
    keyed with the secret. Knowing one derived seed (printed by an answer,
    say) tells nothing of the secret, of another lesson's cases or of
    another student's. ``student=""`` is the lesson's seed for every
    student (the nbgrader route, whose kernels do not know the student)."""
    secret = grade_seed(secret)
    for label, text in (("lesson", lesson), ("student", student)):
        if not isinstance(text, str):
            raise TypeError(f"{label} must be a string, got {text!r}")
    digest = hmac.new(str(secret).encode(), f"{lesson}\0{student}".encode(),
                      hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # non-negative, 63 bits


def grade(
    name: str, fn: Callable | None, *, seed: int | None = None,
    points: float | None = None, quiet: bool = False,
    time_limit: float | None = 10.0, raised: BaseException | str | None = None,
) -> Graded:
    """Grade ``fn`` as exercise ``name`` on the instructor's cases.

    ``fn`` may be ``None`` (the learner's function is not defined): that is
    not attempted, unless ``raised`` says why it is not defined, the error
    that stopped its cell before the ``def`` ran (:func:`cell_error` finds
    it in a kernel): that is an ``error``, whose report names it. Prints
    the report to stdout unless ``quiet``; never writes to stderr; never
    raises for anything the answer does. A bad ``name``, ``seed`` or
    ``points`` raises an error that names it.
    """
    ex = exercise(name)
    seed = grade_seed(seed)
    top = float(points_for(name) if points is None else points)
    if not top >= 0:
        raise ValueError(f"points must be a non-negative number, got {points!r}")
    if raised is not None and not isinstance(raised, BaseException | str):
        raise TypeError(f"raised must be an exception or a message, got "
                        f"{raised!r}")
    # an answer run elsewhere (the sealed grader's) writes nothing here
    quiet_here = (contextlib.nullcontext() if hasattr(fn, "library_hits")
                  else _quiet_stderr())
    with quiet_here:
        if raised is not None and (fn is None or not callable(fn)):
            graded = _cell_raised(ex.name, top, raised)
        else:
            graded = _grade(ex.name, fn, seed, top, time_limit)
    if not quiet:
        print(wrap(graded.message))
    return graded


def one_line(err: BaseException) -> str:
    """``err`` as one line: its type, and its text (at most 300 characters)
    with every run of whitespace made one space."""
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text[:300]}" if text else type(err).__name__


def _graded(name: str, status: str, score: float, top: float, summary: str,
            drawing: str = "", **found) -> Graded:
    """A :class:`Graded` whose message is the score line, the summary and
    the drawing."""
    head = f"{name}: {score:g}/{top:g} points ({_SAID[status]})"
    message = "\n".join(x for x in (head, summary, drawing) if x)
    return Graded(name, status, score, top, message, summary=summary, **found)


def _cell_raised(name: str, top: float, raised: BaseException | str) -> Graded:
    if isinstance(raised, BaseException):
        raised = one_line(raised)
    return _graded(name, "error", 0.0, top,
                   f"{name}: the cell that defines {name} raised {raised}, "
                   f"before it defined {name}. Fix that cell, run it, then "
                   f"this one.")


def cell_error(name: str) -> BaseException | None:
    """In a kernel: the error that stopped the cell defining ``name``, if
    the last error the kernel showed came from such a cell.

    IPython keeps the last error it showed in ``sys.last_value`` (and its
    traceback in ``sys.last_traceback``), and each cell's source in
    :mod:`linecache` under the cell's file name. The error counts when a
    cell it was raised in (a ``<module>`` frame of its traceback, or the
    file of a ``SyntaxError``) has ``def name(`` at its top level. A graded
    test cell passes it to :func:`grade` as ``raised=``, so that a cell that
    raised before its ``def`` is an ``error``, not "not attempted", as in
    the grade command's grade file."""
    value = getattr(sys, "last_value", None)
    if not isinstance(value, BaseException):
        return None
    files = []
    if isinstance(value, SyntaxError) and value.filename:
        files.append(value.filename)
    tb = getattr(sys, "last_traceback", None)
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "<module>":
            files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    defines = re.compile(rf"^(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b",
                         re.M)
    for file in files:
        if defines.search("".join(linecache.getlines(file))):
            return value
    return None


def _grade(name: str, fn, seed: int, top: float,
           time_limit: float | None) -> Graded:
    if fn is None or not callable(fn):
        what = "is not defined" if fn is None else f"is {type(fn).__name__}"
        return _graded(name, "not-attempted", 0.0, top,
                       f"{name}: {name} {what}. Run the cell that defines "
                       f"it, then this one.")
    watch = _Watch(name)
    if hasattr(fn, "library_hits"):  # it runs elsewhere, and watches itself
        watch.hits, watched = fn.library_hits, fn
    else:
        watched = watch.wrap(fn)
    try:
        result = check(name, watched, seed=seed, quiet=True,
                       time_limit=time_limit)
    except SystemExit as err:  # the checker stops at Exception; this is not one
        return _graded(name, "error", 0.0, top,
                       f"{name}: your function raised SystemExit: {err}")
    if watch.hits:
        return _uses_library(name, top, watch, result)
    status, score = _score(name, result, top)
    if status == "passed":
        return _graded(name, status, score, top,
                       f"{name}: passed all {result.n_cases} graded cases.",
                       result=result)
    return _graded(name, status, score, top, result.report, result.drawing,
                   diagnosis=result.diagnosis, verdicts=dict(result.verdicts),
                   result=result)


def _score(name: str, result: CheckResult, top: float) -> tuple[str, float]:
    if result.status == "passed":
        return "passed", top
    if result.status == "not attempted":
        return "not-attempted", 0.0
    if result.status == "error":
        return ("timeout" if result.diagnosis == "time-limit" else "error"), 0.0
    outputs = exercise(name).outputs
    right = sum(result.verdicts.get(out) == "right" for out in outputs)
    if right == len(outputs):  # every value right, but e.g. mutates-input
        right = 0
    return "wrong", float(round(top * right / len(outputs), 6))


def _uses_library(name: str, top: float, watch: _Watch,
                  result: CheckResult) -> Graded:
    called = tuple(dict.fromkeys(watch.hits))
    ruled_out = forbidden_lines(name, called)
    if ruled_out:
        return _graded(name, "uses-library", 0.0, top, "\n".join(ruled_out),
                       diagnosis="forbidden-call", library=called,
                       result=result)
    # what computes the answer first, conversions (torch.from_numpy) after
    telling = ("functional", "autograd", "conv", "pool", "fold", "col2im",
               "backward", "grad")
    shown = ", ".join(sorted(called, key=lambda c: not any(
        w in c for w in telling))[:3])
    whose = ("PyTorch's" if all(c.startswith("PyTorch's ") for c in called)
             else "convgrad's own")
    summary = "\n".join([
        f"{name}: your function calls {whose} implementation",
        f"  diagnosis [uses-library]: your {name} calls {whose} "
        f"implementation instead of computing the result.",
        f"    evidence: while your function ran, it called {shown}.",
        "    fix: write the computation yourself, as the lesson derives it "
        "(NumPy is fine); a graded answer that calls the library scores 0.",
    ])
    return _graded(name, "uses-library", 0.0, top, summary,
                   diagnosis="uses-library", library=called, result=result)



@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """No warnings, and stderr (Python's and the file descriptor) sent to
    stdout, for the duration."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(sys.stdout):
        warnings.simplefilter("ignore")
        moved = _move_fd2()
        try:
            yield
        finally:
            if moved is not None:
                with contextlib.suppress(Exception):
                    sys.__stderr__.flush()
                os.dup2(moved, 2)
                os.close(moved)


def _move_fd2() -> int | None:
    try:
        out = sys.__stdout__.fileno() if sys.__stdout__ else 1
        saved = os.dup(2)
        with contextlib.suppress(Exception):
            sys.__stderr__.flush()
        os.dup2(out, 2)
        return saved
    except (OSError, ValueError, AttributeError):
        return None

