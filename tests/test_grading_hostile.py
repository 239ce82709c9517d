"""The grade command against hostile submissions.

A class of honest students (alice right, bob with known bugs, eve right on
lesson 03) and hostile ones (tests/hostile_class.py: forged result records,
detached children that rewrite grades.csv, a monkeypatched checker, a
symlink to another student's notebook, the library called from threads and
processes, snooping for the secret seed, a copied notebook, a stderr flood
and a 100 MB exception message, the network, kill attempts) is graded with
``python -m convgrad.course grade``, and the test checks what the issue asks
of the sandboxed grader, from the outside:

- the honest students' rows are what a grading of the honest students alone
  gives, and what their answers are known to score;
- no hostile row scores above 0 or passes; grades.csv has exactly the rows
  the parent writes, in CSV_COLUMNS, scores within [0, max_score],
  statuses in STATUSES, diagnoses of a few kB, readable with csv's default
  field size limit;
- nothing a submission started is alive after the command returns, and
  grades.csv does not change after it returns;
- the secret seed is in no row and in no file an attacker could write;
- no connection reaches a server the test listens with on 127.0.0.1;
- the grade command's own memory stays bounded under a stderr flood.

Each failure names the attack that got through. The attacks are confined
to the test's tmp_path and loopback (see hostile_class.py), and every
process they start is killed at the end, pass or fail.

Skipped when bubblewrap is missing, unless CONVGRAD_REQUIRE_SANDBOX is set
(CI), where it fails instead.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile_class import (
    HOSTILE,
    KILLER_STUDENT,
    L03,
    L04,
    SYMLINK,
    honest,
    honest_expected,
    hostile,
)

from convgrad.course.grading import CSV_COLUMNS, lesson_exercises
from convgrad.exercises.graded import STATUSES, points_for

SRC = str(Path(__file__).resolve().parents[1] / "src")

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None
    and not os.environ.get("CONVGRAD_REQUIRE_SANDBOX"),
    reason="bubblewrap (bwrap) is not installed; CONVGRAD_REQUIRE_SANDBOX=1 "
           "makes this a failure")

#: the statuses a hostile answer may get for an exercise it attacked
ZERO = ("wrong", "error", "timeout", "uses-library")
#: the grade command's own peak memory under the flood (kB)
PEAK_RSS_KB = 500 * 1024
#: the longest diagnosis a row may have
DIAGNOSIS_CHARS = 4096
#: how long after the command returns grades.csv must stay as it was
SETTLE = 3.0


# --------------------------------------------------------------------------
# running the grade command
# --------------------------------------------------------------------------


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak_rss_kb: int  # the grade command's own VmHWM
    children_rss_kb: int  # ru_maxrss of it and its waited-for children
    returned: float  # time.time() when it exited


def _env(root: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SRC, env.get("PYTHONPATH")]))
    env.pop("CONVGRAD_GRADE_SEED", None)
    env["TMPDIR"] = str(root / "tmp")  # the grader's temporary folders, ours
    return env


def grade(root: Path, subs: Path, out: Path, *args: str,
          timeout: float = 300) -> Run:
    """``python -m convgrad.course grade SUBS --out OUT ARGS``; waits for the
    command itself (not for pipes a leftover child may hold)."""
    logs = root / "logs"
    logs.mkdir(exist_ok=True)
    name = out.stem
    with open(logs / f"{name}.out", "wb") as so, \
            open(logs / f"{name}.err", "wb") as se:
        proc = subprocess.Popen(
            [sys.executable, "-m", "convgrad.course", "grade", str(subs),
             "--out", str(out), *args],
            stdin=subprocess.DEVNULL, stdout=so, stderr=se, env=_env(root),
            cwd=root, start_new_session=True)
    peak = [0]
    done = threading.Event()

    def watch() -> None:  # VmHWM is the process's own high-water mark
        while not done.is_set():
            with contextlib.suppress(OSError):
                status = Path(f"/proc/{proc.pid}/status").read_text()
                found = re.search(r"VmHWM:\s+(\d+)", status)
                if found:  # a zombie has none
                    peak[0] = max(peak[0], int(found[1]))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    deadline = time.monotonic() + timeout
    try:
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                done.set()
                pytest.fail(f"the grade command did not finish in {timeout} s")
            time.sleep(0.02)
    finally:
        done.set()
        watcher.join()
    returned = time.time()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(proc.returncode,
               (logs / f"{name}.out").read_text(errors="replace"),
               (logs / f"{name}.err").read_text(errors="replace"),
               peak[0], usage.ru_maxrss, returned)


def _sha(path: Path) -> str | None:
    if not path.exists():
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_rows(path: Path, problems: list[str], label: str) -> list[list[str]]:
    """grades.csv's rows, read as any consumer reads it (csv's default field
    size limit); a file that needs more is a problem, then read anyway."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.reader(f))
    except csv.Error as err:
        problems.append(f"{label}: grades.csv is not readable with csv's "
                        f"default field size limit ({err})")
    old = csv.field_size_limit(sys.maxsize)
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            return list(csv.reader(f))
    finally:
        csv.field_size_limit(old)


# --------------------------------------------------------------------------
# processes the attacks leave
# --------------------------------------------------------------------------


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [x.decode(errors="replace") for x in raw.split(b"\0") if x]


def leftovers(needles: list[str]) -> dict[int, list[str]]:
    """Our processes whose command line holds one of ``needles``."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{entry}").st_uid != os.getuid():
                continue
        args = _cmdline(int(entry))
        if any(n in a for n in needles for a in args):
            found[int(entry)] = args
    return found


def kill_leftovers(needles: list[str]) -> None:
    for _ in range(5):  # a double fork may be mid-way
        found = leftovers(needles)
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)


def describe(args: list[str], root: str) -> str:
    shown = []
    for a in args:
        a = a.replace(root, "<tmp>")
        shown.append(a if len(a) < 60 else a[:40].replace("\n", " ") + "...")
    return " ".join(shown)


def blame_process(args: list[str], sleep: str) -> str:
    text = " ".join(args)
    if args[-1:] == ["forger-watcher"]:
        return "attack 1 (forged result records): its watcher"
    if args[-1:] in (["popen"], ["double-fork"], [sleep]):
        return "attack 2 (detached children)"
    if "convgrad.course.worker" in text:
        return "a grading worker (or a process forked from one)"
    return "a process a submission started"


MARKER_ATTACK = {"copycat-read": "attack 7 (copies alice's notebook): read it",
                 "netcat-connected": "attack 9 (network): connected",
                 "loot-snoop": "attack 6 (reads the secret seed): wrote its loot",
                 "killer-ran": "attack 10 (kill attempts)"}


# --------------------------------------------------------------------------
# the class
# --------------------------------------------------------------------------


@dataclass
class Attack:
    root: Path
    token: str
    sleep: str
    secret: str
    markers: Path
    port: int

    @property
    def needles(self) -> list[str]:
        return [self.token, self.sleep, str(self.root)]

    def hand_in(self, folder: Path, student: str, lessons: dict) -> None:
        hostile(folder, student, lessons, root=str(self.root), token=self.token,
                sleep=self.sleep, markers=str(self.markers), port=self.port)


def _attacked(lessons: dict) -> set[tuple[str, str]]:
    """(lesson, exercise) of each exercise a hostile student's cells define."""
    out = set()
    for lesson, cells in lessons.items():
        for cell in cells:
            for name in re.findall(r"^def (\w+)\(", cell, re.M):
                if name in lesson_exercises(int(lesson[:2])):
                    out.add((lesson, name))
    return out


def _label(number: int, name: str) -> str:
    return f"attack {number} ({name})"


def check_grade_file(path: Path, expected_keys: set, honest_rows: dict,
                     hostile: dict, secret: str, problems: list[str]) -> dict:
    """Check grades.csv; returns its rows by (student, lesson, exercise).
    ``hostile``: student -> (label, attacked (lesson, exercise) pairs)."""
    if not path.exists():
        problems.append("grades.csv was not written: the grade command was "
                        "taken down (attack 10, kill attempts?)")
        return {}
    who = {s: label for s, (label, _) in hostile.items()}
    table = read_rows(path, problems, "attack 8 (stderr flood and a 100 MB "
                                      "exception message)")
    if not table or tuple(table[0]) != CSV_COLUMNS:
        problems.append(f"grades.csv's header is {table[:1]}, not {CSV_COLUMNS}")
        return {}
    rows: dict = {}
    for row in table[1:]:
        if len(row) != len(CSV_COLUMNS):
            problems.append(f"a row that is not the parent's: {row[:6]!r}")
            continue
        student, lesson, exercise, score, top, status, diagnosis = row
        key = (student, lesson, exercise)
        label = who.get(student, f"student {student}")
        if key in rows:
            problems.append(f"{label}: a second row for {key}")
        rows[key] = row
        if secret in "".join(row):
            problems.append(f"attack 6 (reads the secret seed): the secret "
                            f"seed is in {student}'s {exercise} row")
        if status not in STATUSES:
            problems.append(f"{label}: {key} has status {status[:40]!r}, not "
                            f"one of STATUSES (forged)")
        try:
            s, t = float(score), float(top)
        except ValueError:
            problems.append(f"{label}: {key} has a score of {score[:40]!r}")
            continue
        if key in expected_keys and t != points_for(exercise):
            problems.append(f"{label}: {key} has max_score {top}")
        if not 0 <= s <= t:
            problems.append(f"{label}: {key} scores {score} of {top} (forged)")
        if len(diagnosis) > DIAGNOSIS_CHARS:
            problems.append(f"{label}: {key}'s diagnosis is {len(diagnosis):,} "
                            f"characters long")
    extra = sorted(set(rows) - expected_keys)
    missing = sorted(expected_keys - set(rows))
    if extra:
        problems.append(f"rows no student of the class has: {extra[:5]} "
                        f"(forged records?)")
    if missing:
        problems.append(f"rows missing: {missing[:8]}")
    for key, want in honest_rows.items():
        got = rows.get(key)
        if got is not None and got != want:
            problems.append(
                f"honest row {key} changed: {got[3:6]} "
                f"{got[6][:80]!r}, alone it is {want[3:6]} (an attack got "
                f"through to an honest student: attack 1 forges alice's "
                f"records, attack 10 kills her worker)")
    for student, (label, attacked) in hostile.items():
        for key, row in rows.items():
            if key[0] != student:
                continue
            score, status = row[3], row[5]
            if status == "passed" or _positive(score):
                problems.append(f"{label} got through: {student} {key[1]} "
                                f"{key[2]} scores {score} ({status})")
            elif (key[1], key[2]) in attacked and status not in ZERO:
                problems.append(f"{label}: {student}'s {key[2]} is {status!r},"
                                f" expected one of {ZERO}")
    return rows


def _positive(score: str) -> bool:
    try:
        return float(score) != 0
    except ValueError:
        return True


def secret_in_files(folders: list[Path], secret: str) -> list[Path]:
    needle = secret.encode()
    found = []
    for folder in folders:
        for path in folder.rglob("*") if folder.exists() else []:
            if path.is_symlink() or not path.is_file():
                continue
            with contextlib.suppress(OSError), open(path, "rb") as f:
                tail = b""
                for block in iter(lambda f=f: f.read(1 << 22), b""):
                    if needle in tail + block:
                        found.append(path)
                        break
                    tail = block[-len(needle):]
    return found


@needs_sandbox
def test_hostile_submissions_get_nothing_and_harm_nobody(tmp_path):
    root = Path(os.path.realpath(tmp_path))
    attack = Attack(root, f"hostile-{secrets.token_hex(8)}",
                    f"300.{secrets.randbelow(10**9):09d}",
                    str(10**11 + secrets.randbelow(9 * 10**11)),
                    root / "markers", 0)
    for folder in ("markers", "tmp", "instructor", "out", "killout"):
        (root / folder).mkdir()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    problems: list[str] = []
    out = root / "out" / "grades.csv"
    try:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        server.setblocking(False)
        attack.port = server.getsockname()[1]
        seed_file = root / "instructor" / "grading-seed.txt"
        seed_file.write_text(f"{attack.secret}\n")
        seed_file.chmod(0o600)

        # the honest students alone: the baseline
        for student in ("alice", "bob"):
            honest(root / "honest", student)
        honest(root / "honest", "eve", lessons=(L03,))
        base = grade(root, root / "honest", root / "baseline.csv",
                     "--seed", attack.secret, "--time-limit", "5",
                     "--notebook-limit", "60")
        assert base.returncode == 0, base.stderr
        with open(root / "baseline.csv", newline="") as f:
            baseline = {tuple(r[:3]): r for r in list(csv.reader(f))[1:]}
        for key, (score, top, status) in honest_expected().items():
            got = baseline[key]
            assert (float(got[3]), float(got[4]), got[5]) == (
                score, top, status), (key, got)

        # the class: the honest students and the hostile ones
        subs = root / "class"
        for student in ("alice", "bob"):
            honest(subs, student)
        honest(subs, "eve", lessons=(L03,))
        hostile_students = {}
        for student, (number, name, lessons) in HOSTILE.items():
            attack.hand_in(subs, student, lessons)
            hostile_students[student] = (_label(number, name),
                                         _attacked(lessons))
        zed, number, name = SYMLINK
        (subs / zed).mkdir()
        (subs / zed / f"{L03}.ipynb").symlink_to(f"../eve/{L03}.ipynb")
        hostile_students[zed] = (_label(number, name), set())
        students = sorted(p.name for p in subs.iterdir())
        expected_keys = {(s, lesson, x) for s in students for lesson in (L03, L04)
                         for x in lesson_exercises(int(lesson[:2]))}

        run = grade(root, subs, out, "--seed-file", str(seed_file),
                    "--time-limit", "5", "--notebook-limit", "60")
        at_return = _sha(out)
        alive_at_return = leftovers(attack.needles)
        time.sleep(SETTLE)
        later = _sha(out)
        alive_later = leftovers(attack.needles)

        if run.returncode != 0:
            problems.append(f"the grade command exited {run.returncode}: "
                            f"{run.stderr.strip()[-300:]}")
        if at_return != later:
            problems.append("attack 2 (detached children that outlive the "
                            "grade command) got through: grades.csv changed "
                            f"within {SETTLE:g} s after the command returned")
        for when, alive in (("when the grade command returned", alive_at_return),
                            (f"{SETTLE:g} s later", alive_later)):
            for pid, args in alive.items():
                problems.append(f"{blame_process(args, attack.sleep)}: pid {pid} "
                                f"alive {when}: {describe(args, str(root))}")
        honest_rows = {k: v for k, v in baseline.items()
                       if k[0] in ("alice", "bob", "eve")}
        rows = check_grade_file(out, expected_keys, honest_rows,
                                hostile_students, attack.secret, problems)
        # zed's lesson 03 is eve's notebook through a symlink: refused
        for exercise in lesson_exercises(3):
            row = rows.get((zed, L03, exercise))
            if row is not None and row[5] != "error":
                problems.append(f"attack 4 (symlink to another student's "
                                f"notebook): zed's {exercise} is {row[5]!r} "
                                f"({row[3]}), not 'error'")
        # copycat's cell cannot read alice's notebook: its own wrong col2im
        # (defined before the copy raised, as in a kernel) is what is graded
        row = rows.get(("copycat", L03, "col2im"))
        if row is not None and (row[5] not in ("wrong", "error")
                                or float(row[3]) != 0):
            problems.append(f"attack 7 (copies alice's notebook): copycat's "
                            f"col2im is {row[5]!r} ({row[3]}), not 'wrong' "
                            f"or 'error' with 0")
        # the library from a thread and a thread pool is still the library
        for exercise, allowed in (("col2im", ("uses-library",)),
                                  ("conv_matrix", ("uses-library",)),
                                  ("conv2d_backward", ("uses-library", "error"))):
            lesson = L04 if exercise == "conv2d_backward" else L03
            row = rows.get(("threads", lesson, exercise))
            if row is not None and row[5] not in allowed:
                problems.append(f"attack 5 (the library from threads and "
                                f"processes): threads's {exercise} is "
                                f"{row[5]!r} ({row[3]}), not {allowed}")
        # the flood: the grade command's own memory
        if run.peak_rss_kb > PEAK_RSS_KB:
            problems.append(f"attack 8 (stderr flood and a 100 MB exception "
                            f"message): the grade command's peak RSS was "
                            f"{run.peak_rss_kb // 1024} MB (with its children "
                            f"{run.children_rss_kb // 1024} MB)")
        # the network
        connections = []
        while True:
            try:
                conn, _ = server.accept()
            except (BlockingIOError, OSError):
                break
            with conn:
                conn.settimeout(1)
                with contextlib.suppress(OSError):
                    connections.append(conn.recv(200).decode(errors="replace"))
        if connections:
            problems.append(f"attack 9 (network) got through: the test's "
                            f"server on 127.0.0.1 got {len(connections)} "
                            f"connections: {connections[:3]}")
        # the secret: in no file an attacker could write
        for path in secret_in_files([subs, root / "markers", root / "tmp",
                                     root / "out", root / "logs"],
                                    attack.secret):
            problems.append(f"attack 6 (reads the secret seed) got through: "
                            f"the secret is in {path.relative_to(root)}")
        # anything written outside the sandbox
        for marker in sorted(root.joinpath("markers").iterdir()):
            if marker.name.startswith("late-"):
                what = ("attack 2 (detached children that outlive the grade "
                        "command) got through: it wrote")
            else:
                what = MARKER_ATTACK.get(marker.name,
                                         "an attack") + " and wrote"
            problems.append(f"{what} markers/{marker.name} outside its "
                            f"sandbox")

        # attack 10, in a run of its own: alice beside a killer
        kill_leftovers(attack.needles)
        killclass = root / "killclass"
        honest(killclass, "alice", lessons=(L03,))
        student, number, name, lessons = KILLER_STUDENT
        attack.hand_in(killclass, student, lessons)
        label = _label(number, name)
        kout = root / "killout" / "grades.csv"
        krun = grade(root, killclass, kout, "--seed", attack.secret,
                     "--time-limit", "5", "--notebook-limit", "60")
        time.sleep(0.5)
        if krun.returncode != 0:
            problems.append(f"{label} got through: the grade command exited "
                            f"{krun.returncode} (killed)")
        kkeys = {(s, L03, x) for s in ("alice", student)
                 for x in lesson_exercises(3)}
        kproblems: list[str] = []
        check_grade_file(kout, kkeys,
                         {k: v for k, v in honest_rows.items()
                          if k[0] == "alice" and k[1] == L03},
                         {student: (label, _attacked(lessons))},
                         attack.secret, kproblems)
        problems += [f"{label} run: {x}" for x in kproblems]
        for pid, args in leftovers(attack.needles).items():
            problems.append(f"{label} run: pid {pid} alive after the grade "
                            f"command returned: {describe(args, str(root))}")
    finally:
        server.close()
        kill_leftovers(attack.needles)
        for big in (out, root / "out" / "grades.csv"):
            with contextlib.suppress(OSError):
                if big.stat().st_size > 10 << 20:
                    big.unlink()
    assert not problems, (
        f"{len(problems)} attacks got through:\n  " + "\n  ".join(problems))


def test_no_sandbox_still_grades_an_honest_class(tmp_path):
    """``--no-sandbox`` (the grader without bubblewrap) grades honest
    students as before."""
    root = Path(os.path.realpath(tmp_path))
    (root / "tmp").mkdir()
    for student in ("alice", "bob"):
        honest(root / "class", student)
    out = root / "grades.csv"
    run = grade(root, root / "class", out, "--no-sandbox", "--seed", "4242",
                "--time-limit", "5", "--notebook-limit", "60")
    assert run.returncode == 0, run.stderr
    with open(out, newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert tuple(table[0]) == CSV_COLUMNS
    got = {tuple(r[:3]): (float(r[3]), float(r[4]), r[5]) for r in table[1:]}
    want = {k: tuple(map(float, v[:2])) + (v[2],)
            for k, v in honest_expected(("alice", "bob")).items()}
    assert got == want
