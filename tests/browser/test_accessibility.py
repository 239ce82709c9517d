"""WCAG 2.2 AA, checked in the browser (issue 44, point 8).

- axe-core (``wcag_audit``: pinned, from the npm registry) finds no
  violation of WCAG 2.0/2.1/2.2 A and AA in a real lesson's players in
  JupyterLab, in a lesson's offline slide deck and in a page of embedded
  views (the website's lesson page is audited in tests/test_site.py, which
  builds the site).
- With ``prefers-reduced-motion`` nothing in a player moves by itself: no
  transition, no animation (a host's included), and a looping animation
  plays once.
- In forced colours (a high-contrast theme) every control shows an outline
  when focused from the keyboard, and a highlighted cell is told by its
  outline, in a system colour of its own, never by a fill alone.
- Every outline stands out 3:1 on any cell (WCAG 1.4.11): its colour or
  one of the edges drawn under it (black, white).
- Each step is said in words a screen reader reads: the caption is a
  polite live region that names what the step wrote and where, and it is
  the cell the outlines show. The player's message ("computing…", a
  refusal) is a polite status, in the tree before it speaks.

Screenshots (normal and forced colours, the lesson, the deck) go to
artifacts/browser/accessibility/.
"""

from __future__ import annotations

import html
import os
import re
import shutil
from itertools import pairwise
from pathlib import Path

import pytest
from browser_harness import (
    ARTIFACTS,
    LESSONS_DIR,
    PANEL,
    OpenNotebook,
    assert_no_errors,
    file_digest,
    open_and_run,
    screenshot_view,
    wait_views_rendered,
)
from wcag_audit import audit, axe_script, report

from convgrad import viz
from convgrad.viz.export import to_jshtml

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "accessibility"
LESSON = "03-col2im-scatter"
REQUIRE = "CONVGRAD_REQUIRE_BROWSER"


@pytest.fixture(scope="module")
def axe() -> Path:
    """axe-core's script (fetched once into the npm asset cache)."""
    return axe_script()


def _page_of(name: str, pieces: list[str], head: str = "") -> Path:
    """A page of ours holding embedded views, as a lesson page would."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.html"
    path.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(name)}</title>{head}</head><body><main>"
        f"<h1>{html.escape(name)}</h1>{''.join(pieces)}</main></body></html>",
        encoding="utf-8")  # fmt: skip
    return path


def _open(page, path: Path, views: int) -> None:
    page.goto(path.as_uri())
    for k in range(views):  # each is drawn when it comes near
        page.locator(".convgrad-scene").nth(k).scroll_into_view_if_needed()
    page.wait_for_function(
        f"document.querySelectorAll('.cgs svg.cgs-grid').length >= {views}")
    page.evaluate("() => scrollTo(0, 0)")


# --------------------------------------------------------------------------
# axe-core: a lesson in JupyterLab, a slide deck


def test_a_lesson_in_jupyterlab_has_no_wcag_violations(lab_server, page, axe):
    """Lesson 03 run in JupyterLab, its views drawn: axe finds nothing in
    the players. The audit is scoped to the players (``.cgs``): the rest of
    the page is JupyterLab's own chrome (menus, file browser, notebook
    toolbar), which is not ours to fix. Then, on the same page, the reader's
    settings: less motion (nothing in a player moves) and forced colours
    (each control's focus outline)."""
    stored = file_digest(LESSONS_DIR / f"{LESSON}.ipynb")
    nb = OpenNotebook(page, lab_server, f"notebooks/{LESSON}.ipynb", SHOTS, "lab")
    try:
        assert_no_errors(nb, open_and_run(nb))
        wait_views_rendered(nb, 1)
        views = nb.view_outputs()
        assert views, "lesson 03 shows no view"
        screenshot_view(nb, views[0], "-view")
        players = page.locator(f"{PANEL} .cgs")
        assert players.count() == len(views)
        found = audit(page, [f"{PANEL} .cgs"])
        assert found == [], f"{LESSON} in JupyterLab:\n{report(found)}"

        page.emulate_media(reduced_motion="reduce")
        moving = page.evaluate(MOVING, f"{PANEL} .cgs")
        assert moving == [], f"in JupyterLab with less motion: {moving}"

        page.emulate_media(reduced_motion="no-preference", forced_colors="active")
        root = players.first
        root.scroll_into_view_if_needed()
        outlines = _tab_through(page, root)
        nb.screenshot("-forced-colors")
        _assert_outlined(outlines, "JupyterLab, forced colours")
    finally:
        page.emulate_media(forced_colors="none", reduced_motion="no-preference")
        nb.close()
    assert file_digest(LESSONS_DIR / f"{LESSON}.ipynb") == stored, "the lesson changed"


#: the reveal.js deck: go to the first view's slide, wait until it is drawn
GO_TO_VIEW = """() => new Promise(ok => require(
  ['assets/reveal.js/dist/reveal.js'], R => {
  const view = document.querySelector('.convgrad-scene');
  const at = R.getIndices(view.closest('section'));
  R.slide(at.h, at.v || 0);
  const drawn = k => view.querySelector('.cgs svg') || k > 200
    ? ok(!!view.querySelector('.cgs svg')) : setTimeout(() => drawn(k + 1), 25);
  drawn(0);
}))"""


def test_an_offline_slide_deck_has_no_wcag_violations(page, axe, tmp_path):
    """Lesson 03's offline deck (nbconvert's reveal.js template, ours in
    templates/convgrad_reveal), on its first view's slide: axe audits the
    whole page, reveal's controls and slide number included. With less
    motion asked for, nothing in it moves."""
    from tracked import lessons_folder

    from convgrad.course.lessons import find_lessons
    from convgrad.course.publish.slides import export_slides

    _npm_or_skip()
    [deck] = export_slides(tmp_path, find_lessons(lessons_folder(), [LESSON[:2]]),
                           offline=True, log=lambda m: None, jobs=1)  # fmt: skip
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(deck.html.resolve().as_uri(), timeout=120_000)
    page.wait_for_selector(".reveal.ready", state="attached", timeout=120_000)
    assert page.evaluate(GO_TO_VIEW), "the view's slide never drew its view"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "deck-view-slide.png"))
    found = audit(page)
    assert found == [], f"{deck.html.name}:\n{report(found)}"
    # with less motion asked for, nothing in the deck moves: no slide
    # transition, no bouncing arrow (reveal's), nothing in the player
    page.emulate_media(reduced_motion="reduce")
    try:
        page.keyboard.press("ArrowRight")  # reveal would slide and bounce
        moving = page.evaluate(MOVING, ".reveal")
        assert moving == [], f"the deck with less motion: {moving[:8]}"
    finally:
        page.emulate_media(reduced_motion="no-preference")


def _npm_or_skip() -> None:
    if shutil.which("npm") is None:
        why = "an offline deck fetches reveal.js with npm, which is missing"
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{why}; {REQUIRE}=1")
        pytest.skip(why)


# --------------------------------------------------------------------------
# prefers-reduced-motion

#: every element of the players (under a selector) whose style moves it:
#: a transition or an animation of more than 0 s, and any running animation
MOVING = """(within) => {
  const seconds = s => Math.max(...s.split(',').map(x => parseFloat(x) || 0));
  const out = [];
  document.querySelectorAll(within).forEach(root => {
    [root, ...root.querySelectorAll('*')].forEach(el => {
      const st = getComputedStyle(el);
      const t = seconds(st.transitionDuration), a = seconds(st.animationDuration);
      if (t > 0 || (a > 0 && st.animationName !== 'none'))
        out.push([el.tagName + '.' + (el.getAttribute('class') || ''), t, a]);
    });
    root.getAnimations({subtree: true}).forEach(x =>
      out.push(['running', x.animationName || x.transitionProperty || 'animation']));
  });
  return out;
}"""

#: a host page's own motion (JupyterLab and the site theme style buttons and
#: inputs): the player must still not move under reduced motion
HOST_MOTION = """<style>
button, input, select { transition: all 0.4s ease-in; }
@keyframes pulse { from { opacity: 1 } to { opacity: 0.5 } }
.cgs-play { animation: pulse 1s infinite alternate; }
</style>"""


def test_with_less_motion_nothing_in_a_player_moves_by_itself(page):
    short = viz.MaxPoolRoutingView()  # 4 steps
    views = [viz.Col2imView(input_size=(5, 5), kernel_size=2), short]
    path = _page_of("reduced-motion", [views[0].to_jshtml(),
                                       to_jshtml(short, fps=25, default_mode="loop")],
                    HOST_MOTION)  # fmt: skip
    try:
        # as it is, the host's transitions reach the player, and a looping
        # animation plays on: what the reader who asks for less motion gets
        # instead is checked after
        _open(page, path, 2)
        assert page.evaluate(MOVING, ".cgs"), "the host's motion is not seen"
        loop = page.locator(".cgs").nth(1)
        loop.locator(".cgs-play").click()
        page.wait_for_timeout(1200)  # 4 steps of 40 ms, many times over
        assert loop.get_attribute("data-playing") == "1", "a looping view stopped"
        loop.locator(".cgs-play").click()

        page.emulate_media(reduced_motion="reduce")
        _open(page, path, 2)
        assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
        moving = page.evaluate(MOVING, ".cgs")
        assert moving == [], f"with less motion, these move: {moving}"
        # nothing moves on its own: the step and the caption stay
        before = page.evaluate(STEPS)
        page.wait_for_timeout(1500)
        assert page.evaluate(STEPS) == before
        # Play is what the reader asked for: the looping view plays once,
        # step by step, and stops on its last step
        loop.locator(".cgs-play").click()
        page.wait_for_function(
            "() => document.querySelectorAll('.cgs')[1].dataset.playing === '0'",
            timeout=10_000)  # fmt: skip
        assert loop.get_attribute("data-frame") == str(short.n_frames - 1)
        assert loop.locator(".cgs-caption").get_attribute("aria-live") == "polite"
        page.screenshot(path=str(SHOTS / "reduced-motion.png"), full_page=True)
        assert page.console_errors == []
    finally:
        page.emulate_media(reduced_motion="no-preference")
        for v in views:
            v.close()


STEPS = """() => [...document.querySelectorAll('.cgs')].map(r => [
  r.dataset.frame, r.dataset.playing, r.querySelector('.cgs-caption').textContent])"""


# --------------------------------------------------------------------------
# forced colours

#: the focused element's outline and the colour behind it
FOCUSED = """() => {
  const a = document.activeElement, st = getComputedStyle(a);
  let bg = 'rgba(0, 0, 0, 0)';
  for (let e = a; e && /rgba\\(0, 0, 0, 0\\)|transparent/.test(bg); e = e.parentElement)
    bg = getComputedStyle(e).backgroundColor;
  return {what: a.className || a.tagName, visible: a.matches(':focus-visible'),
          style: st.outlineStyle, width: parseFloat(st.outlineWidth),
          color: st.outlineColor, behind: bg};
}"""


def _tab_through(page, root) -> list[dict]:
    """Focus the player, then each of its controls with Tab, as a keyboard
    user does; the outline of each."""
    root.focus()
    seen = [page.evaluate(FOCUSED)]
    count = root.evaluate("r => r.querySelectorAll('button, input, select').length")
    for _ in range(count):
        page.keyboard.press("Tab")
        if not root.evaluate("r => r.contains(document.activeElement)"):
            break
        seen.append(page.evaluate(FOCUSED))
    assert len(seen) >= 7, f"Tab reached {len(seen)} of the player's controls: {seen}"
    return seen


def _assert_outlined(outlines: list[dict], where: str) -> None:
    for o in outlines:
        assert o["visible"], f"{where}: {o['what']} is focused but not :focus-visible"
        assert o["style"] != "none" and o["width"] >= 1, (
            f"{where}: focused {o['what']} has outline {o['style']} {o['width']} px")
        assert o["color"] != o["behind"], (
            f"{where}: {o['what']}'s outline is the colour behind it ({o['color']})")


#: per grid: its cells' fills, its lines' colour and width; per outline shown:
#: its colour, width and dash, and its legend swatch's colour
GRIDS = """() => {
  const px = v => parseFloat(v) || 0;
  const grids = [...document.querySelectorAll('.cgs-grid')].map(g => {
    const lines = getComputedStyle(g.querySelector('.cgs-lines'));
    return {
      numbers: g.dataset.numbers,
      fills: [...new Set([...g.querySelectorAll('.cgs-cells rect')].map(
        r => getComputedStyle(r).fill))],
      text: [...new Set([...g.querySelectorAll('.cgs-nums text')].filter(
        t => t.textContent).map(t => getComputedStyle(t).fill))],
      line: lines.stroke, lineWidth: px(lines.strokeWidth),
      marks: [...g.querySelectorAll('.cgs-mark')].filter(
        m => getComputedStyle(m).visibility === 'visible').map(m => {
        const st = getComputedStyle(m);
        const role = [...m.classList].find(c => c.startsWith('cgs-mark-'));
        const key = m.closest('.cgs').querySelector('.cgs-legend .' + role);
        return {role, stroke: st.stroke, width: px(st.strokeWidth),
                dash: st.strokeDasharray, opacity: st.strokeOpacity,
                legend: key && getComputedStyle(key).stroke};
      }),
    };
  });
  const probe = document.createElement('div');
  document.body.appendChild(probe);
  const system = {};
  ['Canvas', 'CanvasText', 'Highlight', 'LinkText'].forEach(c => {
    probe.style.color = c;
    system[c] = getComputedStyle(probe).color;
  });
  probe.remove();
  return {grids, system};
}"""


def test_in_forced_colours_outlines_and_highlights_stay_visible(page, axe):
    views = [viz.Col2imView(input_size=(5, 5), kernel_size=2),
             viz.MaxPoolRoutingView(),  # src, dst, window, best
             viz.NormSetsView()]  # set  # fmt: skip
    path = _page_of("forced-colors", [v.to_jshtml() for v in views])
    try:
        _open(page, path, 3)
        for r in page.locator(".cgs").all():  # a step on: a trail, a window
            r.focus()
            page.keyboard.press("ArrowRight")
        page.screenshot(path=str(SHOTS / "normal.png"), full_page=True)
        legend = page.locator(".cgs-legend").first.inner_text()
        assert "(vermillion, solid)" in legend and "(blue, dashed)" in legend
        # the embedded players (to_jshtml, as a static page holds them)
        found = audit(page)
        assert found == [], f"three embedded views:\n{report(found)}"
        page.emulate_media(forced_colors="active")
        assert page.evaluate("matchMedia('(forced-colors: active)').matches")
        page.screenshot(path=str(SHOTS / "forced-colors.png"), full_page=True)

        for k in range(3):
            outlines = _tab_through(page, page.locator(".cgs").nth(k))
            _assert_outlined(outlines, f"view {k + 1}, forced colours")
            page.locator(".cgs").nth(k).focus()
        seen = page.evaluate(GRIDS)
        system = seen["system"]
        roles = set()
        for g in seen["grids"]:
            if g["numbers"] == "1":
                # a cell is not told by its fill: every cell on the canvas,
                # every number in the canvas's text colour
                assert g["fills"] == [system["Canvas"]], g["fills"]
                assert set(g["text"]) <= {system["CanvasText"]}, g["text"]
            for m in g["marks"]:
                roles.add(m["role"])
                assert m["stroke"] not in ("none", system["Canvas"]), m
                assert m["width"] >= max(2, 2 * g["lineWidth"]), (m, g["lineWidth"])
                assert m["legend"] in (None, m["stroke"]), (
                    f"{m['role']}: drawn {m['stroke']}, its legend {m['legend']}")
        assert {"cgs-mark-src", "cgs-mark-dst", "cgs-mark-window",
                "cgs-mark-best", "cgs-mark-set"} <= roles, roles  # fmt: skip
        by_role = {m["role"]: m for g in seen["grids"] for m in g["marks"]}
        # the roles that meet in one grid differ by colour or by dash
        for a, b in [("cgs-mark-dst", "cgs-mark-window"),
                     ("cgs-mark-src", "cgs-mark-window"),
                     ("cgs-mark-src", "cgs-mark-dst"),
                     ("cgs-mark-best", "cgs-mark-window")]:  # fmt: skip
            ma, mb = by_role[a], by_role[b]
            assert (ma["stroke"], ma["dash"]) != (mb["stroke"], mb["dash"]), (ma, mb)
        # the legend names no colour the outlines no longer have
        legend = page.locator(".cgs-legend").first.inner_text()
        assert "solid" in legend and "dashed" in legend, legend
        assert not re.search(r"orange|vermillion|blue", legend), legend
        legend = page.locator(".cgs-legend").nth(2).inner_text()
        assert "dashed" in legend and "purple" not in legend, legend
        assert page.console_errors == []
    finally:
        page.emulate_media(forced_colors="none")
        for v in views:
            v.close()


# --------------------------------------------------------------------------
# outlines on any cell: non-text contrast (WCAG 1.4.11)

#: each outline shown, with the edges under it (black, then white)
EDGES = """() => [...document.querySelectorAll('.cgs-mark')].filter(
  m => m.getAttribute('visibility') === 'visible').map(m => {
  const role = [...m.classList].find(c => c.startsWith('cgs-mark-')).slice(9);
  const at = n => ['x', 'y', 'width', 'height', 'visibility',
                   'stroke-dasharray'].map(k => n.getAttribute(k));
  const edges = ['cgs-edge-', 'cgs-rim-'].map(
    c => m.ownerSVGElement.querySelector('.' + c + role)).filter(n => n).map(n => ({
      at: at(n), stroke: getComputedStyle(n).stroke,
      width: parseFloat(getComputedStyle(n).strokeWidth)}));
  return {role, at: at(m), edges, stroke: getComputedStyle(m).stroke,
          width: parseFloat(getComputedStyle(m).strokeWidth)};
})"""


def _rgb(text: str) -> tuple[int, ...]:
    if text.startswith("#"):
        return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(int(float(v)) for v in re.findall(r"[\d.]+", text)[:3])


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours (#rrggbb or rgb(...))."""
    def lum(c):
        lin = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
               for x in (v / 255 for v in _rgb(c))]  # fmt: skip
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_outline_stands_out_3_to_1_on_any_cell(page):
    """An outline is told from the cell it is drawn on, whatever that
    cell's colour (white, the padding's grey, any colour of the cell scale):
    its colour or one of its edges (black, white) has 3:1 contrast with it
    at least."""
    views = [viz.Col2imView(input_size=(5, 5), kernel_size=3, padding=1),
             viz.MaxPoolRoutingView(),  # src, dst, window, best
             viz.NormSetsView()]  # set  # fmt: skip
    style = views[0].scene()["style"]
    cells = ["#ffffff", style["padding"], *style["cmap"]]
    path = _page_of("outline-contrast", [v.to_jshtml() for v in views])
    try:
        _open(page, path, 3)
        for r in page.locator(".cgs").all():
            r.focus()
            page.keyboard.press("ArrowRight")
        edges = page.evaluate(EDGES)
        roles = {e["role"] for e in edges}
        assert {"src", "dst", "window", "best", "set"} <= roles, roles
        for e in edges:
            if e["role"].startswith("trail"):
                continue  # the fading trail: where values landed before
            assert e["edges"], f"{e['role']} has no edge"
            for edge in e["edges"]:
                assert edge["at"] == e["at"], f"{e['role']}: an edge is elsewhere: {e}"
            # each edge shows a pixel on each side of the one above it
            widths = [e["width"]] + [x["width"] for x in e["edges"]]
            assert all(b - a >= 2 - 0.01 for a, b in pairwise(widths)), e
            colours = [e["stroke"]] + [x["stroke"] for x in e["edges"]]
            worst = min(max(contrast(x, c) for x in colours) for c in cells)
            assert worst >= 3, f"{e['role']}: {worst:.2f}:1 on some cell"
        page.locator(".cgs").nth(1).screenshot(path=str(SHOTS / "outline-edges.png"))
    finally:
        for v in views:
            v.close()


# --------------------------------------------------------------------------
# each step in words

def _live_regions(page) -> list[dict]:
    """Chromium's accessibility tree, as a screen reader gets it: each live
    region with the text inside it."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}

    def text(n) -> str:
        if n.get("role", {}).get("value") == "StaticText":
            return n.get("name", {}).get("value", "")
        return "".join(text(by_id[c]) for c in n.get("childIds", []) if c in by_id)

    out = []
    for n in nodes:
        props = {p["name"]: p["value"].get("value") for p in n.get("properties", [])}
        if props.get("live") in ("polite", "assertive") and not n.get("ignored"):
            out.append({"live": props["live"], "text": text(n),
                        "role": n.get("role", {}).get("value")})
    return out


#: where the step's outline "dst" is drawn: the row and column of the cell
#: under it, in the grid it is drawn on, and that cell's number
DST = """(root) => {
  const m = [...root.querySelectorAll('.cgs-mark-dst')].find(
    m => m.getAttribute('visibility') === 'visible');
  const svg = m.ownerSVGElement, b = m.getBBox();
  const cx = b.x + b.width / 2, cy = b.y + b.height / 2;
  const rects = [...svg.querySelectorAll('.cgs-cells rect')];
  const y0 = rects[0].getAttribute('y');
  const cols = rects.filter(r => r.getAttribute('y') === y0).length;
  const k = rects.findIndex(r => {
    const x = +r.getAttribute('x'), y = +r.getAttribute('y');
    const w = +r.getAttribute('width');
    return cx >= x && cx < x + w && cy >= y && cy < y + w;
  });
  return {panel: svg.getAttribute('aria-label'), row: Math.floor(k / cols),
          col: k % cols, number: svg.querySelectorAll('.cgs-nums text')[k].textContent};
}"""


def test_each_step_is_said_in_words_where_the_picture_shows_it(page):
    view = viz.Col2imView(input_size=(5, 5), kernel_size=2, stride=1)
    scene = view.scene()
    path = _page_of("step-in-words", [view.to_jshtml()])
    try:
        _open(page, path, 1)
        root = page.locator(".cgs").first
        root.focus()
        n = scene["steps"]
        for step in range(1, 7):
            if step > 1:
                page.keyboard.press("ArrowRight")
            caption = root.locator(".cgs-caption")
            said = scene["frames"][step - 1]["text"]
            assert caption.text_content() == f"step {step}/{n}:  {said}"
            # the screen reader hears it: a polite live region holds it
            live = [r for r in _live_regions(page) if said in r["text"]]
            assert live and live[0]["live"] == "polite", _live_regions(page)
            assert f"step {step}/{n}" in live[0]["text"]
            # and it is what the picture shows: the cell outlined as where
            # the value lands is the dx cell the words name, holding the
            # value they say it now holds
            dst = root.evaluate(DST)
            assert dst["panel"].startswith("dx"), dst
            where = f"dx[0,0,{dst['row']},{dst['col']}]"
            assert f"added to {where} → {dst['number']}" in said, (said, dst)
        # while it plays, the region is quiet (no flood of speech); when it
        # stops it is polite again, on the step it stopped at
        root.locator(".cgs-speed").select_option("40")
        root.locator(".cgs-play").click()
        assert root.locator(".cgs-caption").get_attribute("aria-live") == "off"
        page.wait_for_function(
            "() => document.querySelector('.cgs').dataset.playing === '0'",
            timeout=20_000)  # fmt: skip
        assert root.locator(".cgs-caption").get_attribute("aria-live") == "polite"
        last = scene["frames"][-1]["text"]
        assert any(last in r["text"] for r in _live_regions(page))
        # the step slider's value says the step in words too
        text = root.locator(".cgs-slider").get_attribute("aria-valuetext")
        assert text == f"step {n} of {n}: {last}"
        assert re.search(r"dx\[0,0,\d+,\d+\]", text)
    finally:
        view.close()


def test_the_players_message_is_a_polite_status_heard_when_it_speaks(page):
    """"computing…" and why a value was refused are news the reader asked
    for, not urgent: a polite status (role=alert would interrupt whatever
    is being read). It takes no room while empty but stays in the
    accessibility tree, so that the text it then gets is heard."""
    view = viz.Col2imView(input_size=(4, 4), kernel_size=2)
    path = _page_of("message-status", [view.to_jshtml()])
    try:
        _open(page, path, 1)
        message = page.locator(".cgs .cgs-message").first
        assert message.get_attribute("role") == "status"
        assert page.locator(".cgs [role=alert]").count() == 0
        quiet = [r for r in _live_regions(page) if r["role"] == "status"]
        assert quiet == [{"live": "polite", "text": "", "role": "status"}], (
            "the empty message is not in the accessibility tree", quiet)
        box = message.bounding_box()  # None: not rendered (display: none)
        assert box is not None and box["height"] == 0, box
        message.evaluate("m => { m.textContent = 'computing\\u2026'; }")
        said = [r for r in _live_regions(page) if r["role"] == "status"]
        assert said == [{"live": "polite", "text": "computing…", "role": "status"}]
        assert message.bounding_box()["height"] > 0
    finally:
        view.close()
