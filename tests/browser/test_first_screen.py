"""What a learner sees first: the README's course command in a real browser.

The README's command installs JupyterLab's settings for the course
(``binder/jupyter/install.py``, which ``binder/postBuild`` runs for Binder
and the hub image too) and starts JupyterLab. This test runs that settings
step into a fresh folder, starts JupyterLab with it as the app settings
folder and an empty user-settings folder (a learner's first start, not the
other browser tests' own ``LAB_SETTINGS``), opens lesson 00, and runs it:
the kernel starts with no "Select Kernel" dialog, Run All runs every cell,
and no news popup covers the outputs.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

import pytest
from browser_harness import (
    REPO,
    LabServer,
    OpenNotebook,
    assert_no_errors,
    open_and_run,
    require_browser,
)

LESSON = "00-start-here"
#: a JupyterLab dialog, and a notification toast (the news question)
DIALOG = ".jp-Dialog"
TOAST = ".Toastify__toast"


def course_command() -> list[list[str]]:
    """The README's course command, as its ``&&``-separated steps."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- course-command -->\s*```bash\n(.*?)\n```", text, re.S)
    assert block, "README.md has no course command"
    return [shlex.split(step) for step in block.group(1).split("&&")]


def test_the_course_command_installs_the_settings_before_jupyterlab():
    steps = course_command()
    names = [" ".join(step[:2]) for step in steps]
    settings = names.index("python binder/jupyter/install.py")
    assert names[settings + 1].startswith("jupyter lab"), names
    assert names[0] == "python -m" and steps[0][2:4] == ["pip", "install"]


@pytest.fixture
def learner_lab(tmp_path, artifacts_dir):
    require_browser()
    # the README's settings step, as written there, into a folder of its own
    step = next(s for s in course_command() if s[1:2] == ["binder/jupyter/install.py"])
    app_settings = tmp_path / "lab-settings"
    subprocess.run(
        [sys.executable, *step[1:], "--lab-dir", str(app_settings)],
        cwd=REPO, check=True, capture_output=True, text=True, timeout=120,
    )
    assert (app_settings / "overrides.json").is_file()
    # a copy of the lesson: a learner's JupyterLab autosaves
    root = tmp_path / "course"
    (root / "notebooks").mkdir(parents=True)
    shutil.copy(REPO / "notebooks" / f"{LESSON}.ipynb", root / "notebooks")
    server = LabServer(root=root, log_path=artifacts_dir / "first-screen-server.log",
                       own_settings=False, app_settings_dir=app_settings)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.mark.browser
def test_lesson_00_runs_with_no_dialog_on_a_learners_first_screen(
    learner_lab, page, artifacts_dir
):
    nb = OpenNotebook(page, learner_lab, f"notebooks/{LESSON}.ipynb",
                      artifacts_dir, f"first-screen-{LESSON}")
    try:
        # open() waits for the kernel: it starts only if nobody must pick one
        report = open_and_run(nb)
        assert page.locator(DIALOG).count() == 0, "a dialog is open"
        assert_no_errors(nb, report)
        ran = [r for r in report if r["source"].strip()]
        assert ran and all(r["count"] is not None for r in ran)
        page.wait_for_timeout(1000)  # the news question comes a moment after start
        toasts = page.locator(TOAST).all_inner_texts()
        nb.screenshot()
        assert toasts == [], f"notifications cover the outputs: {toasts}"
        assert page.locator(DIALOG).count() == 0
    finally:
        nb.close()
