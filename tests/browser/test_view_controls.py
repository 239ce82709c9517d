"""A player's own controls, in the browser (issue 44).

- Any text is safe in any page: a view named ``<!--<script>`` or
  ``</script>`` is drawn, and the text after it stays in the page.
- In JupyterLab the keys pressed on a player's control move that control,
  never the notebook's active cell, and focus stays on the control.
- A refused parameter puts its slider back on the scene's value.

Screenshots go to artifacts/browser/view-controls/ for a look by eye.
"""

from __future__ import annotations

import html

import pytest
from browser_harness import ARTIFACTS

from convgrad import viz

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "view-controls"

# what the page shows of each embedded view, and of the text after them
EMBEDDED = """() => [...document.querySelectorAll('.convgrad-scene')].map(v => ({
  mounted: v.dataset.mounted,
  title: (v.querySelector('.cgs-title') || {}).textContent,
  cells: v.querySelectorAll('.cgs-grid rect').length,
  caption: (v.querySelector('.cgs-caption') || {}).textContent || '',
}))"""


@pytest.mark.parametrize("name", ["<!--<script>", "</script>"],
                         ids=["comment", "end-tag"])  # fmt: skip
def test_a_views_text_cannot_swallow_the_page(page, name):
    view = viz.Col2imView(input_size=(4, 4), kernel_size=2, names=(name, "dx"))
    other = viz.Col2imView(input_size=(4, 4), kernel_size=2)
    body = (
        "<h1>before</h1>" + view.to_jshtml()
        + "<p id='after'>the text after the view</p>"
        + other.to_jshtml() + "<p id='last'>the end of the page</p>"
    )  # fmt: skip
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"swallow-{'comment' if '!' in name else 'end-tag'}.html"
    path.write_text(f"<!doctype html><html><head><meta charset='utf-8'>"
                    f"<title>{html.escape(name)}</title></head><body>{body}"
                    "</body></html>", encoding="utf-8")  # fmt: skip
    page.set_viewport_size({"width": 1280, "height": 2400})  # both views in sight
    page.goto(path.as_uri())
    for _ in range(100):  # up to 10 s; the assert below says what is missing
        views = page.evaluate(EMBEDDED)
        if len(views) == 2 and all(v["mounted"] == "1" for v in views):
            break
        page.wait_for_timeout(100)
    page.screenshot(path=str(SHOTS / (path.stem + ".png")), full_page=True)
    assert [v["title"] for v in views] == [view.title, other.title], (
        f"the page holds {views}, not the two views")
    assert all(v["mounted"] == "1" for v in views)
    assert name in views[0]["title"] and name in views[0]["caption"]
    assert all(v["cells"] >= 16 for v in views)
    for which, text in [("after", "the text after the view"),
                        ("last", "the end of the page")]:  # fmt: skip
        shown = page.locator(f"#{which}")
        assert shown.is_visible() and shown.text_content() == text
    assert page.console_errors == []
    view.close()
    other.close()
