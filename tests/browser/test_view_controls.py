"""A player's own controls, in the browser (issue 44).

- Any text is safe in any page: a view named ``<!--<script>`` or
  ``</script>`` is drawn, and the text after it stays in the page.
- In JupyterLab the keys pressed on a player's control move that control,
  never the notebook's active cell, and focus stays on the control.
- A refused parameter puts its slider back on the scene's value.
- On a phone (390x844, a finger), no grid is wider than the screen (a wide
  one takes smaller cells or is turned) and every control is 44 px.

Screenshots go to artifacts/browser/view-controls/ for a look by eye.
"""

from __future__ import annotations

import html
import json

import numpy as np
import pytest
from browser_harness import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    OpenNotebook,
    assert_no_errors,
    open_and_run,
    require_browser,
    wait_views_rendered,
)

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


def test_a_page_loads_the_renderer_once_for_all_its_views(page):
    """A page of three views, the renderer kept once (``one_renderer``, as
    a deck and a site page are): every view is drawn and steps, and a view
    added to the page later draws itself (the module defines the element)."""
    from convgrad.viz.export import element_html, one_renderer

    views = [viz.Col2imView(input_size=(4, 4), kernel_size=2),
             viz.OverlapView(input_size=(5, 5)),
             viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2, stride=2)]
    body = one_renderer("".join(v.to_jshtml() for v in views))
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "one-renderer.html"
    path.write_text("<!doctype html><html><head><meta charset='utf-8'></head>"
                    f"<body>{body}</body></html>", encoding="utf-8")  # fmt: skip
    page.set_viewport_size({"width": 1280, "height": 3000})  # all in sight
    page.goto(path.as_uri())
    page.wait_for_function("document.querySelectorAll('.cgs svg.cgs-grid').length"
                           " >= 3")  # fmt: skip
    assert page.evaluate("document.querySelectorAll('script[type=module]').length") == 1
    later = viz.AvgPoolSpreadView()
    page.evaluate("(html) => document.body.insertAdjacentHTML('beforeend', html)",
                  element_html(later.scene()))  # fmt: skip
    page.wait_for_function(
        "[...document.querySelectorAll('.convgrad-scene')].every("
        "v => v.dataset.mounted === '1' && v.querySelector('.cgs-grid'))")
    views.append(later)
    shown = page.evaluate(EMBEDDED)
    assert [v["title"] for v in shown] == [v.title for v in views]
    for k in range(len(views)):
        player = page.locator(".convgrad-scene").nth(k)
        player.locator(".cgs-next").click()
        assert player.locator(".cgs-caption").text_content().startswith("step 2/")
    page.screenshot(path=str(SHOTS / "one-renderer.png"), full_page=True)
    assert page.console_errors == []
    for v in views:
        v.close()


# --------------------------------------------------------------------------
# in JupyterLab: a notebook whose view has cells below it (arrow keys in
# command mode would move the active cell there)

LAB_CELLS = [
    ("markdown", "# The keys of a player"),
    ("code", "from convgrad import viz\n\n"
             "view = viz.Col2imView(input_size=(5, 5), kernel_size=2)\n"
             "ui = view.widget()\n"
             "ui"),
    ("markdown", "## Below the view"),
    ("code", "below = 1"),
    ("markdown", "## Further below"),
    ("code", "further = 2"),
    ("markdown", "## Summary"),
]
VIEW_CELL = 1

# what the keys touch: the active cell, the focused element, the controls
STATE = """(cellIndex) => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const notebook = window.jupyterapp.shell.currentWidget.content;
  const cell = panel.querySelectorAll('.jp-Notebook .jp-Cell')[cellIndex];
  const root = cell.querySelector('.cgs');
  const a = document.activeElement;
  const controls = {};
  root.querySelectorAll('.cgs-controls input').forEach(i => {
    controls[i.name] = i.type === 'checkbox' ? i.checked : +i.value;
  });
  return {
    active: notebook.activeCellIndex,
    mode: notebook.mode,
    focus: a === document.body ? 'body' :
      (root.contains(a) ? (a.name || a.className || a.tagName) : 'outside: ' +
       (a.className || a.tagName)),
    step: +root.querySelector('.cgs-slider').value,
    frame: +root.dataset.frame,
    speed: root.querySelector('.cgs-speed').value,
    controls,
    message: root.querySelector('.cgs-message').textContent,
    title: root.querySelector('.cgs-title').textContent,
  };
}"""


def _notebook() -> dict:
    cells = [
        {"cell_type": kind, "metadata": {}, "source": src,
         **({"execution_count": None, "outputs": []} if kind == "code" else {})}
        for kind, src in LAB_CELLS
    ]  # fmt: skip
    return {"cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "language": "python",
                                        "display_name": "Python 3"}},
            "nbformat": 4, "nbformat_minor": 5}  # fmt: skip


# every text the player's message shows from now on, in r.said
WATCH_MESSAGE = """(r) => {
  r.said = [];
  const m = r.querySelector('.cgs-message');
  new MutationObserver(records => records.forEach(x => x.addedNodes.forEach(
    n => r.said.push(n.textContent)))).observe(m, {childList: true});
}"""


def _click_thumb(page, control) -> None:
    """Click a range input on its thumb: focus, without moving it."""
    box = control.bounding_box()
    v = control.evaluate("(i) => [+i.value, +i.min, +i.max]")
    thumb = 16  # Chromium's range thumb, CSS px
    t = (v[0] - v[1]) / max(v[2] - v[1], 1)
    page.mouse.click(box["x"] + thumb / 2 + t * (box["width"] - thumb),
                     box["y"] + box["height"] / 2)  # fmt: skip


def _settle(nb, until, what: str) -> dict:
    """Poll the page (bounded) until ``until(state)`` holds."""
    for _ in range(300):  # 30 s: a rebuild on a busy kernel
        st = nb.page.evaluate(STATE, VIEW_CELL)
        if until(st):
            return st
        nb.page.wait_for_timeout(100)
    raise nb.fail(f"{what}: the player is at {st}")


def test_keys_on_a_players_controls_move_them_not_the_notebook(lab_server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "view-keys.ipynb"
    path.write_text(json.dumps(_notebook()), encoding="utf-8")
    relpath = str(path.relative_to(REPO))
    nb = OpenNotebook(page, lab_server, relpath, SHOTS, "view-keys")
    try:
        assert_no_errors(nb, open_and_run(nb))
        assert nb.layout()["fileBrowserShown"]
        wait_views_rendered(nb, 1)
        out = nb.output_locator(VIEW_CELL, 0)
        root = out.locator(".cgs").first
        with nb.failing_with_screenshot():
            out.scroll_into_view_if_needed(timeout=10_000)
            keys = page.keyboard

            # the step slider: → → ← is one step on, focus stays on it
            slider = root.locator(".cgs-slider")
            _click_thumb(page, slider)
            start = nb.page.evaluate(STATE, VIEW_CELL)
            assert (start["active"], start["focus"]) == (VIEW_CELL, "cgs-slider"), start
            for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
                keys.press(key)
            st = _settle(nb, lambda s: s["step"] == start["step"] + 1,
                         "→ → ← on the step slider")  # fmt: skip
            assert st["frame"] == start["step"], "the grid shows the slider's step"
            assert (st["active"], st["focus"]) == (VIEW_CELL, "cgs-slider"), st
            # Space plays and pauses; End and Home go to the ends
            keys.press("End")
            last = int(slider.get_attribute("max"))
            _settle(nb, lambda s: s["step"] == last, "End on the step slider")
            keys.press("Home")
            st = _settle(nb, lambda s: s["step"] == 1, "Home on the step slider")
            assert (st["active"], st["focus"]) == (VIEW_CELL, "cgs-slider"), st
            keys.press(" ")
            _settle(nb, lambda s: root.get_attribute("data-playing") == "1",
                    "Space on the step slider")  # fmt: skip
            keys.press(" ")
            st = _settle(nb, lambda s: root.get_attribute("data-playing") == "0",
                         "Space again")  # fmt: skip
            assert (st["active"], st["focus"]) == (VIEW_CELL, "cgs-slider"), st
            nb.screenshot("-after-step-keys")

            # the kernel_size slider: → is a new scene; focus stays on it
            ks = root.locator(".cgs-controls input[name=kernel_size]")
            _click_thumb(page, ks)
            before = nb.page.evaluate(STATE, VIEW_CELL)
            assert before["focus"] == "kernel_size", before
            keys.press("ArrowRight")
            want = before["controls"]["kernel_size"] + 1
            st = _settle(nb, lambda s: s["controls"]["kernel_size"] == want
                         and s["message"] == "", "→ on kernel_size")  # fmt: skip
            seen = nb.kernel_json("import json; print(json.dumps(ui.params))")
            assert seen["kernel_size"] == want
            st = _settle(nb, lambda s: s["focus"] == "kernel_size",
                         "focus after the new scene")  # fmt: skip
            assert st["active"] == VIEW_CELL, st
            keys.press("ArrowLeft")
            st = _settle(nb, lambda s: s["controls"]["kernel_size"] == want - 1
                         and s["message"] == "", "← on kernel_size")  # fmt: skip
            assert (st["active"], st["focus"]) == (VIEW_CELL, "kernel_size"), st

            # the speed menu: ↓ picks the next speed
            speed = root.locator(".cgs-speed")
            speed.focus()
            was = nb.page.evaluate(STATE, VIEW_CELL)
            keys.press("ArrowDown")
            st = _settle(nb, lambda s: s["speed"] != was["speed"],
                         "↓ on the speed menu")  # fmt: skip
            assert (st["active"], st["focus"]) == (VIEW_CELL, "cgs-speed"), st
            # a button's arrows are the player's: a step each
            root.locator(".cgs-next").click()
            was = _settle(nb, lambda s: s["step"] == 2, "the forward button")
            keys.press("ArrowRight")
            st = _settle(nb, lambda s: s["step"] == 3, "→ on the forward button")
            assert st["active"] == VIEW_CELL and "cgs-next" in st["focus"], st
            nb.screenshot("-after")
    finally:
        nb.close()


def test_a_refused_parameter_puts_its_slider_back(lab_server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "view-refused.ipynb"
    path.write_text(json.dumps(_notebook()), encoding="utf-8")
    relpath = str(path.relative_to(REPO))
    nb = OpenNotebook(page, lab_server, relpath, SHOTS, "view-refused")
    try:
        assert_no_errors(nb, open_and_run(nb))
        wait_views_rendered(nb, 1)
        out = nb.output_locator(VIEW_CELL, 0)
        root = out.locator(".cgs").first
        # the widget's state, and that of the view it plays now
        params = ("import json; print(json.dumps({**ui.params, "
                  "'view': ui.view.params['kernel_size']}))")
        with nb.failing_with_screenshot():
            out.scroll_into_view_if_needed(timeout=10_000)
            # dilation 2 is allowed (a 2x2 kernel spans 3 of 5 pixels) ...
            _click_thumb(page, root.locator(".cgs-controls input[name=dilation]"))
            page.keyboard.press("ArrowRight")
            _settle(nb, lambda s: s["controls"]["dilation"] == 2
                    and "dilation=2" in root.locator(".cgs-sub").text_content(),
                    "dilation → 2")  # fmt: skip
            # ... kernel_size 5 is not (it would span 9): the error is shown,
            # the slider and its readout go back to the scene's 2
            ks = root.locator(".cgs-controls input[name=kernel_size]")
            _click_thumb(page, ks)
            page.keyboard.press("End")
            st = _settle(nb, lambda s: "not allowed" in s["message"],
                         "kernel_size → 5, refused")  # fmt: skip
            assert "kernel_size=5" in st["message"], st["message"]
            assert st["controls"] == {"kernel_size": 2, "stride": 2, "padding": 0,
                                      "dilation": 2}, st  # fmt: skip
            readout = ks.locator("xpath=following-sibling::output").text_content()
            assert readout == "2"
            seen = nb.kernel_json(params)
            assert (seen["kernel_size"], seen["dilation"], seen["view"]) == (2, 2, 2)
            assert "kernel_size=2" in root.locator(".cgs-sub").text_content()
            assert (st["active"], st["focus"]) == (VIEW_CELL, "kernel_size"), st
            nb.screenshot("-after", out)
            nb.screenshot("-window")  # 1280x800, the file browser open
            # the same refused value again is answered again (once the
            # widget's params kept the refused values: no change, no answer):
            # the message goes from "computing…" back to the refusal
            root.evaluate(WATCH_MESSAGE)
            page.keyboard.press("End")
            st = _settle(nb, lambda s: "not allowed" in s["message"]
                         and s["controls"]["kernel_size"] == 2
                         and len(root.evaluate("r => r.said")) >= 2,
                         "kernel_size → 5 again")  # fmt: skip
            page.wait_for_timeout(300)  # nothing more is said
            said = root.evaluate("r => r.said")
            assert len(said) == 2 and said[0].startswith("computing"), said
            assert "not allowed" in said[1] and "kernel_size=5" in said[1], said
            # the next allowed value is taken from the scene's, not the refused
            page.keyboard.press("ArrowRight")
            st = _settle(nb, lambda s: s["controls"]["kernel_size"] == 3
                         and s["message"] == "", "kernel_size 2 → 3")  # fmt: skip
            assert nb.kernel_json(params)["kernel_size"] == 3
            assert nb.kernel_json(params)["view"] == 3
    finally:
        nb.close()


# --------------------------------------------------------------------------
# on a phone

PHONE = {"width": 390, "height": 844}
# per view: its grids (drawn width, the box it sits in, turned), its
# controls' sizes, its numbers' smallest font
FIT = """() => [...document.querySelectorAll('.cgs')].map(v => ({
  title: v.querySelector('.cgs-title').textContent,
  panels: [...v.querySelectorAll('figure.cgs-panel')].map(f => {
    const s = f.querySelector('.cgs-scroll'), g = f.querySelector('svg');
    const b = g.getBoundingClientRect();
    return {title: f.querySelector('figcaption').textContent,
            turned: f.dataset.turned, scroll: s.scrollWidth - s.clientWidth,
            right: b.right, w: b.width, h: b.height,
            cells: f.querySelectorAll('.cgs-grid > g > g:first-of-type rect').length};
  }),
  controls: [...v.querySelectorAll('button, select, input')].map(b => {
    const r = b.getBoundingClientRect();
    return [b.className || b.name, Math.round(r.width), Math.round(r.height)];
  }),
  font: Math.min(...[...v.querySelectorAll('.cgs-nums[font-size]')].map(
    g => parseFloat(g.getAttribute('font-size')))),
}))"""


@pytest.fixture(scope="module")
def phone(request):
    """Debian's Chromium as a phone: 390x844, touch (a coarse pointer)."""
    require_browser()
    pw = request.getfixturevalue("playwright_driver")
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        yield context
    finally:
        context.close()
        browser.close()


def test_on_a_phone_no_grid_scrolls_sideways_and_controls_are_44px(phone):
    k3 = np.linspace(-0.4, 0.4, 9).reshape(3, 3)
    views = [viz.ConvMatrixView(w=k3),  # lesson 03's C, 4x16: cut at column 11
             viz.Col2imView(),  # dcol 9x9 at legible numbers: 9 px too wide
             viz.OverlapView(input_size=(8, 8))]  # fits as it is
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "phone.html"
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' "
        "content='width=device-width, initial-scale=1'></head><body>"
        + "".join(v.to_jshtml() for v in views) + "</body></html>",
        encoding="utf-8")  # fmt: skip
    page = phone.new_page()
    try:
        page.goto(path.as_uri())
        assert page.evaluate("matchMedia('(pointer: coarse)').matches")
        for k in range(len(views)):  # each is drawn when it comes near
            page.locator(".convgrad-scene").nth(k).scroll_into_view_if_needed()
            page.locator(".cgs-grid").first.wait_for()
        page.wait_for_function(
            f"document.querySelectorAll('.cgs').length === {len(views)}")
        page.screenshot(path=str(SHOTS / "phone.png"), full_page=True)
        fit = page.evaluate(FIT)
        width = page.evaluate("innerWidth")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for view in fit:
            for pn in view["panels"]:
                assert pn["scroll"] <= 0 and pn["right"] <= width, (
                    f"{view['title']}: {pn['title']} is {pn['w']:.0f} px wide, "
                    f"scrolls {pn['scroll']} px sideways in a {width} px screen")
            small = [c for c in view["controls"] if min(c[1:]) < 44]
            assert not small, f"{view['title']}: under 44 px to touch: {small}"
            assert view["font"] >= 12, view["title"]
        turned = [pn for view in fit for pn in view["panels"] if pn["turned"] == "1"]
        assert [pn["title"][:10] for pn in turned] == ["C (4 × 16)"], turned
        pc = turned[0]
        assert pc["h"] > 2 * pc["w"], "16 rows of 4: taller than wide"
        # a desktop's width draws every grid as declared
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_function(
            "() => !document.querySelector('figure.cgs-panel[data-turned=\"1\"]')")
    finally:
        page.close()
        for v in views:
            v.close()


# --------------------------------------------------------------------------
# a menu of words: lesson 12's norm sets view picks its norm in one

MENU_CELLS = [
    ("markdown", "# A player's menu"),
    ("code", "from convgrad import viz\n\n"
             "view = viz.NormSetsView(kind='layer')\n"
             "ui = view.widget()\n"
             "ui"),
    ("markdown", "## Below the view"),
    ("code", "below = 1"),
]

MENU = """(cellIndex) => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const notebook = window.jupyterapp.shell.currentWidget.content;
  const root = panel.querySelectorAll('.jp-Notebook .jp-Cell')[cellIndex]
    .querySelector('.cgs');
  const menu = root.querySelector('.cgs-controls select[name=kind]');
  const r = menu.getBoundingClientRect();
  return {
    active: notebook.activeCellIndex,
    focus: document.activeElement === menu ? 'kind' : document.activeElement.tagName,
    kind: menu.value,
    words: [...menu.options].map(o => o.value),
    label: menu.getAttribute('aria-label'),
    height: r.height,
    title: root.querySelector('.cgs-title').textContent,
    steps: +root.querySelector('.cgs-slider').max,
    caption: root.querySelector('.cgs-caption').textContent,
    message: root.querySelector('.cgs-message').textContent,
    outlines: root.querySelectorAll('.cgs-mark-set[visibility=visible]').length,
  };
}"""


def test_a_menu_picks_the_norm_and_its_keys_stay_in_the_player(lab_server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "view-menu.ipynb"
    cells = [{"cell_type": kind, "metadata": {}, "source": src,
              **({"execution_count": None, "outputs": []} if kind == "code"
                 else {})} for kind, src in MENU_CELLS]  # fmt: skip
    path.write_text(json.dumps({**_notebook(), "cells": cells}), encoding="utf-8")
    relpath = str(path.relative_to(REPO))
    nb = OpenNotebook(page, lab_server, relpath, SHOTS, "view-menu")

    def settle(until, what):
        for _ in range(300):  # 30 s: a rebuild on a busy kernel
            st = nb.page.evaluate(MENU, 1)
            if until(st):
                return st
            nb.page.wait_for_timeout(100)
        raise nb.fail(f"{what}: the player is at {st}")

    try:
        assert_no_errors(nb, open_and_run(nb))
        wait_views_rendered(nb, 1)
        out = nb.output_locator(1, 0)
        with nb.failing_with_screenshot():
            out.scroll_into_view_if_needed(timeout=10_000)
            st = nb.page.evaluate(MENU, 1)
            assert st["words"] == ["batch", "layer", "group", "instance"], st
            assert (st["kind"], st["label"], st["steps"]) == ("layer", "kind", 2)
            assert st["title"].startswith("layer norm") and st["outlines"] == 1
            assert "M = C·H·W = 6·3·2 = 36" in st["caption"], st
            # a click on an element of image 1 goes to its set, step 2 of 2
            # (row 4 of 6, column 7 of 12: its cell in the scene's order)
            out.locator("svg.cgs-grid").first.locator("g.cgs-cells rect").nth(
                4 * 12 + 7).click(force=True)
            st = settle(lambda s: s["caption"].startswith("step 2/2"),
                        "a click on image 1")
            assert "image 1, every channel" in st["caption"], st
            assert st["active"] == 1, st
            menu = out.locator(".cgs-controls select[name=kind]")
            menu.focus()
            # ↓ is the next norm: a new scene, focus kept, the cell kept
            page.keyboard.press("ArrowDown")
            st = settle(lambda s: s["title"].startswith("group norm")
                        and s["message"] == "", "↓ on the kind menu")
            assert (st["kind"], st["steps"], st["active"], st["focus"]) == (
                "group", 4, 1, "kind"), st
            assert "M = (C/G)·H·W = 3·3·2 = 18" in st["caption"], st
            seen = nb.kernel_json("import json; print(json.dumps("
                                  "[ui.params, ui.view.params['kind']]))")
            assert seen == [{"kind": "group", "groups": 2, "batch": 2}, "group"]
            # the player's own keys still step through the sets
            out.locator(".cgs-next").click()
            st = settle(lambda s: s["caption"].startswith("step 2/4"), "a step")
            assert "group 1 (channels 3–5)" in st["caption"], st
            # groups=3: 2 channels a group, 6 sets; groups=4 (of 6 channels)
            # is refused and its slider goes back to 3
            groups = out.locator(".cgs-controls input[name=groups]")
            _click_thumb(page, groups)
            page.keyboard.press("ArrowRight")
            st = settle(lambda s: s["steps"] == 6 and s["message"] == "",
                        "groups → 3")
            assert "M = (C/G)·H·W = 2·3·2 = 12" in st["caption"], st
            page.keyboard.press("ArrowRight")
            st = settle(lambda s: "not allowed" in s["message"], "groups → 4")
            assert "groups must divide channels" in st["message"], st
            assert groups.input_value() == "3" and st["kind"] == "group"
            nb.screenshot("-after", out)
            nb.screenshot("-window")
    finally:
        nb.close()


def test_on_a_phone_the_norm_sets_grids_fit_and_outline_each_set(phone):
    """Lesson 12's N × C grid of planes on a 390 px screen: no grid
    scrolls sideways, the numbers stay 12 px or give way to colours, and
    the grid outlines the step's set."""
    views = [viz.NormSetsView(kind=kind) for kind in ("batch", "layer")]
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "phone-norm-sets.html"
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' "
        "content='width=device-width, initial-scale=1'></head><body>"
        + "".join(v.to_jshtml() for v in views) + "</body></html>",
        encoding="utf-8")  # fmt: skip
    page = phone.new_page()
    try:
        page.goto(path.as_uri())
        for k in range(len(views)):
            page.locator(".convgrad-scene").nth(k).scroll_into_view_if_needed()
        page.wait_for_function(
            "[...document.querySelectorAll('.convgrad-scene')].every("
            "v => v.dataset.mounted === '1' && v.querySelector('.cgs-grid'))")
        page.screenshot(path=str(SHOTS / "phone-norm-sets.png"), full_page=True)
        width = page.evaluate("innerWidth")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for view in page.evaluate(FIT):
            for pn in view["panels"]:
                assert pn["scroll"] <= 0 and pn["right"] <= width, (view, pn)
            assert not [c for c in view["controls"] if min(c[1:]) < 44], view
            # (no number on show: Infinity, the min of none)
            assert view["font"] is None or view["font"] >= 12, view
        outlines = page.evaluate(
            "[...document.querySelectorAll('.cgs')].map(v => v.querySelectorAll("
            "'.cgs-mark-set[visibility=visible]').length)")
        assert outlines == [1, 1]
    finally:
        page.close()
        for v in views:
            v.close()
