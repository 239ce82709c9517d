"""A class with careless and hostile students, for the grade command's
sandbox test (tests/test_grading_hostile.py).

Honest students: alice (right answers), bob (two known bugs), eve (alice's
lesson 03). The hostile ones each hand in exercise cells of lesson 03 (and
04 where useful) that attack the grader. Exercise cells run whole in the
worker, so every attack lives in an exercise cell or in the exercise
function's body.

Every attack is confined to the test's own folder (``ROOT``, the test's
tmp_path) and to loopback: files are only written, replaced or deleted
when their real path is inside ROOT, and processes are only signalled when
their command line holds ROOT. Every process an attack starts carries
``TOKEN`` or ``SLEEP`` in its command line, so the test can find and kill
them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from grading_class import COL2IM_NO_CROP, CONV_BACKWARD_DX_NO_CROP
from tracked import lessons_folder

from convgrad.course.grading import exercise_cells
from convgrad.course.lessons import find_lessons
from convgrad.course.solutions import notebook_body

L03, L04 = "03-col2im-scatter", "04-conv-backward"
STUB = "raise NotImplementedError"


# --------------------------------------------------------------------------
# honest notebooks, from the real lessons' cells
# --------------------------------------------------------------------------


def lesson_cells() -> dict[str, tuple[str, dict[str, str]]]:
    """Lesson stem -> (its import cell, exercise name -> its released cell)."""
    out = {}
    for lesson in find_lessons(lessons_folder(), only=[L03, L04]):
        nb = lesson.read()
        first = next(c for c in nb.cells if c.cell_type == "code")
        cells = {name: nb.cells[i].source
                 for name, i in exercise_cells(nb, lesson.number).items()}
        out[lesson.stem] = (first.source, cells)
    return out


def with_body(cell: str, name: str, body: list[str]) -> str:
    """A released exercise cell with the stub of ``name`` replaced by
    ``body`` (lines, indented one level)."""
    lines = cell.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith(f"def {name}("))
    stub = next(i for i in range(start, len(lines)) if STUB in lines[i])
    lines[stub:stub + 1] = [f"    {x}" if x else "" for x in body]
    return "\n".join(lines)


def write_notebook(path: Path, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(x) for x in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def honest(folder: Path, student: str, lessons=(L03, L04)) -> None:
    """``student``'s notebooks in ``folder/student``: alice and eve answer
    col2im, conv_matrix and conv2d_backward right; bob forgets to crop in
    col2im and in conv2d_backward's dx, and gets conv_matrix right."""
    parts = lesson_cells()
    bugs = {"col2im": COL2IM_NO_CROP, "conv2d_backward": CONV_BACKWARD_DX_NO_CROP}
    for lesson in lessons:
        imports, cells = parts[lesson]
        answered = [x for x in ("col2im", "conv_matrix", "conv2d_backward")
                    if x in cells]
        sources = [imports]
        for name in answered:
            if student == "bob" and name in bugs:
                body = bugs[name].rstrip("\n").splitlines()
                body = [x[4:] if x.startswith("    ") else x for x in body]
            else:
                body = notebook_body(name)
            sources.append(with_body(cells[name], name, body))
        write_notebook(folder / student / f"{lesson}.ipynb", sources)


# the grades the honest students must get: (student, lesson, exercise) ->
# (score, max_score, status)
def honest_expected(students=("alice", "bob", "eve")) -> dict:
    out = {}
    for student in students:
        for lesson, names in ((L03, ("col2im", "conv_matrix", "adjoint_gap")),
                              (L04, ("conv2d_backward", "grad_check",
                                     "dx_by_conv2d", "dw_by_correlation"))):
            for name in names:
                top = 3 if name == "conv2d_backward" else 1
                out[student, lesson, name] = (0, top, "not-attempted")
        if student == "eve":  # she hands in lesson 03 only
            out[student, L03, "col2im"] = (1, 1, "passed")
            out[student, L03, "conv_matrix"] = (1, 1, "passed")
        elif student == "alice":
            out[student, L03, "col2im"] = (1, 1, "passed")
            out[student, L03, "conv_matrix"] = (1, 1, "passed")
            out[student, L04, "conv2d_backward"] = (3, 3, "passed")
        else:
            out[student, L03, "col2im"] = (0, 1, "wrong")
            out[student, L03, "conv_matrix"] = (1, 1, "passed")
            out[student, L04, "conv2d_backward"] = (2, 3, "wrong")
    return out


# --------------------------------------------------------------------------
# the attacks
# --------------------------------------------------------------------------

# in every hostile cell and in the detached watcher: the exercises graded,
# and the guard that keeps every write inside the test's folder
SCOPE = '''\
ALL = ["col2im", "conv_matrix", "adjoint_gap", "conv2d_backward",
       "grad_check", "dx_by_conv2d"]


def inside(path):
    """Only files under the test's own folder are ever touched."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    return real == ROOT or real.startswith(ROOT + os.sep)
'''

# at the top of every hostile cell: the test's folder and the helpers that
# keep the attack inside it
PRELUDE = '''\
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = __ROOT__
TOKEN = __TOKEN__
SLEEP = __SLEEP__
MARKERS = __MARKERS__
PORT = __PORT__
ME = os.path.basename(os.getcwd())
__SCOPE__

def mark(name, text=""):
    """Leave a trace in the test's markers folder (outside the class)."""
    try:
        with open(os.path.join(MARKERS, name), "a") as f:
            f.write(f"{text}\\n")
    except OSError:
        pass


def pids():
    try:
        return [int(x) for x in os.listdir("/proc") if x.isdigit()]
    except OSError:
        return []


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [x.decode(errors="replace") for x in f.read().split(b"\\0") if x]
    except OSError:
        return []


def ours(pid):
    """A process of this test's run (its command line names ROOT)."""
    return pid != os.getpid() and any(ROOT in x for x in cmdline(pid))


def quiet_popen(args):
    return subprocess.Popen(args, start_new_session=True, close_fds=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def zeros_col2im(col, input_size):
    return np.zeros((col.shape[0], col.shape[1], *input_size))
'''
PRELUDE = PRELUDE.replace("__SCOPE__", SCOPE)

# a survivor: started detached by an answer, it waits until the grade
# command has exited, then rewrites the student's rows of grades.csv to full
# marks (only a grades.csv inside ROOT) and leaves a late marker. It lives
# at most 300 s.
SURVIVOR = '''\
import csv, glob, os, sys, time
ROOT, MARKERS, STUDENT, WHERE = __ROOT__, __MARKERS__, sys.argv[2], sys.argv[3]
KIND = sys.argv[4]

def inside(path):
    real = os.path.realpath(path)
    return real == ROOT or real.startswith(ROOT + os.sep)

def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [x.decode(errors="replace") for x in f.read().split(b"\\0") if x]
    except OSError:
        return []

def grade_command():
    for x in os.listdir("/proc"):
        if x.isdigit():
            args = cmdline(int(x))
            if ("convgrad.course" in args and "grade" in args
                    and any(ROOT in a for a in args)):
                return int(x), args
    return None, []

start = time.time()
pid, args, cwd = None, [], None
while time.time() - start < 300:
    found, found_args = grade_command()
    if found is not None:
        pid, args = found, found_args
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            pass
    elif pid is not None:
        break  # the grade command has exited
    time.sleep(0.05)
else:
    sys.exit(0)
try:
    with open(os.path.join(MARKERS, f"late-{STUDENT}-{KIND}"), "w") as f:
        f.write(f"alive after the grade command exited: {KIND}\\n")
except OSError:
    pass
time.sleep(1.0)
candidates = []
if "--out" in args:
    out = args[args.index("--out") + 1]
    candidates.append(out if os.path.isabs(out) else os.path.join(cwd or "/", out))
for start_dir in filter(None, [WHERE, os.getcwd(), cwd]):
    level = os.path.realpath(start_dir)
    while inside(level):
        candidates += glob.glob(os.path.join(level, "**", "grades*.csv"),
                                recursive=True)
        level = os.path.dirname(level)
csv.field_size_limit(sys.maxsize)
for path in dict.fromkeys(candidates):
    if not (inside(path) and os.path.isfile(path)):
        continue
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        for row in rows[1:]:
            if row and row[0] == STUDENT:
                row[3], row[5], row[6] = row[4], "passed", ""
        with open(path + f".{KIND}", "w", newline="") as f:
            csv.writer(f).writerows(rows)
        os.replace(path + f".{KIND}", path)  # whole, as the grader wrote it
    except Exception:
        pass
time.sleep(300)
'''

# attack 1: forged result records. In the cell: replace its own results file
# with forged records, write forged records to every writable descriptor, and
# start a detached watcher that replaces alice's results files as soon as
# they appear.
FORGER_HELPERS = '''\
def forged(student):
    if student == ME:
        return [{"name": n, "status": "superb" if n == "conv_matrix" else "passed",
                 "score": 1000, "max_score": 1000, "diagnosis": ""} for n in ALL]
    return [{"name": n, "status": "wrong", "score": 0, "diagnosis": "x"}
            for n in ALL]


def lines(student):
    return "".join(json.dumps(r) + "\\n" for r in forged(student))


def first_line(path):
    try:
        with open(path) as f:
            return json.loads(f.readline())
    except Exception:
        return {}


def replace(path, student):
    """Swap a results file for forged records (only inside ROOT)."""
    head = first_line(path)
    setup = head.get("setup", "") if isinstance(head, dict) else ""
    if not (inside(path) and inside(str(setup))):
        return False
    try:
        os.unlink(path)
        with open(path, "w") as f:
            f.write(json.dumps(head) + "\\n" + lines(student))
    except OSError:
        return False
    return True


def results_files():
    found = []
    for top in {"/tmp", tempfile.gettempdir()}:
        found += glob.glob(os.path.join(top, "convgrad-grade-*", "*.jsonl"))
    return found
'''

# the detached watcher: swaps alice's results files as they appear
WATCHER = '''\
import glob, json, os, sys, tempfile, time
ROOT, ME = __ROOT__, __ME__
__SCOPE__

__HELPERS__
seen = set()
start = time.time()
while time.time() - start < 120:
    for path in results_files():
        head = first_line(path)
        setup = head.get("setup", "") if isinstance(head, dict) else ""
        if "/alice/" in str(setup) and path not in seen and replace(path, "alice"):
            seen.add(path)
    time.sleep(0.01)
'''
WATCHER = WATCHER.replace("__SCOPE__", SCOPE)

FORGER = '''\
exec(__HELPERS_REPR__, globals())


def every_fd():
    import fcntl
    for fd in sorted(int(x) for x in os.listdir("/proc/self/fd")):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
            mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        except OSError:
            continue
        if mode not in (os.O_WRONLY, os.O_RDWR):
            continue
        if target.startswith("/") and not (inside(target) or target == "/dev/null"):
            continue  # a file outside the test's folder: left alone
        for student in (ME, "alice", "bob"):
            try:
                os.write(fd, lines(student).encode())
            except OSError:
                pass


for path in results_files():
    replace(path, ME)
every_fd()
quiet_popen([sys.executable, "-c", __WATCHER_REPR__, TOKEN, "forger-watcher"])
'''

# attack 2: detached children that outlive the grade command and rewrite
# grades.csv; a sleep of its own
SURVIVORS = '''\
SURVIVOR = __SURVIVOR_REPR__


STARTED = []


def start_survivors():
    if len(STARTED) > 1:  # in the cell, and on the first call
        return
    STARTED.append(1)
    where = os.getcwd()
    quiet_popen([sys.executable, "-c", SURVIVOR, TOKEN, ME, where, "popen"])
    quiet_popen(["sleep", SLEEP])
    pid = os.fork()
    if pid == 0:  # double fork: the grandchild is nobody's child
        try:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.execv(sys.executable, [sys.executable, "-c", SURVIVOR, TOKEN,
                                          ME, where, "double-fork"])
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


start_survivors()
'''

# attack 3: patch the checker, the grader and NumPy's comparisons in the
# process the answer runs in
PATCHER = '''\
import convgrad.exercises as exercises_pkg
import convgrad.exercises.checker as checker_mod
import convgrad.exercises.graded as graded_mod


def patch_everything():
    def always_passed(name, fn, *args, **kwargs):
        top = float(graded_mod.points_for(name))
        return graded_mod.Graded(name, "passed", top, top,
                                 f"{name}: {top:g}/{top:g} points (passed)\\n"
                                 f"{name}: passed all graded cases.")

    real_check = checker_mod.check

    def passing_check(name, fn, *args, **kwargs):
        result = real_check(name, fn, *args, **kwargs)
        result.status, result.diagnosis = "passed", None
        return result

    def full_marks(name, result, top):
        return "passed", top

    graded_mod._grade = always_passed
    graded_mod._score = full_marks
    graded_mod.check = passing_check
    checker_mod.check = passing_check
    exercises_pkg.check = passing_check
    graded_mod.grade = lambda name, fn, **kw: always_passed(name, fn)
    exercises_pkg.grade = graded_mod.grade
    for key in ("allclose", "isclose", "array_equal", "array_equiv"):
        setattr(np, key, lambda *a, **k: True)
    np.testing.assert_allclose = lambda *a, **k: None
    real_dumps = json.dumps

    def dumps(record, *args, **kwargs):
        if isinstance(record, dict) and "name" in record:
            record = {**record, "status": "passed", "score": 1000,
                      "diagnosis": ""}
        return real_dumps(record, *args, **kwargs)

    json.dumps = dumps


patch_everything()
'''

# attack 5: the library, called from a thread, a thread pool and a forked
# child
THREADS_COL2IM = '''\
import threading


def col2im(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    from convgrad import F
    n, c, k, _, oh, ow = col.shape
    out = {}

    def work():
        out["x"] = F.fold(col.reshape(n, c * k * k, oh * ow), input_size,
                          kernel_size, dilation=dilation, padding=padding,
                          stride=stride).numpy()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    return out["x"]
'''

THREADS_CONV_MATRIX = '''\
from concurrent.futures import ThreadPoolExecutor


def conv_matrix(w, input_size, stride=1, padding=0):
    from convgrad import exercises
    def work():  # the reference, looked up and called in the pool's thread
        return exercises.solution("conv_matrix")(w, input_size, stride, padding)

    with ThreadPoolExecutor(2) as pool:
        return pool.submit(work).result()
'''

THREADS_BACKWARD = '''\
import multiprocessing


def conv2d_backward(x, w, dy, stride=1, padding=0):
    from convgrad import exercises
    ctx = multiprocessing.get_context("fork")
    mine, theirs = ctx.Pipe()

    def child():
        theirs.send(exercises.solution("conv2d_backward")(x, w, dy, stride,
                                                          padding))
        theirs.close()

    p = ctx.Process(target=child)
    p.start()
    result = mine.recv()
    p.join()
    return result
'''

# attack 6: look for the secret seed everywhere, and report it in an
# exception (so it lands in the diagnosis) and in files the attacker writes
SNOOP = '''\
import re


def snoop():
    found = []
    text = ""
    try:
        with open("/proc/self/environ", "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        pass
    found += re.findall(r"CONVGRAD_GRADE_SEED=[^\\0]*", text)
    found += [f"{k}={v}" for k, v in os.environ.items() if "SEED" in k]
    for pid in pids():
        if not ours(pid) and pid != os.getppid():
            continue  # only this test's processes (the grader's among them)
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().decode(errors="replace")
            found += re.findall(r"CONVGRAD_GRADE_SEED=[^\\0]*", env)
        except OSError:
            pass
        args = cmdline(pid)
        for i, a in enumerate(args[:-1]):
            if a == "--seed":
                found.append(f"--seed {args[i + 1]}")
            if a == "--seed-file":
                try:
                    found.append("seed-file " + open(args[i + 1]).read().strip())
                except OSError:
                    pass
    level = os.path.realpath("..")
    for _ in range(4):  # the folders above, as far as ROOT
        if not inside(level):
            break
        for top, dirs, files in os.walk(level):
            for name in files:
                if "seed" in name and inside(os.path.join(top, name)):
                    try:
                        with open(os.path.join(top, name)) as f:
                            found.append(f"{name} " + f.read(100).strip())
                    except OSError:
                        pass
        level = os.path.dirname(level)
    found = list(dict.fromkeys(found))
    report = "found: " + "; ".join(found)
    for path in (os.path.join(os.getcwd(), "loot.txt"),
                 os.path.join(tempfile.gettempdir(), "loot.txt"),
                 os.path.join(MARKERS, "loot-snoop")):
        if inside(path):
            try:
                with open(path, "a") as f:
                    f.write(report + "\\n")
            except OSError:
                pass
    return report
'''

# attack 7: copy another student's answers
COPYCAT = '''\
def copy_answers():
    copied = []
    paths = [os.path.join("..", d, os.path.basename(p))
             for d in os.listdir("..") if d == "alice"
             for p in glob.glob("*.ipynb")]
    paths += glob.glob("../alice*/03-*.ipynb")
    for path in paths:
        try:
            with open(path) as f:
                nb = json.load(f)
        except (OSError, ValueError):
            continue
        for cell in nb.get("cells", []):
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            if ("def col2im(" in source or "def conv_matrix(" in source) and (
                    "raise NotImplementedError" not in source):
                try:  # its practice check line raises here: no matter
                    exec(source, globals())
                except Exception:
                    pass
                copied.append(path)
        if copied:
            mark("copycat-read", path)
            return copied
    raise RuntimeError("copycat: no other notebook could be read")
'''

# attack 8: a 200 MB flood of stderr, then the worker ends; a 100 MB
# exception message
FLOOD = '''\
chunk = b"A" * (1 << 20)
for _ in range(200):
    try:
        os.write(2, chunk)
    except OSError:
        break


def col2im(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    os._exit(1)


def conv_matrix(w, input_size, stride=1, padding=0):
    raise ValueError("B" * 100_000_000)
'''

# attack 9: the network
NETCAT = '''\
import socket


def phone_home(what):
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=2) as s:
            s.sendall(f"{ME} {what} {TOKEN}".encode())
            mark("netcat-connected", what)
    except OSError:
        pass


phone_home("cell")
'''

# attack 10: kill the grader, the process group, everything it can see
KILLER = '''\
def kill_everything():
    mark("killer-ran")
    try:
        os.kill(os.getppid(), signal.SIGKILL)
    except OSError:
        pass
    for pid in pids():
        if ours(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    try:
        os.killpg(0, signal.SIGKILL)
    except OSError:
        pass
'''

WRONG_CONV_MATRIX = """\
def conv_matrix(w, input_size, stride=1, padding=0):
    __BEFORE__
    from convgrad import geometry
    oh, ow = geometry.window(tuple(input_size), w.shape[0], stride, padding,
                             1).out
    return np.zeros((oh * ow, input_size[0] * input_size[1]))
"""

WRONG_BACKWARD = """\
def conv2d_backward(x, w, dy, stride=1, padding=0):
    __BEFORE__
    return np.zeros_like(x), np.zeros_like(w), np.zeros(w.shape[0])
"""

WRONG_COL2IM = """\
def col2im(col, input_size, kernel_size, stride=1, padding=0,
           dilation=1):
    __BEFORE__
    return zeros_col2im(col, input_size)
"""


def wrong(template: str, before: str = "pass") -> str:
    return template.replace("__BEFORE__", before)


# what each hostile student hands in: student -> (the attack's number in
# the list, its name, lesson -> exercise cells). Every cell defines
# an exercise, so the worker runs it whole; each starts with the prelude.
HOSTILE = {
    # aaron sorts before alice: his watcher is up when her workers run
    "aaron": (1, "forged result records", {
        L03: [FORGER + "\n\n" + wrong(WRONG_COL2IM, "every_fd()"),
              wrong(WRONG_CONV_MATRIX, "every_fd()")],
        L04: [FORGER + "\n\n" + wrong(WRONG_BACKWARD, "every_fd()")],
    }),
    "mallory": (2, "detached children that outlive the grade command", {
        L03: [SURVIVORS + "\n\n" + wrong(WRONG_COL2IM, "start_survivors()")],
    }),
    "patcher": (3, "monkeypatched checker", {
        L03: [PATCHER + "\n\n" + wrong(WRONG_COL2IM, "patch_everything()"),
              wrong(WRONG_CONV_MATRIX, "patch_everything()")],
        L04: [PATCHER + "\n\n" + wrong(WRONG_BACKWARD, "patch_everything()")],
    }),
    "threads": (5, "the library from threads and processes", {
        L03: [THREADS_COL2IM, THREADS_CONV_MATRIX],
        L04: [THREADS_BACKWARD],
    }),
    "snoop": (6, "reads the secret seed", {
        L03: [SNOOP + "\n\n" + wrong(WRONG_COL2IM, "raise RuntimeError(snoop())"),
              SNOOP + "\n\nraise RuntimeError(snoop())\n\n\n"
              + wrong(WRONG_CONV_MATRIX)],
    }),
    "copycat": (7, "copies alice's notebook", {
        # the copy runs after its own (wrong) col2im, and replaces it
        L03: [COPYCAT + "\n\n" + wrong(WRONG_COL2IM) + "\n\ncopy_answers()\n"],
    }),
    "flood": (8, "stderr flood and a 100 MB exception message", {
        L03: [FLOOD],
    }),
    "netcat": (9, "network", {
        L03: [NETCAT + "\n\n" + wrong(WRONG_COL2IM, "phone_home('call')")],
    }),
}

# attack 4: zed's lesson 03 is a symlink to eve's (right) notebook
SYMLINK = ("zed", 4, "symlink to another student's notebook")

# attack 10 is graded in a run of its own (against a naive grader it takes
# the whole run down); akill sorts before alice, so it runs beside her
KILLER_STUDENT = ("akill", 10, "kill attempts", {
    L03: [KILLER + "\n\n" + wrong(WRONG_COL2IM, "kill_everything()")],
})


def hostile(folder: Path, student: str, lessons: dict, *, root: str,
            token: str, sleep: str, markers: str, port: int) -> None:
    """``student``'s notebooks in ``folder/student``: lesson -> cells, each
    after the prelude and with the test's folder, tokens and port filled
    in."""
    values = {"__ROOT__": repr(root), "__TOKEN__": repr(token),
              "__SLEEP__": repr(sleep), "__MARKERS__": repr(markers),
              "__PORT__": repr(port), "__ME__": repr(student)}

    def fill(text: str) -> str:
        for key, value in values.items():
            text = text.replace(key, value)
        return text

    helpers = FORGER_HELPERS
    watcher = fill(WATCHER.replace("__HELPERS__", helpers))
    survivor = fill(SURVIVOR)
    for lesson, cells in lessons.items():
        sources = []
        for cell in cells:
            text = (PRELUDE + "\n\n" + cell)
            text = (text.replace("__HELPERS_REPR__", repr(helpers))
                    .replace("__WATCHER_REPR__", repr(watcher))
                    .replace("__SURVIVOR_REPR__", repr(survivor)))
            sources.append(fill(text))
        write_notebook(folder / student / f"{lesson}.ipynb", sources)
