"""Every lesson, run in JupyterLab in headless Chromium, as a learner would.

nbval proves the lessons' code runs; this proves a learner sees it, in a 1280x800
window with JupyterLab's default layout (the file browser open): no error output on
screen; each live view's scene player drawn in the DOM, its caption one of the kernel's
views'; and every output, views and plain figures alike, as wide as its output area
at most, with the file browser open and closed. On the col2im and max-pool lessons
the player is used: a step, the slider, Play at 16x with both cores busy (no comm
message while it plays), Reset, and the keyboard.
A screenshot of each lesson's first view goes to artifacts/browser/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_harness import (
    REPO,
    OpenNotebook,
    assert_fits,
    assert_no_errors,
    assert_views_shown,
    check_interaction,
    check_view_shown,
    file_digest,
    is_interactive,
    lesson_paths,
    measure_fit,
    open_and_run,
    screenshot_figures,
    screenshot_view,
    view_cells,
    wait_views_rendered,
)

pytestmark = pytest.mark.browser

LESSONS = lesson_paths()


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_in_browser(lesson: Path, lab_server, page, artifacts_dir) -> None:
    relpath = lesson.relative_to(REPO).as_posix()
    created = view_cells(lesson)
    digest = file_digest(lesson)
    nb = OpenNotebook(page, lab_server, relpath, artifacts_dir, lesson.stem)
    try:
        report = open_and_run(nb)
        wait_views_rendered(nb, len(created))
        views = nb.view_outputs()
        shot = screenshot_view(nb, views[0] if views else None)
        assert_no_errors(nb, report)
        assert_views_shown(nb, report, created)
        states = {view: check_view_shown(nb, *view) for view in views}
        # The default layout first (file browser open), then the browser closed.
        fits = [measure_fit(nb, states, file_browser=True)]
        shot = screenshot_view(nb, views[0] if views else None)  # the kernel's figure
        screenshot_figures(nb, fits[0]["outputs"])
        fits.append(measure_fit(nb, states, file_browser=False))
        nb.set_file_browser(True)
        assert_fits(nb, fits)
        if is_interactive(lesson):
            if not views:
                raise nb.fail("this lesson must have a live view to drag (none found)")
            check_interaction(nb, *views[0], states[views[0]])
        # every other view, once the first view's checks are done: NAME-viewK
        for k, view in enumerate(views[1:], start=2):
            screenshot_view(nb, view, f"-view{k}")
        assert shot.is_file(), f"no screenshot written at {shot}"
    finally:
        nb.close()
    assert file_digest(lesson) == digest, (
        f"{relpath} changed on disk while the browser had it open (autosave?); "
        f"screenshot: {nb.last_shot}"
    )
