"""CI's step 8 (a read-only install, a first conv as user ``nobody``) runs
from any clone: nobody runs only what the step copied into the install's
own folder, and starts in ``/``, never in the clone, which may sit under a
folder only its owner can enter (a home of mode 700, a ``mktemp -d``).

The fast test reads the step from ``.ci/run``. The real one runs the
step's commands on a clone inside a mode-700 folder; it needs root,
``setpriv``, Debian's ``/usr/bin/python3`` with pip, and the package index,
so it runs only with ``CONVGRAD_RUN_CI_STEP=1``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def step_8() -> str:
    text = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    m = re.search(r'^stamp "8\..*?(?=^stamp "CI passed")', text, re.M | re.S)
    assert m, "no step 8 in .ci/run"
    return m.group(0)


def test_nobody_runs_nothing_from_the_clone():
    step = step_8()
    unprivileged = step[step.index("setpriv"):]
    unprivileged = unprivileged[: unprivileged.index(")\n")]
    # the one file nobody runs is in "$ro", copied there before it is locked
    assert re.search(r'/usr/bin/python3 "\$ro/first_conv\.py"', unprivileged)
    assert ".ci/" not in unprivileged
    copy = step.index('cp .ci/first_conv.py "$ro/')
    assert copy < step.index('chmod -R a+rX,a-w "$ro"') < step.index("setpriv")
    # and starts outside the clone
    assert re.search(r"\(cd / && setpriv", step)


@pytest.mark.skipif(os.environ.get("CONVGRAD_RUN_CI_STEP") != "1",
                    reason="installs from the package index; CONVGRAD_RUN_CI_STEP=1")
def test_step_8_passes_in_a_clone_under_a_private_folder(tmp_path):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    clone = private / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    # the working tree's step, in case it is not committed yet
    shutil.copy(REPO / ".ci" / "run", clone / ".ci" / "run")
    shutil.copy(REPO / ".ci" / "first_conv.py", clone / ".ci" / "first_conv.py")
    script = 'set -euo pipefail; stamp() { echo "=== $*"; }\n' + step_8()
    r = subprocess.run(["bash", "-c", script], cwd=clone, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "first conv from a read-only install as uid 65534: ok" in r.stdout
