"""The machinery of the real-browser test: a JupyterLab server and page helpers.

Everything here drives the same things a learner touches: a JupyterLab server started
from the installed environment, Debian's Chromium (through Playwright, never a
downloaded browser build), notebook cells run from the UI, and widgets moved with the
mouse. Kernel-side facts (a view's caption, the slider value the kernel saw) are read
through the notebook's own kernel connection, without adding cells to the notebook.

The page side lives in ``lab_page.js``; the kernel side is a line of code run on the
notebook's own kernel (``KERNEL_VIEWS``).
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from convgrad.course.publish.chromium import CHROMIUM_FLAGS

REPO = Path(__file__).resolve().parents[2]
LESSONS_DIR = REPO / "notebooks"
ARTIFACTS = REPO / "artifacts" / "browser"

CHROMIUM = os.environ.get("CONVGRAD_CHROMIUM", "/usr/bin/chromium")
# The flags the slide export uses (CHROMIUM_FLAGS, convgrad.course.publish.
# chromium), which run Debian's Chromium headless as root in a container;
# --headless comes from Playwright's own `headless=True`.
CHROMIUM_ARGS = [f for f in CHROMIUM_FLAGS if f != "--headless"]

# Lessons whose live view is also moved (slider dragged, Play pressed) and checked.
INTERACTIVE_LESSONS = ("*col2im*", "*maxpool*")

# Bounded, generous timeouts (seconds). A cold kernel plus Numba compilation on a busy
# 2-core machine can take minutes; nothing here waits on a fixed sleep.
SERVER_START_TIMEOUT = 120
KERNEL_READY_TIMEOUT = 120
RUN_ALL_TIMEOUT = float(os.environ.get("CONVGRAD_BROWSER_RUN_TIMEOUT", "300"))
WIDGET_TIMEOUT = 60

# Error outputs. Measured in JupyterLab 4.6: a traceback is rendered exactly like a
# stderr stream (`.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]`;
# no element carries "application/vnd.jupyter.error"), so the DOM alone cannot tell a
# warning from an exception. The notebook model that the DOM renders can: an output of
# output_type "error" is an exception, and the DOM node at the same index is what the
# learner sees. Inside widgets (ipywidgets Output), whose outputs are not in the cell
# model, a rendered traceback is recognised by its text.
TRACEBACK_TEXT = "Traceback (most recent call last)"
# ipywidgets' placeholder when a view cannot be shown (model missing, JS error).
WIDGET_ERROR_TEXT = "Error displaying widget"
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
# The window a learner on a laptop has: JupyterLab's default layout at this size
# (file browser open) leaves the output area about 848 px wide.
WINDOW = {"width": 1280, "height": 800}

# JupyterLab settings for the test server only (a fresh user-settings dir): never
# autosave (the lessons are stored without outputs), render every cell in the DOM,
# start the kernel without a dialog, no network news checks.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        "autoStartDefaultKernel": True,
        "kernelShutdown": True,
    },
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


# --------------------------------------------------------------------------- skip/fail


def missing_requirements() -> list[str]:
    """What the browser test needs and cannot find (empty when all is there)."""
    missing = []
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        missing.append(f"chromium ({CHROMIUM}; run .ci/install-browser)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright Python package (run .ci/install-browser)")
    return missing


def require_browser() -> None:
    """Skip, or fail when CONVGRAD_REQUIRE_BROWSER=1 (CI), if anything is missing."""
    missing = missing_requirements()
    if not missing:
        return
    reason = "browser test needs " + " and ".join(missing)
    if os.environ.get("CONVGRAD_REQUIRE_BROWSER") == "1":
        pytest.fail(reason + " (CONVGRAD_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(reason)


# --------------------------------------------------------------------------- lessons


VIEW_CALL = re.compile(r"\bviz\s*\.\s*([A-Z]\w*View)\s*\(")
VIEW_IMPORT = re.compile(r"from\s+convgrad\.viz\s+import\s+\(?([\w\s,]+)\)?")


def lesson_paths() -> list[Path]:
    """The lesson notebooks, in order."""
    return sorted(p for p in LESSONS_DIR.glob("*.ipynb") if p.is_file())


def cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def view_cells(nb_path: Path) -> list[tuple[int, list[str]]]:
    """(cell index, view class names) for each code cell that creates a `viz` view.

    Detected from the notebook JSON, so the test adapts as lessons are added: a call
    `viz.SomethingView(...)`, or `SomethingView(...)` after `from convgrad.viz import`.
    """
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    imported: set[str] = set()
    found = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        src = cell_source(cell)
        for group in VIEW_IMPORT.findall(src):
            imported.update(n.strip() for n in group.split(",") if n.strip())
        names = VIEW_CALL.findall(src)
        names += [
            n
            for n in imported
            if n.endswith("View") and re.search(rf"(?<![\w.]){n}\s*\(", src)
        ]
        if names:
            found.append((index, sorted(set(names))))
    return found


def is_interactive(nb_path: Path) -> bool:
    return any(fnmatch.fnmatch(nb_path.name, pat) for pat in INTERACTIVE_LESSONS)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    """A JupyterLab server on 127.0.0.1, no token, rooted at ``root``."""

    root: Path
    log_path: Path
    port: int = 0
    proc: subprocess.Popen | None = None
    #: False: a learner's first start instead of the test's LAB_SETTINGS (an
    #: empty user-settings folder, JupyterLab's news URL left alone), with
    #: JupyterLab's app settings (overrides.json) from ``app_settings_dir``
    #: when it is given
    own_settings: bool = True
    app_settings_dir: Path | None = None
    #: the front end the server serves: "jupyterlab", or "notebook" (Jupyter
    #: Notebook 7: the same server, settings and kernels, its own pages,
    #: ``notebook_url``)
    app: str = "jupyterlab"
    _tmp: Path | None = None
    _log: Any = field(default=None, repr=False)
    _cookies: http.cookiejar.CookieJar = field(
        default_factory=http.cookiejar.CookieJar, repr=False
    )
    _opener: Any = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = self.port or free_port()
        self._tmp = Path(tempfile.mkdtemp(prefix="convgrad-lab-"))
        settings = self._tmp / "user-settings"
        settings.mkdir()
        for rel, value in (LAB_SETTINGS if self.own_settings else {}).items():
            target = settings / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value), encoding="utf-8")
        (self._tmp / "workspaces").mkdir()
        (self._tmp / "runtime").mkdir()
        app = {"jupyterlab": "LabApp", "notebook": "JupyterNotebookApp"}[self.app]
        cmd = [
            sys.executable, "-m", self.app,
            "--allow-root", "--no-browser",
            "--ip=127.0.0.1", f"--port={self.port}", "--port-retries=0",
            "--IdentityProvider.token=", "--ServerApp.password=",
            f"--{app}.expose_app_in_browser=True",
            f"--ServerApp.root_dir={self.root}",
            f"--{app}.user_settings_dir={settings}",
            f"--{app}.workspaces_dir={self._tmp / 'workspaces'}",
        ]  # fmt: skip
        if self.own_settings and self.app == "jupyterlab":  # Notebook 7 has none
            cmd.append("--LabApp.news_url=")
        if self.app_settings_dir is not None:
            cmd.append(f"--{app}.app_settings_dir={self.app_settings_dir}")
        env = dict(os.environ)
        env["JUPYTER_RUNTIME_DIR"] = str(self._tmp / "runtime")
        env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, killed by stop()
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                code = self.proc.returncode
                raise RuntimeError(
                    f"jupyter {self.app} exited with {code}; log: {self.log_path}"
                )
            try:
                self.api("GET", "/api/status", timeout=2)
                return
            except (OSError, urllib.error.URLError):
                time.sleep(0.5)  # polling interval, not a wait on a result
        raise RuntimeError(
            f"jupyter {self.app} did not answer /api/status within "
            f"{SERVER_START_TIMEOUT} s; "
            f"log: {self.log_path}"
        )

    def api(self, method: str, path: str, body: Any = None, timeout: float = 10) -> Any:
        """Call the REST API; writes carry the _xsrf cookie the server hands out."""
        if self._opener is None:
            self._opener = urllib.request.build_opener(
                urllib.request.HTTPCookieProcessor(self._cookies)
            )
        headers = {"Content-Type": "application/json"}
        if method != "GET":
            xsrf = self._xsrf(timeout)
            if xsrf:
                headers["X-XSRFToken"] = xsrf
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base_url + path, data=data, method=method, headers=headers
        )
        with self._opener.open(req, timeout=timeout) as resp:
            raw = resp.read()
        return json.loads(raw) if raw else None

    def _xsrf(self, timeout: float) -> str | None:
        for _ in range(2):
            for cookie in self._cookies:
                if cookie.name == "_xsrf":
                    return cookie.value
            page = "/lab" if self.app == "jupyterlab" else "/tree"  # sets the cookie
            with self._opener.open(self.base_url + page, timeout=timeout) as resp:
                resp.read()
        return None

    def lab_url(self, relpath: str) -> str:
        return f"{self.base_url}/lab/tree/{quote(relpath)}?reset"

    def notebook_url(self, relpath: str) -> str:
        """The notebook's page in Jupyter Notebook 7 (``app="notebook"``)."""
        return f"{self.base_url}/notebooks/{quote(relpath)}"

    def shutdown_sessions(self, relpath: str | None = None) -> None:
        """Delete the sessions (and so shut down the kernels) of one path, or all."""
        for sess in self.api("GET", "/api/sessions") or []:
            if relpath is None or sess.get("path") == relpath:
                with contextlib.suppress(OSError, urllib.error.URLError):
                    self.api("DELETE", f"/api/sessions/{sess['id']}")

    def stop(self) -> None:
        """Stop kernels and the server, whatever state they are in."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            # Kernels run in their own sessions: shut them down through the API first.
            with contextlib.suppress(Exception):
                for kernel in self.api("GET", "/api/kernels", timeout=5) or []:
                    with contextlib.suppress(Exception):
                        self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=20)
            for sig, grace in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
                try:
                    proc.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None


# --------------------------------------------------------------------------- page JS

HERE = Path(__file__).resolve().parent
# The page side (window.convgradTest.*), installed in every page before it loads.
PAGE_JS = HERE / "lab_page.js"
# The kernel side: its text is exec'd in the notebook's kernel by OpenNotebook.probe.

def js(name: str) -> str:
    """A function of lab_page.js, as page.evaluate and wait_for_function take it."""
    return f"(arg) => window.convgradTest.{name}(arg)"


# ----------------------------------------------------------------------- notebook page


class Failure(AssertionError):
    """An assertion failure that names the screenshot taken when it happened."""


@dataclass
class OpenNotebook:
    """One notebook open in JupyterLab, in a Playwright page."""

    page: Any
    server: LabServer
    relpath: str
    shot_dir: Path
    stem: str
    last_shot: Path | None = None

    # -- navigation ------------------------------------------------------------------
    def open(self) -> None:
        """Open with ?reset (JupyterLab's default layout, file browser open)."""
        if not getattr(self.page, "convgrad_page_js", False):
            self.page.add_init_script(path=str(PAGE_JS))
            self.page.convgrad_page_js = True
        self.page.goto(self.server.lab_url(self.relpath), wait_until="domcontentloaded")
        self.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell && window.convgradTest",
            timeout=KERNEL_READY_TIMEOUT * 1000,
        )
        state = self.page.wait_for_function(
            js("kernelReady"), arg=self.relpath, timeout=KERNEL_READY_TIMEOUT * 1000,
            polling=250,
        ).json_value()  # fmt: skip
        if state == "dead":
            raise self.fail("the kernel died while starting")
        # The views must fit the layout a learner gets: the file browser open.
        if not self.layout()["fileBrowserShown"]:
            self.page.evaluate(
                "() => window.jupyterapp.shell.activateById('filebrowser')"
            )
            self.wait_layout(lambda lay: lay["fileBrowserShown"], "file browser open")

    def run_all(self) -> None:
        self.page.evaluate(js("runAll"), self.relpath)
        state = self.page.wait_for_function(
            js("runDone"), arg=self.relpath, timeout=RUN_ALL_TIMEOUT * 1000,
            polling=250,
        ).json_value()  # fmt: skip
        if state is not True:
            raise self.fail(f"execution ended with kernel state {state!r}")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.page.evaluate(js("close"), self.relpath)
        with contextlib.suppress(Exception):
            self.server.shutdown_sessions(self.relpath)

    # -- layout ----------------------------------------------------------------------
    def layout(self) -> dict:
        """Window, left sidebar and notebook viewport sizes (CSS px)."""
        return self.page.evaluate(js("layout"), self.relpath)

    def wait_layout(self, done, what: str) -> dict:
        """Wait (bounded) until ``done(layout)`` holds, after a layout change."""
        deadline = time.monotonic() + WIDGET_TIMEOUT
        while True:
            lay = self.layout()
            if done(lay):
                return lay
            if time.monotonic() > deadline:
                raise self.fail(f"the layout never reached {what}: {lay}")
            self.page.wait_for_timeout(100)  # polling interval

    def set_file_browser(self, shown: bool) -> dict:
        """Open or close the left sidebar; return the new layout once it settled."""
        before = self.layout()
        if before["fileBrowserShown"] == shown:
            return before
        command = "activateById('filebrowser')" if shown else "collapseLeft()"
        self.page.evaluate(f"() => window.jupyterapp.shell.{command}")
        return self.wait_layout(
            lambda lay: (
                lay["fileBrowserShown"] == shown
                and lay["notebookWidth"] != before["notebookWidth"]
            ),
            "file browser " + ("open" if shown else "closed"),
        )

    def measure_outputs(self) -> list[dict]:
        """How every output fits its output area (see lab_page.js measureOutputs)."""
        return self.page.evaluate(js("measureOutputs"), self.relpath)

    # -- evidence --------------------------------------------------------------------
    def panel(self):
        return self.page.locator(PANEL)

    def screenshot(self, suffix: str = "", locator: Any = None) -> Path:
        path = self.shot_dir / f"{self.stem}{suffix}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        target = locator if locator is not None else self.page
        try:
            target.screenshot(path=str(path), timeout=15_000)
        except Exception:
            self.page.screenshot(path=str(path), full_page=True, timeout=15_000)
        self.last_shot = path
        return path

    def fail(self, message: str) -> Failure:
        """A Failure naming a fresh full-page screenshot (and the server log)."""
        try:
            shot = self.screenshot("-failure")
        except Exception as exc:  # the page may be gone; still say where to look
            shot = f"(screenshot failed: {exc}; last: {self.last_shot})"
        console = getattr(self.page, "console_errors", [])[-5:]
        extra = "".join(f"\n  browser console: {line[:300]}" for line in console)
        return Failure(
            f"{self.relpath}: {message}\n  screenshot: {shot}\n"
            f"  server log: {self.server.log_path}{extra}"
        )

    @contextlib.contextmanager
    def failing_with_screenshot(self) -> Iterator[None]:
        """Turn any error (timeouts included) into a Failure that names a screenshot."""
        try:
            yield
        except Failure:
            raise
        except Exception as exc:
            raise self.fail(f"{type(exc).__name__}: {exc}") from exc

    def cell_report(self) -> list[dict]:
        return self.page.evaluate(
            js("cellReport"), [self.relpath, TRACEBACK_TEXT, WIDGET_ERROR_TEXT]
        )

    def kernel_exec(self, code: str) -> dict:
        return self.page.evaluate(js("kernelExec"), [self.relpath, code])

    def kernel_json(self, code: str) -> Any:
        """Run ``code`` in the notebook's kernel; it prints one JSON line."""
        result = self.kernel_exec(code)
        if result["err"]:
            raise self.fail(f"kernel code raised {result['err']}")
        return json.loads(result["out"].strip().splitlines()[-1])

    def kernel_views(self) -> list[dict]:
        """Every live view in the kernel: its type, frame and step count."""
        return self.kernel_json(KERNEL_VIEWS)

    # -- views -----------------------------------------------------------------------
    def view_outputs(self) -> list[tuple[int, int]]:
        """(cell, output) of each output holding a view's drawn scene player."""
        return [tuple(v) for v in self.page.evaluate(js("viewOutputs"), self.relpath)]

    def output_locator(self, cell_index: int, output_index: int):
        cell = self.panel().locator(".jp-Notebook .jp-Cell").nth(cell_index)
        return cell.locator(".jp-OutputArea-output").nth(output_index)

    def player(self, output) -> dict:
        """The player as the learner sees it: toggle label, step readout, buttons."""
        return output.evaluate("(out) => window.convgradTest.player(out)")


def expected_error(row: dict) -> bool:
    """A cell that is meant to raise (JupyterLab's tag, or nbval's marker)."""
    tagged = "raises-exception" in row["tags"]
    return tagged or "NBVAL_RAISES_EXCEPTION" in row["source"]


def open_and_run(nb: OpenNotebook) -> list[dict]:
    """Open with ?reset, wait for the kernel, run all cells, wait until done."""
    with nb.failing_with_screenshot():
        nb.open()
        nb.run_all()
        return nb.cell_report()


def assert_no_errors(nb: OpenNotebook, report: list[dict]) -> None:
    """No cell shows an error output or a widget error; every code cell ran."""
    problems = []
    for row in report:
        if (row["domErrors"] or row["modelErrors"]) and not expected_error(row):
            text = row["domErrors"][0] if row["domErrors"] else row["modelErrors"][0]
            problems.append(f"cell {row['index']} shows an error:\n{text.strip()}")
        for text in row["widgetErrors"]:
            problems.append(f"cell {row['index']} shows a widget error: {text}")
    if not problems:
        skipped = [
            r["index"] for r in report if r["count"] is None and r["source"].strip()
        ]
        if skipped:
            problems.append(
                f"code cells {skipped} never ran (run-all stopped early; a cell that "
                "is meant to raise needs the 'raises-exception' tag)"
            )
    if problems:
        raise nb.fail("\n".join(problems))


def assert_views_shown(
    nb: OpenNotebook, report: list[dict], created: list[tuple[int, list[str]]]
) -> None:
    """Each cell that creates a view is followed by its drawn player, before the
    next one: the scene's grids as SVG in the visible notebook panel."""
    by_index = {row["index"]: row for row in report}
    starts = [index for index, _ in created] + [max(by_index, default=0) + 1]
    missing = []
    for (start, names), stop in zip(created, starts[1:], strict=False):
        rows = [r for i, r in by_index.items() if start <= i < stop]
        if not sum(r["drawn"] for r in rows):
            missing.append(f"{', '.join(names)} created in cell {start}: no drawn "
                           f"player in the outputs of cells {start}..{stop - 1}")
    if missing:
        raise nb.fail("a live view is not on screen:\n" + "\n".join(missing))


def wait_views_rendered(nb: OpenNotebook, n_created: int) -> None:
    """Wait (bounded) until a scene player has drawn its grids."""
    if n_created == 0:
        return
    with nb.failing_with_screenshot():
        nb.page.wait_for_function(
            js("anyViewDrawn"), arg=PANEL, timeout=WIDGET_TIMEOUT * 1000,
            polling=200,
        )  # fmt: skip


def names_step(caption: str, step: int, n: int) -> bool:
    """True if ``caption`` says ``step STEP/N`` (1-based, as the slider counts)."""
    return re.search(rf"\bstep {step}/{n}(?!\d)", caption) is not None


# the kernel's side: every live view, as JSON on one line
KERNEL_VIEWS = (
    "import json as _j\nfrom convgrad import viz as _v\n"
    "print(_j.dumps([{'type': type(x).__name__, 'frame': x.frame, "
    "'n': x.n_frames, 'caption': x.caption} for x in _v.live_views()]))"
)


def check_view_shown(nb: OpenNotebook, cell_index: int, output_index: int) -> dict:
    """A live view on screen: a player whose slider and caption count alike
    from step 1, whose buttons are labelled, whose numbers are at least 10.5 px,
    and whose caption is one of a live kernel view's."""
    output = nb.output_locator(cell_index, output_index)
    with nb.failing_with_screenshot():
        output.scroll_into_view_if_needed(timeout=10_000)
        shown = nb.player(output)
        kernel = nb.kernel_views()
    where = f"view in cell {cell_index}"
    problems = []
    if shown["untitled"]:
        problems.append(f"buttons without a label: {shown['untitled']}")
    n = shown["steps"]
    if n and not names_step(shown["caption"] or "", shown["step"], n):
        problems.append(f"the slider is at {shown['step']} but the caption says "
                        f"{shown['caption']!r}")  # fmt: skip
    # 12 px, or 10.5 px where one row of small numbers beats a view taller
    # than the screen (viz/scene.js: FONT_SOFT)
    if shown["minFont"] is not None and shown["minFont"] < 10.5:
        problems.append(f"text of {shown['minFont']} px, below 10.5 px")
    captions = {v["caption"] for v in kernel}
    if " ".join((shown["caption"] or "").split()) not in {
        " ".join(c.split()) for c in captions
    }:
        problems.append(f"no live view in the kernel has the caption "
                        f"{shown['caption']!r}")  # fmt: skip
    if problems:
        raise nb.fail(f"{where}:\n" + "\n".join(problems))
    return {"view": {"type": "scene", "min_text_px": shown["minFont"],
                     "min_text": "numbers"}}  # fmt: skip


def screenshot_view(
    nb: OpenNotebook, view: tuple[int, int] | None, suffix: str = ""
) -> Path:
    """The window as the learner sees it, scrolled to a view's output (or the
    notebook panel, when the lesson has no view)."""
    if view is None:
        return nb.screenshot(suffix, nb.panel())
    with nb.failing_with_screenshot():
        nb.page.evaluate(js("scrollToOutput"), [nb.relpath, *view])
        nb.page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
    return nb.screenshot(suffix)


def screenshot_figures(nb: OpenNotebook, rows: list[dict]) -> list[Path]:
    """One picture per plain figure (not a view): NAME-cellN.png."""
    shots = []
    for r in rows:
        if r["kind"] == "figure":
            output = nb.output_locator(r["cell"], r["output"])
            shots.append(nb.screenshot(f"-cell{r['cell']}", output))
    return shots


# ------------------------------------------------------------------------------ fit

# Rounding slack (CSS px) before a box counts as reaching past the output area.
FIT_TOLERANCE = 0.5

# Every measurement of this session, for the table at the end of the run.
FIT_RECORDS: list[dict] = []


def fit_problems(rows: list[dict], layout: dict) -> list[str]:
    """Outputs wider than their output area, scrolling or clipped sideways, and
    players whose controls, caption and first row of grids are taller than the
    notebook's visible height."""
    problems = []
    for r in rows:
        where = f"cell {r['cell']} output {r['output']} ({r['kind']})"
        if r["excess"] > FIT_TOLERANCE:
            problems.append(
                f"{where}: {r['widest']} reaches {r['excess']:g} px past the "
                f"{r['area']:g} px output area"
            )
        for c in r["clipped"]:
            how = (
                "scrolls sideways"
                if c["overflowX"] in ("auto", "scroll")
                else (f"hides {c['hidden']:g} px of what it draws")
            )
            problems.append(
                f"{where}: {c['what']} {how} ({c['scrollWidth']} px of content "
                f"in {c['clientWidth']} px, overflow-x {c['overflowX']})"
            )
        box = r.get("box")
        # a view's controls, caption and first row of grids in sight together
        # (further rows of a large view are scrolled to)
        tall = box and box.get("firstRow", box["height"])
        if r["kind"] == "view" and box and tall > layout["visibleHeight"]:
            problems.append(
                f"{where}: the view's controls, caption and first row of grids "
                f"are {tall:g} px tall; the notebook shows "
                f"{layout['visibleHeight']} px"
            )
    if layout["pageScrollWidth"] > layout["notebookWidth"] + FIT_TOLERANCE:
        problems.append(
            f"the notebook scrolls sideways ({layout['pageScrollWidth']} px of "
            f"content in {layout['notebookWidth']} px)"
        )
    return problems


def measure_fit(
    nb: OpenNotebook, states: dict, file_browser: bool, keep: bool = True
) -> dict:
    """Lay the window out with the file browser open or closed, and measure how
    every output fits. ``states`` maps (cell, output) to a view's probe. ``keep``
    adds the record to the run's table and to artifacts/browser/fit/."""
    with nb.failing_with_screenshot():
        layout = nb.set_file_browser(file_browser)
        rows = nb.measure_outputs()
    for r in rows:
        state = states.get((r["cell"], r["output"]))
        if state and state["view"]:
            r["view"] = state["view"]["type"]
            r["min_text_px"] = state["view"]["min_text_px"]
            r["min_text"] = state["view"]["min_text"]
    record = {
        "lesson": nb.stem,
        "file_browser": "open" if file_browser else "closed",
        "layout": layout,
        "outputs": rows,
        "problems": fit_problems(rows, layout),
    }
    if not keep:
        return record
    FIT_RECORDS.append(record)
    path = ARTIFACTS / "fit" / f"{nb.stem}-{record['file_browser']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


def assert_fits(nb: OpenNotebook, records: list[dict]) -> None:
    """Fail with every overflow found, per layout."""
    lines = [
        f"with the file browser {rec['file_browser']} (window "
        f"{rec['layout']['window'][0]}x{rec['layout']['window'][1]}): {p}"
        for rec in records
        for p in rec["problems"]
    ]
    if lines:
        raise nb.fail("outputs do not fit:\n" + "\n".join(lines))


def fit_table(records: list[dict]) -> list[str]:
    """One line per layout and one per figure or view: the numbers measured."""
    lines = []
    for rec in records:
        lay = rec["layout"]
        lines.append(
            f"{rec['lesson']} file browser {rec['file_browser']}: window "
            f"{lay['window'][0]}x{lay['window'][1]}, sidebar {lay['leftWidth']:g}, "
            f"notebook {lay['notebookWidth']}x{lay['visibleHeight']}"
            + (f"  ** {len(rec['problems'])} problem(s)" if rec["problems"] else "")
        )
        for r in rec["outputs"]:
            if r["kind"] not in ("view", "figure") and r["excess"] <= FIT_TOLERANCE:
                continue
            pic, box = r.get("picture"), r.get("box")
            parts = [f"  cell {r['cell']:>2} {r.get('view', r['kind'])}:",
                     f"area {r['area']:g}"]  # fmt: skip
            if pic:
                parts.append(f"{pic['what'].split('.')[0]} "
                             f"{pic['width']:g}x{pic['height']:g}")  # fmt: skip
            if box:
                parts.append(f"box {box['width']:g}x{box['height']:g} "
                             f"(content {box['content']:g})")  # fmt: skip
            parts.append(f"excess {r['excess']:g}")
            if r.get("min_text_px") is not None:
                parts.append(f"smallest text {r['min_text_px']:g} px")
            lines.append(" ".join(parts))
    return lines


# ------------------------------------------------------------------------ interaction


def _player_state(out) -> dict:
    return out.evaluate("(o) => window.convgradTest.player(o)")


def check_interaction(nb: OpenNotebook, cell_index: int, output_index: int,
                      state: dict | None = None, hog: bool = True) -> dict:
    """Use the player as a learner would, and check the kernel stays out of it.

    1. Forward one step: slider and caption say step 2; the kernel hears of it
       once (the view's frame is 1).
    2. Drag the slider: the caption follows.
    3. Play at the top speed (16x) for 5 s in all, with both cores busy (two
       spinning processes): while it plays, the browser sends the kernel no
       comm message, and every sample of the player has its caption on the
       slider's step.
    4. Pause, then Reset: back to step 1; the kernel's view follows.
    5. The keyboard alone: End, Left and Home move it; Space plays and pauses.
    Returns the figures measured (samples, steps advanced, messages)."""
    page = nb.page
    out = nb.output_locator(cell_index, output_index)
    root = out.locator(".cgs").first
    with nb.failing_with_screenshot():
        out.scroll_into_view_if_needed(timeout=10_000)
        first = _player_state(out)
        n = first["steps"]
        root.locator(".cgs-next").click()
        now = _player_state(out)
        if now["step"] != 2 or not names_step(now["caption"], 2, n):
            raise nb.fail(f"forward one step shows {now['step']}: {now['caption']!r}")
        _wait_kernel_frame(nb, 1)
        slider = root.locator(".cgs-slider")
        box = slider.bounding_box()
        page.mouse.click(box["x"] + 0.6 * box["width"], box["y"] + box["height"] / 2)
        moved = _player_state(out)
        if moved["step"] <= 2 or not names_step(moved["caption"], moved["step"], n):
            raise nb.fail(f"dragging the slider shows {moved['step']}: "
                          f"{moved['caption']!r}")  # fmt: skip
        root.locator(".cgs-reset").click()
        root.locator(".cgs-speed").select_option("40")  # 16x: the top speed
        hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"])
                for _ in range(2 if hog else 0)]  # fmt: skip
        try:
            # 5 s of playing in all (a short view is played again from step 1):
            # the messages sent between two samples that both saw it playing
            samples, behind, comms, played, reached = 0, [], [], 0.0, 0
            while played < 5:
                root.locator(".cgs-reset").click()
                root.locator(".cgs-play").click()
                last, start = None, time.monotonic()
                while True:
                    st = _player_state(out)
                    samples += 1
                    reached = max(reached, st["step"])
                    if not names_step(st["caption"], st["step"], n):
                        behind.append((st["step"], st["caption"]))
                    if last is not None and last["playing"] and st["playing"]:
                        # sent, by the page's clock, while it played throughout
                        comms += page.evaluate(js("commSends"), [last["t"], st["t"]])
                    if not st["playing"]:
                        break
                    last = st
                    page.wait_for_timeout(50)
                played += time.monotonic() - start
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        if behind:
            raise nb.fail(f"while playing, the caption left the slider: {behind[:3]}")
        if reached < n - 2:
            raise nb.fail(f"Play at 16x stopped at step {reached} of {n}")
        if _player_state(out)["playing"]:
            root.locator(".cgs-play").click()  # pause
        root.locator(".cgs-reset").click()
        if _player_state(out)["step"] != 1:
            raise nb.fail("Reset did not go back to step 1")
        _wait_kernel_frame(nb, 0)
        # the keyboard alone: End, Left, Home, Space plays and Space pauses
        root.focus()
        keys = {}
        for key in ("End", "ArrowLeft", "Home"):
            page.keyboard.press(key)
            keys[key] = _player_state(out)["step"]
        if keys != {"End": n, "ArrowLeft": n - 1, "Home": 1}:
            raise nb.fail(f"the keys moved the player to {keys} (of {n} steps)")
        page.keyboard.press(" ")
        if not _player_state(out)["playing"]:
            raise nb.fail("Space did not start playing")
        page.keyboard.press(" ")
        if _player_state(out)["playing"]:
            raise nb.fail("Space did not pause")
        root.locator(".cgs-reset").click()
    if comms:
        raise nb.fail(f"the browser sent the kernel {len(comms)} comm messages "
                      f"while playing: {comms[0][:200]}")  # fmt: skip
    return {"samples": samples, "reached": reached, "steps": n,
            "comm_messages": len(comms)}  # fmt: skip


def _wait_kernel_frame(nb: OpenNotebook, frame: int) -> None:
    deadline = time.monotonic() + WIDGET_TIMEOUT
    while time.monotonic() < deadline:
        if any(v["frame"] == frame for v in nb.kernel_views()):
            return
        nb.page.wait_for_timeout(200)
    raise nb.fail(f"no live view in the kernel came to frame {frame}")


def click_thumb(page: Any, control: Any) -> None:
    """Click a range input on its thumb: it takes the focus and keeps its value
    (a click elsewhere on the track would move it there)."""
    control.scroll_into_view_if_needed()  # a mouse click lands on the screen
    box = control.bounding_box()
    v = control.evaluate("(i) => [+i.value, +i.min, +i.max]")
    thumb = 16  # Chromium's range thumb, CSS px
    t = (v[0] - v[1]) / max(v[2] - v[1], 1)
    page.mouse.click(box["x"] + thumb / 2 + t * (box["width"] - thumb),
                     box["y"] + box["height"] / 2)  # fmt: skip
