"""The grade command's sealed runs: the wire, the worker, the sandbox.

The whole class (honest and hostile students through the command) is in
tests/test_grading_hostile.py; here each mechanism is checked on its own.
"""

from __future__ import annotations

import io
import os
import pickle
import socket
import time

import nbformat
import numpy as np
import pytest
from sandbox import SANDBOX

from convgrad.course.sealed import Limits, RemoteAnswer, Session
from convgrad.exercises import wire
from convgrad.exercises.isolation import TimeLimit

# ----------------------------------------------------------------------------
# the wire
# ----------------------------------------------------------------------------


def _round_trip(value, numbers=False):
    blobs: list[bytes] = []
    tree = wire.encode(value, blobs, numbers=numbers)
    r, w = os.pipe()
    try:
        wire.send(w, {"value": tree}, blobs)
        header, got = wire.Reader(r).read()
    finally:
        os.close(r)
        os.close(w)
    return wire.decode(header["value"], got)


def test_values_cross_the_wire_as_they_were():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    back = _round_trip((x, np.array(2.5), None, "text", [1, (2, 3)],
                        float("nan"), True, 2**70))
    assert back[0].dtype == np.float32 and np.array_equal(back[0], x)
    assert back[1].shape == () and back[1] == 2.5  # a 0-d array stays 0-d
    assert back[2:5] == (None, "text", [1, (2, 3)])
    assert np.isnan(back[5]) and back[6] is True and back[7] == 2**70
    # read as the checker reads an answer: a Tensor's data, a number
    import convgrad as cg

    assert np.array_equal(_round_trip(cg.Tensor(x), numbers=True), x)
    assert _round_trip(3, numbers=True).shape == ()


def test_what_is_not_numbers_keeps_its_type_and_repr():
    shown = _round_trip({"a": 1}, numbers=True)
    assert type(shown).__name__ == "dict" and repr(shown) == "{'a': 1}"

    class Bad:
        @property
        def data(self):
            raise IndexError("no data here")

    unreadable = _round_trip(Bad(), numbers=True)
    with pytest.raises(IndexError, match="no data here"):
        _ = unreadable.data


def test_a_worker_can_send_no_pickle():
    blobs = [pickle.dumps(object())]
    with pytest.raises(wire.WireError):
        wire.decode({"pickle": 0}, blobs)
    # an array blob that holds objects is refused too
    buf = io.BytesIO()
    np.save(buf, np.array([object()]), allow_pickle=True)
    with pytest.raises(wire.WireError, match="does not load"):
        wire.decode({"array": 0}, [buf.getvalue()])


@pytest.mark.parametrize("data, match", [
    ((2**40).to_bytes(8, "big"), "over the limit"),
    ((3).to_bytes(8, "big") + b"{{{", "not JSON"),
    ((2).to_bytes(8, "big") + b"[]", "not an object"),
    ((13).to_bytes(8, "big") + b'{"blobs": -1}', "bad blob count"),
])
def test_a_garbled_message_is_refused(data, match):
    r, w = os.pipe()
    try:
        os.write(w, data)
        os.close(w)
        with pytest.raises((wire.WireError, EOFError), match=match):
            wire.Reader(r).read()
    finally:
        os.close(r)


def test_an_error_keeps_its_type():
    assert type(wire.exception("NotImplementedError", "stub")) \
        is NotImplementedError
    custom = wire.exception("ShapeMismatch", "bad")
    assert type(custom).__name__ == "ShapeMismatch"
    assert isinstance(custom, Exception) and str(custom) == "bad"
    assert isinstance(wire.exception("SystemExit", "done"), SystemExit)


# ----------------------------------------------------------------------------
# the worker
# ----------------------------------------------------------------------------

PROBES = '''\
import os, socket, threading
import numpy as np


def col2im(col, input_size, kernel_size, stride=1, padding=0, dilation=1,
           what=""):
    if what == "file":
        try:
            with open(input_size) as f:
                return np.array([1.0, len(f.read())])
        except OSError:
            return np.array([0.0, 0.0])
    if what == "env":
        return " ".join(sorted(f"{k}={v}" for k, v in os.environ.items()))
    if what == "net":
        try:
            socket.create_connection(("127.0.0.1", input_size), timeout=2)
            return 1
        except OSError:
            return 0
    if what == "loop":
        while True:
            try:
                pass
            except BaseException:
                pass
    if what == "thread":
        import convgrad.functional as F
        out = []
        t = threading.Thread(target=lambda: out.append(
            F.unfold(np.zeros((1, 1, 3, 3)), 2)))
        t.start()
        t.join()
        return out[0].shape
    if what == "fork":
        import convgrad.functional as F
        pid = os.fork()
        if pid == 0:
            F.unfold(np.zeros((1, 1, 3, 3)), 2)
            os._exit(0)
        os.waitpid(pid, 0)
        return 0
    if what == "program":
        import subprocess
        subprocess.run(["true"])
        return 0
    if what == "index":
        return np.zeros(3)[input_size]
    col += 1  # changes its input
    return col
'''


@pytest.fixture
def session(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(PROBES)]
    path = tmp_path / "student" / "03-col2im-scatter.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    made = Session(path, ["col2im"], SANDBOX, Limits(),
                   time.monotonic() + 120)
    yield made
    made.stop()


def _ask(session, what, time_limit=20, **kwargs):
    answer = RemoteAnswer(session, "col2im", time_limit)
    case = {"col": np.zeros((1, 1, 2, 2, 2, 2)), "input_size": (3, 3),
            "kernel_size": 2, "what": what, **kwargs}
    return answer(**case), answer, case


def test_a_changed_input_comes_back_changed(session):
    value, _, case = _ask(session, "")
    assert np.array_equal(value, np.ones((1, 1, 2, 2, 2, 2)))
    assert np.array_equal(case["col"], value)  # the checker sees the change


def test_a_call_past_its_limit_is_stopped_from_outside(session):
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        _ask(session, "loop", time_limit=1)  # it catches everything
    assert time.monotonic() - start < 10
    assert session.worker is None  # ended; the next call starts a fresh one
    assert _ask(session, "file", input_size="/nonexistent")[0][0] == 0


def test_library_use_is_seen_in_threads_and_forked_children(session):
    _, answer, _ = _ask(session, "thread")
    assert any("unfold" in x for x in answer.library_hits)
    _, answer, _ = _ask(session, "fork")
    assert any("unfold" in x for x in answer.library_hits)


def test_an_error_names_the_notebooks_line(session):
    with pytest.raises(IndexError, match="index 5 is out of bounds") as info:
        _ask(session, "index", input_size=5)
    line = info.value.learner_line
    assert line["place"] == "03-col2im-scatter.ipynb, cell 0"
    assert line["text"] == "return np.zeros(3)[input_size]"
    assert line["function"] == "col2im"


def test_an_answer_that_starts_a_program_is_stopped(session):
    with pytest.raises(RuntimeError, match="started another program"):
        _ask(session, "program")


def test_the_worker_has_no_seed(session, monkeypatch):
    monkeypatch.setenv("CONVGRAD_GRADE_SEED", "8675309")
    session.stop()  # the next worker starts with this environment
    env = _ask(session, "env")[0]
    assert "8675309" not in env and "CONVGRAD_GRADE_SEED" not in env


@pytest.mark.skipif(not SANDBOX, reason="needs the sandbox (bubblewrap)")
def test_the_sandbox_shows_no_other_file_and_no_network(session, tmp_path):
    secret = tmp_path / "grading-seed.txt"
    secret.write_text("12345\n")
    other = tmp_path / "student" / "other.ipynb"  # beside the notebook
    other.write_text("{}")
    for path in (secret, other, tmp_path / "student" / "03-col2im-scatter.ipynb"):
        assert _ask(session, "file", input_size=str(path))[0][0] == 0, path
    # its own notebook is there, at /submission
    found = _ask(session, "file", input_size="/submission/03-col2im-scatter.ipynb")
    assert found[0][0] == 1
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.2)
        port = server.getsockname()[1]
        assert _ask(session, "net", input_size=port)[0] == 0
        with pytest.raises(OSError):
            server.accept()
