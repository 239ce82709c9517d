"""The harness, proved on a throwaway notebook (not a lesson).

The notebook uses ipympl (`%matplotlib widget`), a Play jslinked to an IntSlider that
redraws the figure and its caption, a stderr print (which is not an error) and a last
cell that raises (which is). The test checks that the harness sees exactly that.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest
from browser_harness import (
    CANVAS,
    REPO,
    Failure,
    OpenNotebook,
    assert_no_errors,
    assert_views_shown,
    check_interaction,
    check_view_shown,
    open_and_run,
    screenshot_view,
    view_cells,
    wait_canvas_shows,
    wait_views_rendered,
)

pytestmark = pytest.mark.browser

SETUP = """\
%matplotlib widget
import sys

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np"""

DEMO_VIEW = '''\
class DemoView:
    """A stand-in for a convgrad view: one figure, update(i) moves a highlight."""

    def __init__(self, n=6):
        self.n_frames = n * n
        self.n = n
        with plt.ioff():
            self.fig, ax = plt.subplots(figsize=(4, 4))
        ax.imshow(np.arange(n * n).reshape(n, n), cmap="Greys")
        (self.box,) = ax.plot([], [], "r-", lw=3)
        self.text = self.fig.suptitle("")
        self.update(0)

    @property
    def caption(self):
        return self.text.get_text()

    def update(self, i):
        r, c = divmod(i, self.n)
        self.box.set_data([c - .5, c + .5, c + .5, c - .5, c - .5],
                          [r - .5, r - .5, r + .5, r + .5, r - .5])
        self.text.set_text(f"step {i + 1}/{self.n_frames}: pixel ({r}, {c})")

    def widget(self):
        play = widgets.Play(min=0, max=self.n_frames - 1, interval=150)
        slider = widgets.IntSlider(min=0, max=self.n_frames - 1)
        widgets.jslink((play, "value"), (slider, "value"))

        def on_step(change):
            self.update(change["new"])
            self.fig.canvas.draw_idle()

        slider.observe(on_step, names="value")
        return widgets.VBox([widgets.HBox([play, slider]), self.fig.canvas])'''


def _demo_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3", "display_name": "Python 3", "language": "python"
    }  # fmt: skip
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Harness self-test"),
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell(DEMO_VIEW),
        # Written as viz.<Name>View( so the JSON scan counts it like a lesson's view.
        nbformat.v4.new_code_cell(
            "class viz:\n    DemoView = DemoView\n\n"
            "view = viz.DemoView()\nview.widget()"
        ),
        nbformat.v4.new_code_cell("print('a warning, not an error', file=sys.stderr)"),
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
    assert created == [(3, ["DemoView"])]
    nb = OpenNotebook(page, lab_server, relpath, artifacts_dir, "selftest")
    try:
        report = open_and_run(nb)
        wait_views_rendered(nb, len(created))
        views = nb.view_outputs()
        assert views == [(3, 0)], views
        state = check_view_shown(nb, *views[0])
        assert state["view"]["type"] == "DemoView"
        assert state["slider"] == {"value": 0, "min": 0, "max": 35}
        assert screenshot_view(nb, views[0]).is_file()
        # The pixel comparison can fail: a figure one step on is not what is shown.
        canvas = nb.output_locator(*views[0]).locator(CANVAS).first
        other = dict(state["signature"])
        other["values"] = [v + 40 * (i % 2) for i, v in enumerate(other["values"])]
        with pytest.raises(Failure, match="does not show the kernel's figure"):
            wait_canvas_shows(nb, canvas, other, "self-test", timeout=1)

        by_index = {row["index"]: row for row in report}
        # stderr is shown, and looks exactly like a traceback in the DOM (same
        # mime type), but is not an error; the raising cell is one.
        stderr = '[data-mime-type="application/vnd.jupyter.stderr"]'
        assert nb.panel().locator(stderr).count() == 2
        assert by_index[4]["domErrors"] == [] and by_index[4]["modelErrors"] == []
        assert by_index[5]["modelErrors"] == ["ValueError: deliberate failure"]
        assert len(by_index[5]["domErrors"]) == 1, by_index[5]
        assert "ValueError" in by_index[5]["domErrors"][0]
        assert "deliberate failure" in by_index[5]["domErrors"][0]
        assert [r["index"] for r in report if r["domErrors"]] == [5]

        # The lesson check fails on it, and its message names the screenshot.
        with pytest.raises(Failure, match=r"cell 5 shows an error[\s\S]*screenshot: "):
            assert_no_errors(nb, report)
        assert by_index[6]["count"] is None  # stopped after the error
        # Without the error, the cell that never ran is reported.
        tagged = [{**r, "tags": ["raises-exception"]} for r in report]
        with pytest.raises(Failure, match=r"code cells \[6\] never ran"):
            assert_no_errors(nb, tagged)
        assert_views_shown(nb, report, created)
        # A view created without being shown is reported.
        with pytest.raises(Failure, match="DemoView created in cell 4: no ipympl"):
            assert_views_shown(nb, report, [*created, (4, ["DemoView"])])

        result = check_interaction(nb, *views[0], state)
        moved = result["moved_to"]
        assert result["after"]["view"]["caption"].startswith(f"step {moved + 1}/36")
        assert result["shot"].is_file()
    finally:
        nb.close()
    assert not [
        s for s in lab_server.api("GET", "/api/sessions") if s["path"] == relpath
    ], "the notebook's kernel was not shut down"
