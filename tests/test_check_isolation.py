"""``check`` survives the learner: a runaway loop is stopped whatever it
catches, a return value or an exception whose ``repr``, ``len``,
``__array__`` or ``str`` hangs or raises is a verdict, a crash of the
process the answer runs in is a verdict, what the answer prints shows,
state the function changes is put back, and a bad argument to ``check``
names itself."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import convgrad as cg
from convgrad import backend
from convgrad.exercises import CODES, check, isolation, solution

FORKS = hasattr(os, "fork")
needs_fork = pytest.mark.skipif(not FORKS, reason="no os.fork here")

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


def swallows_even_the_alarm(x, dy):
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722 (a bare except: catches a TimeLimit too)
            pass


@pytest.mark.parametrize("fn", [
    forever, swallows_everything,
    pytest.param(swallows_even_the_alarm, marks=needs_fork)])
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


# --------------------------------------------------------------------------
# every use of the learner's value runs where it can be stopped
# --------------------------------------------------------------------------


def _sleeps(*args, **kwargs):
    time.sleep(600)


def _raises_runtime(*args, **kwargs):
    raise RuntimeError("broken on purpose")


def _returning(**methods):
    """An answer to square_plus_backward returning an object of a class
    with these methods."""
    cls = type("Strange", (), methods)
    return lambda x, dy: cls()


@needs_fork
@pytest.mark.parametrize("methods", [
    {"__repr__": _sleeps},
    {"__array__": _sleeps},
    {"__len__": _sleeps, "__repr__": _sleeps},
], ids=["repr", "array", "len"])
def test_a_returned_value_that_hangs_when_read_is_stopped(methods):
    start = time.monotonic()
    result = check("square_plus_backward", _returning(**methods), quiet=True,
                   time_limit=0.5)
    assert time.monotonic() - start < 5
    assert result.diagnosis == "time-limit", result.message
    assert result.message.startswith(
        "square_plus_backward: stopped: your function returned on case 1, but "
        "reading what it returned (as numbers, its len() or its repr()) ran "
        "past 0.5 s"), result.message


@needs_fork
def test_a_returned_value_whose_len_hangs_for_several_outputs_is_stopped():
    class Hangs(list):
        def __len__(self):
            time.sleep(600)

    result = check("conv2d_backward",
                   lambda x, w, dy, stride=1, padding=0: Hangs(), quiet=True,
                   time_limit=0.5)
    assert result.diagnosis == "time-limit", result.message


@pytest.mark.parametrize("methods, said", [
    ({"__repr__": _raises_runtime}, "Strange (its repr() raised RuntimeError)"),
    ({"__repr__": _raises_runtime, "__array__": _raises_runtime},
     "RuntimeError: broken on purpose"),
])
def test_a_returned_value_whose_repr_raises_is_a_diagnosis(methods, said):
    result = check("square_plus_backward", _returning(**methods), quiet=True)
    assert result.diagnosis == "bad-return", result.message
    assert said in result.message


def test_a_value_whose_len_and_repr_raise_for_several_outputs_is_a_verdict():
    class Broken(list):
        def __len__(self):
            raise RuntimeError("no len")

        def __repr__(self):
            raise RuntimeError("no repr")

    for value in (Broken(), _returning(__len__=_raises_runtime,
                                       __repr__=_raises_runtime)(0, 0)):
        result = check("conv2d_backward",
                       lambda x, w, dy, stride=1, padding=0, v=value: v,
                       quiet=True)
        assert result.status == "wrong", result.message
        assert "return 3 values (dx, dw, db), got" in result.message
        assert "raised RuntimeError" in result.message


class SlowMessage(Exception):
    def __str__(self):
        time.sleep(600)
        return "never"


class BrokenMessage(Exception):
    def __str__(self):
        raise RuntimeError("no message")


@needs_fork
def test_an_exception_whose_str_hangs_is_stopped():
    def answer(x, dy):
        raise SlowMessage

    start = time.monotonic()
    result = check("square_plus_backward", answer, quiet=True, time_limit=0.5)
    assert time.monotonic() - start < 5
    assert result.diagnosis == "time-limit", result.message
    assert "your function raised on case 1, but reading the text of its " \
        "exception ran past 0.5 s" in result.message


def test_an_exception_whose_str_raises_is_an_error_verdict():
    def answer(x, dy):
        raise BrokenMessage

    result = check("square_plus_backward", answer, quiet=True)
    assert result.status == "error"
    assert "your function raised" in result.message
    assert "BrokenMessage" in result.message


# --------------------------------------------------------------------------
# a crash of the answer's process is a verdict; the notebook lives on
# --------------------------------------------------------------------------


def exits(x, dy):
    os._exit(3)


def segfaults(x, dy):
    ctypes.string_at(0)  # reads address 0: SIGSEGV


@needs_fork
@pytest.mark.parametrize("fn, said", [
    (exits, "ended with exit code 3 before returning"),
    (segfaults, "killed by SIGSEGV (a segmentation fault"),
])
def test_an_answer_that_ends_its_process_is_an_error_verdict(fn, said):
    result = check("square_plus_backward", fn, quiet=True)
    assert result.status == "error" and not result.passed
    assert result.message.startswith(
        "square_plus_backward: your function crashed: the process running "
        "your function"), result.message
    assert said in result.message
    # this process is alive, and the next check runs as ever
    assert check("square_plus_backward", solution("square_plus_backward"),
                 quiet=True).passed


@needs_fork
def test_what_the_answer_started_is_killed_at_the_limit(tmp_path):
    # the answer forks a child of its own, which loops: both are stopped
    record = tmp_path / "pids"

    def spawns(x, dy):
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        record.write_text(f"{os.getpid()} {pid}")
        while True:
            pass

    result = check("square_plus_backward", spawns, quiet=True, time_limit=0.5)
    assert result.diagnosis == "time-limit"
    for pid in map(int, record.read_text().split()):
        deadline = time.monotonic() + 5
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(pid), f"process {pid} still runs"


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


# --------------------------------------------------------------------------
# what crosses back from the answer's process
# --------------------------------------------------------------------------


def test_what_the_answer_prints_shows_in_order_before_the_verdict(capsys):
    def chatty(x, dy):
        print("looking at x of shape", x.shape)
        print("to stderr", file=sys.stderr)
        print("partial line, ", end="")
        print("finished")
        return dy * (2 * x + 1)

    assert check("square_plus_backward", chatty).passed
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert lines[:2] == ["looking at x of shape (4,)",
                         "partial line, finished"]
    assert lines[-1].startswith("square_plus_backward: passed")
    assert out.err.count("to stderr") == 3


def test_the_function_keeps_its_state_between_the_cases():
    seen = []

    def counts(x, dy):
        seen.append(x.shape)  # in the process the calls run in
        return dy * (2 * x + 1) if len(seen) != 2 else 0 * x

    result = check("square_plus_backward", counts, quiet=True)
    assert result.status == "wrong" and result.n_cases == 2, result.message


def test_the_functions_handed_to_the_answer_record_what_it_did():
    # numeric_grad's f remembers every x: a nudge left in place is seen
    def leaves_nudges(f, x, eps=1e-6):
        x = np.array(x, dtype=float)
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            x[i] += eps
            plus = f(x)
            x[i] -= 2 * eps
            g[i] = (plus - f(x)) / (2 * eps)  # x[i] is left at old - eps
        return g

    result = check("numeric_grad", leaves_nudges, quiet=True)
    assert result.diagnosis == "not-restored", result.message
    assert "call 3 of f saw x with" in result.message


def test_an_input_changed_by_the_answer_comes_back_changed():
    def scales_in_place(x, dy):
        x *= 2
        return dy * (x + 1)

    result = check("square_plus_backward", scales_in_place, quiet=True)
    assert result.diagnosis == "mutates-input", result.message


# --------------------------------------------------------------------------
# where the answer runs
# --------------------------------------------------------------------------


@needs_fork
def test_one_process_serves_the_calls_of_a_check():
    with isolation.Answer(lambda x: os.getpid(), 5) as answer:
        pids = {int(answer({"x": 1})) for _ in range(4)}
        assert answer.forks == 1
    assert len(pids) == 1 and os.getpid() not in pids


@needs_fork
def test_after_a_time_limit_the_next_call_gets_a_fresh_process():
    def slow_once(x):
        if x == 0:
            time.sleep(600)
        return os.getpid()

    with isolation.Answer(slow_once, 0.5) as answer:
        with pytest.raises(isolation.TimeLimit):
            answer({"x": 0})
        assert int(answer({"x": 1})) != os.getpid()
        assert answer.forks == 2


def test_without_a_fork_the_alarm_still_stops_a_loop(monkeypatch):
    # the documented fallback: CONVGRAD_CHECK_FORK=0, no os.fork, or a fork
    # that fails
    monkeypatch.setenv("CONVGRAD_CHECK_FORK", "0")
    answer = isolation.Answer(forever, 0.3)
    assert not answer.in_child
    result = check("square_plus_backward", swallows_everything, quiet=True,
                   time_limit=0.3)
    assert result.diagnosis == "time-limit"


@needs_fork
def test_a_failed_fork_runs_the_call_here(monkeypatch):
    def no_fork():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    with isolation.Answer(lambda x: os.getpid(), 5) as answer:
        assert answer({"x": 1}) == os.getpid()
        assert not answer.in_child and answer.forks == 0


def test_an_answer_that_runs_elsewhere_is_not_forked_again():
    class Remote:  # as the sealed grader's RemoteAnswer declares itself
        runs_elsewhere = True

        def __call__(self, x):
            return os.getpid()

    with isolation.Answer(Remote(), 5) as answer:
        assert not answer.in_child
        assert answer({"x": 1}) == os.getpid()


# --------------------------------------------------------------------------
# in a Jupyter kernel
# --------------------------------------------------------------------------

KERNEL_CELL = textwrap.dedent("""
    import os
    from convgrad.exercises import check

    def square_plus_backward(x, dy):
        while True:
            try:
                while True:
                    pass
            except:
                pass

    r = check("square_plus_backward", square_plus_backward, time_limit=1)
    print("verdict:", r.diagnosis)

    def square_plus_backward(x, dy):
        print("inside the answer", x.shape)
        return dy * (2 * x + 1)

    r = check("square_plus_backward", square_plus_backward)
    print("kernel", os.getpid())
""")


@needs_fork
def test_in_a_jupyter_kernel_the_verdict_arrives_and_prints_show():
    manager = pytest.importorskip("jupyter_client").KernelManager(
        kernel_name="python3")
    src = str(Path(isolation.__file__).resolve().parents[2])
    path = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    manager.start_kernel(env={**os.environ, "PYTHONPATH": path})
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        texts = []

        def grab(msg):
            if msg["msg_type"] == "stream":
                texts.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                texts.append("\n".join(msg["content"]["traceback"]))

        reply = client.execute_interactive(KERNEL_CELL, timeout=120,
                                           output_hook=grab)
        assert reply["content"]["status"] == "ok", texts
        out = "".join(texts)
        assert "stopped: your function ran 1 s on case 1" in out
        assert "verdict: time-limit" in out
        assert out.index("inside the answer (4,)") < out.index(
            "square_plus_backward: passed")
        kernel = int(out.rsplit("kernel ", 1)[1].split()[0])
        # the kernel lives on, and answers
        texts.clear()
        reply = client.execute_interactive("print(os.getpid())", timeout=30,
                                           output_hook=grab)
        assert int("".join(texts)) == kernel
        assert manager.is_alive()
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


# --------------------------------------------------------------------------
# Numba in the answer's process
# --------------------------------------------------------------------------


@needs_fork
def test_convgrads_threaded_kernels_run_in_the_answers_process(monkeypatch):
    # the parent started the thread pools of the fast conv and the pool
    # kernels (tests/test_fork.py): the child, which has none of their
    # threads, still computes, and the same numbers
    numba = pytest.importorskip("numba")
    from convgrad import F
    from convgrad.kernels import SETTINGS, conv_fast
    from convgrad.kernels import pool_threads as PT

    monkeypatch.setattr(SETTINGS, "min_work", 0)
    monkeypatch.setattr(conv_fast, "THREAD_MIN_WORK", 0)
    monkeypatch.setattr(PT, "MIN_ELEMENTS", 0)
    monkeypatch.setattr(PT, "CHUNK_ELEMENTS", 1)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    with cg.use_backend("numba"):
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        try:
            want = (F.conv2d(x, w, padding=1).data, F.max_pool2d(x, 2).data)
            sol = solution("square_plus_backward")

            def uses_kernels(**case):
                got = (F.conv2d(x, w, padding=1).data, F.max_pool2d(x, 2).data)
                same = all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
                return sol(**case) if same else 0 * case["x"]

            result = check("square_plus_backward", uses_kernels, quiet=True,
                           time_limit=120)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert result.passed, result.message


@needs_fork
def test_after_numbas_openmp_threads_started_the_kernels_still_run(monkeypatch):
    # Numba kills a forked child that runs a parallel=True function after
    # the parent started GNU OpenMP's threads: convgrad's kernels take their
    # serial build in the child; a learner's own parallel function dies,
    # and the report says why
    numba = pytest.importorskip("numba")
    from convgrad import F
    from convgrad.kernels import _jit

    monkeypatch.setattr(_jit, "PARALLEL_MIN_SIZE", 1)
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6))
    with cg.use_backend("numba"):
        want = F.unfold(x, 3).data  # the parallel build, here
        if numba.threading_layer() != "omp":
            pytest.skip(f"Numba's threading layer is "
                        f"{numba.threading_layer()}, which survives a fork")
        sol = solution("square_plus_backward")

        def uses_kernels(**case):
            same = np.array_equal(F.unfold(x, 3).data, want)
            return sol(**case) if same else 0 * case["x"]

        assert check("square_plus_backward", uses_kernels, quiet=True,
                     time_limit=120).passed

        @numba.njit(parallel=True)
        def total(a):
            s = 0.0
            for i in numba.prange(a.shape[0]):
                s += a[i]
            return s

        def own_parallel(**case):
            total(np.ones(10))
            return sol(**case)

        result = check("square_plus_backward", own_parallel, quiet=True,
                       time_limit=120)
    assert result.status == "error"
    assert "killed by SIGTERM (Numba's OpenMP threads" in result.message
    assert "NUMBA_THREADING_LAYER=workqueue" in result.message
