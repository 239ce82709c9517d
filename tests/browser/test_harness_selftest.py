"""The harness, proved on a throwaway notebook (not a lesson).

The notebook shows a real convgrad view (its scene player), a plain figure too
wide for the output area, a stderr print (which is not an error), a line that
wraps at a run of spaces (the spaces hang past the edge, drawing nothing: no
overflow) and a last cell that raises (which is). The test checks that the
harness sees exactly that: the view and its player, the too-wide figure, the
one error.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest
from browser_harness import (
    REPO,
    Failure,
    OpenNotebook,
    assert_fits,
    assert_no_errors,
    assert_views_shown,
    check_interaction,
    check_view_shown,
    fit_problems,
    measure_fit,
    open_and_run,
    screenshot_view,
    view_cells,
    wait_views_rendered,
)

pytestmark = pytest.mark.browser

SETUP = """\
import sys

import matplotlib.pyplot as plt

from convgrad import viz"""

# a picture drawn 1100 px wide, wider than the 848-px output area (an inline
# figure is scaled down to fit, so this one refuses to be)
TOO_WIDE = """\
from IPython.display import HTML
HTML('<img alt="wide" style="width:1100px;max-width:none;height:30px" '
     'src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">')"""


def _demo_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3", "display_name": "Python 3", "language": "python"
    }  # fmt: skip
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Harness self-test"),
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell(
            "view = viz.Col2imView(input_size=(4, 4), kernel_size=2, stride=1)\n"
            "view.widget()"
        ),
        nbformat.v4.new_code_cell(TOO_WIDE),
        nbformat.v4.new_code_cell("print('a warning, not an error', file=sys.stderr)"),
        # wraps after the spaces, which hang past the edge: nothing drawn there
        nbformat.v4.new_code_cell("print('a' + ' ' * 300 + 'b')"),
        nbformat.v4.new_code_cell("raise ValueError('deliberate failure')"),
        # run-all stops at the error: this one never runs, and the wait must end.
        nbformat.v4.new_code_cell("print('never runs')"),
    ]
    return nb


@pytest.fixture
def demo_path(artifacts_dir: Path):
    tmp = Path(tempfile.mkdtemp(prefix="selftest-", dir=artifacts_dir))
    path = tmp / "selftest.ipynb"
    nbformat.write(_demo_notebook(), path)
    yield path
    shutil.rmtree(tmp, ignore_errors=True)


def test_harness_on_a_throwaway_notebook(demo_path, lab_server, page, artifacts_dir):
    relpath = demo_path.relative_to(REPO).as_posix()
    created = view_cells(demo_path)
    assert created == [(2, ["Col2imView"])]
    nb = OpenNotebook(page, lab_server, relpath, artifacts_dir, "selftest")
    try:
        report = open_and_run(nb)
        wait_views_rendered(nb, len(created))
        views = nb.view_outputs()
        assert views == [(2, 0)], views
        state = check_view_shown(nb, *views[0])
        assert state["view"]["min_text_px"] >= 12
        shown = nb.player(nb.output_locator(*views[0]))
        assert shown["steps"] == 36 and shown["step"] == 1, shown
        assert shown["toggle"] == "Play" and not shown["untitled"], shown
        assert [v["n"] for v in nb.kernel_views()] == [36]
        assert screenshot_view(nb, views[0]).is_file()

        # The fit check: the view fits, the 1100-px figure does not, whatever the
        # layout; a player taller than the visible notebook is reported.
        opened = measure_fit(nb, {views[0]: state}, file_browser=True, keep=False)
        closed = measure_fit(nb, {views[0]: state}, file_browser=False, keep=False)
        nb.set_file_browser(True)
        assert opened["layout"]["fileBrowserShown"], opened["layout"]
        assert opened["layout"]["window"] == [1280, 800], opened["layout"]
        for rec in (opened, closed):
            assert rec["problems"], rec
            assert all(
                p.startswith("cell 3 output 0 (figure)") for p in rec["problems"]
            ), rec["problems"]
        with pytest.raises(
            Failure, match=r"file browser open[^\n]*cell 3 output 0 \(figure\): "
        ):
            assert_fits(nb, [opened, closed])
        short = {**opened["layout"], "visibleHeight": 100}
        assert any(
            p.startswith("cell 2 output 0 (view): the view's controls, caption and")
            for p in fit_problems(opened["outputs"], short)
        )

        by_index = {row["index"]: row for row in report}
        # stderr is shown, and looks exactly like a traceback in the DOM (same
        # mime type), but is not an error; the raising cell is one.
        stderr = '[data-mime-type="application/vnd.jupyter.stderr"]'
        assert nb.panel().locator(stderr).count() == 2
        assert by_index[4]["domErrors"] == [] and by_index[4]["modelErrors"] == []
        assert by_index[6]["modelErrors"] == ["ValueError: deliberate failure"]
        assert len(by_index[6]["domErrors"]) == 1, by_index[6]
        assert "ValueError" in by_index[6]["domErrors"][0]
        assert "deliberate failure" in by_index[6]["domErrors"][0]
        assert [r["index"] for r in report if r["domErrors"]] == [6]

        # The lesson check fails on it, and its message names the screenshot.
        with pytest.raises(Failure, match=r"cell 6 shows an error[\s\S]*screenshot: "):
            assert_no_errors(nb, report)
        assert by_index[7]["count"] is None  # stopped after the error
        # Without the error, the cell that never ran is reported.
        tagged = [{**r, "tags": ["raises-exception"]} for r in report]
        with pytest.raises(Failure, match=r"code cells \[7\] never ran"):
            assert_no_errors(nb, tagged)
        assert_views_shown(nb, report, created)
        # A view created without being shown is reported.
        with pytest.raises(Failure, match="Col2imView created in cell 4: no drawn"):
            assert_views_shown(nb, report, [*created, (4, ["Col2imView"])])

        result = check_interaction(nb, *views[0], state, hog=False)
        assert result["comm_messages"] == 0 and result["reached"] >= 34, result
    finally:
        nb.close()
    assert not [
        s for s in lab_server.api("GET", "/api/sessions") if s["path"] == relpath
    ], "the notebook's kernel was not shut down"
