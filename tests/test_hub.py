"""A small class on a real JupyterHub, on loopback (the ``hub`` marker).

Three students log in to a JupyterHub with configurable-http-proxy,
SimpleLocalProcessSpawner and DummyAuthenticator, each follows the nbgitpuller
link that ``python -m convgrad.course link`` writes (through the hub's
``user-redirect``, the not-running page's launch button, nbgitpuller's page
and its clone), then runs lessons 00 and 03 through their own server's
kernel. Everything the hub started must be gone afterwards.

Slow and needs extra installs (``pip install -e ".[hub]"`` and ``npm install
--prefix ~/.cache/convgrad/chp configurable-http-proxy@5.3.0``), so it runs
only when asked: ``CONVGRAD_RUN_HUB=1`` (which also turns a missing install
into a failure) or ``-m hub``. The README's test command skips it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REQUIRE = os.environ.get("CONVGRAD_RUN_HUB") == "1"
STUDENTS = 3
TIMEOUT = 240  # seconds for the whole class, whatever the machine's load


def _selected(config: pytest.Config) -> bool:
    expr = config.getoption("-m") or ""
    named = re.search(r"\bhub\b", expr) and not re.search(r"\bnot hub\b", expr)
    return REQUIRE or bool(named)


def _hub_load():
    missing = [m for m in ("jupyterhub", "nbgitpuller", "psutil")
               if importlib.util.find_spec(m) is None]
    if missing:
        message = f"missing {missing}: pip install -e '.[hub]'"
        if REQUIRE:
            pytest.fail(message)
        pytest.skip(message)
    spec = importlib.util.spec_from_file_location(
        "hub_load", REPO / "benchmarks" / "hub_load.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["hub_load"] = module
    spec.loader.exec_module(module)
    try:
        module.find_chp()
    except FileNotFoundError as err:
        if REQUIRE:
            pytest.fail(str(err))
        pytest.skip(str(err))
    return module


@pytest.mark.hub
def test_a_class_of_three_pulls_and_runs_two_lessons(request):
    if not _selected(request.config):
        pytest.skip("slow (about a minute): CONVGRAD_RUN_HUB=1 or -m hub")
    hub_load = _hub_load()
    import psutil

    before = {p.pid for p in psutil.process_iter()}
    run = asyncio.run(hub_load.run_class(
        STUDENTS, chp=hub_load.find_chp(), timeout=TIMEOUT, cell_timeout=TIMEOUT,
    ))
    report = {k: v for k, v in vars(run).items() if k != "records"}
    print(report)
    assert run.errors == [], report
    assert run.success_rate == 1.0, report
    for rec in run.records:
        # the link was followed: nbgitpuller cloned, then both lessons ran
        assert rec["pull_s"] is not None and rec["pull_s"] > 0
        assert set(rec["lesson_s"]) == set(hub_load.LESSONS)
        assert rec["cells"] >= 10
        assert 0 < rec["spawn_s"] < rec["first_output_s"] < rec["total_s"]
        # a server with two live kernels: measured, and plausible
        assert 100 < rec["peak_pss_mb"] < 2000, rec
        assert rec["cpu_s"] > 0
    # shut down by PID: nothing the hub started is left
    assert run.survivors == []
    left = [p for p in psutil.process_iter(["pid", "cmdline"])
            if p.info["pid"] not in before
            and any("hub-load-" in a for a in p.info["cmdline"] or [])]
    assert left == []
