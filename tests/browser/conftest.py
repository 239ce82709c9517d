"""Fixtures for the real-browser test: one JupyterLab server, one Chromium, per session.

Both are started lazily by the first browser test and stopped by their own handles at
the end of the session, whatever happened (finalizers). Missing chromium/playwright
skips the tests, or fails them when CONVGRAD_REQUIRE_BROWSER=1 (CI).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_harness import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    FIT_RECORDS,
    REPO,
    WINDOW,
    LabServer,
    fit_table,
    require_browser,
)


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def lab_server(artifacts_dir: Path) -> Iterator[LabServer]:
    """A real JupyterLab server rooted at the repository, stopped whatever happens."""
    require_browser()
    log = artifacts_dir / "jupyter-server.log"
    for attempt in range(3):  # a free port can be taken before the server binds it
        server = LabServer(root=REPO, log_path=log)
        try:
            server.start()
            break
        except RuntimeError:
            server.stop()
            if attempt == 2:
                raise
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser_context(artifacts_dir: Path, request) -> Iterator[object]:
    """Debian's Chromium, headless, with a fresh temporary profile."""
    require_browser()
    pw = request.getfixturevalue("playwright_driver")  # shared, see tests/conftest

    profile = tempfile.mkdtemp(prefix="convgrad-chromium-")
    context = None
    try:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=WINDOW,
            device_scale_factor=1,
        )
        context.set_default_timeout(30_000)
        yield context
    finally:
        if context is not None:
            context.close()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser_context) -> Iterator[object]:
    """A fresh tab per test; console errors are kept on ``page.console_errors``."""
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.console_errors = errors
    try:
        yield page
    finally:
        page.close()


def pytest_terminal_summary(terminalreporter) -> None:
    """The fit measurements of this run: output area, canvas, widget box (CSS px)."""
    if FIT_RECORDS:
        terminalreporter.section("browser: how the outputs fit")
        for line in fit_table(FIT_RECORDS):
            terminalreporter.write_line(line)
