"""Grade one notebook in a sealed run: the student's code in a sandbox, the
checker and the results in this process.

The worker (:mod:`convgrad.course.worker`) runs in a bubblewrap sandbox
(Debian's ``bubblewrap`` package): new user, PID, network, IPC and UTS
namespaces; a private ``/tmp`` and home on a small tmpfs; read-only binds
of the system's libraries and of Python's own folders, and of the student's
notebook (a copy, in a folder of its own), and nothing else of the
machine's files: no other student's folder, no grade file, no instructor
file, no network. It dies with this process, and everything it started
dies with it (``--die-with-parent`` and its PID namespace); resource limits
bound its memory, CPU time and file sizes.

Nothing the worker says is taken on trust. It holds no seed and no
expected value: :func:`convgrad.exercises.grade` runs here, with the
(lesson, student)'s derived seed, and calls a :class:`RemoteAnswer` that
sends each case's inputs to the worker and reads back what the student's
function returned, as data (:mod:`.wire`). A forged message can only stand
for a value the student's function could have returned itself. This
process alone writes the grade file; it keeps a bounded tail of the
worker's stderr, and caps each diagnosis.

``sandbox=False`` runs the same worker as a plain process (the instructor's
``--no-sandbox``, with a warning): the checker and the results still stay
here, but the student's code runs with the instructor's rights.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from convgrad.exercises import wire

#: the diagnosis text a grade file keeps of one exercise, at most
MAX_DIAGNOSIS = 4000
#: what is kept of a worker's stderr (its tail)
STDERR_TAIL = 16 * 1024

#: environment variables a worker may inherit (none holds a secret)
_PASSED_ON = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "OMP_NUM_THREADS",
              "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
              "OPENBLAS_L2_SIZE", "CONVGRAD_BACKEND")


@dataclass(frozen=True)
class Limits:
    """What one notebook's worker may use: ``memory`` bytes of address
    space, ``cpu`` seconds of CPU time, ``files`` bytes per file it writes,
    ``tmp`` bytes of its private ``/tmp`` and home."""

    memory: int = 3 * 2**30
    cpu: int = 600
    files: int = 64 * 2**20
    tmp: int = 256 * 2**20


class SandboxError(RuntimeError):
    """No sandbox can be made here (the command stops unless
    ``--no-sandbox``)."""


# ----------------------------------------------------------------------------
# the sandbox
# ----------------------------------------------------------------------------


@functools.cache
def sandbox_problem() -> str | None:
    """Why no sandbox can be made here, or None when one can."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (bubblewrap), and this is {sys.platform}"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return ("bubblewrap (bwrap) is not installed: install Debian's "
                "'bubblewrap' package (apt-get install bubblewrap)")
    with tempfile.TemporaryDirectory(prefix="convgrad-probe-") as tmp:
        probe = Path(tmp) / "probe.ipynb"
        probe.write_text("{}")
        command = [*_bwrap_command(bwrap, probe, Limits()), "--",
                   sys.executable, "-c", "import numpy"]
        try:
            run = subprocess.run(command, capture_output=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"bubblewrap could not start: {err}"
    if run.returncode != 0:
        tail = run.stderr.decode(errors="replace").strip().splitlines()
        return ("bubblewrap could not make a sandbox here"
                + (f": {tail[-1]}" if tail else f" (exit {run.returncode})"))
    return None


@functools.cache
def kernel_snapshot() -> tuple[Path, str] | None:
    """A copy of the compiled kernels for the workers to start from:
    ``(folder, the cache's sub-folder name)``, or None without a cache.

    The kernels are compiled here first if they are not cached yet
    (``python -m convgrad.warmup``: about a minute the first time, a few
    seconds after). Each worker copies the snapshot into its own private
    cache, so a kernel a submission compiles (or a cache file it plants)
    reaches no other worker, and never this process's cache."""
    import atexit

    import convgrad
    from convgrad.kernels._jit import _subpath, cache_place

    package = Path(convgrad.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(package), *filter(None, [os.environ.get("PYTHONPATH")])])}
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-m", "convgrad.warmup"], env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=1200)
    place = cache_place().path
    if place is None or not place.is_dir():
        return None
    top = Path(tempfile.mkdtemp(prefix="convgrad-kernels-"))
    atexit.register(shutil.rmtree, top, True)
    shutil.copytree(place, top / "kernels",
                    ignore=shutil.ignore_patterns("*.py", "*.pyc", "*.tmp"))
    kernels = Path(convgrad.__file__).resolve().parent / "kernels" / "_jit.py"
    return top / "kernels", _subpath(str(kernels))


def _python_folders() -> list[Path]:
    """The folders Python and convgrad are read from (read-only binds)."""
    import convgrad

    found = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
             Path(convgrad.__file__).resolve().parents[1]}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        with contextlib.suppress(KeyError):
            found.add(Path(sysconfig.get_paths()[key]))
    for entry in sys.path:
        if entry and os.path.isdir(entry) and Path(entry).resolve() != \
                Path.cwd().resolve():
            found.add(Path(entry))
    folders = sorted({p.resolve() for p in found if p.exists()})
    # a folder inside another is bound with it
    return [p for p in folders
            if not any(q != p and q in p.parents for q in folders)]


_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "passwd",
        "group", "nsswitch.conf", "alternatives", "hosts", "mime.types")


KERNELS_IN_BOX = "/kernel-cache"


def _bwrap_command(bwrap: str, notebook: Path, limits: Limits,
                   kernels: Path | None = None) -> list[str]:
    """bubblewrap's arguments: ``notebook`` (a copy, alone in its folder) is
    the only student file in the box, at ``/submission/<its name>``;
    ``kernels``, a snapshot of the compiled kernels, is read-only at
    :data:`KERNELS_IN_BOX`."""
    size = str(limits.tmp)
    # the tmpfs first: a folder bound later (Python, convgrad) may lie
    # under /tmp, and must not be hidden by it
    args = [bwrap, "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev",
            "--size", size, "--tmpfs", "/tmp"]
    for path in _SYSTEM:
        p = Path(path)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), path]
        elif p.is_dir():
            args += ["--ro-bind", path, path]
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for folder in _python_folders():
        args += ["--ro-bind", str(folder), str(folder)]
    args += ["--size", size, "--tmpfs", "/submission",
             "--ro-bind", str(notebook), f"/submission/{notebook.name}",
             "--chdir", "/submission"]
    if kernels is not None:
        args += ["--ro-bind", str(kernels), KERNELS_IN_BOX]
    return args


def _environment(sandboxed: bool, home: str) -> dict[str, str]:
    """The worker's whole environment: no seed, nothing of the instructor's
    but what Python and the kernels need."""
    import convgrad

    env = {k: os.environ[k] for k in _PASSED_ON if k in os.environ}
    env.update({k: v for k, v in os.environ.items()
                if k.startswith("NUMBA_") and k != "NUMBA_CACHE_DIR"})
    env.setdefault("PATH", "/usr/bin:/bin")
    package = str(Path(convgrad.__file__).resolve().parents[1])
    env.update(HOME=home, TMPDIR="/tmp" if sandboxed else home,
               PYTHONPATH=package, PYTHONWARNINGS="ignore",
               PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg",
               PYTHONHASHSEED="0", XDG_CACHE_HOME=f"{home}/.cache")
    return env


# ----------------------------------------------------------------------------
# the worker, seen from here
# ----------------------------------------------------------------------------


class WorkerStopped(Exception):
    """The worker ended, broke the protocol, or ran out of time."""


@dataclass
class Ready:
    """What the worker found in the notebook, per exercise."""

    callable: bool
    missing: bool
    type: str
    failure: str
    source: str


class Worker:
    """One worker process, and this side of its two pipes."""

    def __init__(self, notebook: Path, names: list[str], sandbox: bool,
                 limits: Limits, setup_limit: float) -> None:
        self.names = names
        self._tmp = tempfile.TemporaryDirectory(prefix="convgrad-seal-")
        box = Path(self._tmp.name)
        (box / "submission").mkdir()
        copy = box / "submission" / notebook.name
        shutil.copyfile(notebook, copy)  # the student cannot swap it later
        from_parent, to_child = os.pipe()
        from_child, to_parent = os.pipe()
        child_fds = (from_parent, to_parent)
        snapshot = kernel_snapshot()
        if sandbox:
            bwrap = shutil.which("bwrap")
            if bwrap is None or sandbox_problem() is not None:
                raise SandboxError(sandbox_problem() or "no bwrap")
            prefix = [*_bwrap_command(bwrap, copy, limits,
                                      snapshot and snapshot[0]), "--"]
            where, env = f"/submission/{copy.name}", _environment(True, "/tmp")
            cwd, kernels = None, KERNELS_IN_BOX
        else:
            home = box / "home"
            home.mkdir()
            prefix, where = [], str(copy)
            env, cwd = _environment(False, str(home)), copy.parent
            kernels = str(snapshot[0]) if snapshot else None
        command = [*prefix, sys.executable, "-m", "convgrad.course.worker",
                   "--read", str(from_parent), "--write", str(to_parent),
                   "--memory", str(limits.memory), "--cpu", str(limits.cpu),
                   "--files", str(limits.files),
                   *(["--kernels", kernels, "--kernel-sub", snapshot[1]]
                     if snapshot and kernels else []),
                   where, *names]
        try:
            self.proc = subprocess.Popen(
                command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                pass_fds=child_fds, start_new_session=True)
        finally:
            for fd in child_fds:
                os.close(fd)
        self._to, self._from = to_child, from_child
        self._tail = bytearray()
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        self.ready: dict[str, Ready] = {}
        try:
            self._hello(time.monotonic() + setup_limit)
        except BaseException:  # no worker is left behind half started
            self.close()
            raise

    def _hello(self, deadline: float) -> None:
        """Read the worker's first message: what it found."""
        names = self.names
        header, _ = self._read(deadline)
        found = header.get("ready")
        if not isinstance(found, dict):
            raise WorkerStopped("the worker's first message was not the "
                                "list of functions it found")
        for name in names:
            info = found.get(name)
            if not isinstance(info, dict):
                raise WorkerStopped(f"the worker said nothing of {name}")
            self.ready[name] = Ready(
                bool(info.get("callable")), bool(info.get("missing")),
                str(info.get("type", ""))[:80],
                str(info.get("failure", ""))[:MAX_DIAGNOSIS],
                str(info.get("source", ""))[:20_000])

    # the stderr tail ------------------------------------------------------

    def _read_stderr(self) -> None:
        stream = self.proc.stderr
        while chunk := stream.read1(65536) if stream else b"":
            self._tail += chunk
            del self._tail[:-STDERR_TAIL]

    def last_line(self) -> str:
        """The last line the worker wrote to stderr (or its exit code)."""
        self._reader.join(timeout=1)
        text = self._tail.decode(errors="replace").strip()
        line = text.splitlines()[-1][:300] if text else ""
        code = self.proc.poll()
        return line or (f"exit code {code}" if code is not None else "")

    # messages -------------------------------------------------------------

    def _read(self, deadline: float) -> tuple[dict, list[bytes]]:
        def wait() -> bool:
            while True:  # short waits: the caller's time limit may fire
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                if select.select([self._from], [], [], min(left, 0.1))[0]:
                    return True

        try:
            return wire.Reader(self._from, wait).read()
        except TimeoutError:
            raise
        except (EOFError, OSError) as err:
            self.proc.wait()
            raise WorkerStopped(self.last_line() or str(err)) from None
        except wire.WireError as err:
            raise WorkerStopped(
                f"its messages to the grader were garbled ({err}); a "
                f"submission must not write to the grader's pipe") from None

    def call(self, name: str, kwargs: dict, deadline: float,
             handles: dict[int, Callable]) -> dict:
        """Send one call; answer its callbacks; return the reply (decoded)."""
        blobs: list[bytes] = []
        tree = {}
        for key, value in kwargs.items():
            # a function is called back here, as in the checker's own
            # isolation, unless its class says it runs where the answer
            # does (hessian_vector_product's f: a graph cannot cross a pipe)
            if callable(value) and not isinstance(value, (type, np.ndarray)) \
                    and not getattr(type(value), "runs_in_child", False):
                handles[len(handles)] = value
                tree[key] = {"remote": [len(handles) - 1, repr(value)[:200]]}
            else:
                tree[key] = wire.encode_input(value, blobs)
        wire.send(self._to, {"call": name, "kwargs": tree}, blobs)
        while True:
            header, blobs = self._read(deadline)
            if "callback" in header:
                self._callback(header, blobs, handles)
                continue
            return {"header": header, "blobs": blobs}

    def _callback(self, header: dict, blobs: list[bytes],
                  handles: dict[int, Callable]) -> None:
        handle = header.get("callback")
        if not isinstance(handle, int) or handle not in handles:
            raise WorkerStopped("a call back to a function it was not given")
        try:
            decoded = wire.decode(header.get("args"), blobs)
            args, pairs = decoded
            kwargs = {str(k): v for k, v in pairs}
            value = handles[handle](*args, **kwargs)
        except wire.WireError as err:
            raise WorkerStopped(f"a garbled call back: {err}") from None
        except Exception as err:  # the given function's error, for the answer
            wire.send(self._to, {"raised": [type(err).__name__,
                                            str(err)[:2000]]})
            return
        out: list[bytes] = []
        wire.send(self._to, {"result": wire.encode_input(value, out)}, out)

    def close(self) -> None:
        """End the worker and all it started."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()
        for fd in (self._to, self._from):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._reader.join(timeout=5)
        if self.proc.stderr:
            self.proc.stderr.close()
        self._tmp.cleanup()


# ----------------------------------------------------------------------------
# a student's function, called through the worker
# ----------------------------------------------------------------------------


@dataclass
class Session:
    """The workers of one notebook: one at a time, a fresh one after a
    worker was stopped (a time limit, a crash)."""

    notebook: Path
    names: list[str]
    sandbox: bool
    limits: Limits
    deadline: float  # the notebook's whole grading ends by then
    worker: Worker | None = None

    def current(self) -> Worker:
        if self.worker is None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise WorkerStopped("the notebook's time is up")
            self.worker = Worker(self.notebook, self.names, self.sandbox,
                                 self.limits, left)
        return self.worker

    def stop(self) -> str:
        """End the current worker; its last stderr line."""
        if self.worker is None:
            return ""
        last = self.worker.last_line()
        self.worker.close()
        self.worker = None
        return last


@dataclass
class RemoteAnswer:
    """Exercise ``name`` of the notebook, as a function the checker calls:
    each call runs in the worker. ``library_hits`` collects what of
    convgrad's implementation it called there."""

    session: Session
    name: str
    time_limit: float
    learner_source: str = ""
    library_hits: list[str] = field(default_factory=list)
    #: the checker does not fork for it (.isolation): it runs in the worker
    #: already, and is stopped from outside at its deadline
    runs_elsewhere: ClassVar[bool] = True

    def __call__(self, **kwargs: Any) -> Any:
        handles: dict[int, Callable] = {}
        try:
            worker = self.session.current()  # starting one has its own limit
            deadline = time.monotonic() + self.time_limit + 2.0
            reply = worker.call(self.name, kwargs, deadline, handles)
            header, blobs = reply["header"], reply["blobs"]
            given = header.get("given", {})
            if isinstance(given, dict):
                for key, tree in given.items():
                    self._update(kwargs, key, wire.decode(tree, blobs))
            hits = header.get("hits", [])
            if isinstance(hits, list):
                self.library_hits += [str(x)[:200] for x in hits[:20]]
            if "raised" in header:
                raised = header["raised"]
                if not (isinstance(raised, list) and len(raised) == 2
                        and all(isinstance(x, str) for x in raised)):
                    raise WorkerStopped("a garbled report of an exception")
                error = wire.exception(raised[0][:80], raised[1][:2000])
                # the notebook's line it came from (checked where it is read)
                error.learner_line = header.get("line")
            else:
                return wire.decode(header.get("return"), blobs)
        except TimeoutError:
            self.session.stop()
            from convgrad.exercises.isolation import TimeLimit

            raise TimeLimit from None
        except WorkerStopped as err:
            last = self.session.stop()
            raise WorkerStopped(
                f"the grading process stopped while grading {self.name}: "
                f"{err or last}") from None
        except wire.WireError as err:
            self.session.stop()
            raise WorkerStopped(
                f"the grading process stopped while grading {self.name}: its "
                f"messages to the grader were garbled ({err})") from None
        except BaseException:  # the caller's time limit, or an interrupt
            self.session.stop()
            raise
        # the answer's own error, raised here, out of the block above: the
        # worker is still sound, and is kept for the next call
        raise error

    @staticmethod
    def _update(kwargs: dict, key: str, value: Any) -> None:
        """An input array as the call left it (the checker looks for
        answers that change their inputs)."""
        mine = kwargs.get(key)
        if isinstance(mine, np.ndarray) and isinstance(value, np.ndarray) \
                and value.shape == mine.shape:
            with contextlib.suppress(ValueError, TypeError):
                np.copyto(mine, value, casting="unsafe")


def _capped(text: str) -> str:
    return text if len(text) <= MAX_DIAGNOSIS else (
        text[:MAX_DIAGNOSIS - 20] + " … (cut short)")


def _result(status: str, diagnosis: str, score: float = 0.0) -> dict:
    return {"status": status, "diagnosis": _capped(diagnosis), "score": score}


def grade_notebook(path: Path, wanted: list[str], seed: int,
                   time_limit: float, limit: float, *, sandbox: bool = True,
                   limits: Limits | None = None) -> dict[str, dict]:
    """Each wanted exercise's result: ``{"status", "score", "diagnosis"}``.

    ``seed`` is the (lesson, student)'s derived seed; it never leaves this
    process. ``time_limit`` bounds each call of an answer, ``limit`` the
    notebook's whole grading (its definitions included).
    """
    from convgrad.exercises.graded import STATUSES, grade, points_for

    limits = limits or Limits(cpu=max(1, int(limit) + 5))
    session = Session(path, list(wanted), sandbox, limits,
                      time.monotonic() + limit)
    late = f"did not finish within {limit:g} s"
    results: dict[str, dict] = {}
    try:
        for name in wanted:
            if time.monotonic() > session.deadline:
                results[name] = _result("timeout", f"grading {name} {late}")
                continue
            try:
                ready = session.current().ready[name]
            except (WorkerStopped, TimeoutError) as err:  # while starting
                timed_out = isinstance(err, TimeoutError) or \
                    time.monotonic() >= session.deadline
                last = session.stop()
                why = (f"the notebook's imports and definitions {late}"
                       if timed_out else
                       f"the grading process stopped: {err or last}")
                for rest in wanted:
                    results.setdefault(rest, _result(
                        "timeout" if timed_out else "error", why))
                break
            if not ready.callable:
                why = ready.failure or (
                    f"the notebook does not define {name}" if ready.missing
                    else f"{name} is {ready.type}, not a function")
                results[name] = _result(
                    "error" if ready.failure else "not-attempted", why)
                continue
            answer = RemoteAnswer(session, name, time_limit,
                                  learner_source=ready.source)
            graded = grade(name, answer, seed=seed, quiet=True,
                           time_limit=time_limit)
            score, top = float(graded.score), float(points_for(name))
            status = graded.status if graded.status in STATUSES else "error"
            if not 0 <= score <= top:
                status, score = "error", 0.0
            if status == "timeout" and time.monotonic() > session.deadline:
                results[name] = _result("timeout", f"grading {name} {late}")
            else:
                results[name] = _result(
                    status, "" if status == "passed" else graded.summary,
                    score)
    finally:
        session.stop()
    return results
