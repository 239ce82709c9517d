"""A sealed grading worker: runs one student's notebook and calls its
functions on the inputs the parent sends, nothing more.

``python -m convgrad.course.worker --read FD --write FD NOTEBOOK NAME...``
is started by :mod:`convgrad.course.sealed` (inside a bubblewrap sandbox,
unless the instructor chose ``--no-sandbox``). It holds no seed, no case
generator and no expected value: it runs what grading needs of the notebook
(:func:`.submission.run_definitions`), says which of the
exercise functions it found, then answers the parent's calls. For each
call it sends back what the function returned (read as numbers, as the
checker reads an answer), the array inputs as they are after the call, and
what of convgrad's own implementation the function called, in this thread,
in threads it started and in processes it forked. A call that starts
another program is refused: what runs there cannot be watched.

Whatever the submission writes into its end of the pipe can only spoil its
own grading: the parent checks every value against its own reference.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import inspect
import os
import resource
import sys
import threading
import warnings
from typing import Any

import numpy as np

from convgrad.exercises import wire

# events of a new program (not a fork: a forked child keeps the watch)
_PROGRAM_EVENTS = frozenset({"subprocess.Popen", "os.exec", "os.posix_spawn",
                             "os.spawn", "os.system", "os.startfile",
                             "pty.spawn"})


class _Conn:
    """The worker's ends of the two pipes."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.reader = wire.Reader(read_fd)
        self.write_fd = write_fd

    def send(self, header: dict, blobs: list[bytes] = ()) -> None:
        wire.send(self.write_fd, header, blobs)


class _Remote:
    """A callable of the parent's (a probe, a linear map, a forward pass)
    handed to the answer: each call is made in the parent."""

    def __init__(self, conn: _Conn, handle: int, text: str) -> None:
        self._conn, self._handle, self._text = conn, handle, text

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        blobs: list[bytes] = []
        tree = wire.encode([list(args), sorted(kwargs.items())], blobs)
        self._conn.send({"callback": self._handle, "args": tree}, blobs)
        header, blobs = self._conn.reader.read()
        if "raised" in header:
            raise wire.exception(*header["raised"])
        return wire.decode_input(header["result"], blobs)

    def __repr__(self) -> str:
        return self._text


class _Programs:
    """An audit hook (it cannot be removed) that notes a program started
    while an answer runs."""

    def __init__(self) -> None:
        self.armed = False
        self.started: list[str] = []

    def __call__(self, event: str, args: tuple) -> None:
        if self.armed and event in _PROGRAM_EVENTS:
            what = " ".join(str(x) for x in args[:2])[:200]
            self.started.append(f"{event} {what}")


def _limits(memory: int, cpu: int, files: int) -> None:
    """Resource limits of this process and all it starts."""
    for what, value in ((resource.RLIMIT_AS, memory),
                        (resource.RLIMIT_CPU, cpu),
                        (resource.RLIMIT_FSIZE, files),
                        (resource.RLIMIT_CORE, 0)):
        if value >= 0:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(what, (value, value))


def _source(fn: Any) -> str:
    try:
        return inspect.getsource(fn)[:20_000]
    except (OSError, TypeError):
        return ""


def _drain(fd: int) -> list[str]:
    """Labels forked children wrote into the hits pipe."""
    data = b""
    with contextlib.suppress(BlockingIOError, OSError):
        while chunk := os.read(fd, 65536):
            data += chunk
    return [x for x in data.decode(errors="replace").splitlines() if x]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m convgrad.course.worker")
    parser.add_argument("--read", type=int, required=True)
    parser.add_argument("--write", type=int, required=True)
    parser.add_argument("--memory", type=int, default=-1)
    parser.add_argument("--cpu", type=int, default=-1)
    parser.add_argument("--files", type=int, default=-1)
    parser.add_argument("--kernels", default=None,
                        help="a snapshot of the compiled kernels")
    parser.add_argument("--kernel-sub", default="")
    parser.add_argument("notebook")
    parser.add_argument("names", nargs="+")
    args = parser.parse_args(argv)
    _limits(args.memory, args.cpu, args.files)
    warnings.simplefilter("ignore")
    os.environ.setdefault("MPLBACKEND", "Agg")
    if args.kernels and os.path.isdir(args.kernels):
        # a private cache, started from the parent's compiled kernels
        import shutil

        cache = os.path.join(os.environ.get("HOME", "/tmp"), "numba-cache")
        with contextlib.suppress(OSError):
            shutil.copytree(args.kernels, os.path.join(cache, args.kernel_sub))
            os.environ["NUMBA_CACHE_DIR"] = cache
    conn = _Conn(args.read, args.write)
    for fd in (args.read, args.write):  # not inherited by programs it starts
        os.set_inheritable(fd, False)

    from convgrad.exercises import watch as library_watch
    from convgrad.exercises.graded import one_line
    from convgrad.exercises.raised import learner_line

    from .submission import _cells, run_definitions

    # library use is seen in forked children too: they write to this pipe
    hits_r, hits_w = os.pipe()
    fcntl.fcntl(hits_r, fcntl.F_SETFL, os.O_NONBLOCK)
    library_watch.report_hits_to(hits_w, os.getpid())
    threading.setprofile(library_watch.relay)  # threads the notebook starts
    programs = _Programs()
    sys.addaudithook(programs)

    devnull = open(os.devnull, "w")  # noqa: SIM115 (for the whole run)
    with contextlib.redirect_stdout(devnull):
        namespace, failures = run_definitions(
            _cells(args.notebook), args.names, os.path.basename(args.notebook))
    found = {}
    for name in args.names:
        fn = namespace.get(name)
        found[name] = {
            "callable": callable(fn), "missing": fn is None,
            "type": type(fn).__name__, "failure": failures.get(name, ""),
            "source": _source(fn) if callable(fn) else ""}
    conn.send({"ready": found})

    while True:
        header, blobs = conn.reader.read()
        if "call" not in header:
            return 0
        name = header["call"]
        kwargs = {}
        for key, tree in header["kwargs"].items():
            if isinstance(tree, dict) and set(tree) == {"remote"}:
                kwargs[key] = _Remote(conn, tree["remote"][0], tree["remote"][1])
            else:
                kwargs[key] = wire.decode_input(tree, blobs)
        watch = library_watch._Watch(name)
        watched = watch.wrap(namespace[name])
        reply: dict = {}
        out: list[bytes] = []
        programs.started.clear()
        programs.armed = True
        try:
            with contextlib.redirect_stdout(devnull):
                value = watched(**kwargs)
            reply["return"] = wire.encode(value, out, numbers=True)
        except BaseException as err:  # noqa: BLE001 (the answer's, reported)
            reply["raised"] = [type(err).__name__,
                               one_line(err).partition(": ")[2][:2000]]
            with contextlib.suppress(Exception):  # the notebook's line of it
                line = learner_line(err.__traceback__)
                reply["line"] = line.plain() if line is not None else None
        finally:
            programs.armed = False
        hits = [*watch.hits, *_drain(hits_r)]
        if programs.started:
            reply = {"raised": [
                "RuntimeError",
                f"your {name} started another program "
                f"({programs.started[0]}); a graded answer must compute "
                f"in its own process"]}
        reply["given"] = {k: wire.encode(v, out) for k, v in kwargs.items()
                          if isinstance(v, np.ndarray)}
        reply["hits"] = list(dict.fromkeys(hits))[:20]
        conn.send(reply, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
