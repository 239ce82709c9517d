"""Run the learner's calls in isolation: a time limit that holds whatever
their code does, and no state left behind.

:class:`Answer` is the learner's function as one ``check`` calls it:
``answer(kwargs)`` runs ``fn(**kwargs)``, reads what it returned (``read``,
next to the call) and gives that reading back (``build``, here). It raises

- :class:`TimeLimit` (a ``BaseException``) when the call ran past
  ``time_limit`` seconds;
- ``NotImplementedError`` for an unfinished stub, ``SystemExit`` for a
  ``sys.exit``;
- :class:`Raised` for anything else: what the call raised, as its one-line
  text and the line of the learner's code it came from (:mod:`.raised`), or
  how the process it ran in ended (a crash).

**In a child process (POSIX).** The first call forks a child; the call runs
there, and the child stays to serve the check's later calls (each one's
inputs sent over a pipe, pickled: the parent is trusted), so the learner's
function keeps its state between cases as it would in the notebook, and
compiles (Numba) or imports what it needs once per check. The parent waits
for the reply with a deadline and, at the deadline, kills the child and all
it started (``SIGKILL`` to its process group); the next call forks a fresh
one. Nothing the learner's code catches (a bare ``except:`` around a loop
swallows an alarm, never a ``SIGKILL``) and nothing it does to its process
(``os._exit``, a segfault through ``ctypes``) reaches the notebook: a dead
child is a :class:`Raised` that says how it died.

Everything that touches what the call returned or raised runs in the child
too, inside the limit: reading it as numbers, ``len``, ``repr``, the
exception's ``str`` and its traceback. The child sends back plain data
only (JSON and ``.npy`` arrays read without pickles, :mod:`.wire`): the
reading, the array inputs as the call left them (the checker looks for an
answer that changes its inputs), and the printed output.

- *Functions among the inputs* (numeric_grad's ``f``, grad_check's
  passes, adjoint_gap's maps) run here, in the parent: the child calls
  back with the arguments as data, so what they record (every ``x`` an
  ``f`` saw) lands in the checker's own objects. A function whose class
  sets ``runs_in_child`` (hessian_vector_product's ``f``, which builds a
  graph on the learner's Tensors) is sent to the child, pickled, as any
  other input.
- *Printed output*: the child's ``sys.stdout`` and ``sys.stderr`` send
  each line here, where it is printed, in order, before the verdict (at
  most :data:`MAX_OUTPUT` characters per call). In a Jupyter kernel the
  child never writes to the kernel's sockets: ipykernel's streams and
  IOPub thread are cut off in it, ``display()`` prints the plain text, and
  ``input()`` raises ``EOFError``.
- *State*: grad mode, the backend and NumPy's error state of the parent are
  untouched (the learner's code never runs here); in the child they are put
  back after each call, as below.
- *State that must come back*: a function may carry an ``isolated_state``
  attribute (an object with ``collect()``, run in the child after each call
  and returning plain data, and ``restore(data)``, run here): graded mode's
  library watch reports what the answer called this way. Nothing else comes
  back: what the learner's function changes outside itself (a global list
  it appends to, NumPy's global random state) changes in the child only.
- *Numba*: the child inherits what this process compiled. If this process
  started Numba's GNU OpenMP threads (its default threading layer, used by
  ``parallel=True``), a parallel call in a forked child is killed by Numba:
  convgrad's kernels take their serial build in the child, and a learner's
  own parallel function dies with a report that says why and what to do
  (the workqueue layer survives a fork).

**In this process**, as before: when the function already runs elsewhere
and is stopped from outside (a class attribute ``runs_elsewhere``: the
sealed grader's :class:`~convgrad.course.sealed.RemoteAnswer`), on a
platform without ``os.fork`` (Windows), when a fork fails, and when the
environment variable ``CONVGRAD_CHECK_FORK`` is ``0`` (for a debugger in
the learner's function). There the limit is a ``SIGALRM`` (on the main
thread: ``signal.setitimer``, a handler that raises :class:`TimeLimit`
wherever the learner's code is, previous handler and timer restored after)
or, elsewhere, a trace function that checks the clock on every line of
Python. Both need cooperation: a bare ``except:`` can swallow the alarm,
a single long call into compiled code finishes before it is stopped, and a
crash takes the process with it. Grad mode, the backend and NumPy's error
state are restored after each call.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import importlib
import io
import os
import select
import signal
import sys
import threading
import time
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from convgrad import backend

from . import raised as said
from . import wire

# the module, not the function convgrad.tensor() that shadows its name
_tensor = importlib.import_module("convgrad.tensor")

#: the most characters of printed output shown per call of the learner's
#: function; the rest is cut (a loop that prints forever)
MAX_OUTPUT = 200_000


class TimeLimit(BaseException):  # noqa: N818 (read as "time limit reached")
    """The learner's call ran past its time limit. ``stage`` says where it
    was: ``"returned"`` (the function had returned, and reading its value
    as numbers, its ``len`` or ``repr`` ran on), ``"raised"`` (it had
    raised, and reading the exception's text ran on), or ``""`` (still in
    the function, or not known)."""

    def __init__(self, stage: str = "") -> None:
        super().__init__(stage)
        self.stage = stage


class Raised(Exception):
    """What the learner's call raised, read where it ran: ``text`` is its
    one-line form (``IndexError: index 5 is out of bounds ...``), ``line``
    the line of the learner's code it came from (:class:`.raised.Line`, or
    ``None``); ``crash`` says how the process running the call ended, when
    it died instead (``text`` then names the crash)."""

    def __init__(self, text: str, line: said.Line | None = None,
                 crash: str = "") -> None:
        super().__init__(text)
        self.text, self.line, self.crash = text, line, crash


def _same(value: Any) -> Any:
    return value


def _fork_wanted() -> bool:
    return hasattr(os, "fork") and os.environ.get(
        "CONVGRAD_CHECK_FORK", "").strip().lower() not in ("0", "no", "off",
                                                           "false")


def _runs_elsewhere(fn: Any) -> bool:
    # the class's attribute: an instance's __getattr__ is the learner's code
    return bool(getattr(type(fn), "runs_elsewhere", False))


def _carried(fn: Any) -> Any:
    """``fn``'s state that must come back from the child, if any (looked up
    in a plain function's own attributes only: nothing of the learner's
    runs here)."""
    if isinstance(fn, types.FunctionType):
        return fn.__dict__.get("isolated_state")
    return None


class Answer:
    """The learner's function ``fn`` for the calls of one check (see the
    module's docstring). ``read(value)`` runs where the call ran and must
    return plain data (``None``, booleans, numbers, strings, numeric arrays,
    tuples and lists of them); ``build(reading)`` runs here. :meth:`close`
    ends the child process, if one is left."""

    def __init__(self, fn: Callable, time_limit: float | None,
                 read: Callable[[Any], Any] = _same,
                 build: Callable[[Any], Any] = _same) -> None:
        self.fn, self.time_limit = fn, time_limit
        self.read, self.build = read, build
        self.in_child = _fork_wanted() and not _runs_elsewhere(fn)
        self.forks = 0  # how many children were started
        self._child: _Child | None = None
        self._carry = _carried(fn)

    def __call__(self, kwargs: dict) -> Any:
        grad, errors = _grad_state(), np.geterr()
        try:
            with backend.kept():  # the thread's own choice, or none, as it was
                if self.in_child:
                    try:
                        reading = self._in_child(kwargs)
                    except _NoFork:
                        self.in_child = False
                    else:
                        return self._built(reading)
                return self._built(_here(self.fn, kwargs, self.time_limit,
                                         self.read))
        finally:
            _set_grad_state(grad)
            np.seterr(**errors)

    def _built(self, reading: Any) -> Any:
        try:
            return self.build(reading)
        except Exception as err:  # a reading a child garbled
            raise Raised(f"the checker could not read what your function "
                         f"returned ({type(err).__name__}: {err})"[:500]
                         ) from None

    def close(self) -> None:
        """End the child (and everything it started), if one is left."""
        child, self._child = self._child, None
        if child is not None:
            child.close()

    def __enter__(self) -> Answer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the child ---------------------------------------------------------------

    def _in_child(self, kwargs: dict) -> Any:
        deadline = (None if self.time_limit is None
                    else time.monotonic() + self.time_limit)
        handles: dict[int, Callable] = {}
        child = self._child
        if child is not None:
            try:
                header, blobs = _request(kwargs, handles)
                wire.send(child.to_fd, header, blobs)
            except Exception:  # not picklable, or the child is gone: refork
                self.close()
                child, handles = None, {}
        if child is None:
            child = self._child = self._fork(kwargs, handles)
        try:
            header, blobs = _wait(child, deadline, handles)
        except TimeLimit:
            self.close()
            raise
        except _Died:
            crash = child.ended()
            self.close()
            raise Raised(f"crash: {crash}", crash=crash) from None
        except _Garbled as err:
            self.close()
            raise Raised(f"the checker could not read what your function's "
                         f"process sent back ({err})"[:500]) from None
        except BaseException:  # an interrupt, or something of the parent's
            self.close()
            raise
        try:
            return self._taken(header, blobs, kwargs)
        except (wire.WireError, _Garbled, TypeError, ValueError,
                KeyError) as err:
            self.close()
            raise Raised(f"the checker could not read what your function's "
                         f"process sent back ({err})"[:500]) from None

    def _fork(self, kwargs: dict, handles: dict[int, Callable]) -> _Child:
        given = {}
        for key, value in kwargs.items():
            if _is_given(value):
                handles[len(handles)] = value
                given[key] = (len(handles) - 1, _text(value))
        up_r, up_w = os.pipe()  # child -> parent
        down_r, down_w = os.pipe()  # parent -> child
        _die_with_parent_ready()
        parent = os.getpid()
        try:
            with warnings.catch_warnings():  # 3.12+ warns of threads here
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:  # no memory, too many processes: run it here
            for fd in (up_r, up_w, down_r, down_w):
                os.close(fd)
            raise _NoFork from None
        if pid == 0:  # the child: never returns
            code = 0
            try:
                os.close(up_r)
                os.close(down_w)
                _serve(self.fn, kwargs, given, down_r, up_w, self.read,
                       self._carry, parent)
            except BaseException:  # noqa: BLE001 (ours broke: end quietly)
                code = 70
            finally:
                os._exit(code)
        os.close(up_w)
        os.close(down_r)
        with contextlib.suppress(OSError):  # as the child does: no race
            os.setpgid(pid, pid)
        self.forks += 1
        return _Child(pid, down_w, up_r)

    def _taken(self, header: dict, blobs: list[bytes], kwargs: dict) -> Any:
        """The child's reply to one call, applied here."""
        given = header.get("given")
        if isinstance(given, dict):
            for key, tree in given.items():
                _update(kwargs, key, wire.decode(tree, blobs))
        if self._carry is not None and "state" in header:
            with contextlib.suppress(Exception):
                self._carry.restore(wire.decode(header["state"], blobs))
        if "raised" in header:
            _raise(header["raised"])
        return wire.decode(header.get("return"), blobs)


class _NoFork(Exception):
    """No child could be started."""


class _Died(Exception):
    """The child ended without replying."""


class _Garbled(Exception):
    """The child's messages break the protocol."""


def _is_given(value: Any) -> bool:
    """A function among the inputs, run here when the learner calls it;
    not one whose class says it ``runs_in_child`` (a function of Tensors,
    hessian_vector_product's ``f``: the graph it builds cannot cross a
    pipe), which goes to the child as an input."""
    return (callable(value) and not isinstance(value, (type, np.ndarray))
            and not getattr(type(value), "runs_in_child", False))


def _text(value: Any) -> str:
    try:
        return repr(value)[:200]
    except Exception:  # the checker's own objects: should not happen
        return f"<{type(value).__name__}>"


def _request(kwargs: dict, handles: dict[int, Callable]) -> tuple[dict, list]:
    """One call's inputs for a child that is already running."""
    blobs: list[bytes] = []
    tree = {}
    for key, value in kwargs.items():
        if _is_given(value):
            handles[len(handles)] = value
            tree[key] = {"given": [len(handles) - 1, _text(value)]}
        else:
            tree[key] = wire.encode_input(value, blobs)
    return {"call": tree}, blobs


def _update(kwargs: dict, key: str, value: Any) -> None:
    """An input array as the call left it in the child."""
    mine = kwargs.get(key)
    if not isinstance(mine, np.ndarray) or not isinstance(value, np.ndarray):
        return
    if value.shape == mine.shape and value.dtype == mine.dtype:
        np.copyto(mine, value)
    else:  # reshaped in place (x.shape = ...): the array as it was left
        kwargs[key] = value


def _raise(info: Any) -> None:
    if not isinstance(info, dict):
        raise _Garbled("a garbled report of an exception")
    message = str(info.get("message", ""))[:2000]
    if info.get("stub") is True:
        raise NotImplementedError(message)
    if info.get("exit") is True:
        raise SystemExit(message)
    raise Raised(str(info.get("text", "an exception"))[:2000],
                 said.Line.from_plain(info.get("line")))


class _Child:
    """A child process serving calls, and this side of its two pipes."""

    def __init__(self, pid: int, to_fd: int, from_fd: int) -> None:
        self.pid, self.to_fd, self.from_fd = pid, to_fd, from_fd
        self.openmp = _openmp_started()  # as it was when the child forked
        self._end = weakref.finalize(self, _end, os.getpid(), pid, to_fd,
                                     from_fd)

    def ended(self) -> str:
        """How the child ended (it closed its pipe): waits up to a second
        for it to exit."""
        status = _peek(self.pid, 1.0)
        if status is None:
            return ("the process running your function closed the checker's "
                    "pipe and went on running")
        kind, value = status
        if kind == "signal":
            name = _signal_name(value)
            why = _SIGNALS.get(name, "")
            if name == "SIGTERM" and self.openmp:
                why = _OPENMP
            return (f"the process running your function was killed by "
                    f"{name}" + (f" ({why})" if why else ""))
        return (f"the process running your function ended with exit code "
                f"{value} before returning (os._exit, or a crash in compiled "
                f"code)")

    def close(self) -> None:
        self._end()


_SIGNALS = {
    "SIGSEGV": "a segmentation fault: memory read or written outside what "
               "the process owns, through ctypes or an index compiled code "
               "does not check",
    "SIGBUS": "memory read or written where it cannot be, through ctypes or "
              "compiled code",
    "SIGABRT": "a library gave up and aborted",
    "SIGFPE": "an arithmetic fault in compiled code",
    "SIGKILL": "out of memory, or killed from outside",
}


_OPENMP = ("Numba's OpenMP threads, started in the notebook, cannot run in "
           "a forked process, and a parallel=True function ran there; set "
           "NUMBA_THREADING_LAYER=workqueue before importing numba, or check "
           "with the environment variable CONVGRAD_CHECK_FORK=0")


def _openmp_started() -> bool:
    """Whether Numba's threads are GNU OpenMP's, started in this process:
    a parallel=True function called in a child forked from it stops the
    child (SIGTERM); Numba's workqueue and TBB layers survive a fork."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return False
    return getattr(parallel, "_threading_layer", None) == "omp"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _peek(pid: int, wait: float) -> tuple[str, int] | None:
    """``("exit", code)`` or ``("signal", number)`` once ``pid`` has ended
    (not reaped yet, so its process group can still be killed), or None
    if it is still running after ``wait`` seconds."""
    until = time.monotonic() + wait
    while True:
        try:
            if hasattr(os, "waitid"):
                info = os.waitid(os.P_PID, pid,
                                 os.WEXITED | os.WNOHANG | os.WNOWAIT)
                if info is not None and info.si_pid == pid:
                    if info.si_code == os.CLD_EXITED:
                        return "exit", info.si_status
                    return "signal", info.si_status
            else:  # reaps it: its group is killed by number from here on
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    if os.WIFSIGNALED(status):
                        return "signal", os.WTERMSIG(status)
                    return "exit", os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            return "exit", -1
        if time.monotonic() >= until:
            return None
        time.sleep(0.005)


def _end(owner: int, pid: int, *fds: int) -> None:
    """Kill the child ``pid`` and everything in its process group, close
    this side's pipes, and reap it (a thread waits for it: a killed process
    takes a moment to go, and the verdict need not wait)."""
    if os.getpid() != owner:  # a copy of this object in a child: not ours
        return
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(pid, signal.SIGKILL)
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    threading.Thread(target=_reap, args=(pid,), daemon=True,
                     name=f"convgrad-reap-{pid}").start()


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _wait(child: _Child, deadline: float | None,
          handles: dict[int, Callable]) -> tuple[dict, list[bytes]]:
    """Read the child's messages until its reply to the call: print its
    output, run the functions it calls back. Raises :class:`TimeLimit` at
    the deadline."""

    def ready() -> bool:
        if deadline is None:
            return True
        left = deadline - time.monotonic()
        return left > 0 and bool(select.select([child.from_fd], [], [],
                                               left)[0])

    reader = wire.Reader(child.from_fd, ready)
    shown, stage = 0, ""
    while True:
        try:
            header, blobs = reader.read()
        except TimeoutError:
            raise TimeLimit(stage) from None
        except EOFError:
            raise _Died from None
        except (wire.WireError, OSError) as err:
            raise _Garbled(str(err)) from None
        if "out" in header:
            shown = _show(header["out"], shown)
        elif "callback" in header:
            _call_back(child, header, blobs, handles)
        elif header.get("stage") in ("returned", "raised"):
            stage = header["stage"]
        elif header.get("done") is True:
            return header, blobs
        else:
            raise _Garbled("a message of an unknown kind")


def _show(out: Any, shown: int) -> int:
    """Print one piece of the learner's output; how much was shown."""
    if not (isinstance(out, list) and len(out) == 2
            and all(isinstance(x, str) for x in out)):
        return shown
    name, text = out
    stream = sys.stderr if name == "stderr" else sys.stdout
    if shown >= MAX_OUTPUT:
        return shown
    if shown + len(text) > MAX_OUTPUT:
        text = text[:MAX_OUTPUT - shown] + (
            "\n[... the rest of your function's output is not shown]\n")
    with contextlib.suppress(Exception):
        stream.write(text)
    return shown + len(text)


def _call_back(child: _Child, header: dict, blobs: list[bytes],
               handles: dict[int, Callable]) -> None:
    """Run a function the checker gave the learner's, for the child."""
    handle = header.get("callback")
    fn = handles.get(handle) if isinstance(handle, int) else None
    if fn is None:
        reply: dict = {"raised": ["RuntimeError", "this function was given "
                                  "to an earlier call, and is gone"]}
        wire.send(child.to_fd, reply)
        return
    try:
        args, pairs = wire.decode(header.get("args"), blobs)
        kwargs = {str(k): v for k, v in pairs}
    except (wire.WireError, TypeError, ValueError) as err:
        raise _Garbled(f"a garbled call back: {err}") from None
    try:
        value = fn(*args, **kwargs)
    except Exception as err:  # the given function's error, for the answer
        wire.send(child.to_fd, {"raised": [type(err).__name__,
                                           str(err)[:2000]]})
        return
    out: list[bytes] = []
    wire.send(child.to_fd, {"result": wire.encode_input(value, out)}, out)


# --------------------------------------------------------------------------
# in the child
# --------------------------------------------------------------------------


class _Conn:
    """The child's ends of the two pipes; one message at a time."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.reader = wire.Reader(read_fd)
        self.write_fd = write_fd
        self.pid = os.getpid()
        self.lock = threading.RLock()

    def send(self, header: dict, blobs: list[bytes] = ()) -> None:
        if os.getpid() != self.pid:  # a process the learner's code forked
            return
        with self.lock:
            wire.send(self.write_fd, header, blobs)


class _Out(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` in the child: each line is sent to
    the parent, which prints it."""

    def __init__(self, conn: _Conn, name: str) -> None:
        super().__init__()
        self._conn, self._name = conn, name
        self._parts: list[str] = []
        self._size = 0

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"<{self._name}>"

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not "
                            f"{type(text).__name__}")
        with self._conn.lock:
            self._parts.append(text)
            self._size += len(text)
            if "\n" in text or self._size > 8192:
                self.flush()
        return len(text)

    def flush(self) -> None:
        with self._conn.lock:
            if self._parts:
                text = "".join(self._parts)
                self._parts.clear()
                self._size = 0
                self._conn.send({"out": [self._name, text]})


class _Given:
    """A function the checker handed to the learner's, in the child: each
    call is made in the parent, where it records what it saw."""

    def __init__(self, conn: _Conn, handle: int, text: str) -> None:
        self._conn, self._handle, self._text = conn, handle, text

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        blobs: list[bytes] = []
        tree = _plain([list(args), sorted(kwargs.items())], blobs,
                      numbers=True)
        conn = self._conn
        with conn.lock:
            for stream in (sys.stdout, sys.stderr):  # output first, in order
                if isinstance(stream, _Out):
                    stream.flush()
            conn.send({"callback": self._handle, "args": tree}, blobs)
            header, blobs = conn.reader.read()
        if "raised" in header:
            raise wire.exception(*header["raised"])
        return wire.decode_input(header["result"], blobs)

    def __repr__(self) -> str:
        return self._text


def _plain(value: Any, blobs: list[bytes], *, numbers: bool = False,
           depth: int = 0) -> Any:
    """``value`` as :func:`.wire.decode` reads it: ``None``, booleans,
    numbers, strings, lists and tuples, numeric arrays (as ``.npy`` blobs).
    With ``numbers``, anything else is read as numbers (a Tensor's
    ``.data``, ``np.asarray``) when it can be, else shown by its repr."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and not isinstance(value, np.generic):
        return wire.encode(int(value), blobs)
    if isinstance(value, float) and not isinstance(value, np.generic):
        return wire.encode(float(value), blobs)
    if isinstance(value, str):
        return wire.encode(str(value), blobs)
    if isinstance(value, (list, tuple)) and depth < 8 and len(value) <= 100_000:
        kind = "tuple" if isinstance(value, tuple) else "list"
        return {kind: [_plain(v, blobs, numbers=numbers, depth=depth + 1)
                       for v in value]}
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
    elif numbers:
        try:
            array = np.asarray(getattr(value, "data", value))
        except Exception:  # the learner's object: shown, not read
            array = None
    else:
        array = None
    if array is not None and array.dtype.kind in "biufc" \
            and not array.dtype.hasobject:
        buf = io.BytesIO()
        np.save(buf, array, allow_pickle=False)
        blobs.append(buf.getvalue())
        return {"array": len(blobs) - 1}
    return {"shown": [type(value).__name__[:80], _short_repr(value)]}


def _short_repr(value: Any) -> str:
    try:
        return repr(value)[:4000]
    except Exception as err:  # the learner's __repr__
        return f"<its repr raised {type(err).__name__}>"


def _serve(fn: Callable, kwargs: dict, given: dict, read_fd: int,
           write_fd: int, read: Callable, carry: Any, parent: int) -> None:
    """The child's work: the first call (whose inputs it inherited), then
    every call the parent sends, until the parent closes the pipe."""
    _detach(parent)
    conn = _Conn(read_fd, write_fd)
    _capture(conn)
    kwargs = {key: _Given(conn, *given[key]) if key in given else value
              for key, value in kwargs.items()}
    while True:
        reply, blobs = _one(fn, kwargs, read, carry, conn)
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, _Out):
                with contextlib.suppress(Exception):
                    stream.flush()
        # the next call: read under the lock, so that a thread the learner
        # left running cannot take it for the answer to its call back
        with conn.lock:
            conn.send(reply, blobs)
            try:
                header, blobs = conn.reader.read()
            except EOFError:
                return
        kwargs = {}
        for key, tree in header["call"].items():
            if isinstance(tree, dict) and set(tree) == {"given"}:
                kwargs[key] = _Given(conn, *tree["given"])
            else:
                kwargs[key] = wire.decode_input(tree, blobs)


def _one(fn: Callable, kwargs: dict, read: Callable, carry: Any,
         conn: _Conn) -> tuple[dict, list[bytes]]:
    """One call, in the child: the reply for the parent. The parent hears
    when the function has returned or raised (a time limit past that point
    is in reading what it gave)."""
    reply: dict = {"done": True}
    blobs: list[bytes] = []
    grad, errors = _grad_state(), np.geterr()
    try:
        with backend.kept():
            try:
                value = fn(**kwargs)
            except BaseException as err:  # noqa: BLE001 (the learner's)
                conn.send({"stage": "raised"})
                reply["raised"] = _described(err)
            else:
                conn.send({"stage": "returned"})
                try:
                    reply["return"] = _plain(read(value), blobs)
                except BaseException as err:  # noqa: BLE001 (the learner's)
                    blobs.clear()
                    reply.pop("return", None)
                    reply["raised"] = _described(err)
    finally:
        _set_grad_state(grad)
        np.seterr(**errors)
    reply["given"] = {key: _plain(value, blobs)
                      for key, value in kwargs.items()
                      if isinstance(value, np.ndarray)}
    if carry is not None:
        with contextlib.suppress(Exception):
            reply["state"] = _plain(carry.collect(), blobs)
    return reply, blobs


def _described(err: BaseException) -> dict:
    """What the call raised, as plain data (read here, where its ``str``
    and traceback run inside the limit)."""
    # the line the sealed worker found where the error was raised, or the
    # deepest line of the learner's code in its traceback here
    line = said.Line.from_plain(getattr(err, "learner_line", None))
    if line is None:
        with contextlib.suppress(Exception):
            line = said.learner_line(err.__traceback__)
    return {"text": _one_line(err), "message": _message(err),
            "stub": isinstance(err, NotImplementedError),
            "exit": isinstance(err, SystemExit),
            "line": line.plain() if line is not None else None}


def _one_line(err: BaseException) -> str:
    import traceback

    try:
        text = traceback.format_exception_only(type(err), err)[-1].strip()
    except Exception:  # noqa: BLE001 (the learner's exception)
        text = f"{type(err).__name__}: <its message could not be read>"
    return text[:2000]


def _message(err: BaseException) -> str:
    try:
        return str(err)[:2000]
    except Exception:  # the learner's __str__
        return ""


def _detach(parent: int) -> None:
    """The child's own settings: a process group of its own (killed as
    one), death with the parent, no core dump, no Ctrl-C (the parent
    handles it), and no garbage collection of what it inherited."""
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    if _prctl is not None:
        with contextlib.suppress(Exception):
            _prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before that
        os._exit(0)
    with contextlib.suppress(Exception):
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(Exception):
        import faulthandler

        faulthandler.disable()  # a crash is reported by the parent
    gc.freeze()  # what the child inherited is never collected: no copies
    if _openmp_started():  # convgrad's kernels take their serial build here
        jit = sys.modules.get("convgrad.kernels._jit")
        if jit is not None:
            jit.PARALLEL_MIN_SIZE = sys.maxsize


def _capture(conn: _Conn) -> None:
    """The child's output goes to the parent; nothing goes to a Jupyter
    kernel's sockets; nothing is read from its stdin."""
    sys.stdout, sys.stderr = _Out(conn, "stdout"), _Out(conn, "stderr")
    sys.stdin = io.StringIO("")

    def no_input(prompt: object = "") -> str:
        raise EOFError("input() cannot be answered while the checker runs "
                       "your function")

    builtins.input = no_input
    iostream = sys.modules.get("ipykernel.iostream")
    if iostream is not None:
        with contextlib.suppress(Exception):
            _cut_ipykernel(iostream)
    shell = said._shell()
    publisher = getattr(shell, "display_pub", None)
    if publisher is not None:
        def publish(data=None, metadata=None, *args: object,
                    **kwargs: object) -> None:
            text = data.get("text/plain") if isinstance(data, dict) else None
            if text:
                print(text)

        with contextlib.suppress(Exception):
            publisher.publish = publish
            publisher.clear_output = lambda *a, **k: None


def _cut_ipykernel(iostream: types.ModuleType) -> None:
    """ipykernel's output streams and IOPub thread, in the child: what they
    are asked to write goes to the parent; nothing reaches a socket."""

    def nothing(self: object, *args: object, **kwargs: object) -> None:
        return None

    def write(self: object, text: str) -> int:
        stream = sys.stderr if getattr(self, "name", "") == "stderr" \
            else sys.stdout
        return stream.write(text) if isinstance(stream, _Out) else len(text)

    for cls_name in ("IOPubThread", "BackgroundSocket"):
        cls = getattr(iostream, cls_name, None)
        if cls is not None:
            cls.send_multipart = nothing
            cls.schedule = nothing
    out = getattr(iostream, "OutStream", None)
    if out is not None:
        out.write = write
        out.flush = nothing
        out._flush = nothing


_prctl: Callable | None = None


def _die_with_parent_ready() -> None:
    """Find Linux's prctl once, here, before the first fork."""
    global _prctl
    if _prctl is not None or not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        _prctl = ctypes.CDLL(None, use_errno=True).prctl


# --------------------------------------------------------------------------
# in this process
# --------------------------------------------------------------------------


def _grad_state() -> tuple[bool, int]:
    # grad mode belongs to convgrad's tensor module: its flag and the stack
    # of states the open no_grad blocks will restore
    mode = _tensor._mode
    return mode.enabled, len(mode.saved)


def _set_grad_state(state: tuple[bool, int]) -> None:
    mode = _tensor._mode
    enabled, depth = state
    del mode.saved[depth:]
    mode.enabled = enabled


def _alarm_usable() -> bool:
    return (hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread())


def _with_alarm(run: Callable[[], Any], limit: float) -> Any:
    def on_alarm(signum, frame):
        raise TimeLimit

    try:
        previous = signal.signal(signal.SIGALRM, on_alarm)
    except ValueError:  # not the main interpreter: no signals here
        return _with_trace(run, limit)
    start = time.monotonic()
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return run()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        # None: a handler set outside Python, which cannot be put back
        signal.signal(signal.SIGALRM,
                      signal.SIG_DFL if previous is None else previous)
        if old_delay > 0:  # someone else's timer: give back what is left
            left = max(old_delay - (time.monotonic() - start), 1e-6)
            signal.setitimer(signal.ITIMER_REAL, left, old_interval)


def _with_trace(run: Callable[[], Any], limit: float) -> Any:
    deadline = time.monotonic() + limit

    def tracer(frame, event, arg):
        if time.monotonic() > deadline:
            raise TimeLimit
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        return run()
    finally:
        sys.settrace(previous)


def _here(fn: Callable, kwargs: dict, time_limit: float | None,
          read: Callable) -> Any:
    """``read(fn(**kwargs))`` in this process, within the time limit; what
    it raises is read within the limit too."""
    stage = ""

    def run() -> Any:
        nonlocal stage
        try:
            value = fn(**kwargs)
            stage = "returned"
            return read(value)
        except (NotImplementedError, SystemExit, KeyboardInterrupt, TimeLimit):
            raise
        except BaseException as err:  # noqa: BLE001 (the learner's)
            stage = stage or "raised"
            info = _described(err)
        _raise(info)

    try:
        return _limited(run, time_limit)
    except TimeLimit:
        raise TimeLimit(stage) from None


def _limited(run: Callable[[], Any], time_limit: float | None) -> Any:
    """``run()`` stopped by an alarm (or, off the main thread, a trace)."""
    if time_limit is None:
        return run()
    if _alarm_usable():
        return _with_alarm(run, time_limit)
    return _with_trace(run, time_limit)


def call(fn: Callable, kwargs: dict, time_limit: float | None,
         after: Callable[[Any], Any] = _same) -> Any:
    """``after(fn(**kwargs))``, once, isolated as :class:`Answer` isolates a
    call (``after`` runs where the call ran and must return plain data)."""
    with Answer(fn, time_limit, read=after) as answer:
        return answer(kwargs)

