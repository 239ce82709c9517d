"""A view's picture and its player, side by side: one layout rule.

The painter (convgrad.viz.painter) lays a scene out as scene.js does on a
page as wide as the picture. Here scene.js lays the same scenes out in
Chromium, on a page of that width: the cell chosen, each grid's size and
whether it shows numbers agree with the picture's (but for a grid wider
than the page, which scrolls there and takes smaller cells in the picture).
The picture and the player's screenshot go to artifacts/pictures/, to be
compared by eye.
"""

from __future__ import annotations

import html

import pytest
from browser_harness import REPO

from convgrad import viz
from convgrad.viz.export import element_html, renderer_html

pytestmark = pytest.mark.browser

SHOTS = REPO / "artifacts" / "pictures"
CASES = {
    "col2im": lambda: viz.Col2imView(),
    "maxpool": lambda: viz.MaxPoolForwardView(),
    "col2im-64x64": lambda: viz.Col2imView(input_size=(64, 64)),
    "checkerboard": lambda: viz.GradientCheckerboardView(),
    "batchnorm": lambda: viz.BatchNormBackwardView(),
    "normsets": lambda: viz.NormSetsView(kind="group"),
}

GRIDS = """() => [...document.querySelectorAll('.cgs svg.cgs-grid')].map(s => ({
  title: s.getAttribute("aria-label"),
  width: +s.getAttribute('width'), height: +s.getAttribute('height'),
  numbers: s.getAttribute('data-numbers') === '1'}))"""


@pytest.mark.parametrize("name", list(CASES))
def test_the_picture_is_laid_out_as_the_player_in_a_host_of_its_size(page, name):
    view = CASES[name]()
    try:
        view.update(min(view.n_frames - 1, 12))
        painter = view.painter
        sc = view.scene()
        inner = painter.width - 12  # the picture's margins
        host = f"width:{inner}px"
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}-player.html"
        path.write_text(
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(name)}</title></head><body style='margin:0'>"
            f"<div style='{host}'>{element_html(sc)}</div>{renderer_html()}"
            "</body></html>", encoding="utf-8")  # fmt: skip
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(path.as_uri())
        page.wait_for_function("document.querySelector('.cgs svg.cgs-grid')")
        page.locator(".cgs").focus()
        for _ in range(view.frame):  # to the picture's step
            page.keyboard.press("ArrowRight")
        assert not page.console_errors, page.console_errors
        root = page.locator(".cgs")
        assert root.get_attribute("data-frame") == str(view.frame)
        cell = float(root.get_attribute("data-cell"))
        assert abs(cell - painter.cell) <= 0.06, (cell, painter.cell)
        grids = page.evaluate(GRIDS)
        assert len(grids) == len(painter.panels)
        by_title = {pn.p["title"]: pn for pn in painter.panels}
        for got in grids:
            pn = by_title[got["title"]]
            if pn.shrunk:  # wider than the page: it scrolls there, fits here
                assert got["width"] > inner >= pn.width, (pn.p["id"], got)
                continue
            assert got["numbers"] == pn.numbers, pn.p["id"]
            assert abs(got["width"] - pn.width) <= 1, (pn.p["id"], got, pn.width)
            assert abs(got["height"] - pn.height) <= 1, (pn.p["id"], got, pn.height)
        root.screenshot(path=str(SHOTS / f"{name}-player.png"))
        (SHOTS / f"{name}-picture.png").write_bytes(view.png())
    finally:
        view.close()
