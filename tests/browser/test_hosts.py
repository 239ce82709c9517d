"""The same view in two more notebook hosts (issue 44): Jupyter Notebook 7
and marimo, each in headless Chromium.

- **Notebook 7** (``jupyter notebook``): a notebook whose view has a cell
  below it. The forward button and the step slider's → move the player,
  the kernel's view follows, the notebook's active cell stays where it is
  (Notebook 7 has JupyterLab's command mode), and a parameter slider
  rebuilds the view in the kernel.
- **marimo** (``marimo run``): an app whose view is wrapped with
  ``mo.ui.anywidget``, beside a view that is a cell's last expression. The
  player steps, Python hears the step (a cell that reads the widget's value
  runs again), a parameter slider rebuilds the view (the bare one's too),
  and a refused one is put back on the scene's value. In ``marimo edit``
  the keys move the player and the focus stays in it. marimo draws a
  widget in a shadow root: the player, its CSS and its focus live there.

Each host is one server, started in a temporary folder for this module and
stopped whatever happens. A host that is not installed skips its test
(``pip install -e ".[hosts]"``), or fails it with CONVGRAD_REQUIRE_BROWSER=1.
Screenshots: artifacts/browser/hosts/.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_harness import (
    ARTIFACTS,
    KERNEL_READY_TIMEOUT,
    PAGE_JS,
    RUN_ALL_TIMEOUT,
    SERVER_START_TIMEOUT,
    LabServer,
    click_thumb,
    free_port,
    js,
    names_step,
    require_browser,
)

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "hosts"
# the player as the page shows it, wherever it is drawn (a shadow root too)
PLAYER = """(root) => {
  const doc = root.getRootNode(), a = doc.activeElement;
  const controls = {};
  root.querySelectorAll('.cgs-controls input').forEach(i => {
    controls[i.name] = i.type === 'checkbox' ? i.checked : +i.value;
  });
  const slider = root.querySelector('.cgs-slider');
  return {
    step: +slider.value, steps: +slider.max, frame: +root.dataset.frame,
    caption: root.querySelector('.cgs-caption').textContent,
    sub: root.querySelector('.cgs-sub').textContent,
    message: root.querySelector('.cgs-message').textContent,
    cells: root.querySelectorAll('.cgs-grid rect').length,
    controls,
    focus: !a ? 'none' : root.contains(a) ? (a.name || a.className) :
      'outside: ' + (a.className || a.tagName),
    shadow: doc !== document,
    css: getComputedStyle(root.querySelector('.cgs-button')).minHeight,
  };
}"""


def require_host(module: str, what: str) -> None:
    """Skip, or fail under CONVGRAD_REQUIRE_BROWSER=1, without the host."""
    require_browser()
    if importlib.util.find_spec(module) is not None:
        return
    reason = f"{what} is not installed (pip install -e '.[hosts]')"
    if os.environ.get("CONVGRAD_REQUIRE_BROWSER") == "1":
        pytest.fail(reason + " (CONVGRAD_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(reason)


def settle(locator, until, what: str, tries: int = 300) -> dict:
    """Poll the player (bounded: 30 s, a rebuild on a busy kernel) until
    ``until(state)`` holds."""
    for _ in range(tries):
        st = locator.evaluate(PLAYER)
        if until(st):
            return st
        locator.page.wait_for_timeout(100)
    raise AssertionError(f"{what}: the player is at {st}")


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


# --------------------------------------------------------------------------
# Jupyter Notebook 7

NB_CELLS = [
    ("markdown", "# One view in Jupyter Notebook 7"),
    ("code", "from convgrad import viz\n\n"
             "view = viz.Col2imView(input_size=(5, 5), kernel_size=2)\n"
             "view"),
    ("markdown", "## Below the view"),
    ("code", "below = 1"),
]  # fmt: skip
NB_VIEW_CELL = 1
NB_PATH = "view.ipynb"


@pytest.fixture(scope="module")
def notebook7() -> Iterator[LabServer]:
    """A Jupyter Notebook 7 server, no token, rooted in a temporary folder
    that holds one notebook; stopped, kernels and all, whatever happens."""
    require_host("notebook", "Jupyter Notebook 7 (the notebook package)")
    root = Path(tempfile.mkdtemp(prefix="convgrad-nb7-"))
    cells = [
        {"cell_type": kind, "metadata": {}, "source": src,
         **({"execution_count": None, "outputs": []} if kind == "code" else {})}
        for kind, src in NB_CELLS
    ]  # fmt: skip
    (root / NB_PATH).write_text(json.dumps({
        "cells": cells, "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "language": "python",
                                    "display_name": "Python 3"}},
    }), encoding="utf-8")  # fmt: skip
    log = SHOTS / "notebook7-server.log"
    server = None
    try:
        for attempt in range(3):  # a free port can be taken before it binds
            server = LabServer(root=root, log_path=log, app="notebook")
            try:
                server.start()
                break
            except RuntimeError:
                server.stop()
                if attempt == 2:
                    raise
        yield server
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


def test_a_view_plays_in_notebook_7(notebook7, page):
    page.add_init_script(path=str(PAGE_JS))
    page.goto(notebook7.notebook_url(NB_PATH), wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.convgradTest",
                           timeout=KERNEL_READY_TIMEOUT * 1000)  # fmt: skip
    state = page.wait_for_function(
        js("kernelReady"), arg=NB_PATH, timeout=KERNEL_READY_TIMEOUT * 1000,
        polling=250).json_value()  # fmt: skip
    assert state is True, f"the kernel is {state}"
    assert "Notebook" in page.evaluate("() => window.jupyterapp.name"), (
        "this page is not Jupyter Notebook 7")
    page.evaluate(js("runAll"), NB_PATH)
    done = page.wait_for_function(js("runDone"), arg=NB_PATH, polling=250,
                                  timeout=RUN_ALL_TIMEOUT * 1000).json_value()
    assert done is True, f"running the notebook ended with {done!r}"

    def kernel(code: str):
        got = page.evaluate(js("kernelExec"), [NB_PATH, code])
        assert got["err"] is None, got["err"]
        return json.loads(got["out"].strip().splitlines()[-1])

    def kernel_frame_is(i: int) -> bool:
        for _ in range(100):  # the browser tells the kernel when it rests
            if kernel("import json; print(json.dumps(view.frame))") == i:
                return True
            page.wait_for_timeout(100)
        return False

    active = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    cell = page.locator(".jp-Notebook .jp-Cell").nth(NB_VIEW_CELL)
    root = cell.locator(".cgs").first
    root.locator(".cgs-grid").first.wait_for(timeout=60_000)
    start = settle(root, lambda s: s["cells"] > 0, "the view drawn")
    n = start["steps"]
    assert (start["step"], start["frame"]) == (1, 0), start
    assert names_step(start["caption"], 1, n), start["caption"]
    assert start["css"] == "36px", "scene.css is not applied"
    root.scroll_into_view_if_needed()
    shot(page, "notebook7")

    # the forward button: step 2, a new caption, and the kernel hears it
    root.locator(".cgs-next").click()
    st = settle(root, lambda s: s["step"] == 2, "the forward button")
    assert st["frame"] == 1 and names_step(st["caption"], 2, n), st
    assert st["caption"] != start["caption"]
    assert kernel_frame_is(1), "the kernel's view did not come to frame 1"

    # the step slider: → → ← is one step on; the active cell stays put
    page.evaluate(f"() => window.jupyterapp.shell.currentWidget.content"
                  f".activeCellIndex = {NB_VIEW_CELL}")  # fmt: skip
    click_thumb(page, root.locator(".cgs-slider"))
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
    st = settle(root, lambda s: s["step"] == 3, "→ → ← on the step slider")
    assert names_step(st["caption"], 3, n) and st["focus"] == "cgs-slider", st
    assert page.evaluate(active) == NB_VIEW_CELL, "the keys moved the notebook"
    assert kernel_frame_is(2)

    # a parameter: the kernel rebuilds the view and sends a new scene
    click_thumb(page, root.locator(".cgs-controls input[name=kernel_size]"))
    page.keyboard.press("ArrowRight")
    st = settle(root, lambda s: "kernel_size=3" in s["sub"] and s["step"] == 1,
                "→ on kernel_size")  # fmt: skip
    assert st["steps"] != n and names_step(st["caption"], 1, st["steps"]), st
    assert kernel("import json; print(json.dumps(view.params))")[
        "kernel_size"] == 3  # fmt: skip
    assert st["focus"] == "kernel_size", st
    assert page.evaluate(active) == NB_VIEW_CELL
    shot(page, "notebook7-after")
    assert [e for e in page.console_errors if "convgrad" in e or "cgs" in e] == []
    page.evaluate(js("close"), NB_PATH)


# --------------------------------------------------------------------------
# marimo

MARIMO_APP = '''\
import marimo

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo

    from convgrad import viz

    view = viz.Col2imView(input_size=(5, 5), kernel_size=2)
    player = mo.ui.anywidget(view.widget())
    player
    return mo, player, view, viz


@app.cell
def _(mo, player, view):
    # runs again whenever the widget's value changes: what Python heard
    mo.Html(
        f"<p id='heard'>frame {player.value['frame']} "
        f"view {view.frame} kernel_size {view.params['kernel_size']}</p>"
    )
    return


@app.cell
def _(viz):
    # a view as a cell's last expression, not wrapped
    viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2)
    return


if __name__ == "__main__":
    app.run()
'''


@dataclass
class MarimoServer:
    """``marimo run`` (or ``edit``) of one app file on 127.0.0.1, without a
    token."""

    app: Path
    log_path: Path
    mode: str = "run"
    port: int = 0
    proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        cmd = [sys.executable, "-m", "marimo", self.mode, str(self.app),
               "--headless", "--no-token", "--no-sandbox",
               "--host=127.0.0.1", f"--port={self.port}"]  # fmt: skip
        # no network; marimo's config file (it writes one) in the app's folder
        env = dict(os.environ, MARIMO_SKIP_UPDATE_CHECK="1",
                   XDG_CONFIG_HOME=str(self.app.parent / "config"))  # fmt: skip
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "w", encoding="utf-8") as log:
            self.proc = subprocess.Popen(
                cmd, cwd=self.app.parent, env=env, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() kills it
            )  # fmt: skip
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"marimo exited with {self.proc.returncode}; "
                                   f"log: {self.log_path}")  # fmt: skip
            try:
                with urllib.request.urlopen(self.base_url + "/health", timeout=2):
                    return
            except (OSError, urllib.error.URLError):
                time.sleep(0.5)  # polling interval, not a wait on a result
        raise RuntimeError(f"marimo did not answer /health within "
                           f"{SERVER_START_TIMEOUT} s; log: {self.log_path}")

    def stop(self) -> None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        for sig, grace in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=grace)
                return
            except subprocess.TimeoutExpired:
                continue


def serve_marimo(mode: str) -> Iterator[MarimoServer]:
    """The app above, served by ``marimo MODE`` from a temporary folder."""
    require_host("marimo", "marimo")
    folder = Path(tempfile.mkdtemp(prefix="convgrad-marimo-"))
    app = folder / "views_app.py"
    app.write_text(textwrap.dedent(MARIMO_APP), encoding="utf-8")
    server = None
    try:
        for attempt in range(3):  # a free port can be taken before it binds
            server = MarimoServer(app=app, mode=mode,
                                  log_path=SHOTS / f"marimo-{mode}-server.log")
            try:
                server.start()
                break
            except RuntimeError:
                server.stop()
                if attempt == 2:
                    raise
        yield server
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def marimo_app() -> Iterator[MarimoServer]:
    """The app, as ``marimo run`` serves it (its cells run on opening)."""
    yield from serve_marimo("run")


@pytest.fixture(scope="module")
def marimo_editor() -> Iterator[MarimoServer]:
    """The app as a notebook in ``marimo edit``, where a learner works."""
    yield from serve_marimo("edit")


def test_a_view_plays_in_marimo(marimo_app, page):
    page.goto(marimo_app.base_url + "/", wait_until="domcontentloaded")
    players = page.locator(".cgs")  # Playwright's locators enter shadow roots
    players.nth(1).locator(".cgs-grid").first.wait_for(timeout=120_000)
    assert players.count() == 2, "two views: the wrapped one and the bare one"
    root = players.first
    heard = page.locator("#heard")
    start = settle(root, lambda s: s["cells"] > 0, "the view drawn")
    n = start["steps"]
    assert start["shadow"], "marimo draws a widget in a shadow root"
    assert start["css"] == "36px", "scene.css is not applied in the shadow root"
    assert (start["step"], start["frame"]) == (1, 0), start
    assert names_step(start["caption"], 1, n), start["caption"]
    assert heard.text_content() == "frame 0 view 0 kernel_size 2"
    bare = players.nth(1).evaluate(PLAYER)
    assert bare["cells"] > 0 and names_step(bare["caption"], 1, bare["steps"])
    assert "max" in players.nth(1).locator(".cgs-title").text_content().lower()
    shot(page, "marimo")

    # the forward button: step 2, a new caption, and Python hears it
    root.locator(".cgs-next").click()
    st = settle(root, lambda s: s["step"] == 2, "the forward button")
    assert st["frame"] == 1 and names_step(st["caption"], 2, n), st
    assert st["caption"] != start["caption"]
    heard.filter(has_text="frame 1 view 1 ").wait_for(timeout=30_000)

    # the step slider: → → ← is one step on, the focus stays on it
    click_thumb(page, root.locator(".cgs-slider"))
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
    st = settle(root, lambda s: s["step"] == 3, "→ → ← on the step slider")
    assert names_step(st["caption"], 3, n) and st["focus"] == "cgs-slider", st
    heard.filter(has_text="frame 2 view 2 ").wait_for(timeout=30_000)

    # a parameter: Python rebuilds the view and sends a new scene
    ks = root.locator(".cgs-controls input[name=kernel_size]")
    click_thumb(page, ks)
    page.keyboard.press("ArrowRight")
    st = settle(root, lambda s: "kernel_size=3" in s["sub"] and s["step"] == 1,
                "→ on kernel_size")  # fmt: skip
    assert st["steps"] != n and names_step(st["caption"], 1, st["steps"]), st
    assert st["focus"] == "kernel_size", st
    heard.filter(has_text="kernel_size 3").wait_for(timeout=30_000)
    shot(page, "marimo-after")

    # a refused one (kernel 5 on a 5x5 input with dilation 2) says why and
    # goes back to the scene's value
    click_thumb(page, root.locator(".cgs-controls input[name=dilation]"))
    page.keyboard.press("ArrowRight")
    settle(root, lambda s: "dilation=2" in s["sub"], "dilation → 2")
    click_thumb(page, ks)
    page.keyboard.press("End")
    st = settle(root, lambda s: "not allowed" in s["message"],
                "kernel_size → 5, refused")  # fmt: skip
    assert "kernel_size=5" in st["message"], st["message"]
    assert st["controls"]["kernel_size"] == 3 and "kernel_size=3" in st["sub"], st
    shot(page, "marimo-refused")

    # the bare view is live too: its kernel_size rebuilds it in Python
    other = players.nth(1)
    click_thumb(page, other.locator(".cgs-controls input[name=kernel_size]"))
    page.keyboard.press("ArrowRight")
    st = settle(other, lambda s: "kernel_size=3" in s["sub"],
                "→ on the bare view's kernel_size")  # fmt: skip
    assert st["steps"] != bare["steps"] and st["message"] == "", st
    assert [e for e in page.console_errors if "convgrad" in e or "cgs" in e] == []


# what has the focus, through shadow roots: "TAG.class > TAG.class"
FOCUS_PATH = """() => {
  const path = [];
  let a = document.activeElement;
  for (; a; a = a.shadowRoot && a.shadowRoot.activeElement) {
    const cls = String(a.className || '').split(' ')[0];
    path.push(a.tagName + (cls ? '.' + cls : ''));
  }
  return path.join(' > ');
}"""


def test_keys_move_a_player_in_the_marimo_editor(marimo_editor, page):
    """In ``marimo edit`` (its own keyboard shortcuts around the cells), the
    cells run from the editor's run button; the step slider's arrows and the
    forward button's arrows move the player, and the focus stays in it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(marimo_editor.base_url + "/", wait_until="domcontentloaded")
    # the editor's own "run all stale cells" (each cell has a run button
    # too); a click before the kernel is connected does nothing: again, then
    run_all = page.locator("button.mo-button[data-testid=run-button]")
    players = page.locator(".cgs")
    for _ in range(24):  # 2 min at most
        run_all.click(timeout=60_000)
        with contextlib.suppress(PlaywrightTimeout):
            players.first.wait_for(timeout=5_000)
            break
    players.nth(1).locator(".cgs-grid").first.wait_for(timeout=120_000)
    root = players.first
    start = settle(root, lambda s: s["cells"] > 0, "the view drawn")
    n = start["steps"]
    click_thumb(page, root.locator(".cgs-slider"))
    assert page.evaluate(FOCUS_PATH).endswith("INPUT.cgs-slider")
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
    st = settle(root, lambda s: s["step"] == 3, "→ → → ← on the step slider")
    assert names_step(st["caption"], 3, n), st
    assert page.evaluate(FOCUS_PATH).endswith("INPUT.cgs-slider")
    root.locator(".cgs-next").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")  # the player's: one step on
    st = settle(root, lambda s: s["step"] == 6, "→ ↓ on the forward button")
    assert names_step(st["caption"], 6, n), st
    assert page.evaluate(FOCUS_PATH).endswith("BUTTON.cgs-button"), (
        "the keys took the focus out of the player")
    page.locator("#heard").filter(has_text="frame 5 view 5 ").wait_for(
        timeout=30_000)  # fmt: skip
    root.scroll_into_view_if_needed()
    shot(page, "marimo-edit")
    assert [e for e in page.console_errors if "convgrad" in e or "cgs" in e] == []
