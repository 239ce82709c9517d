"""Run one learner call in isolation: a time limit, and no state left behind.

:func:`call` runs ``fn(**kwargs)`` and gives back what it returned or
raised. Whatever the call does, afterwards

- convgrad's grad mode (``no_grad`` entered and never left), the active
  backend (``convgrad.use_backend`` or ``set_backend``) and NumPy's error
  state (``np.seterr``) are what they were before it;
- a call that runs longer than ``time_limit`` seconds is stopped with
  :class:`TimeLimit` (a ``BaseException``, so the learner's own
  ``except Exception`` does not swallow it).

How the limit is enforced: on the main thread of the main interpreter
(where a notebook runs its cells) with ``signal.setitimer`` and a SIGALRM
handler that raises in the learner's code, wherever it is, even inside
a pure-Python loop; the previous handler and timer are restored after.
Elsewhere (another thread, or a platform without SIGALRM) a trace
function checks the clock on every line the learner's Python code runs:
slower, and a single long call into compiled code (one huge ``np.dot``)
finishes before it is stopped.
"""

from __future__ import annotations

import importlib
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from convgrad import backend

# the module, not the function convgrad.tensor() that shadows its name
_tensor = importlib.import_module("convgrad.tensor")


class TimeLimit(BaseException):  # noqa: N818 (read as "time limit reached")
    """The learner's call ran past its time limit."""


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


def call(fn: Callable, kwargs: dict, time_limit: float | None,
         after: Callable[[Any], Any] = lambda v: v) -> Any:
    """``after(fn(**kwargs))`` within the time limit (``None``: no limit),
    with grad mode, the backend and NumPy's error state restored. Raises
    what the call raised, or :class:`TimeLimit`."""
    grad, errors = _grad_state(), np.geterr()

    def run() -> Any:
        return after(fn(**kwargs))

    try:
        with backend.kept():  # the thread's own choice, or none, as it was
            if time_limit is None:
                return run()
            if _alarm_usable():
                return _with_alarm(run, time_limit)
            return _with_trace(run, time_limit)
    finally:
        _set_grad_state(grad)
        np.seterr(**errors)
