"""``check`` survives the learner: a runaway loop is stopped, state the
function changes is put back, a strange return value is a diagnosis, and a
bad argument to ``check`` names itself."""

from __future__ import annotations

import signal
import threading
import time

import numpy as np
import pytest

import convgrad as cg
from convgrad import backend
from convgrad.exercises import CODES, check, solution

# --------------------------------------------------------------------------
# the time limit
# --------------------------------------------------------------------------


def forever(x, dy):
    i = 0
    while True:  # the index is never compared with anything
        i += 1


def swallows_everything(x, dy):
    while True:
        try:
            while True:
                pass
        except Exception:  # a learner's catch-all must not defeat the limit
            pass


@pytest.mark.parametrize("fn", [forever, swallows_everything])
def test_a_function_that_never_returns_is_stopped(fn):
    start = time.monotonic()
    result = check("square_plus_backward", fn, quiet=True, time_limit=0.3)
    assert time.monotonic() - start < 5
    assert result.status == "error" and not result.passed
    assert result.diagnosis == "time-limit"
    assert "stopped: your function ran 0.3 s on case 1 without returning" \
        in result.message
    assert CODES["time-limit"][0] in result.message
    assert "time_limit=60" in result.message


def test_the_alarm_handler_and_timer_are_restored():
    seen = []

    def mine(signum, frame):
        seen.append(signum)

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        check("square_plus_backward", forever, quiet=True, time_limit=0.2)
        assert signal.getsignal(signal.SIGALRM) is mine
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        # a timer someone else had set survives, with what was left of it
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        check("square_plus_backward", solution("square_plus_backward"),
              quiet=True)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 20.0 < left <= 30.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert seen == []


def test_off_the_main_thread_the_limit_still_stops_a_loop():
    # no SIGALRM there: the documented fallback traces the learner's lines
    out = {}

    def worker():
        out["result"] = check("square_plus_backward", forever, quiet=True,
                              time_limit=0.3)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(20)
    assert not thread.is_alive()
    assert out["result"].diagnosis == "time-limit"


def test_a_slow_right_answer_passes_with_a_longer_limit():
    def slow(x, dy):
        time.sleep(0.3)
        return dy * (2 * x + 1)

    assert check("square_plus_backward", slow, quiet=True,
                 time_limit=0.1).diagnosis == "time-limit"
    assert check("square_plus_backward", slow, quiet=True,
                 time_limit=5).passed
    assert check("square_plus_backward", slow, quiet=True,
                 time_limit=None).passed


# --------------------------------------------------------------------------
# state the learner's function changes is restored
# --------------------------------------------------------------------------


def leaves_no_grad(x, dy):
    cg.no_grad().__enter__()  # entered, never left
    return dy * (2 * x + 1)


def switches_backend(x, dy):
    cg.backend.set_backend("numpy" if backend.get_backend() == "numba"
                           else "numba")
    return dy * (2 * x + 1)


def silences_numpy(x, dy):
    np.seterr(all="ignore")
    return dy * (2 * x + 1)


def leaves_all_and_raises(x, dy):
    leaves_no_grad(x, dy)
    switches_backend(x, dy)
    np.seterr(all="raise")
    raise RuntimeError("oops")


@pytest.mark.parametrize("fn", [leaves_no_grad, switches_backend,
                                silences_numpy, leaves_all_and_raises])
def test_grad_mode_backend_and_numpy_errors_are_restored(fn):
    before = (cg.is_grad_enabled(), backend.get_backend(), np.geterr())
    result = check("square_plus_backward", fn, quiet=True)
    assert result.passed == (fn is not leaves_all_and_raises), result.message
    assert (cg.is_grad_enabled(), backend.get_backend(), np.geterr()) == before
    # and the no_grad stack is as it was: a block opened now closes cleanly
    with cg.no_grad():
        assert not cg.is_grad_enabled()
    assert cg.is_grad_enabled()


def test_a_check_inside_no_grad_leaves_it_on():
    with cg.no_grad():
        check("square_plus_backward", leaves_no_grad, quiet=True)
        assert not cg.is_grad_enabled()
    assert cg.is_grad_enabled()


# --------------------------------------------------------------------------
# a return value that cannot be read
# --------------------------------------------------------------------------


class RaisingArray:
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("no array here")


class RaisingData:
    @property
    def data(self):
        raise ValueError("a .data that raises")


@pytest.mark.parametrize("value, said", [
    (RaisingArray(), "RuntimeError: no array here"),
    (RaisingData(), "ValueError: a .data that raises"),
])
def test_a_return_value_that_raises_is_a_diagnosis(value, said):
    result = check("square_plus_backward", lambda x, dy: value, quiet=True)
    assert result.status == "wrong"
    assert result.diagnosis == "bad-return"
    assert said in result.message


def test_a_return_value_that_raises_in_one_of_several_outputs():
    def answer(x, w, dy, stride=1, padding=0):
        dx, dw, db = solution("conv2d_backward")(x, w, dy, stride, padding)
        return dx, RaisingArray(), db

    result = check("conv2d_backward", answer, quiet=True)
    assert result.diagnosis == "bad-return" and result.output == "dw"
    assert result.verdicts == {"dx": "right", "dw": "wrong", "db": "right"}


def test_a_forgotten_return_says_so():
    def no_return(x, dy):
        dx = dy * (2 * x + 1)  # noqa: F841 (the mistake under test)

    result = check("square_plus_backward", no_return, quiet=True)
    assert result.diagnosis == "bad-return"
    assert "without `return` gives None" in result.message


# --------------------------------------------------------------------------
# bad arguments to check itself
# --------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, error, word", [
    ({"seed": "a"}, TypeError, "seed"),
    ({"seed": -1}, TypeError, "seed"),
    ({"seed": 1.5}, TypeError, "seed"),
    ({"seed": True}, TypeError, "seed"),
    ({"quiet": "yes"}, TypeError, "quiet"),
    ({"plot": 1}, TypeError, "plot"),
    ({"time_limit": 0}, ValueError, "time_limit"),
    ({"time_limit": "10"}, ValueError, "time_limit"),
])
def test_a_bad_argument_to_check_is_named(kwargs, error, word):
    with pytest.raises(error, match=rf"^{word} must be"):
        check("square_plus_backward", solution("square_plus_backward"),
              **kwargs)


def test_a_numpy_integer_seed_is_fine():
    assert check("square_plus_backward", solution("square_plus_backward"),
                 seed=np.int64(3), quiet=True).passed


def test_a_thread_that_followed_the_default_backend_still_follows_it(monkeypatch):
    # check() gives back the thread's own choice, none included: after it,
    # the process default (CONVGRAD_BACKEND) still decides, not a pinned name
    monkeypatch.setattr(backend._choice, "name", None)
    check("square_plus_backward", switches_backend, quiet=True)
    assert backend._choice.name is None
    with backend.use_backend("numpy"):
        check("square_plus_backward", switches_backend, quiet=True)
        assert backend.get_backend() == "numpy"
