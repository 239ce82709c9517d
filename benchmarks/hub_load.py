"""A class on one JupyterHub, on loopback: how many students fit a node?

For each class size N this script:

1. starts JupyterHub (``SimpleLocalProcessSpawner``, ``DummyAuthenticator``)
   and configurable-http-proxy (npm) on 127.0.0.1, in a fresh temporary
   folder, with the single-user settings of ``deploy/z2jh/values.yaml``
   (``binder/start`` wraps the server, as the image's entrypoint does; the hub
   exports ``CPU_LIMIT`` and ``MEM_LIMIT``);
2. creates N students through the hub's REST API (its admin service token);
3. starts every student at once, as a class does when the teacher posts the
   link and says "go". Each student is a browser (cookies, no token):
   - opens the lesson's nbgitpuller link (``python -m convgrad.course
     link``), logs in on the hub's form (t = 0, "login"), lands on the hub's
     "server not running" page through ``user-redirect``, presses its launch
     button (``/hub/spawn``) and waits on the spawn-pending page until the
     hub sends it on to the server (``spawn``);
   - runs nbgitpuller's page as its script does: the ``git-pull/api`` event
     stream clones a local copy of the lessons into the student's home
     (``pull``), then the browser opens the JupyterLab page it names;
   - opens lesson 00 and then lesson 03 as JupyterLab does (``POST
     /api/sessions``, then the kernel's websocket channels) and executes
     every code cell in order, checking each reply; a cell that raises fails
     the student unless nbval would allow it (``raises-exception`` tag or
     ``# NBVAL_RAISES_EXCEPTION``); ``# NBVAL_SKIP`` cells are skipped. Both
     kernels stay up until the end, as when a learner moves to the next tab;
4. samples, every 0.5 s, the memory (RSS and PSS) and CPU time of each
   student's server with its kernels, and the machine's own load;
5. stops every server through the API, stops the hub with SIGTERM, and ends
   by PID anything it started that is still alive (it reports survivors).

Every server reads the image's Jupyter server config where the repository
ships it (``JUPYTER_CONFIG_PATH=binder/jupyter``: idle kernels are culled).
Options change what a student does:

- ``--course``: every lesson, 00 to 10, in order, each kernel shut down when
  its lesson is done (``DELETE /api/sessions/<id>``);
- ``--enforce-memory``: each server (and so its kernels) runs inside a
  memory cgroup of its own, made under this process's cgroup, with the hard
  limit ``--mem-limit`` (cgroup v1; root), as a pod's container does; each
  lesson's peak is the cgroup's own high-water mark, reset as it starts;
- ``--cull IDLE EVERY``: the config's culling timeouts, shortened on the
  servers' command line; after the lessons each student leaves their
  kernels idle, one still connected, and waits for the server to cull them.

The client is this file: tornado's HTTP client and websocket (the Jupyter
server's REST API and its JSON kernel protocol), no browser. Every request
goes to 127.0.0.1. Every wait is bounded (``--timeout`` for a whole class,
``--cell-timeout`` for a cell), and the loops stop by themselves.

    python benchmarks/hub_load.py -n 5 10 20 40 --json hub_load.json
    python benchmarks/hub_load.py -n 3 --timeout 240      # the CI size
    python benchmarks/hub_load.py -n 2 --course --enforce-memory \
        --json hub_load.json                              # every lesson, 1G

Needs ``pip install -e ".[hub]"`` (jupyterhub, nbgitpuller, psutil) and
``npm install --prefix ~/.cache/convgrad/chp configurable-http-proxy@5.3.0``
(or ``configurable-http-proxy`` on PATH, or ``--chp PATH``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from html import unescape
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import quote, unquote, urlencode, urljoin, urlsplit

import nbformat
import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

REPO = Path(__file__).resolve().parents[1]
LESSONS = ("00-start-here", "03-col2im-scatter")
# every lesson of the course, in order (--course)
COURSE = tuple(sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]-*.ipynb")))
# the image's Jupyter server config (idle-kernel culling)
SERVER_CONFIG = REPO / "binder" / "jupyter" / "jupyter_server_config.json"
HOST = "127.0.0.1"
CHP_CACHE = Path.home() / ".cache" / "convgrad" / "chp"
# the single-user resources of deploy/z2jh/values.yaml, exported by the hub
# to each server as z2jh does (binder/start reads CPU_LIMIT)
CPU_LIMIT = 1.0
MEM_LIMIT = "1G"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def find_chp(explicit: str | None = None) -> str:
    """configurable-http-proxy: ``explicit``, $CONVGRAD_CHP, PATH, or the npm
    prefix ``~/.cache/convgrad/chp``."""
    candidates = [
        explicit,
        os.environ.get("CONVGRAD_CHP"),
        shutil.which("configurable-http-proxy"),
        str(CHP_CACHE / "node_modules" / ".bin" / "configurable-http-proxy"),
    ]
    for c in candidates:
        if c and Path(c).is_file():
            return c
    raise FileNotFoundError(
        "configurable-http-proxy not found: npm install --prefix "
        f"{CHP_CACHE} configurable-http-proxy@5.3.0 (or pass --chp)"
    )


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    # nearest rank: the smallest value with at least q of the data at or below
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


# --------------------------------------------------------------------------
# the hub and everything it starts, tracked by PID
# --------------------------------------------------------------------------


CONFIG = """\
# written by benchmarks/hub_load.py: a loopback hub for a load test
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://{host}:{port}"
c.JupyterHub.hub_ip = "{host}"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://{host}:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{chp!r}]
c.JupyterHub.db_url = "sqlite:///{work}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{work}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = "{work}/jupyterhub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{work}/home/{{username}}"
# the image's entrypoint wraps the server (binder/start caps Numba's threads),
# inside the memory cage's wrapper when there is one
c.Spawner.cmd = {cmd!r}
# --KernelManager.transport=ipc: kernels talk over unix sockets. On one host,
# dozens of servers picking random TCP ports at once collide ("Address already
# in use": a kernel dies), which cannot happen in z2jh, where each student's
# pod has its own network namespace.
# Its socket paths live in the runtime dir, which must stay short (a unix
# socket path has at most 107 characters).
c.Spawner.args = {args!r}
c.Spawner.environment = {{
    **{environment!r},
    "JUPYTER_RUNTIME_DIR": lambda spawner: "{work}/r/" + spawner.user.name,
}}
c.Spawner.default_url = "/lab"
c.Spawner.cpu_limit = {cpu_limit!r}
c.Spawner.mem_limit = {mem_limit!r}
# z2jh's singleuser.startTimeout is 300 s: a busy node must not fail spawns
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 240
c.JupyterHub.concurrent_spawn_limit = 0
c.JupyterHub.cleanup_servers = True
c.JupyterHub.services = [{{"name": "loadtest", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{
    "name": "loadtest",
    "scopes": ["admin:users", "admin:servers", "admin:server_state"],
    "services": ["loadtest"],
}}]
"""


def _cmdline(proc: psutil.Process) -> list[str]:
    try:
        return proc.cmdline()
    except psutil.Error:  # gone, or a zombie
        return []


def limit_bytes(quantity: str) -> int:
    """A memory size as JupyterHub (and so kubespawner, for z2jh's
    ``singleuser.memory.limit``) reads it: ``1G`` is 2**30 bytes."""
    from jupyterhub.traitlets import ByteSpecification

    return int(ByteSpecification().validate(None, quantity))


WRAPPER = """\
#!/bin/sh
# written by benchmarks/hub_load.py: the server joins its student's memory
# cgroup (as a pod's container starts inside its limit), then becomes the
# server; its kernels, its children, stay in that cgroup
echo $$ > "$HUB_LOAD_CAGE/$JUPYTERHUB_USER/cgroup.procs" || exit 70
exec "$@"
"""


class MemoryCage:
    """A hard memory limit per student, enforced by the kernel: one memory
    cgroup per student (cgroup v1), made under this process's own cgroup, so
    whoever limits this process still limits them. The kernel reclaims page
    cache at the limit and OOM-kills when it cannot.

    Two figures per group. ``resident`` is what the kernel cannot simply
    drop at the limit: anonymous memory, shared memory and mapped files
    (``memory.stat``'s ``total_rss + total_shmem + total_mapped_file``, an
    upper bound: mapped shared memory counts twice). ``peak`` is the
    kernel's own high-water mark of everything charged, page cache included
    (a container's ``memory.max_usage_in_bytes``). Page cache is charged to
    the first group that reads a file, so ``peak`` depends on what else the
    machine read before (the same lesson measured 231 MiB after other work
    had read the libraries and 402 MiB on a machine where the student read
    them first); ``resident`` does not."""

    def __init__(self, limit: int, base: Path | None = None) -> None:
        if limit < 64 * 2**20:
            raise ValueError(f"a memory limit of {limit} bytes is below 64 MiB")
        base = base or self.own_group()
        if not (base / "memory.limit_in_bytes").is_file():
            raise RuntimeError(
                f"no cgroup v1 memory controller at {base}; on cgroup v2, run "
                "under systemd-run --scope -p MemoryMax=... instead"
            )
        self.limit = limit
        self.root = base / f"hub-load-{os.getpid()}-{secrets.token_hex(3)}"
        try:
            self.root.mkdir()
        except OSError as err:
            raise RuntimeError(f"cannot make a memory cgroup in {base}: {err}") from err
        self.groups: dict[str, Path] = {}

    @staticmethod
    def own_group() -> Path:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _id, controllers, path = line.split(":", 2)
            if "memory" in controllers.split(","):
                return Path("/sys/fs/cgroup/memory") / path.lstrip("/")
        raise RuntimeError("this process is in no cgroup v1 memory hierarchy")

    def wrapper(self, work: Path) -> Path:
        path = work / "cage.sh"
        path.write_text(WRAPPER)
        path.chmod(0o755)
        return path

    def add(self, name: str) -> Path:
        group = self.root / name
        group.mkdir()
        (group / "memory.limit_in_bytes").write_text(str(self.limit))
        if (group / "memory.memsw.limit_in_bytes").is_file():  # no swap escape
            (group / "memory.memsw.limit_in_bytes").write_text(str(self.limit))
        self.groups[name] = group
        return group

    def _read(self, name: str, file: str) -> str:
        return (self.groups[name] / file).read_text()

    def usage(self, name: str) -> int:
        return int(self._read(name, "memory.usage_in_bytes"))

    def working_set(self, name: str) -> int:
        """Usage less inactive page cache: what kubelet and ``kubectl top``
        count for a container."""
        stat = dict(line.split() for line in self._read(name, "memory.stat")
                    .splitlines())
        return max(0, self.usage(name) - int(stat.get("total_inactive_file", 0)))

    def resident(self, name: str) -> int:
        """Anonymous + shared + mapped-file bytes now: the charge the kernel
        cannot reclaim without killing or re-faulting."""
        stat = dict(line.split() for line in self._read(name, "memory.stat")
                    .splitlines())
        return sum(int(stat.get(key, 0)) for key in
                   ("total_rss", "total_shmem", "total_mapped_file"))

    def peak(self, name: str) -> int:
        return int(self._read(name, "memory.max_usage_in_bytes"))

    def reset_peak(self, name: str) -> None:
        (self.groups[name] / "memory.max_usage_in_bytes").write_text("0")

    def oom_kills(self, name: str) -> int:
        fields = dict(line.split() for line in self._read(name, "memory.oom_control")
                      .splitlines())
        return int(fields.get("oom_kill", 0))

    def pids(self, name: str) -> list[int]:
        return [int(x) for x in self._read(name, "cgroup.procs").split()]

    def remove(self) -> list[str]:
        """Remove every group (their processes must be gone); returns the
        groups that could not be removed."""
        left = []
        for group in [*self.groups.values(), self.root]:
            for _try in range(20):
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # a process still exiting
                    time.sleep(0.25)
            else:
                left.append(str(group))
        return left


class Hub:
    """A JupyterHub on 127.0.0.1 in ``work``; :meth:`stop` ends every process
    it started (hub, proxy, user servers, kernels) by PID.

    Each server reads the image's Jupyter server config where the repository
    ships it (``JUPYTER_CONFIG_PATH=binder/jupyter``; the image gets the same
    file through ``binder/jupyter/install.py``). ``server_args`` are added to
    every server's command line (for instance shorter culling timeouts: the
    command line wins over the config file, key by key). With a ``cage``,
    each server starts inside its student's memory cgroup, with the hard
    limit ``mem_limit``, as a pod's container does."""

    def __init__(self, work: Path, chp: str, *, cpu_limit: float = CPU_LIMIT,
                 mem_limit: str = MEM_LIMIT, server_args: tuple[str, ...] = (),
                 cage: MemoryCage | None = None) -> None:
        self.work = work
        self.port = _free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.token = secrets.token_hex(32)
        self.proc: subprocess.Popen | None = None
        self.started: dict[int, psutil.Process] = {}  # every PID we own
        self.lock = threading.Lock()
        self.cage = cage
        singleuser = Path(sys.executable).with_name("jupyterhub-singleuser")
        env = {"NUMBA_CPU_NAME": os.environ.get("NUMBA_CPU_NAME", "generic"),
               "JUPYTER_CONFIG_PATH": str(SERVER_CONFIG.parent)}
        for key in ("NUMBA_CACHE_DIR", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            if key in os.environ:
                env[key] = os.environ[key]
        # the image's entrypoint wraps the server (binder/start caps Numba's
        # threads); the cage's wrapper, when there is one, goes first
        cmd = [str(REPO / "binder" / "start"),
               str(singleuser) if singleuser.is_file() else "jupyterhub-singleuser"]
        if cage is not None:
            cmd.insert(0, str(cage.wrapper(work)))
            env["HUB_LOAD_CAGE"] = str(cage.root)
        config = CONFIG.format(
            host=HOST, port=self.port, hub_port=_free_port(),
            proxy_api_port=_free_port(), chp=chp, work=work, cmd=cmd,
            args=["--KernelManager.transport=ipc", *server_args]
            + (["--allow-root"] if os.geteuid() == 0 else []),
            cpu_limit=cpu_limit, mem_limit=mem_limit, environment=env,
            token=self.token,
        )
        (work / "home").mkdir(parents=True, exist_ok=True)
        self.config = work / "jupyterhub_config.py"
        self.config.write_text(config)
        self.log = work / "jupyterhub.log"

    def check_ipc_paths(self, names: list[str]) -> None:
        """Each kernel's unix sockets live in ``{work}/r/<user>/``; a path
        over 107 bytes fails every kernel start with an HTTP 500 on ``POST
        /api/kernels`` (zmq: "ipc path ... is longer than 107 characters"),
        which looks like an auth error and is not one."""
        longest = max((len(n.encode()) for n in names), default=0)
        # kernel-<uuid4>-ipc-<channel>: the connection file's stem, plus a digit
        size = len(str(self.work).encode()) + len("/r/") + longest + len(
            "/kernel-") + 36 + len("-ipc-1")
        if size > 107:
            raise ValueError(
                f"kernel socket paths under {self.work}/r/ would be {size} bytes, "
                "over the 107 a unix socket allows: use a shorter TMPDIR"
            )

    def own(self, proc: psutil.Process) -> None:
        with self.lock:
            self.started.setdefault(proc.pid, proc)

    def descendants(self) -> list[psutil.Process]:
        if self.proc is None:
            return []
        try:
            kids = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        for kid in kids:
            self.own(kid)
        return kids

    async def start(self, timeout: float = 90) -> float:
        t0 = time.monotonic()
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "jupyterhub", "-f", str(self.config)],
                cwd=self.work, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )
        self.own(psutil.Process(self.proc.pid))
        client = AsyncHTTPClient()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the hub exited:\n{self.tail()}")
            try:
                await client.fetch(f"{self.url}/hub/api/", request_timeout=5)
                self.descendants()  # the proxy
                return time.monotonic() - t0
            except (OSError, HTTPClientError):
                await asyncio.sleep(0.5)
        raise TimeoutError(f"the hub did not answer in {timeout} s:\n{self.tail()}")

    def tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    async def api(self, method: str, path: str, token: str | None = None,
                  body: dict | None = None, timeout: float = 120) -> dict | None:
        response = await AsyncHTTPClient().fetch(
            f"{self.url}/hub/api{path}", method=method,
            headers={"Authorization": f"token {token or self.token}"},
            body=None if body is None and method == "GET" else json.dumps(body or {}),
            request_timeout=timeout, allow_nonstandard_methods=True,
        )
        return json.loads(response.body) if response.body else None

    async def stop(self, users: list[str], timeout: float = 60) -> list[int]:
        """Stop the servers, then the hub, then whatever is left, by PID.
        Returns the PIDs still alive afterwards (none, when all went well)."""
        self.descendants()
        if self.proc is not None and self.proc.poll() is None:
            async def stop_one(name: str) -> None:
                try:
                    await self.api("DELETE", f"/users/{name}/server", timeout=30)
                except (OSError, HTTPClientError):
                    pass
            await asyncio.gather(*(stop_one(u) for u in users))
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and any(
                "singleuser" in " ".join(_cmdline(p)) for p in self._alive()
            ):
                await asyncio.sleep(0.5)
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for proc in self._alive():
            with contextlib.suppress(psutil.Error):
                proc.terminate()
        _gone, alive = psutil.wait_procs(self._alive(), timeout=10)
        for proc in alive:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(alive, timeout=5)
        return [p.pid for p in self._alive()]

    def _alive(self) -> list[psutil.Process]:
        alive = []
        with self.lock:
            procs = list(self.started.values())
        for proc in procs:
            try:
                # is_running() also checks the creation time: no reused PIDs
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append(proc)
            except psutil.Error:
                pass
        return alive


# --------------------------------------------------------------------------
# memory and CPU, sampled
# --------------------------------------------------------------------------


class Sampler(threading.Thread):
    """Every ``period`` s: each student's server + kernels (RSS, PSS, CPU),
    the hub + proxy, and the whole machine."""

    def __init__(self, hub: Hub, period: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.hub, self.period = hub, period
        self.servers: dict[str, int] = {}  # student -> server PID
        self.peak_rss: dict[str, int] = {}
        self.peak_pss: dict[str, int] = {}
        self.cpu: dict[int, float] = {}  # PID -> last CPU seconds seen
        self.owner: dict[int, str] = {}  # PID -> student (or "hub")
        self.peak_total_pss = 0
        self.peak_used = 0
        self.load: list[float] = []
        self.halt = threading.Event()
        self.lesson: dict[str, str] = {}  # student -> the lesson running now
        self.working_set: dict[tuple[str, str], int] = {}
        self.resident: dict[tuple[str, str], int] = {}
        self.cages = threading.Thread(target=self.watch_cages, daemon=True)

    def run(self) -> None:
        psutil.cpu_percent(None)
        self.cages.start()
        while not self.halt.wait(self.period):
            self.sample()

    def watch_cages(self, period: float = 0.05) -> None:
        """Each running lesson's resident memory, every 50 ms: the kernel
        keeps no high-water mark of it, and reading ``memory.stat`` costs
        microseconds."""
        while not self.halt.wait(period):
            self.sample_cages()

    def sample_cages(self) -> None:
        self._track_cages(self.resident, MemoryCage.resident)

    def _track_cages(self, peaks: dict, read) -> None:
        """``peaks[(student, lesson)]``: the largest ``read(cage, student)``
        seen during each running lesson."""
        cage = self.hub.cage
        for name, stem in list(self.lesson.items()):
            if cage is None or name not in cage.groups:
                continue
            with contextlib.suppress(OSError, ValueError):
                key = (name, stem)
                peaks[key] = max(peaks.get(key, 0), read(cage, name))

    def sample(self) -> None:
        total_pss = 0
        now: dict[str, list[int]] = {name: [0, 0] for name in self.servers}
        procs = self.hub.descendants()
        if self.hub.proc is not None:
            try:
                procs.append(psutil.Process(self.hub.proc.pid))
            except psutil.NoSuchProcess:
                pass
        server_of = {pid: name for name, pid in self.servers.items()}
        for proc in procs:
            try:
                # a server, or a kernel whose parent is a server
                name = server_of.get(proc.pid) or server_of.get(proc.ppid(), "hub")
                info = proc.memory_full_info()
                times = proc.cpu_times()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            self.owner[proc.pid] = name
            self.cpu[proc.pid] = times.user + times.system
            total_pss += info.pss
            if name in now:
                now[name][0] += info.rss
                now[name][1] += info.pss
        for name, (rss, pss) in now.items():
            self.peak_rss[name] = max(self.peak_rss.get(name, 0), rss)
            self.peak_pss[name] = max(self.peak_pss.get(name, 0), pss)
        self.peak_total_pss = max(self.peak_total_pss, total_pss)
        self._track_cages(self.working_set, MemoryCage.working_set)
        self.peak_used = max(self.peak_used, psutil.virtual_memory().used)
        self.load.append(psutil.cpu_percent(None))

    def cpu_of(self, name: str) -> float:
        return sum(s for pid, s in self.cpu.items() if self.owner.get(pid) == name)


# --------------------------------------------------------------------------
# one student, as a browser would
# --------------------------------------------------------------------------


@dataclass
class Student:
    name: str
    ok: bool = False
    error: str | None = None
    spawn_s: float | None = None
    pull_s: float | None = None
    first_output_s: float | None = None
    lesson_s: dict[str, float] = field(default_factory=dict)
    total_s: float | None = None
    cells: int = 0
    peak_rss_mb: float | None = None
    peak_pss_mb: float | None = None
    cpu_s: float | None = None
    # with a memory cage: per lesson, the largest resident memory sampled
    # (MemoryCage.resident, every 50 ms), the cgroup's charged peak with page
    # cache (the kernel's high-water mark, reset as the lesson starts), the
    # largest working set sampled, and the OOM kills during the lesson
    lesson_mem: dict[str, dict] = field(default_factory=dict)
    lesson_errors: dict[str, str] = field(default_factory=dict)
    # with culling shortened: what happened to the idle kernels
    cull: dict | None = None


def _allowed_to_raise(cell) -> bool:
    tags = cell.metadata.get("tags", [])
    return "raises-exception" in tags or "NBVAL_RAISES_EXCEPTION" in cell.source


def _skipped(cell) -> bool:
    return "NBVAL_SKIP" in cell.source or "nbval-skip" in cell.metadata.get("tags", [])


def _decode(message: str | bytes) -> dict:
    """A kernel message from the Jupyter server's websocket (JSON protocol;
    a message with binary buffers comes as offsets, then the JSON)."""
    if isinstance(message, str):
        return json.loads(message)
    [n] = struct.unpack("!I", message[:4])
    offsets = struct.unpack(f"!{n}I", message[4 : 4 + 4 * n])
    end = offsets[1] if n > 1 else len(message)
    return json.loads(message[offsets[0] : end].decode())


class Browser:
    """One student's browser: a cookie jar, their login, their server and
    nothing else. Pages authenticate by cookie, as in a browser (the hub does
    not take tokens on its HTML pages); REST calls add the ``_xsrf`` header
    JupyterLab sends."""

    def __init__(self, hub: Hub, name: str, timeout: float) -> None:
        self.hub, self.name, self.timeout = hub, name, timeout
        self.base = f"{hub.url}/user/{name}/"
        self.jar: dict[tuple[str, str], str] = {}  # (cookie, path) -> value

    def _cookies(self, url: str) -> str:
        path = urlsplit(url).path or "/"
        return "; ".join(
            f"{key}={value}" for (key, prefix), value in self.jar.items()
            if path.startswith(prefix.rstrip("/") or "/")
        )

    def _keep(self, response) -> None:
        for header in response.headers.get_list("Set-Cookie"):
            cookie = SimpleCookie()
            cookie.load(header)
            for key, morsel in cookie.items():
                where = (key, morsel["path"] or "/")
                if morsel["max-age"] == "0" or "1970" in morsel["expires"]:
                    self.jar.pop(where, None)
                else:
                    self.jar[where] = morsel.value

    def xsrf(self, prefix: str) -> str:
        return next((v for (k, p), v in self.jar.items()
                     if k == "_xsrf" and prefix.startswith(p.rstrip("/"))), "")

    async def fetch(self, url: str, method: str = "GET", body: str | None = None,
                    headers: dict | None = None, follow: bool = True, **kw):
        """Returns (response, final URL), following redirects with cookies."""
        for _hop in range(12):
            response = await AsyncHTTPClient().fetch(
                url, method=method, body=body, follow_redirects=False,
                raise_error=False, request_timeout=kw.pop("request_timeout",
                                                          self.timeout),
                headers={**(headers or {}), "Cookie": self._cookies(url)}, **kw,
            )
            self._keep(response)
            if follow and response.code in (301, 302, 303, 307):
                url = urljoin(url, response.headers["Location"])
                method, body = "GET", None
                continue
            return response, url
        raise RuntimeError(f"too many redirects, last at {url}")

    async def login(self, next_url: str) -> None:
        """DummyAuthenticator's form, as a student fills it in."""
        page, _ = await self.fetch(f"{self.hub.url}/hub/login?next={quote(next_url)}")
        if page.code != 200:
            raise RuntimeError(f"the login page answered {page.code}")
        form = urlencode({"username": self.name, "password": "class",
                          "_xsrf": self.xsrf("/hub/")})
        done, _ = await self.fetch(
            f"{self.hub.url}/hub/login?next={quote(next_url)}", method="POST",
            body=form, follow=False,
        )
        if done.code != 302 or not any(k == "jupyterhub-hub-login"
                                       for k, _ in self.jar):
            raise RuntimeError(f"login failed ({done.code})")

    async def open_link(self, link: str, deadline: float, on_ready) -> str:
        """Log in with the link as ``next``, press "Launch server" on the
        hub's not-running page, wait on the spawn-pending page until the hub
        sends the browser on, then run nbgitpuller's page as its script does.
        Returns the notebook path nbgitpuller sends the student to."""
        path = urlsplit(link).path + "?" + urlsplit(link).query
        await self.login(path)
        response, url = await self.fetch(link)
        if response.code == 424:  # the server is not running: the button
            match = re.search(r'var spawn_url = "([^"]+)"', response.body.decode())
            if not match:
                raise RuntimeError("no spawn link on the not-running page")
            response, url = await self.fetch(urljoin(url, unescape(match[1])))
        while "/hub/spawn-pending/" in url and response.code == 200:
            if time.monotonic() > deadline:
                raise TimeoutError("the server was not ready in time")
            await asyncio.sleep(0.5)
            response, url = await self.fetch(url)
        on_ready()
        if response.code != 200 or b"git-pull/static" not in response.body:
            raise RuntimeError(
                f"the link led to {url} ({response.code}), not nbgitpuller's page"
            )
        html = response.body.decode()
        data = {k: unquote(unescape(v)) for k, v in
                re.findall(r'data-([a-z-]+)="([^"]*)"', html)}
        params = {"_xsrf": data.get("xsrf", ""), "repo": data["repo"],
                  "targetpath": data["targetpath"]}
        for key in ("depth", "branch", "backup"):
            if key in data:
                params[key] = data[key]
        events: list[dict] = []

        def on_chunk(chunk: bytes) -> None:
            for line in chunk.decode(errors="replace").splitlines():
                if line.startswith("data:"):
                    events.append(json.loads(line[5:]))

        await self.fetch(
            f"{self.base}git-pull/api?{urlencode(params)}",
            streaming_callback=on_chunk,
            request_timeout=max(1.0, deadline - time.monotonic()),
        )
        if "finished" not in [e.get("phase") for e in events]:
            raise RuntimeError(f"nbgitpuller did not finish: {events[-3:]}")
        # nbgitpuller's script then sends the browser to its data-path
        target = data["path"]
        page, _ = await self.fetch(f"{self.base}{target}")
        if page.code != 200:
            raise RuntimeError(f"{target} answered {page.code}")
        return target

    async def api(self, method: str, path: str, body: dict | None = None) -> dict:
        response, _ = await self.fetch(
            f"{self.base}api/{path}", method=method,
            body=None if body is None else json.dumps(body),
            headers={"X-XSRFToken": self.xsrf(f"/user/{self.name}/"),
                     "Content-Type": "application/json"},
        )
        if response.code >= 400:
            raise RuntimeError(f"{method} api/{path}: {response.code}")
        return json.loads(response.body) if response.body else {}

    async def connect(self, kernel: str) -> tuple[object, str]:
        """The kernel's websocket, as a notebook tab opens it (by cookie).
        Returns the connection and its session id."""
        session_id = uuid.uuid4().hex
        ws_url = (f"ws://{HOST}:{self.hub.port}/user/{self.name}/api/kernels/"
                  f"{kernel}/channels?session_id={session_id}")
        ws = await websocket_connect(
            HTTPRequest(ws_url, headers={"Cookie": self._cookies(ws_url)},
                        request_timeout=self.timeout),
            max_message_size=64 * 2**20,
        )
        return ws, session_id

    async def run_lesson(self, path: str, nb, cell_timeout: float,
                         on_output) -> tuple[int, dict]:
        """Open the notebook (a session and its kernel), run every code cell.
        Returns the cells run and the session (the kernel stays up)."""
        session = await self.api("POST", "sessions", {
            "path": path, "name": Path(path).name, "type": "notebook",
            "kernel": {"name": "python3"},
        })
        kernel = session["kernel"]["id"]
        ws, session_id = await self.connect(kernel)
        try:
            await self._request(ws, session_id, "kernel_info_request", {},
                                cell_timeout, on_output=None, kernel=kernel)
            n = 0
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code" or _skipped(cell):
                    continue
                reply = await self._request(
                    ws, session_id, "execute_request",
                    {"code": cell.source, "silent": False, "store_history": True,
                     "user_expressions": {}, "allow_stdin": False,
                     "stop_on_error": True},
                    cell_timeout, on_output=on_output, kernel=kernel,
                )
                n += 1
                if reply["status"] != "ok" and not _allowed_to_raise(cell):
                    raise RuntimeError(
                        f"{Path(path).name} cell {index}: {reply.get('ename')}: "
                        f"{reply.get('evalue')}"
                    )
            return n, session
        finally:
            ws.close()

    async def watch_cull(self, wait: float) -> dict:
        """Leave every kernel idle, one of them connected (an open notebook
        tab), and poll ``/api/kernels`` until the server has culled them all
        or ``wait`` s have passed. Then ask whether the server is still up."""
        kernels = await self.api("GET", "kernels")
        before = sorted(k["id"] for k in kernels)
        out = {"kernels_before": before, "connected": None, "culled_s": None,
               "kernels_after": before, "server_up": None}
        if not before:
            return out
        ws, _ = await self.connect(before[-1])
        out["connected"] = before[-1]
        t0 = time.monotonic()
        try:
            while time.monotonic() - t0 < wait:
                await asyncio.sleep(1.0)
                left = sorted(k["id"] for k in await self.api("GET", "kernels"))
                out["kernels_after"] = left
                if not left:
                    out["culled_s"] = round(time.monotonic() - t0, 1)
                    break
        finally:
            ws.close()
        status, _ = await self.fetch(f"{self.base}api/status")
        out["server_up"] = status.code == 200
        return out

    async def kernel_alive(self, kernel: str) -> bool:
        response, _ = await self.fetch(f"{self.base}api/kernels/{kernel}")
        return response.code == 200

    async def _request(self, ws, session_id: str, msg_type: str, content: dict,
                       timeout: float, on_output, kernel: str = "") -> dict:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": msg_type, "username": self.name,
                  "session": session_id, "date": "", "version": "5.3"}
        await ws.write_message(json.dumps({
            "header": header, "parent_header": {}, "metadata": {},
            "content": content, "channel": "shell", "buffers": [],
        }))
        reply, idle = None, False
        deadline = time.monotonic() + timeout
        while reply is None or not idle:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{msg_type} took over {timeout} s")
            try:
                raw = await asyncio.wait_for(ws.read_message(), min(left, 15))
            except asyncio.TimeoutError:
                # quiet for 15 s: is the kernel still there? (JupyterLab
                # would show "kernel died"; this client stops waiting)
                if kernel and not await self.kernel_alive(kernel):
                    raise RuntimeError(f"the kernel died during {msg_type}") from None
                continue
            if raw is None:
                raise RuntimeError(
                    f"the kernel's websocket closed during {msg_type} "
                    f"(code {ws.close_code}, {ws.close_reason!r})"
                )
            msg = _decode(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["header"]["msg_type"]
            if msg.get("channel") == "shell" and kind.endswith("_reply"):
                reply = msg["content"]
            elif kind == "status" and msg["content"]["execution_state"] == "idle":
                idle = True
            elif on_output and kind in (
                "stream", "display_data", "execute_result", "error"
            ):
                on_output()
        return reply


def warm_numba_cache() -> float:
    """Fill Numba's cache for this source tree outside every student's
    cgroup, as the image does at build time (``binder/postBuild`` runs
    ``python -m convgrad.warmup``): the lessons then load compiled kernels,
    and no lesson's peak includes LLVM compiling them. Seconds taken."""
    t0 = time.monotonic()
    env = {**os.environ,
           "NUMBA_CPU_NAME": os.environ.get("NUMBA_CPU_NAME", "generic")}
    subprocess.run([sys.executable, "-m", "convgrad.warmup"], check=True,
                   env=env, capture_output=True)
    return round(time.monotonic() - t0, 1)


def make_upstream(work: Path, lessons: tuple[str, ...]) -> Path:
    """A git repository of the lessons, as students would pull it, on disk:
    ``file://`` keeps the load test on this machine."""
    upstream = work / "upstream" / "convgrad"
    (upstream / "notebooks").mkdir(parents=True)
    for stem in lessons:
        shutil.copy(REPO / "notebooks" / f"{stem}.ipynb", upstream / "notebooks")
    git = ["git", "-C", str(upstream), "-c", "user.name=loadtest",
           "-c", "user.email=loadtest@127.0.0.1", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q", "-b", "main"], ["add", "."],
                 ["commit", "-q", "-m", "lessons"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    return upstream


@dataclass(frozen=True)
class Plan:
    """What each student does after the link: the lessons in order; whether
    each lesson's kernel stays up afterwards (a learner moving to the next
    tab) or is shut down ("Close and Shut Down Notebook"); and, with
    ``cull_wait``, how long to leave the kernels idle afterwards waiting for
    the server to cull them."""

    lessons: dict
    keep_kernels: bool = True
    cull_wait: float | None = None


async def one_student(hub: Hub, sampler: Sampler, name: str, link: str,
                      plan: Plan, t_class: float, deadline: float,
                      cell_timeout: float) -> Student:
    """Login (t = 0) → server → nbgitpuller → each lesson of the plan."""
    rec = Student(name)
    browser = Browser(hub, name, timeout=min(300.0, cell_timeout))
    cage = hub.cage
    t0 = t_class

    def ready() -> None:
        rec.spawn_s = time.monotonic() - t0

    def first_output() -> None:
        if rec.first_output_s is None:
            rec.first_output_s = time.monotonic() - t0

    try:
        target = await browser.open_link(link, deadline, ready)
        rec.pull_s = time.monotonic() - t0 - rec.spawn_s
        state = await hub.api("GET", f"/users/{name}")
        pid = state["servers"][""].get("state", {}).get("pid")
        if pid:
            sampler.servers[name] = pid
            hub.own(psutil.Process(pid))
        if cage is not None and pid not in cage.pids(name):
            raise RuntimeError(f"the server (PID {pid}) is not in its memory cgroup")
        folder = target.split("lab/tree/", 1)[1].split("/notebooks/", 1)[0]
        for stem, nb in plan.lessons.items():
            if cage is not None:
                cage.reset_peak(name)
                oom0 = cage.oom_kills(name)
            sampler.lesson[name] = stem
            t2 = time.monotonic()
            try:
                cells, session = await browser.run_lesson(
                    f"{folder}/notebooks/{stem}.ipynb", nb,
                    cell_timeout, first_output,
                )
                rec.cells += cells
                if not plan.keep_kernels:
                    await browser.api("DELETE", f"sessions/{session['id']}")
            except Exception as err:
                if plan.keep_kernels:  # the class: a failure ends the student
                    raise
                # the course: note it, and go on to the next lesson
                rec.lesson_errors[stem] = f"{type(err).__name__}: {err}"[:300]
            finally:
                sampler.sample_cages()
                sampler.lesson.pop(name, None)
                if cage is not None:
                    rec.lesson_mem[stem] = {
                        "peak_mb": round(sampler.resident.get(
                            (name, stem), 0) / 2**20, 1),
                        "charged_peak_mb": round(cage.peak(name) / 2**20, 1),
                        "working_set_mb": round(sampler.working_set.get(
                            (name, stem), 0) / 2**20, 1),
                        "oom_kills": cage.oom_kills(name) - oom0,
                    }
            rec.lesson_s[stem] = round(time.monotonic() - t2, 2)
        if plan.cull_wait is not None:
            rec.cull = await browser.watch_cull(plan.cull_wait)
            state = await hub.api("GET", f"/users/{name}")
            server = state["servers"].get("", {})
            rec.cull["hub_says_ready"] = bool(server.get("ready"))
            rec.cull["same_server"] = server.get("state", {}).get("pid") == pid
        rec.ok = rec.first_output_s is not None and not rec.lesson_errors
        if rec.first_output_s is None:
            rec.error = "no output at all"
        elif rec.lesson_errors:
            rec.error = "; ".join(f"{k}: {v}" for k, v in rec.lesson_errors.items())
    except Exception as err:  # one student's failure is a data point
        rec.error = f"{type(err).__name__}: {err}"[:300]
    rec.total_s = time.monotonic() - t0
    return rec


@dataclass
class ClassRun:
    students: int
    ok: int
    success_rate: float
    hub_start_s: float
    wall_s: float
    first_output_s: dict
    spawn_s: dict
    pull_s: dict
    total_s: dict
    lesson_s: dict
    peak_pss_mb: dict
    peak_rss_mb: dict
    cpu_s_per_student: dict
    peak_total_pss_mb: float
    machine: dict
    survivors: list[int]
    errors: list[str]
    records: list[dict]
    jupyterhub: str | None = None  # the version the running hub reports
    mem_limit: str = MEM_LIMIT
    # "cgroup v1, 1073741824 bytes per student" when the limit was enforced
    memory_enforced: str | None = None
    # per lesson, over the students: the largest resident peak, charged
    # peak and working set, the OOM kills, how many ran it without error
    lesson_mem: dict = field(default_factory=dict)
    # the single-user servers' log lines about culling
    cull_log: list[str] = field(default_factory=list)
    cgroups_left: list[str] = field(default_factory=list)  # not removable
    # a course run first fills Numba's cache, as the image's build does
    numba_cache_warmed_s: float | None = None


def _stats(values: list[float]) -> dict:
    values = [v for v in values if v is not None]
    if not values:
        return {"p50": None, "p95": None, "max": None}
    return {"p50": round(statistics.median(values), 2),
            "p95": round(_percentile(values, 95), 2),
            "max": round(max(values), 2)}


async def run_class(n: int, *, chp: str, timeout: float, cell_timeout: float,
                    lessons: tuple[str, ...] = LESSONS,
                    keep: Path | None = None, course: bool = False,
                    enforce_memory: bool = False, mem_limit: str = MEM_LIMIT,
                    cull: tuple[int, int] | None = None) -> ClassRun:
    """N students at once on a fresh hub; everything stopped afterwards.

    ``course``: each lesson's kernel is shut down when it is done (a whole
    course in one sitting) instead of staying up. ``enforce_memory``: each
    server runs under a hard ``mem_limit`` (:class:`MemoryCage`), and each
    lesson's peak is recorded. ``cull=(idle, interval)``: the servers keep
    the image's culling config but with these timeouts (seconds), and each
    student then leaves their kernels idle until the server culls them."""
    from convgrad.course.link import lesson_link

    if cull is not None and not all(isinstance(x, int) and x > 0 for x in cull):
        raise ValueError(f"cull needs two positive whole seconds, not {cull!r}")
    AsyncHTTPClient.configure(None, max_clients=4 * n + 16)
    work = Path(tempfile.mkdtemp(prefix=f"hub-load-{n}-"))
    names = [f"student{i:03d}" for i in range(1, n + 1)]
    cage = MemoryCage(limit_bytes(mem_limit)) if enforce_memory else None
    server_args: tuple[str, ...] = ()
    if cull is not None:
        server_args = (f"--MappingKernelManager.cull_idle_timeout={cull[0]}",
                       f"--MappingKernelManager.cull_interval={cull[1]}")
    hub = Hub(work, chp, mem_limit=mem_limit, server_args=server_args, cage=cage)
    hub.check_ipc_paths(names)
    sampler = Sampler(hub)
    cpu0, load0, t_wall = psutil.cpu_times(), os.getloadavg(), time.monotonic()
    survivors: list[int] = []
    records: list[Student] = []
    hub_start = 0.0
    version = None
    cull_log: list[str] = []
    cgroups_left: list[str] = []
    warm_s = None
    try:
        if course:
            warm_s = warm_numba_cache()
        for name in names if cage is not None else ():
            cage.add(name)
        upstream = make_upstream(work, lessons)
        plan = Plan(
            lessons={stem: nbformat.read(upstream / "notebooks" / f"{stem}.ipynb", 4)
                     for stem in lessons},
            keep_kernels=not course,
            cull_wait=None if cull is None else cull[0] + 3 * cull[1] + 30,
        )
        hub_start = await hub.start()
        version = (await hub.api("GET", "/")).get("version")
        await hub.api("POST", "/users", body={"usernames": names})
        link = lesson_link(hub.url, f"file://{upstream}", lessons[0],
                           branch="main", folder="convgrad",
                           notebooks=upstream / "notebooks")
        sampler.start()
        t_class = time.monotonic()
        deadline = t_class + timeout
        tasks = [one_student(hub, sampler, name, link, plan,
                             t_class, deadline, cell_timeout) for name in names]
        try:
            records = await asyncio.wait_for(asyncio.gather(*tasks), timeout + 30)
        except asyncio.TimeoutError:
            records = [Student(name, error="the class timed out") for name in names]
        sampler.sample()
    finally:
        sampler.halt.set()
        survivors = await hub.stop(names)
        if cage is not None:
            cgroups_left = cage.remove()
        with contextlib.suppress(OSError):
            cull_log = [line.split("] ", 1)[-1] for line in
                        hub.log.read_text(errors="replace").splitlines()
                        if "Culling" in line][:60]
        if keep is not None and any(r.error for r in records):
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(hub.log, keep / f"jupyterhub-{n}.log")
        shutil.rmtree(work, ignore_errors=True)
    wall = time.monotonic() - t_wall
    cpu1, load1 = psutil.cpu_times(), os.getloadavg()
    busy = sum(cpu1) - sum(cpu0) - (cpu1.idle - cpu0.idle) - (
        getattr(cpu1, "iowait", 0) - getattr(cpu0, "iowait", 0))
    ours = sum(sampler.cpu.values()) + sum(psutil.Process().cpu_times()[:2])
    for rec in records:
        if rec.name in sampler.peak_pss:
            rec.peak_pss_mb = round(sampler.peak_pss[rec.name] / 2**20, 1)
            rec.peak_rss_mb = round(sampler.peak_rss[rec.name] / 2**20, 1)
        rec.cpu_s = round(sampler.cpu_of(rec.name), 2)
    ok = [r for r in records if r.ok]
    machine = {
        "cores": psutil.cpu_count(), "mem_gib": round(
            psutil.virtual_memory().total / 2**30, 1),
        "loadavg_1min_before": round(load0[0], 2),
        "loadavg_1min_after": round(load1[0], 2),
        "cpu_busy_pct_mean": round(statistics.mean(sampler.load), 1)
        if sampler.load else None,
        # CPU the rest of the machine (other engineers' tests) used meanwhile
        "others_cores_mean": round(max(0.0, busy - ours) / wall, 2),
        "peak_used_gib": round(sampler.peak_used / 2**30, 2),
    }
    return ClassRun(
        students=n, ok=len(ok), success_rate=round(len(ok) / n, 3),
        hub_start_s=round(hub_start, 2), wall_s=round(wall, 1),
        first_output_s=_stats([r.first_output_s for r in ok]),
        spawn_s=_stats([r.spawn_s for r in ok]),
        pull_s=_stats([r.pull_s for r in ok]),
        total_s=_stats([r.total_s for r in ok]),
        lesson_s={s: _stats([r.lesson_s.get(s) for r in ok]) for s in lessons},
        peak_pss_mb=_stats([r.peak_pss_mb for r in records]),
        peak_rss_mb=_stats([r.peak_rss_mb for r in records]),
        cpu_s_per_student=_stats([r.cpu_s for r in ok]),
        peak_total_pss_mb=round(sampler.peak_total_pss / 2**20, 1),
        machine=machine, survivors=survivors,
        errors=sorted({r.error for r in records if r.error}),
        records=[asdict(r) for r in records],
        jupyterhub=version, mem_limit=mem_limit,
        memory_enforced=None if cage is None else
        f"cgroup v1 memory.limit_in_bytes {cage.limit} per student",
        lesson_mem=_lesson_mem(records, lessons) if cage is not None else {},
        cull_log=cull_log, cgroups_left=cgroups_left,
        numba_cache_warmed_s=warm_s,
    )


def _lesson_mem(records: list[Student], lessons: tuple[str, ...]) -> dict:
    out = {}
    for stem in lessons:
        seen = [r for r in records if stem in r.lesson_mem]
        if not seen:
            continue
        out[stem] = {
            "peak_mb": max(r.lesson_mem[stem]["peak_mb"] for r in seen),
            "charged_peak_mb": max(r.lesson_mem[stem]["charged_peak_mb"]
                                   for r in seen),
            "working_set_mb": max(r.lesson_mem[stem]["working_set_mb"] for r in seen),
            "oom_kills": sum(r.lesson_mem[stem]["oom_kills"] for r in seen),
            "ran": sum(stem not in r.lesson_errors for r in seen),
            "of": len(records),
        }
    return out


def _row(run: ClassRun) -> str:
    f, m = run.first_output_s, run.peak_pss_mb
    return (f"| {run.students} | {run.ok}/{run.students} | {f['p50']} | {f['p95']} "
            f"| {f['max']} | {run.spawn_s['p50']} | {run.total_s['max']} "
            f"| {m['p50']} | {m['max']} | {run.peak_rss_mb['max']} "
            f"| {run.cpu_s_per_student['p50']} | {run.peak_total_pss_mb / 1024:.2f} "
            f"| {run.machine['others_cores_mean']} |")


HEADER = (
    "| N | ok | first output p50 (s) | p95 | max | spawn p50 | done max "
    "| PSS/student p50 (MB) | max | RSS max | CPU s/student | all PSS (GiB) "
    "| others' cores |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _course_rows(run: ClassRun) -> str:
    lines = ["| lesson | ran | peak resident, server + kernel (MiB) "
             "| charged peak, with page cache (MiB) | working set max (MiB) "
             "| OOM kills | time p50 (s) |", "|---|---|---|---|---|---|---|"]
    for stem, m in run.lesson_mem.items():
        lines.append(f"| {stem} | {m['ran']}/{m['of']} | {m['peak_mb']} "
                     f"| {m['charged_peak_mb']} "
                     f"| {m['working_set_mb']} | {m['oom_kills']} "
                     f"| {run.lesson_s[stem]['p50']} |")
    return "\n".join(lines)


def write_json(path: Path, section: str, runs: list[ClassRun]) -> None:
    """``path`` holds ``{"class_runs": [...], "course_runs": [...]}``; this
    replaces one section and keeps the other (a file of the old layout, a
    bare list of class runs, becomes ``class_runs``)."""
    data: dict = {}
    if path.is_file():
        old = json.loads(path.read_text())
        data = {"class_runs": old} if isinstance(old, list) else old
    data[section] = [asdict(r) for r in runs]
    path.write_text(json.dumps(data, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--students", type=int, nargs="+", default=[5],
                        help="class sizes, run one after another (default: 5)")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds for one whole class (default: 900)")
    parser.add_argument("--cell-timeout", type=float, default=300)
    parser.add_argument("--chp", default=None, help="configurable-http-proxy")
    parser.add_argument("--json", type=Path, default=None,
                        help="write results (its class_runs or course_runs)")
    parser.add_argument("--logs", type=Path, default=None,
                        help="keep the hub's log here when a student fails")
    parser.add_argument("--pause", type=float, default=20,
                        help="seconds between class sizes (the machine settles)")
    parser.add_argument("--course", action="store_true",
                        help="every lesson (00..10) in order, each kernel shut "
                             "down when its lesson is done")
    parser.add_argument("--lessons", nargs="+", default=None, metavar="STEM",
                        help="these lessons instead (names in notebooks/, "
                             "without .ipynb)")
    parser.add_argument("--enforce-memory", action="store_true",
                        help="run each server under a hard memory limit "
                             "(cgroup v1) and record each lesson's peak")
    parser.add_argument("--mem-limit", default=MEM_LIMIT,
                        help=f"the per-student limit (default: {MEM_LIMIT}, "
                             "read as JupyterHub does: 1G = 2**30 bytes)")
    parser.add_argument("--cull", type=int, nargs=2, metavar=("IDLE", "EVERY"),
                        default=None, help="shorten the image's kernel culling, "
                        "then wait for the idle kernels to be culled")
    args = parser.parse_args(argv)
    if any(n < 1 or n > 200 for n in args.students):
        parser.error("class sizes must be in 1..200")
    try:
        limit_bytes(args.mem_limit)
    except Exception as err:
        parser.error(f"--mem-limit {args.mem_limit!r}: {err}")
    lessons = COURSE if args.course else LESSONS
    if args.lessons:
        unknown = sorted(set(args.lessons) - set(COURSE))
        if unknown:
            parser.error(f"no such lessons: {unknown} (there are {list(COURSE)})")
        lessons = tuple(args.lessons)
    chp = find_chp(args.chp)
    runs = []
    for i, n in enumerate(args.students):
        if i:
            time.sleep(args.pause)
        run = asyncio.run(run_class(
            n, chp=chp, timeout=args.timeout, cell_timeout=args.cell_timeout,
            keep=args.logs, lessons=lessons, course=args.course,
            enforce_memory=args.enforce_memory, mem_limit=args.mem_limit,
            cull=tuple(args.cull) if args.cull else None,
        ))
        runs.append(run)
        print(json.dumps({k: v for k, v in asdict(run).items() if k != "records"}),
              flush=True)
        if args.json:
            write_json(args.json, "course_runs" if args.course else "class_runs",
                       runs)
    print(HEADER)
    for run in runs:
        print(_row(run))
        if run.lesson_mem:
            print(_course_rows(run))
    bad = [r for r in runs if r.survivors or r.cgroups_left]
    if bad:
        print(f"processes left alive: {[r.survivors for r in bad]}; cgroups "
              f"left: {[r.cgroups_left for r in bad]}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
