"""The machinery of the real-browser test: a JupyterLab server and page helpers.

Everything here drives the same things a learner touches: a JupyterLab server started
from the installed environment, Debian's Chromium (through Playwright, never a
downloaded browser build), notebook cells run from the UI, and widgets moved with the
mouse. Kernel-side facts (a view's caption, the slider value the kernel saw) are read
through the notebook's own kernel connection, without adding cells to the notebook.
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
PLAY = ".widget-play"

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

# Find a notebook panel by path (not `currentWidget`, which follows focus).
_FIND = """
const findPanel = (path) => {
  const app = window.jupyterapp;
  if (!app) return null;
  for (const w of app.shell.widgets('main')) {
    if (w.context && w.context.path === path && w.content && w.sessionContext) return w;
  }
  return null;
};
"""

JS_KERNEL_READY = (
    "(path) => {"
    + _FIND
    + """
  const panel = findPanel(path);
  if (!panel || !panel.context.isReady) return false;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel) return false;
  if (kernel.status === 'dead') return 'dead';
  return kernel.connectionStatus === 'connected' && kernel.status === 'idle';
}"""
)

JS_RUN_ALL = (
    "async (path) => {"
    + _FIND
    + """
  const panel = findPanel(path);
  window.jupyterapp.shell.activateById(panel.id);
  await window.jupyterapp.commands.execute('notebook:run-all-cells');
  return true;
}"""
)

# Done: the kernel is idle and no code cell is running or queued.
JS_RUN_DONE = (
    "(path) => {"
    + _FIND
    + """
  const panel = findPanel(path);
  if (!panel) return false;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel) return 'no kernel';
  if (kernel.status === 'dead') return 'dead';
  if (kernel.status !== 'idle') return false;
  for (const cell of panel.content.widgets) {
    if (cell.model.type !== 'code') continue;
    if (cell.model.executionState === 'running') return false;
    const prompt = cell.node.querySelector('.jp-InputPrompt');
    if (prompt && prompt.textContent.includes('*')) return false;
  }
  return true;
}"""
)

# Per code cell: error outputs (model type "error", with the text shown in the DOM at
# the same index), tracebacks shown inside widgets, widget placeholders, view parts.
JS_CELL_REPORT = (
    "([path, tracebackText, widgetErrorText]) => {"
    + _FIND
    + """
  const panel = findPanel(path);
  const rows = [];
  panel.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const outputs = cell.model.outputs ? cell.model.outputs.toJSON() : [];
    const children = cell.outputArea ? cell.outputArea.widgets : [];
    const domErrors = [];
    const modelErrors = [];
    outputs.forEach((o, i) => {
      if (o.output_type !== 'error') return;
      modelErrors.push(o.ename + ': ' + o.evalue);
      const child = children[i];
      const node = child && child.node.querySelector('.jp-OutputArea-output');
      domErrors.push(node ? (node.innerText || node.textContent || '').slice(-1500)
                          : '(error output not rendered) ' + o.ename + ': ' + o.evalue);
    });
    cell.node.querySelectorAll('.jupyter-widgets .jp-OutputArea-output').forEach(n => {
      const text = n.innerText || n.textContent || '';
      if (text.includes(tracebackText)) domErrors.push(text.slice(-1500));
    });
    const widgetErrors = Array.from(cell.node.querySelectorAll('.jp-OutputArea-output'))
      .filter(el => (el.textContent || '').includes(widgetErrorText));
    rows.push({
      index,
      count: cell.model.executionCount,
      tags: cell.model.getMetadata('tags') || [],
      source: cell.model.sharedModel.getSource().slice(0, 160),
      domErrors,
      modelErrors,
      widgetErrors: widgetErrors.map(e => (e.textContent || '').slice(0, 300)),
      canvases: cell.node.querySelectorAll(
        '.jupyter-matplotlib-canvas-div canvas').length,
      sliders: cell.node.querySelectorAll('.widget-slider').length,
      plays: cell.node.querySelectorAll('.widget-play').length,
    });
  });
  return rows;
}"""
)

# Run code on the panel's kernel (no cell, no history) and return stdout and errors.
JS_KERNEL_EXEC = (
    "async ([path, code]) => {"
    + _FIND
    + """
  const panel = findPanel(path);
  const kernel = panel.sessionContext.session.kernel;
  const future = kernel.requestExecute(
    {code, silent: false, store_history: false, allow_stdin: false});
  let out = '';
  let err = null;
  future.onIOPub = (msg) => {
    const t = msg.header.msg_type;
    if (t === 'stream') out += msg.content.text;
    else if (t === 'error') err = msg.content.ename + ': ' + msg.content.evalue;
  };
  const reply = await future.done;
  return {out, err, status: reply.content.status};
}"""
)

# Close the tab without saving anything (the file on disk must stay as stored).
JS_CLOSE = (
    "(path) => {"
    + _FIND
    + """
  const panel = findPanel(path);
  if (!panel) return false;
  panel.context.model.dirty = false;
  panel.dispose();
  return true;
}"""
)

JS_MODEL_ID = (
    "([path, cellIndex, outputIndex]) => {"
    + _FIND
    + """
  const panel = findPanel(path);
  const outputs = panel.content.widgets[cellIndex].model.outputs.toJSON();
  const out = outputs[outputIndex];
  const data = out && out.data && out.data['application/vnd.jupyter.widget-view+json'];
  return data ? data.model_id : null;
}"""
)

# How far (grey levels, 0-255, max over 16x16-pixel blocks) the canvas may be from
# the kernel's own rendering of the figure and still count as showing it.
SIGNATURE_BLOCK = 16
SIGNATURE_TOLERANCE = 3.0

# Max block difference between a canvas's pixels and a kernel-side signature
# (null when the sizes differ).
JS_SIGNATURE_DIFF = """([canvas, sig]) => {
  if (canvas.width !== sig.w || canvas.height !== sig.h) return null;
  const data = canvas.getContext('2d').getImageData(0, 0, sig.w, sig.h).data;
  const b = sig.block, wb = Math.floor(sig.w / b), hb = Math.floor(sig.h / b);
  let worst = 0;
  for (let by = 0; by < hb; by++) {
    for (let bx = 0; bx < wb; bx++) {
      let sum = 0;
      for (let y = by * b; y < (by + 1) * b; y++) {
        for (let x = bx * b; x < (bx + 1) * b; x++) {
          const i = 4 * (y * sig.w + x);
          sum += (data[i] + data[i + 1] + data[i + 2]) / 3;
        }
      }
      const diff = Math.abs(sum / (b * b) - sig.values[by * wb + bx]);
      if (diff > worst) worst = diff;
    }
  }
  return worst;
}"""

JS_CANVAS_BLANK = """(canvas) => {
  if (!canvas.width || !canvas.height) return true;
  const blank = document.createElement('canvas');
  blank.width = canvas.width;
  blank.height = canvas.height;
  return canvas.toDataURL() === blank.toDataURL();
}"""


# ------------------------------------------------------------------------ kernel probe

# Finds, from a displayed widget's model id, the Play button, the slider jslinked to it,
# the ipympl canvas, and the view object whose figure that canvas draws (duck typing:
# an object with `.fig` and `.caption`). Prints one JSON line after a marker.
PROBE_MARKER = "@@convgrad-browser-probe@@"
_PROBE = r"""
def __convgrad_probe(model_id):
    import gc
    import json

    import ipywidgets

    registry = ipywidgets.Widget.widgets
    root = registry.get(model_id)
    out = {"found_root": root is not None}
    seen, stack, members = set(), [root] if root is not None else [], []
    while stack:
        w = stack.pop()
        if id(w) in seen:
            continue
        seen.add(id(w))
        members.append(w)
        stack.extend(getattr(w, "children", ()) or ())
    ids = {id(w) for w in members}
    play = next((w for w in members if isinstance(w, ipywidgets.Play)), None)
    slider = None
    if play is not None:
        for link in list(registry.values()):
            if not isinstance(link, ipywidgets.widgets.widget_link.Link):
                continue
            (a, _), (b, _) = link.source, link.target
            if a is play and id(b) in ids:
                slider = b
            elif b is play and id(a) in ids:
                slider = a
    canvases = [w for w in members if hasattr(w, "figure") and hasattr(w, "draw_idle")]
    out["play"] = None if play is None else {"value": play.value, "max": play.max}
    out["slider"] = None if slider is None else {
        "value": slider.value, "min": slider.min, "max": slider.max}
    out["n_canvases"] = len(canvases)
    view = None
    if canvases:
        figs = {id(c.figure) for c in canvases}
        for obj in gc.get_objects():
            try:
                has_caption = "caption" in vars(obj) or isinstance(
                    getattr(type(obj), "caption", None), property)
                fig = getattr(obj, "fig", None) if has_caption else None
            except Exception:
                continue
            if fig is not None and id(fig) in figs:
                view = obj
                break
    if view is not None:
        fig = view.fig
        texts = [t.get_text() for t in fig.findobj(
            lambda a: hasattr(a, "get_text") and callable(a.get_text))]
        out["view"] = {
            "type": type(view).__name__,
            "caption": str(view.caption),
            "n_frames": getattr(view, "n_frames", None),
            "figure_texts": [t for t in texts if t],
        }
    else:
        out["view"] = None
    out["signature"] = None
    if canvases:
        # What the canvas should show now: the figure rendered afresh with Agg,
        # reduced to grey block means (compared with the browser's pixels).
        import numpy as np
        from matplotlib.backends.backend_agg import RendererAgg

        fig = canvases[0].figure
        w, h = (int(round(v)) for v in fig.bbox.size)
        renderer = RendererAgg(w, h, fig.dpi)
        fig.draw(renderer)
        grey = np.asarray(renderer.buffer_rgba(), dtype=float)[..., :3].mean(axis=2)
        b = BLOCK
        hb, wb = h // b, w // b
        blocks = grey[: hb * b, : wb * b].reshape(hb, b, wb, b).mean(axis=(1, 3))
        out["signature"] = {"w": w, "h": h, "block": b,
                            "values": np.round(blocks, 2).ravel().tolist()}
    print(MARKER + json.dumps(out, default=str))


__convgrad_probe(MODEL_ID)
del __convgrad_probe
"""


def probe_code(model_id: str) -> str:
    return (
        _PROBE.replace("MARKER", repr(PROBE_MARKER))
        .replace("MODEL_ID", repr(model_id))
        .replace("BLOCK", str(SIGNATURE_BLOCK))
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
        self.page.goto(self.server.lab_url(self.relpath), wait_until="domcontentloaded")
        self.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell",
            timeout=KERNEL_READY_TIMEOUT * 1000,
        )
        # More room for the 1280-px views: fold the file browser away.
        self.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = self.page.wait_for_function(
            JS_KERNEL_READY, arg=self.relpath, timeout=KERNEL_READY_TIMEOUT * 1000,
            polling=250,
        ).json_value()  # fmt: skip
        if state == "dead":
            raise self.fail("the kernel died while starting")

    def run_all(self) -> None:
        self.page.evaluate(JS_RUN_ALL, self.relpath)
        state = self.page.wait_for_function(
            JS_RUN_DONE, arg=self.relpath, timeout=RUN_ALL_TIMEOUT * 1000, polling=250
        ).json_value()
        if state is not True:
            raise self.fail(f"execution ended with kernel state {state!r}")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.page.evaluate(JS_CLOSE, self.relpath)
        with contextlib.suppress(Exception):
            self.server.shutdown_sessions(self.relpath)

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
            JS_CELL_REPORT, [self.relpath, TRACEBACK_TEXT, WIDGET_ERROR_TEXT]
        )

    def kernel_exec(self, code: str) -> dict:
        return self.page.evaluate(JS_KERNEL_EXEC, [self.relpath, code])

    def probe(self, cell_index: int, output_index: int) -> dict:
        model_id = self.page.evaluate(
            JS_MODEL_ID, [self.relpath, cell_index, output_index]
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
        """(cell, output) index of each output holding an ipympl canvas and a Play."""
        views = self.page.evaluate(
            "(path) => {"
            + _FIND
            + """
  const panel = findPanel(path);
  const found = [];
  panel.content.widgets.forEach((cell, ci) => {
    if (cell.model.type !== 'code') return;
    cell.node.querySelectorAll('.jp-OutputArea-output').forEach((out, oi) => {
      if (out.querySelector('.jupyter-matplotlib-canvas-div canvas')
          && out.querySelector('.widget-play')) found.push([ci, oi]);
    });
  });
  return found;
}""",
            self.relpath,
        )
        return [tuple(v) for v in views]

    def output_locator(self, cell_index: int, output_index: int):
        cell = self.panel().locator(".jp-Notebook .jp-Cell").nth(cell_index)
        return cell.locator(".jp-OutputArea-output").nth(output_index)


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
    """Each cell that creates a view is followed by its widget, before the next one.

    A live widget is an ipympl canvas, a slider and a Play button, all in the DOM of
    the visible notebook panel.
    """
    by_index = {row["index"]: row for row in report}
    starts = [index for index, _ in created] + [max(by_index, default=0) + 1]
    missing = []
    for (start, names), stop in zip(created, starts[1:], strict=False):
        rows = [r for i, r in by_index.items() if start <= i < stop]
        have = {
            "ipympl canvas": sum(r["canvases"] for r in rows),
            "slider": sum(r["sliders"] for r in rows),
            "Play button": sum(r["plays"] for r in rows),
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
    """Wait (bounded) until the widgets and a drawn ipympl canvas are in the DOM."""
    if n_created == 0:
        return
    with nb.failing_with_screenshot():
        panel = nb.panel()
        for sel in (CANVAS, SLIDER, PLAY):
            panel.locator(sel).first.wait_for(
                state="attached", timeout=WIDGET_TIMEOUT * 1000
            )
        nb.page.wait_for_function(
            f"""() => Array.from(document.querySelectorAll(
                    '{PANEL} {CANVAS}')).some(c => !({JS_CANVAS_BLANK})(c))""",
            timeout=WIDGET_TIMEOUT * 1000,
            polling=200,
        )


def _norm(text: str) -> str:
    return " ".join(text.split())


def _names_step(caption: str, k: int) -> bool:
    """True if ``caption`` contains the step number k (0-based) or k + 1 (1-based)."""
    return any(re.search(rf"(?<![\d.]){n}(?!\d|\.\d)", caption) for n in (k, k + 1))


def signature_diff(canvas, signature: dict) -> float | None:
    """Max grey-block difference between the canvas and the kernel's rendering."""
    return canvas.evaluate(f"(c, sig) => ({JS_SIGNATURE_DIFF})([c, sig])", signature)


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
            f"([c, sig]) => {{ const d = ({JS_SIGNATURE_DIFF})([c, sig]);"
            f" return d !== null && d <= {SIGNATURE_TOLERANCE}; }}",
            arg=[canvas.element_handle(), signature],
            timeout=timeout * 1000,
            polling=200,
        )
    except Exception as exc:
        size = canvas.evaluate("c => [c.width, c.height]")
        diff = signature_diff(canvas, signature)
        raise nb.fail(
            f"{what}: the canvas does not show the kernel's figure after "
            f"{timeout} s (canvas {size[0]}x{size[1]}, figure "
            f"{signature['w']}x{signature['h']}, max block difference {diff})"
        ) from exc


def check_view_shown(nb: OpenNotebook, cell_index: int, output_index: int) -> dict:
    """A live view on screen: a view object behind the canvas, a slider jslinked to
    Play, and canvas pixels equal to the kernel's rendering of the figure."""
    output = nb.output_locator(cell_index, output_index)
    canvas = output.locator(CANVAS).first
    with nb.failing_with_screenshot():
        output.scroll_into_view_if_needed(timeout=10_000)
        state = nb.probe(cell_index, output_index)
    where = f"view in cell {cell_index}"
    if state["slider"] is None:
        raise nb.fail(f"{where}: no slider is jslinked to its Play button")
    if state["view"] is None:
        raise nb.fail(f"{where}: no view object (with .fig and .caption) draws it")
    wait_canvas_shows(nb, canvas, state["signature"], where)
    return state


def screenshot_view(nb: OpenNotebook, view: tuple[int, int] | None) -> Path:
    """Screenshot of a view's output (or of the notebook panel when there is none)."""
    if view is None:
        return nb.screenshot("", nb.panel())
    locator = nb.output_locator(*view)
    locator.scroll_into_view_if_needed(timeout=10_000)
    return nb.screenshot("", locator)


def _dom_caption_shown(output, caption: str) -> bool:
    texts = output.locator(".widget-html, .widget-label").all_inner_texts()
    return _norm(caption) in {_norm(t) for t in texts}


def check_interaction(
    nb: OpenNotebook, cell_index: int, output_index: int, before: dict
) -> dict:
    """Drag the view's step slider, then press Play: the picture and caption follow.

    The caption is checked on the kernel side (the view's ``.caption``; the canvas is
    pixels): it changed, it names the new step, and it is a text artist of the figure,
    whose fresh rendering the canvas pixels must then equal. When the view also shows
    the caption as an HTML/Label widget, that text must match too.
    """
    page = nb.page
    output = nb.output_locator(cell_index, output_index)
    canvas = output.locator(CANVAS).first
    play = output.locator(PLAY).first
    lo, hi, v0 = (before["slider"][k] for k in ("min", "max", "value"))
    if hi - lo < 2:
        raise nb.fail(f"the step slider has too few steps to move ({lo}..{hi})")
    cap0 = before["view"]["caption"]
    caption_widget = _dom_caption_shown(output, cap0)

    # The step slider is the one in the same box as Play (others set stride etc.).
    slider = play.locator("xpath=..").locator(SLIDER).first
    if slider.count() == 0:
        slider = output.locator(SLIDER).first
    with nb.failing_with_screenshot():
        image0 = canvas_data_url(canvas)
        fraction = 0.6 if round(lo + 0.6 * (hi - lo)) != v0 else 0.3
        drag_slider(page, slider, fraction)
        moved_to = slider_readout(slider)
    if moved_to == v0:
        raise nb.fail(f"dragging the slider did not move it (still {v0})")
    with nb.failing_with_screenshot():
        wait_canvas_changed(page, canvas, image0, CANVAS_CHANGE_TIMEOUT)
    after = _probe_until(nb, cell_index, output_index, moved_to)
    cap1 = after["view"]["caption"]
    problems = []
    if after["slider"]["value"] != moved_to:
        problems.append(
            f"the kernel's slider value is {after['slider']['value']}, "
            f"the browser shows {moved_to}"
        )
    if cap1 == cap0:
        problems.append(f"the caption did not change: {cap0!r}")
    if not _names_step(cap1, moved_to):
        problems.append(f"the caption does not name step {moved_to}: {cap1!r}")
    if _norm(cap1) not in {_norm(t) for t in after["view"]["figure_texts"]}:
        problems.append(
            f"the caption {cap1!r} is not drawn in the figure "
            f"(texts: {after['view']['figure_texts'][:8]})"
        )
    if problems:
        raise nb.fail("after dragging the slider:\n" + "\n".join(problems))
    wait_canvas_shows(nb, canvas, after["signature"], f"after moving to {moved_to}")
    if caption_widget:
        with nb.failing_with_screenshot():
            page.wait_for_function(
                """([out, cap]) => Array.from(out.querySelectorAll(
                     '.widget-html, .widget-label')).some(
                     e => e.innerText.split(/\\s+/).join(' ').trim() === cap)""",
                arg=[output.element_handle(), _norm(cap1)],
                timeout=CANVAS_CHANGE_TIMEOUT * 1000,
                polling=100,
            )
    shot = nb.screenshot("-moved", output)

    # Play: the slider advances by itself and the picture follows.
    with nb.failing_with_screenshot():
        image1 = canvas_data_url(canvas)
        buttons = play.locator("button")
        buttons.first.click()  # play
        page.wait_for_function(
            "([el, v]) => parseInt(el.textContent) !== v",
            arg=[slider.locator(".widget-readout").element_handle(), moved_to],
            timeout=CANVAS_CHANGE_TIMEOUT * 1000,
            polling=100,
        )
        wait_canvas_changed(page, canvas, image1, CANVAS_CHANGE_TIMEOUT)
        if buttons.count() > 1:
            buttons.nth(1).click()  # stop
    return {"before": before, "after": after, "moved_to": moved_to, "shot": shot}


def _probe_until(nb: OpenNotebook, ci: int, oi: int, value: int) -> dict:
    """Probe the kernel until it has seen the slider at ``value`` (bounded)."""
    deadline = time.monotonic() + CANVAS_CHANGE_TIMEOUT
    with nb.failing_with_screenshot():
        while True:
            result = nb.probe(ci, oi)
            seen = result["slider"] and result["slider"]["value"] == value
            if seen or time.monotonic() > deadline:
                return result
