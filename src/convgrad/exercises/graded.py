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
  the only way to reach one, and calling it is watched like the rest);
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
import functools
import hashlib
import hmac
import importlib
import inspect
import linecache
import os
import re
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .checker import CheckResult, check
from .display import wrap
from .registry import EXERCISES, exercise

SEED_VARIABLE = "CONVGRAD_GRADE_SEED"

#: every status :func:`grade` gives
STATUSES = ("passed", "wrong", "not-attempted", "error", "timeout",
            "uses-library")

# exercises whose cases make the answer run convgrad's ops (the bug hunt's
# suspects are convgrad Functions), or that ask for them (a correlation
# written with F.conv2d; two backward passes with cg.grad; max-pool's
# backward as F.fold of F.unfold's one-hot): only the reference solutions
# are off limits there
_RUNS_OPS = frozenset({"find_wrong_backward", "dw_by_correlation",
                       "hessian_vector_product",
                       "maxpool_backward_by_fold"})

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
    shown = ", ".join(called[:3])
    summary = "\n".join([
        f"{name}: your function calls convgrad's own implementation",
        f"  diagnosis [uses-library]: your {name} calls convgrad's own "
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


# ----------------------------------------------------------------------------
# the library watch
# ----------------------------------------------------------------------------


def _code(fn: object) -> types.CodeType | None:
    fn = getattr(fn, "py_func", fn)  # a Numba dispatcher's Python function
    with contextlib.suppress(ValueError):
        fn = inspect.unwrap(fn)  # type: ignore[arg-type]
    return getattr(fn, "__code__", None)


def _functions(module: types.ModuleType) -> Iterator[tuple[str, object]]:
    for key, value in vars(module).items():
        if getattr(value, "__module__", None) == module.__name__ and callable(
                value) and not isinstance(value, type):
            yield key, value


def _kernel_modules() -> list[types.ModuleType]:
    """convgrad's kernel modules that are imported (importing them here
    would import Numba for nothing: an answer that never imported them
    cannot have called them by name)."""
    return [m for key, m in sorted(sys.modules.items())
            if m is not None and (key == "convgrad.kernels"
                                  or key.startswith("convgrad.kernels."))]


def _watched_codes(name: str) -> dict[types.CodeType, str]:
    """Code objects whose entry is evidence of using the library."""
    from convgrad import backend, functional

    # the modules, not the functions the package exports under their names
    twins = [importlib.import_module(f"convgrad.reference.{key}")
             for key in ("im2col", "pool")]

    from . import registry, shared

    codes: dict[types.CodeType, str] = {}

    def add(fn: object, label: str) -> None:
        code = _code(fn)
        if code is not None:
            codes.setdefault(code, label)

    for ex in EXERCISES.values():
        add(ex.solution, f"the reference solution exercises.{ex.name}")
        if ex.expected is not None:
            add(ex.expected, f"the checker's expected values of {ex.name}")
    add(registry.solution, "exercises.solution")
    # the rest of the checker's code that computes answers: the solutions'
    # helpers (conv_matrix's place), each exercise's scatter and models,
    # and what they share (shared.conv gives conv2d's dx, dw and db)
    owners = {ex.solution.__module__ for ex in EXERCISES.values()}
    for module in [*(sys.modules[key] for key in sorted(owners)), shared]:
        for key, fn in _functions(module):
            add(fn, f"the checker's own "
                    f"{module.__name__.removeprefix('convgrad.')}.{key}")
    if name in _RUNS_OPS:
        return codes
    add(functional.unfold, "convgrad.F.unfold")
    add(functional.fold, "convgrad.F.fold")
    for module in twins:
        for key, fn in _functions(module):
            add(fn, f"convgrad.reference.{key}")
    add(backend.kernel, "convgrad's kernels (through convgrad's ops)")
    add(backend.forward, "convgrad's kernels (through convgrad's ops)")
    for module in _kernel_modules():
        for key in _kernel_names():
            fn = getattr(module, key, None)
            if fn is not None:
                add(fn, f"the kernel convgrad.kernels.{key}")
    return codes


#: the Numba backend's conv pipeline on arrays (``kernels/conv_fast.py``),
#: under its forwards: entry points an answer could call by name
PIPELINE = ("conv2d_forward", "conv2d_backward", "conv_transpose2d_forward",
            "conv_transpose2d_backward")


def _kernel_names() -> tuple[str, ...]:
    """The names of what an answer may not call in a kernel module: the
    kernels, a backend's forwards (``kernels/forwards.py``) and the
    pipeline's entry points."""
    from convgrad import backend

    return backend.KERNEL_NAMES + backend.FORWARD_NAMES + PIPELINE


def _kernel_entries(name: str) -> tuple[dict[int, str], set[types.CodeType]]:
    """The kernels an answer can call by name, as objects: ``{id: label}``,
    and the code of their ``__call__`` (a Python method: a kernel's entry
    point chooses a build before the compiled code runs). The profile hook
    sees that frame on every Python, where the compiled code itself is
    reported to it only on some (3.11's Numba does, 3.12's does not)."""
    if name in _RUNS_OPS:
        return {}, set()
    labels: dict[int, str] = {}
    calls: set[types.CodeType] = set()
    for module in _kernel_modules():
        for key in _kernel_names():
            kernel = getattr(module, key, None)
            if kernel is None:
                continue
            call = getattr(type(kernel).__call__, "__code__", None)
            if call is not None:  # not a bare dispatcher (fast paths)
                labels[id(kernel)] = f"the kernel convgrad.kernels.{key}"
                calls.add(call)
    return labels, calls


class _Given:
    """A callable the checker hands to the answer, as it is (its repr, its
    attributes), but unwatched while it runs: what it calls is the
    checker's doing, not the answer's."""

    def __init__(self, fn: Callable, watch: _Watch) -> None:
        self._fn, self._watch = fn, watch

    def __call__(self, *args, **kwargs):
        self._watch._given += 1
        try:
            return self._fn(*args, **kwargs)
        finally:
            self._watch._given -= 1

    def __getattr__(self, name: str):
        return getattr(self._fn, name)

    def __repr__(self) -> str:
        return repr(self._fn)


class _Watch:
    """Record what of the library an answer calls, while it runs."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.hits: list[str] = []
        #: > 0 while a function the checker handed to the answer runs (an
        #: operator for adjoint_gap, a backward for grad_check): what it
        #: calls is the checker's doing, not the answer's
        self._given = 0
        self._codes: dict[types.CodeType, str] = {}
        self._kernels: dict[int, str] = {}
        self._calls: set[types.CodeType] = set()

    def wrap(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def watched(*args, **kwargs):
            args = [self._unwatched(a) for a in args]
            kwargs = {k: self._unwatched(v) for k, v in kwargs.items()}
            with self._watching():
                return fn(*args, **kwargs)

        # the checker runs the answer in a child process (.isolation): what
        # the watch saw there comes back through collect() and restore()
        watched.isolated_state = self
        return watched

    def collect(self) -> list[str]:
        """What the watch saw so far (in the process the answer ran in)."""
        return list(self.hits)

    def restore(self, hits: object) -> None:
        """Take what the watch saw in the answer's process."""
        if isinstance(hits, list):
            self.hits[:] = [str(h)[:200] for h in hits[:1000]]

    def _unwatched(self, value: object) -> object:
        """A callable among the answer's arguments (not a class), run
        unwatched."""
        if not callable(value) or isinstance(value, type):
            return value
        return _Given(value, self)

    def profile(self, frame, event, arg) -> None:
        """The profile hook's work: note a watched function entered."""
        if event != "call" or self._given:
            return
        label = self._codes.get(frame.f_code)
        if label is None and frame.f_code in self._calls:  # a kernel's entry
            label = self._kernels.get(id(frame.f_locals.get("self")))
        if label is not None:
            self._hit(label)

    def _hit(self, label: str) -> None:
        self.hits.append(label)
        if _hits_pipe is not None and os.getpid() != _hits_pipe[1]:
            # a forked child of the answer: its memory dies with it
            with contextlib.suppress(OSError):
                os.write(_hits_pipe[0], f"{label}\n".encode())

    @contextlib.contextmanager
    def _watching(self) -> Iterator[None]:
        self._codes = _watched_codes(self.name)
        self._kernels, self._calls = _kernel_entries(self.name)
        previous, threads = sys.getprofile(), threading.getprofile()
        _armed.append(self)
        sys.setprofile(relay)
        threading.setprofile(relay)  # threads the answer starts
        try:
            yield
        finally:
            sys.setprofile(previous)
            threading.setprofile(threads)
            _armed.remove(self)


#: the watch of the answer running now (a stack: a watched answer may be
#: graded inside another's run, as the tests do)
_armed: list[_Watch] = []
#: (fd, pid): where a forked child of a watched answer reports what it
#: called (set by the sealed grading worker), and the worker's own pid
_hits_pipe: tuple[int, int] | None = None


def relay(frame, event, arg) -> None:
    """A profile hook for every thread: passes each event to the armed
    watch, if any (the grading worker sets it for the threads a notebook
    starts before the answer runs)."""
    if _armed:
        _armed[-1].profile(frame, event, arg)


def report_hits_to(fd: int, pid: int) -> None:
    """Forked children of process ``pid`` write what they call to ``fd``."""
    global _hits_pipe
    _hits_pipe = (fd, pid)
