"""The library watch: what an answer to an exercise calls while it runs.

Graded mode (:mod:`.graded`) scores 0 an answer that calls what its
exercise asks the learner to write (the reference solutions, the twins,
the kernels, the pipeline); ``check`` (:mod:`.checker`) and graded mode
both rule out what an exercise forbids (its ``forbids``: autodiff,
``conv_transpose2d``, ``fold``, ``adjoint``), with the diagnosis
``forbidden-call``. A :class:`_Watch` wraps the answer and hears every
call through a profile hook (:func:`relay` for the threads a notebook
starts); a forked child reports to the grading worker through
:func:`report_hits_to`. Both the checker and the grader import it; it
imports neither.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator

from .registry import EXERCISES, exercise
from .vocabulary import CODES

# exercises whose cases make the answer run convgrad's ops (the bug hunt's
# suspects are convgrad Functions), or that ask for them (two backward
# passes with cg.grad; max-pool's backward as F.fold of F.unfold's
# one-hot, with one maximum or the ties split: the library has no split,
# so its ops compute no answer there; lesson 9's conv block recomputed with
# F.conv2d and F.max_pool2d's indices, its dx by F.conv_transpose2d): only
# the reference solutions are off limits there
_RUNS_OPS = frozenset({"find_wrong_backward", "hessian_vector_product",
                       "maxpool_backward_by_fold",
                       "maxpool_backward_split", "block_backward"})

# exercises that ask for the backward pass built from F.conv2d (lesson 4's
# dx of the stuffed dy, dw as a correlation): F.conv2d is theirs to call,
# and while it runs the watch is off (its forward and kernels are the
# library's doing, as a handed function's are); the rest of the library is
# watched as for any exercise, and so is what the exercise forbids
_CALLS_CONV2D = frozenset({"dx_by_conv2d", "dw_by_correlation"})


def _autodiff() -> list[tuple[object, str]]:
    from convgrad import engine
    from convgrad.ops import conv

    said = "convgrad's autodiff (backward() or cg.grad)"
    return [(engine.backprop, said), (conv.Conv2d.vjp, said),
            (conv.ConvWeightGrad.forward,
             "convgrad's weight-gradient op (what backward() runs for dw)")]


def _conv_transpose2d() -> list[tuple[object, str]]:
    from convgrad import functional
    from convgrad.ops import conv

    return [(functional.conv_transpose2d, "convgrad.F.conv_transpose2d"),
            (conv.ConvTranspose2d.forward, "convgrad.F.conv_transpose2d")]


def _fold() -> list[tuple[object, str]]:
    from convgrad import functional
    from convgrad.ops import conv

    return [(functional.fold, "convgrad.F.fold"),
            (conv.Fold.forward, "convgrad.F.fold")]


def _adjoint() -> list[tuple[object, str]]:
    from convgrad import adjoint

    return [(fn, f"convgrad.adjoint.{key}")
            for key, fn in _functions(adjoint)]


#: what of PyTorch each ``forbids`` key rules out too (a name's last part,
#: as :func:`_torch_name` gives it): torch computes the same thing
TORCH_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "autodiff": ("torch.autograd", "torch.Tensor.backward", "torch.func"),
    "conv_transpose2d": ("conv_transpose2d", "conv_transpose1d",
                         "conv_transpose3d", "convolution_backward"),
    "fold": ("fold", "col2im"),
    "adjoint": (),
}

#: what an exercise's ``forbids`` may name: each a function giving the
#: library's entries for it, ``[(function, label)]``
FORBIDDEN: dict[str, Callable[[], list[tuple[object, str]]]] = {
    "autodiff": _autodiff, "conv_transpose2d": _conv_transpose2d,
    "fold": _fold, "adjoint": _adjoint,
}


def forbidden_lines(name: str, called: tuple[str, ...] | list[str]
                    ) -> list[str]:
    """The report of an answer to exercise ``name`` that called what the
    exercise forbids (``called``: the watch's labels, in order), as the
    checker's lines (headline, diagnosis, evidence, fix); ``[]`` when it
    called nothing of that."""
    ruled_out = set(_forbidden_codes(name).values())
    torch_ruled = _torch_ruled(name, True)
    seen = [x for x in dict.fromkeys(called) if x in ruled_out or (
        torch_ruled and x.startswith("PyTorch's ")
        and _torch_matches(x.removeprefix("PyTorch's "), torch_ruled))]
    if not seen:
        return []
    what, fix = CODES["forbidden-call"]
    ex = exercise(name)
    hint = ex.hint_for(ex.outputs[0])
    return [
        f"{name}: your function calls what this exercise rules out",
        f"  diagnosis [forbidden-call]: {what}.",
        f"    evidence: while your function ran, it called "
        f"{', '.join(seen[:3])}.",
        f"    fix: {fix}: {hint.rstrip('.')}.",
    ]


def forbidden_watch(name: str, fn: Callable) -> Callable | None:
    """``fn`` watched for what exercise ``name`` forbids (for ``check``:
    its ``isolated_state`` brings the calls back from the answer's
    process), or ``None`` when the exercise forbids nothing or ``fn`` is
    watched already (graded mode's watch, or an answer that runs in the
    sealed grader's worker, which watches it there)."""
    if not exercise(name).forbids or _watched_already(fn):
        return None
    return _Watch(name, forbidden_only=True).wrap(fn)


def _watched_already(fn: Callable) -> bool:
    # the class's attributes and a plain function's own: nothing of the
    # learner's runs to answer this
    if getattr(type(fn), "runs_elsewhere", False):
        return True
    return isinstance(fn, types.FunctionType) and isinstance(
        fn.__dict__.get("isolated_state"), _Watch)



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

    codes: dict[types.CodeType, str] = dict(_forbidden_codes(name))

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


def _forbidden_codes(name: str) -> dict[types.CodeType, str]:
    """The code of what exercise ``name`` forbids (its ``forbids``), each
    with what it is."""
    codes: dict[types.CodeType, str] = {}
    for key in exercise(name).forbids:
        for fn, label in FORBIDDEN[key]():
            code = _code(fn)
            if code is not None:
                codes.setdefault(code, label)
    return codes


def _allowed_codes(name: str) -> set[types.CodeType]:
    """The code of what an answer to ``name`` may call with the watch off
    while it runs (F.conv2d, for :data:`_CALLS_CONV2D`)."""
    if name not in _CALLS_CONV2D:
        return set()
    from convgrad import functional

    return {_code(functional.conv2d)} - {None}


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


def _torch_dir() -> str | None:
    """The folder of PyTorch's package, if an answer could have imported
    it (it is imported already: importing it here would cost seconds)."""
    torch = sys.modules.get("torch")
    path = getattr(torch, "__file__", None)
    return os.path.dirname(path) + os.sep if path else None


def _torch_name(event: str, frame: types.FrameType, arg: object,
                where: str) -> str | None:
    """``torch.<name>`` when the profile event enters PyTorch: a Python
    function in its package (``call``) or one of its compiled functions
    (``c_call``: torch.conv2d, a tensor's method); else ``None``."""
    if event == "call":
        code = frame.f_code
        if not code.co_filename.startswith(where):
            return None
        module = frame.f_globals.get("__name__", "torch")
        if module == "torch._tensor":
            module = "torch.Tensor"
        return f"{module}.{code.co_name}"
    owner = getattr(arg, "__self__", None)
    module = getattr(arg, "__module__", None) or ""
    if isinstance(owner, types.ModuleType):
        module = owner.__name__
    elif owner is not None and type(owner).__module__.startswith("torch"):
        module = "torch.Tensor"
    if module != "torch" and not module.startswith("torch."):
        return None
    return f"{module}.{getattr(arg, '__name__', '?')}"


def _torch_ruled(name: str, forbidden_only: bool) -> tuple[str, ...] | None:
    """What of PyTorch the watch of exercise ``name`` reports: ``None`` for
    every call (graded mode: the course's answers are NumPy, and torch
    computes convolutions, pools and their gradients for you), else the
    names :data:`TORCH_FORBIDDEN` gives the exercise's ``forbids``
    (``check``)."""
    if not forbidden_only:
        return None
    return tuple(k for key in exercise(name).forbids
                 for k in TORCH_FORBIDDEN.get(key, ()))


def _torch_matches(label: str, ruled: tuple[str, ...] | None) -> bool:
    if ruled is None:
        return True
    last = label.rsplit(".", 1)[-1]
    return any(label == r or label.startswith(r + ".") if r.startswith(
        "torch.") else last == r for r in ruled)


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

    def __init__(self, name: str, *, forbidden_only: bool = False) -> None:
        self.name = name
        #: watch only what the exercise forbids (``check``'s watch)
        self.forbidden_only = forbidden_only
        self.hits: list[str] = []
        #: > 0 while a function the checker handed to the answer runs (an
        #: operator for adjoint_gap, a backward for grad_check): what it
        #: calls is the checker's doing, not the answer's
        self._given = 0
        self._codes: dict[types.CodeType, str] = {}
        self._kernels: dict[int, str] = {}
        self._calls: set[types.CodeType] = set()
        #: what the answer may call with the watch off while it runs, and
        #: per thread, the frame of such a call that is running
        self._allowed: set[types.CodeType] = set()
        self._inside: dict[int, types.FrameType] = {}
        #: PyTorch's folder (None: not imported, nothing of it to watch),
        #: what of it is reported (:func:`_torch_ruled`) and its calls seen
        self._torch: str | None = None
        self._torch_ruled: tuple[str, ...] | None = ()
        self._torch_seen: set[str] = set()

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
        if event == "return":
            if self._inside and self._inside.get(
                    threading.get_ident()) is frame:
                del self._inside[threading.get_ident()]
            return
        if event not in ("call", "c_call") or self._given or (
                self._inside and threading.get_ident() in self._inside):
            return
        if self._torch is not None:
            label = _torch_name(event, frame, arg, self._torch)
            if label is not None:
                if (label not in self._torch_seen and len(self._torch_seen) < 8
                        and _torch_matches(label, self._torch_ruled)):
                    self._torch_seen.add(label)
                    self._hit(f"PyTorch's {label}")
                return
        if event != "call":
            return
        if frame.f_code in self._allowed:  # F.conv2d, where it is asked for
            self._inside[threading.get_ident()] = frame
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
        if self.forbidden_only:
            self._codes, self._kernels, self._calls = (
                _forbidden_codes(self.name), {}, set())
        else:
            self._codes = _watched_codes(self.name)
            self._kernels, self._calls = _kernel_entries(self.name)
        self._allowed, self._inside = _allowed_codes(self.name), {}
        self._torch_ruled = _torch_ruled(self.name, self.forbidden_only)
        self._torch = None if self._torch_ruled == () else _torch_dir()
        self._torch_seen = set()
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
