"""Shared fixtures. The torch-oracle helper lives in ``oracle.py``."""

from __future__ import annotations

import os

import numpy as np
import pytest
from oracle import _torch

import convgrad as cg
from convgrad.backend import BACKENDS


@pytest.fixture(scope="session")
def torch():
    """The torch module; skips (or, in CI, fails) when it is missing."""
    return _torch()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def _backends_under_test() -> list[str]:
    """Both backends; only the one ``CONVGRAD_BACKEND`` names when it is
    set (CI's NumPy-backend pass, ``.ci/run`` step 2b, runs the oracle
    modules once more on NumPy alone, not on Numba a second time)."""
    chosen = os.environ.get("CONVGRAD_BACKEND")
    return [chosen] if chosen in BACKENDS else list(BACKENDS)


@pytest.fixture(scope="module", params=_backends_under_test())
def each_backend(request):
    """Run a whole test module once per backend: the oracle suite must pass
    on the Numba kernels and on the NumPy reference alike."""
    with cg.use_backend(request.param):
        yield request.param


@pytest.fixture(scope="session")
def playwright_driver():
    """The one Playwright driver of the session.

    ``sync_playwright()`` refuses to start while another one runs, so every
    browser test (the lessons in JupyterLab, the offline slide decks) shares
    this one. Missing playwright skips, or fails when
    ``CONVGRAD_REQUIRE_BROWSER=1`` (CI).
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        why = "the playwright package is not installed (.ci/install-browser)"
        if os.environ.get("CONVGRAD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{why}; CONVGRAD_REQUIRE_BROWSER=1")
        pytest.skip(why)
    driver = sync_playwright().start()
    try:
        yield driver
    finally:
        driver.stop()
