"""The machinery of the real-browser test: a JupyterLab server and page helpers.

Everything here drives the same things a learner touches: a JupyterLab server started
from the installed environment, Debian's Chromium (through Playwright, never a
downloaded browser build), notebook cells run from the UI, and widgets moved with the
mouse. Kernel-side facts (a view's caption, the slider value the kernel saw) are read
through the notebook's own kernel connection, without adding cells to the notebook.

The page side lives in ``lab_page.js`` and the kernel side in ``kernel_probe.py``;
this module reads both files.
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

REPO = Path(__file__).resolve().parents[2]
LESSONS_DIR = REPO / "notebooks"
ARTIFACTS = REPO / "artifacts" / "browser"

CHROMIUM = os.environ.get("CONVGRAD_CHROMIUM", "/usr/bin/chromium")
# Flags measured to work in this sandbox (see ECOSYSTEM-NOTES); --headless comes from
# Playwright's own `headless=True`.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# Lessons whose live view is also moved (slider dragged, Play pressed) and checked.
INTERACTIVE_LESSONS = ("*col2im*", "*maxpool*")

# Bounded, generous timeouts (seconds). A cold kernel plus Numba compilation on a busy
# 2-core machine can take minutes; nothing here waits on a fixed sleep.
SERVER_START_TIMEOUT = 120
KERNEL_READY_TIMEOUT = 120
RUN_ALL_TIMEOUT = float(os.environ.get("CONVGRAD_BROWSER_RUN_TIMEOUT", "300"))
WIDGET_TIMEOUT = 60
CANVAS_CHANGE_TIMEOUT = 30

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
CANVAS = ".jupyter-matplotlib-canvas-div canvas"
SLIDER = ".widget-slider"
TOGGLE = ".widget-toggle-button"  # the player's Play/Pause
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
        for rel, value in LAB_SETTINGS.items():
            target = settings / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value), encoding="utf-8")
        (self._tmp / "workspaces").mkdir()
        (self._tmp / "runtime").mkdir()
        cmd = [
            sys.executable, "-m", "jupyterlab",
            "--allow-root", "--no-browser",
            "--ip=127.0.0.1", f"--port={self.port}", "--port-retries=0",
            "--IdentityProvider.token=", "--ServerApp.password=",
            "--LabApp.expose_app_in_browser=True",
            f"--ServerApp.root_dir={self.root}",
            f"--LabApp.user_settings_dir={settings}",
            f"--LabApp.workspaces_dir={self._tmp / 'workspaces'}",
            "--LabApp.news_url=",
        ]  # fmt: skip
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
                    f"jupyter lab exited with {code}; log: {self.log_path}"
                )
            try:
                self.api("GET", "/api/status", timeout=2)
                return
            except (OSError, urllib.error.URLError):
                time.sleep(0.5)  # polling interval, not a wait on a result
        raise RuntimeError(
            f"jupyter lab did not answer /api/status within {SERVER_START_TIMEOUT} s; "
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
            with self._opener.open(self.base_url + "/lab", timeout=timeout) as resp:
                resp.read()
        return None

    def lab_url(self, relpath: str) -> str:
        return f"{self.base_url}/lab/tree/{quote(relpath)}?reset"

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
PROBE_PY = HERE / "kernel_probe.py"
PROBE_MARKER = "@@convgrad-browser-probe@@"

# How far (grey levels, 0-255, max over 16x16-pixel blocks) the canvas may be from
# the kernel's own rendering of the figure and still count as showing it.
SIGNATURE_BLOCK = 16
SIGNATURE_TOLERANCE = 3.0


def js(name: str) -> str:
    """A function of lab_page.js, as page.evaluate and wait_for_function take it."""
    return f"(arg) => window.convgradTest.{name}(arg)"


def probe_code(model_id: str) -> str:
    """Code that runs kernel_probe.py in a fresh namespace of the kernel."""
    args = {"model_id": model_id, "block": SIGNATURE_BLOCK, "marker": PROBE_MARKER}
    source = PROBE_PY.read_text(encoding="utf-8")
    return (
        f"exec(compile({source!r}, {PROBE_PY.name!r}, 'exec'), "
        f"{{'__name__': 'convgrad_browser_probe', 'ARGS': {args!r}}})"
    )


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

    def probe(self, cell_index: int, output_index: int) -> dict:
        """The kernel's side of one displayed widget (see kernel_probe.py)."""
        model_id = self.page.evaluate(
            js("modelId"), [self.relpath, cell_index, output_index]
        )
        if model_id is None:
            raise self.fail(
                f"cell {cell_index} output {output_index} is not a widget output"
            )
        result = self.kernel_exec(probe_code(model_id))
        if result["err"]:
            raise self.fail(f"kernel probe raised {result['err']}")
        for line in result["out"].splitlines():
            if line.startswith(PROBE_MARKER):
                return json.loads(line[len(PROBE_MARKER) :])
        raise self.fail(f"kernel probe printed no result: {result['out']!r}")

    # -- views -----------------------------------------------------------------------
    def view_outputs(self) -> list[tuple[int, int]]:
        """(cell, output) of each output holding a player: canvas, slider, toggle."""
        return [tuple(v) for v in self.page.evaluate(js("viewOutputs"), self.relpath)]

    def output_locator(self, cell_index: int, output_index: int):
        cell = self.panel().locator(".jp-Notebook .jp-Cell").nth(cell_index)
        return cell.locator(".jp-OutputArea-output").nth(output_index)

    def player(self, output) -> dict:
        """The player as the learner sees it: toggle label, step readout, buttons."""
        return output.evaluate("(out) => window.convgradTest.player(out)")


def canvas_data_url(canvas_locator) -> str:
    return canvas_locator.evaluate("(c) => c.toDataURL()")


def wait_canvas_changed(page, canvas_locator, before: str, timeout: float) -> None:
    handle = canvas_locator.element_handle()
    page.wait_for_function(
        "([c, before]) => c.toDataURL() !== before",
        arg=[handle, before],
        timeout=timeout * 1000,
        polling=100,
    )


def step_slider(nb: OpenNotebook, output):
    """The player's step slider (the view's other sliders set stride etc.)."""
    label = nb.page.locator(".widget-label", has_text=re.compile(r"^\s*step\s*$"))
    return output.locator(SLIDER).filter(has=label).first


def slider_readout(slider_locator) -> int:
    text = slider_locator.locator(".widget-readout").inner_text(timeout=5_000)
    return int(text.strip())


def drag_slider(page, slider_locator, fraction: float) -> None:
    """Drag the slider's handle with the mouse to ``fraction`` of its track."""
    track = slider_locator.locator(".noUi-target, .slider").first
    handle = slider_locator.locator(".noUi-handle").first
    handle.scroll_into_view_if_needed()
    tb = track.bounding_box()
    hb = handle.bounding_box()
    if tb is None or hb is None:
        raise AssertionError("slider track or handle has no box (not visible)")
    page.mouse.move(hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
    page.mouse.down()
    target_x = tb["x"] + fraction * tb["width"]
    page.mouse.move(target_x, hb["y"] + hb["height"] / 2, steps=8)
    page.mouse.up()


# --------------------------------------------------------------------------- checks


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
    """Each cell that creates a view is followed by its player, before the next one.

    A player is an ipympl canvas, a slider and a Play/Pause toggle, all in the DOM
    of the visible notebook panel.
    """
    by_index = {row["index"]: row for row in report}
    starts = [index for index, _ in created] + [max(by_index, default=0) + 1]
    missing = []
    for (start, names), stop in zip(created, starts[1:], strict=False):
        rows = [r for i, r in by_index.items() if start <= i < stop]
        have = {
            "ipympl canvas": sum(r["canvases"] for r in rows),
            "slider": sum(r["sliders"] for r in rows),
            "Play/Pause toggle": sum(r["toggles"] for r in rows),
        }
        lacking = [what for what, n in have.items() if n == 0]
        if lacking:
            missing.append(
                f"{', '.join(names)} created in cell {start}: no {', '.join(lacking)} "
                f"in the outputs of cells {start}..{stop - 1}"
            )
    if missing:
        raise nb.fail("a live view is not on screen:\n" + "\n".join(missing))


def wait_views_rendered(nb: OpenNotebook, n_created: int) -> None:
    """Wait (bounded) until the players and a drawn ipympl canvas are in the DOM."""
    if n_created == 0:
        return
    with nb.failing_with_screenshot():
        panel = nb.panel()
        for sel in (CANVAS, SLIDER, TOGGLE):
            panel.locator(sel).first.wait_for(
                state="attached", timeout=WIDGET_TIMEOUT * 1000
            )
        nb.page.wait_for_function(
            js("anyCanvasDrawn"), arg=PANEL, timeout=WIDGET_TIMEOUT * 1000,
            polling=200,
        )  # fmt: skip


def _norm(text: str) -> str:
    return " ".join(text.split())


def names_step(caption: str, step: int, n: int) -> bool:
    """True if ``caption`` says ``step STEP/N`` (1-based, as the slider counts)."""
    return re.search(rf"\bstep {step}/{n}(?!\d)", caption) is not None


def _save_canvas(nb: OpenNotebook, canvas) -> None:
    """What the canvas holds, as a PNG beside the failure screenshot."""
    import base64

    try:
        url = canvas_data_url(canvas)
        data = base64.b64decode(url.split(",", 1)[1])
        (nb.shot_dir / f"{nb.stem}-canvas.png").write_bytes(data)
    except Exception:  # a diagnostic only: never hide the failure
        pass


def signature_diff(canvas, signature: dict) -> float | None:
    """Max grey-block difference between the canvas and the kernel's rendering."""
    return canvas.evaluate(
        "(c, sig) => window.convgradTest.signatureDiff([c, sig])", signature
    )


def wait_canvas_shows(
    nb: OpenNotebook,
    canvas,
    signature: dict,
    what: str,
    timeout: float = CANVAS_CHANGE_TIMEOUT,
) -> None:
    """Wait (bounded) until the canvas pixels are the kernel's figure, else fail.

    ipympl draws asynchronously (the kernel renders on the browser's request), so
    right after a move the canvas may still show an intermediate frame; this waits
    for the frame the kernel is on, compared pixel block by pixel block.
    """
    try:
        nb.page.wait_for_function(
            js("canvasShows"),
            arg=[canvas.element_handle(), signature, SIGNATURE_TOLERANCE],
            timeout=timeout * 1000,
            polling=200,
        )
    except Exception as exc:
        size = canvas.evaluate("c => [c.width, c.height]")
        diff = signature_diff(canvas, signature)
        _save_canvas(nb, canvas)
        raise nb.fail(
            f"{what}: the canvas does not show the kernel's figure after "
            f"{timeout} s (canvas {size[0]}x{size[1]}, figure "
            f"{signature['w']}x{signature['h']}, max block difference {diff})"
        ) from exc


def player_problems(state: dict) -> list[str]:
    """What is wrong with a probed player: links, counting, caption, hidden Play."""
    view, slider, play = state["view"], state["slider"], state["play"]
    problems = []
    if play is not None and play["display"] != "none":
        problems.append(f"the Play widget is shown (display {play['display']!r})")
    if state["toggle"] is None:
        problems.append("no ToggleButton is jslinked to Play's `playing`")
    if slider is None or view is None:
        return problems
    n = view["n_frames"]
    if (slider["min"], slider["max"]) != (1, max(n, 1)):
        problems.append(
            f"the step slider runs {slider['min']}..{slider['max']}, "
            f"not 1..{n} (the view has {n} frames)"
        )
    if n and not names_step(view["caption"], slider["value"], n):
        problems.append(
            f"the slider is at {slider['value']} but the caption says "
            f"{view['caption']!r}"
        )
    if n and view["frame"] != slider["value"] - 1:
        problems.append(
            f"the slider is at step {slider['value']} but the view shows "
            f"frame {view['frame']} (0-based)"
        )
    return problems


def check_view_shown(nb: OpenNotebook, cell_index: int, output_index: int) -> dict:
    """A live view on screen: a view of ``convgrad.viz.live_views()`` behind the
    canvas, a slider and a toggle jslinked to Play, the slider and the caption
    counting alike, buttons with tooltips, and canvas pixels equal to the kernel's
    rendering of the figure."""
    output = nb.output_locator(cell_index, output_index)
    canvas = output.locator(CANVAS).first
    with nb.failing_with_screenshot():
        output.scroll_into_view_if_needed(timeout=10_000)
        state = nb.probe(cell_index, output_index)
        shown = nb.player(output)
    where = f"view in cell {cell_index}"
    if state["slider"] is None:
        raise nb.fail(f"{where}: no slider is jslinked to its Play widget")
    if state["view"] is None:
        raise nb.fail(f"{where}: no view of convgrad.viz.live_views() draws its canvas")
    problems = player_problems(state)
    if shown["untitled"]:
        problems.append(f"buttons without a tooltip: {shown['untitled']}")
    if shown["step"] != state["slider"]["value"]:
        problems.append(
            f"the step readout shows {shown['step']}, the kernel's slider "
            f"is at {state['slider']['value']}"
        )
    if problems:
        raise nb.fail(f"{where}:\n" + "\n".join(problems))
    wait_canvas_shows(nb, canvas, state["signature"], where)
    return state


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
    players taller than the notebook's visible height."""
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
        if r["kind"] == "view" and box and box["height"] > layout["visibleHeight"]:
            problems.append(
                f"{where}: the view and its controls are {box['height']:g} px tall; "
                f"the notebook shows {layout['visibleHeight']} px"
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


def check_interaction(
    nb: OpenNotebook, cell_index: int, output_index: int, before: dict
) -> dict:
    """Use the player as a learner would, and check that the view follows.

    1. Drag the step slider: the canvas changes and then equals the kernel's
       figure; the kernel saw the same step; the caption (read from the view in
       the kernel, because ipympl draws it as pixels) changed, says ``step k/n``
       with the slider's k, and is a text artist of the figure.
    2. Press Play: the toggle reads Pause, the slider advances, the picture
       changes. Press Pause: the toggle reads Play and the slider stays put.
    3. Reset goes back to step 1; step forward goes to step 2.
    """
    page = nb.page
    output = nb.output_locator(cell_index, output_index)
    canvas = output.locator(CANVAS).first
    toggle = output.locator(TOGGLE).first
    slider = step_slider(nb, output)
    lo, hi, v0 = (before["slider"][k] for k in ("min", "max", "value"))
    if hi - lo < 4:
        raise nb.fail(f"the step slider has too few steps to play ({lo}..{hi})")
    cap0 = before["view"]["caption"]

    # 1. drag
    with nb.failing_with_screenshot():
        image0 = canvas_data_url(canvas)
        fraction = 0.3 if round(lo + 0.3 * (hi - lo)) != v0 else 0.5
        drag_slider(page, slider, fraction)
        moved_to = slider_readout(slider)
    if moved_to == v0:
        raise nb.fail(f"dragging the slider did not move it (still {v0})")
    with nb.failing_with_screenshot():
        wait_canvas_changed(page, canvas, image0, CANVAS_CHANGE_TIMEOUT)
    after = _probe_until(nb, cell_index, output_index, moved_to)
    cap1 = after["view"]["caption"]
    problems = player_problems(after)
    if after["slider"]["value"] != moved_to:
        problems.append(
            f"the kernel's slider value is {after['slider']['value']}, "
            f"the browser shows {moved_to}"
        )
    if cap1 == cap0:
        problems.append(f"the caption did not change: {cap0!r}")
    if _norm(cap1) not in {_norm(t) for t in after["view"]["figure_texts"]}:
        problems.append(
            f"the caption {cap1!r} is not drawn in the figure "
            f"(texts: {after['view']['figure_texts'][:8]})"
        )
    if problems:
        raise nb.fail("after dragging the slider:\n" + "\n".join(problems))
    wait_canvas_shows(nb, canvas, after["signature"], f"after moving to {moved_to}")
    shot = nb.screenshot("-moved", output)

    # 2. play, then pause
    interval_s = before["play"]["interval"] / 1000
    readout = slider.locator(".widget-readout")
    with nb.failing_with_screenshot():
        if _norm(toggle.inner_text()) != "Play":
            raise nb.fail(f"the toggle reads {toggle.inner_text()!r}, not 'Play'")
        image1 = canvas_data_url(canvas)
        toggle.click()
        page.wait_for_function(
            "([el, v]) => parseInt(el.textContent) !== v",
            arg=[readout.element_handle(), moved_to],
            timeout=CANVAS_CHANGE_TIMEOUT * 1000,
            polling=50,
        )
        wait_canvas_changed(page, canvas, image1, CANVAS_CHANGE_TIMEOUT)
        _wait_text(nb, toggle, "Pause")
        toggle.click()
        _wait_text(nb, toggle, "Play")
        paused_at = slider_readout(slider)
        page.wait_for_timeout(4 * interval_s * 1000)  # four steps' time: no step
        still = slider_readout(slider)
    if still != paused_at or still >= hi:
        raise nb.fail(
            f"Pause did not hold the step: {paused_at} then {still} "
            f"(of {hi}, at {interval_s:g} s per step)"
        )
    paused = _probe_until(nb, cell_index, output_index, still)
    problems = player_problems(paused)
    if paused["play"]["playing"]:
        problems.append("the kernel's Play is still playing after Pause")
    if problems:
        raise nb.fail("after Play and Pause:\n" + "\n".join(problems))
    wait_canvas_shows(nb, canvas, paused["signature"], f"paused at {still}")

    # 3. reset, then one step forward
    with nb.failing_with_screenshot():
        output.locator("button", has_text="Reset").first.click()
        page.wait_for_function(
            "(el) => parseInt(el.textContent) === 1",
            arg=readout.element_handle(), timeout=CANVAS_CHANGE_TIMEOUT * 1000,
            polling=50,
        )  # fmt: skip
        output.locator("button:has(.fa-step-forward)").first.click()
        page.wait_for_function(
            "(el) => parseInt(el.textContent) === 2",
            arg=readout.element_handle(), timeout=CANVAS_CHANGE_TIMEOUT * 1000,
            polling=50,
        )  # fmt: skip
    stepped = _probe_until(nb, cell_index, output_index, 2)
    problems = player_problems(stepped)
    if problems:
        raise nb.fail("after Reset and one step forward:\n" + "\n".join(problems))
    wait_canvas_shows(nb, canvas, stepped["signature"], "at step 2")
    return {
        "before": before, "after": after, "moved_to": moved_to, "shot": shot,
        "paused_at": still, "stepped": stepped,
    }  # fmt: skip


def _wait_text(nb: OpenNotebook, locator, text: str) -> None:
    nb.page.wait_for_function(
        "([el, t]) => el.textContent.trim() === t",
        arg=[locator.element_handle(), text],
        timeout=CANVAS_CHANGE_TIMEOUT * 1000,
        polling=50,
    )


def _probe_until(nb: OpenNotebook, ci: int, oi: int, value: int) -> dict:
    """Probe the kernel until it has seen the slider at ``value`` (bounded)."""
    deadline = time.monotonic() + CANVAS_CHANGE_TIMEOUT
    with nb.failing_with_screenshot():
        while True:
            result = nb.probe(ci, oi)
            seen = result["slider"] and result["slider"]["value"] == value
            if seen or time.monotonic() > deadline:
                return result
