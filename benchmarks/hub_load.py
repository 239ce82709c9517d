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

The client is this file: tornado's HTTP client and websocket (the Jupyter
server's REST API and its JSON kernel protocol), no browser. Every request
goes to 127.0.0.1. Every wait is bounded (``--timeout`` for a whole class,
``--cell-timeout`` for a cell), and the loops stop by themselves.

    python benchmarks/hub_load.py -n 5 10 20 40 --json hub_load.json
    python benchmarks/hub_load.py -n 3 --timeout 240      # the CI size

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
# the image's entrypoint wraps the server (binder/start caps Numba's threads)
c.Spawner.cmd = [{start!r}, {singleuser!r}]
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


class Hub:
    """A JupyterHub on 127.0.0.1 in ``work``; :meth:`stop` ends every process
    it started (hub, proxy, user servers, kernels) by PID."""

    def __init__(self, work: Path, chp: str, *, cpu_limit: float = CPU_LIMIT,
                 mem_limit: str = MEM_LIMIT) -> None:
        self.work = work
        self.port = _free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.token = secrets.token_hex(32)
        self.proc: subprocess.Popen | None = None
        self.started: dict[int, psutil.Process] = {}  # every PID we own
        self.lock = threading.Lock()
        singleuser = Path(sys.executable).with_name("jupyterhub-singleuser")
        env = {"NUMBA_CPU_NAME": os.environ.get("NUMBA_CPU_NAME", "generic")}
        for key in ("NUMBA_CACHE_DIR", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            if key in os.environ:
                env[key] = os.environ[key]
        config = CONFIG.format(
            host=HOST, port=self.port, hub_port=_free_port(),
            proxy_api_port=_free_port(), chp=chp, work=work,
            start=str(REPO / "binder" / "start"),
            singleuser=str(singleuser) if singleuser.is_file()
            else "jupyterhub-singleuser",
            args=["--KernelManager.transport=ipc"]
            + (["--allow-root"] if os.geteuid() == 0 else []),
            cpu_limit=cpu_limit, mem_limit=mem_limit, environment=env,
            token=self.token,
        )
        (work / "home").mkdir(parents=True, exist_ok=True)
        self.config = work / "jupyterhub_config.py"
        self.config.write_text(config)
        self.log = work / "jupyterhub.log"

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

    def run(self) -> None:
        psutil.cpu_percent(None)
        while not self.halt.wait(self.period):
            self.sample()

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

    async def run_lesson(self, path: str, nb, cell_timeout: float,
                         on_output) -> int:
        session = await self.api("POST", "sessions", {
            "path": path, "name": Path(path).name, "type": "notebook",
            "kernel": {"name": "python3"},
        })
        kernel = session["kernel"]["id"]
        session_id = uuid.uuid4().hex
        ws_url = (f"ws://{HOST}:{self.hub.port}/user/{self.name}/api/kernels/"
                  f"{kernel}/channels?session_id={session_id}")
        ws = await websocket_connect(
            HTTPRequest(ws_url, headers={"Cookie": self._cookies(ws_url)},
                        request_timeout=self.timeout),
            max_message_size=64 * 2**20,
        )
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
            return n
        finally:
            ws.close()

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


async def one_student(hub: Hub, sampler: Sampler, name: str, link: str,
                      lessons: dict, t_class: float, deadline: float,
                      cell_timeout: float) -> Student:
    """Login (t = 0) → server → nbgitpuller → lesson 00 → lesson 03."""
    rec = Student(name)
    browser = Browser(hub, name, timeout=min(300.0, cell_timeout))
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
        folder = target.split("lab/tree/", 1)[1].split("/notebooks/", 1)[0]
        for stem, nb in lessons.items():
            t2 = time.monotonic()
            rec.cells += await browser.run_lesson(
                f"{folder}/notebooks/{stem}.ipynb", nb, cell_timeout, first_output
            )
            rec.lesson_s[stem] = round(time.monotonic() - t2, 2)
        rec.ok = rec.first_output_s is not None
        if not rec.ok:
            rec.error = "no output at all"
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


def _stats(values: list[float]) -> dict:
    values = [v for v in values if v is not None]
    if not values:
        return {"p50": None, "p95": None, "max": None}
    return {"p50": round(statistics.median(values), 2),
            "p95": round(_percentile(values, 95), 2),
            "max": round(max(values), 2)}


async def run_class(n: int, *, chp: str, timeout: float, cell_timeout: float,
                    lessons: tuple[str, ...] = LESSONS,
                    keep: Path | None = None) -> ClassRun:
    """N students at once on a fresh hub; everything stopped afterwards."""
    from convgrad.course.link import lesson_link

    AsyncHTTPClient.configure(None, max_clients=4 * n + 16)
    work = Path(tempfile.mkdtemp(prefix=f"hub-load-{n}-"))
    hub = Hub(work, chp)
    sampler = Sampler(hub)
    names = [f"student{i:03d}" for i in range(1, n + 1)]
    cpu0, load0, t_wall = psutil.cpu_times(), os.getloadavg(), time.monotonic()
    survivors: list[int] = []
    records: list[Student] = []
    hub_start = 0.0
    try:
        upstream = make_upstream(work, lessons)
        notebooks = {stem: nbformat.read(upstream / "notebooks" / f"{stem}.ipynb", 4)
                     for stem in lessons}
        hub_start = await hub.start()
        await hub.api("POST", "/users", body={"usernames": names})
        link = lesson_link(hub.url, f"file://{upstream}", lessons[0],
                           branch="main", folder="convgrad",
                           notebooks=upstream / "notebooks")
        sampler.start()
        t_class = time.monotonic()
        deadline = t_class + timeout
        tasks = [one_student(hub, sampler, name, link, notebooks,
                             t_class, deadline, cell_timeout) for name in names]
        try:
            records = await asyncio.wait_for(asyncio.gather(*tasks), timeout + 30)
        except asyncio.TimeoutError:
            records = [Student(name, error="the class timed out") for name in names]
        sampler.sample()
    finally:
        sampler.halt.set()
        survivors = await hub.stop(names)
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
    )


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--students", type=int, nargs="+", default=[5],
                        help="class sizes, run one after another (default: 5)")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds for one whole class (default: 900)")
    parser.add_argument("--cell-timeout", type=float, default=300)
    parser.add_argument("--chp", default=None, help="configurable-http-proxy")
    parser.add_argument("--json", type=Path, default=None, help="write results")
    parser.add_argument("--logs", type=Path, default=None,
                        help="keep the hub's log here when a student fails")
    parser.add_argument("--pause", type=float, default=20,
                        help="seconds between class sizes (the machine settles)")
    args = parser.parse_args(argv)
    if any(n < 1 or n > 200 for n in args.students):
        parser.error("class sizes must be in 1..200")
    chp = find_chp(args.chp)
    runs = []
    for i, n in enumerate(args.students):
        if i:
            time.sleep(args.pause)
        run = asyncio.run(run_class(n, chp=chp, timeout=args.timeout,
                                    cell_timeout=args.cell_timeout,
                                    keep=args.logs))
        runs.append(run)
        print(json.dumps({k: v for k, v in asdict(run).items() if k != "records"}),
              flush=True)
        if args.json:
            args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1))
    print(HEADER)
    for run in runs:
        print(_row(run))
    bad = [r for r in runs if r.survivors]
    if bad:
        print(f"processes left alive: {[r.survivors for r in bad]}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
