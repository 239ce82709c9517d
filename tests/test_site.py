"""The course website (``python -m convgrad.course site``).

The fast tests read pages from crafted notebooks and from the real lessons:
the lesson map, each lesson's objectives and summary, the links. The
``browser`` test builds the site for five lessons (00, 02, 03, 07, 12; every
lesson with ``CONVGRAD_SITE_LESSONS=all``), opens each
page from ``file://`` in headless Chromium with every non-file request
aborted, at a desktop's 1280x800 and a phone's 390x844 (touched: its
controls 44 px at least), presses Play on every view and checks that its
caption moves, that its numbers stay at least 12 px and that no grid scrolls
sideways in its box, that neither the page nor anything in it but code
scrolls sideways (tables, printed lines and text results wrap), that no
request left the page, that nothing was logged as an error, and that the
page opened in under 2 s. It also waits for MathJax on
lessons 00, 02, 03 and 12 (every lesson with ``all``) and finds every
formula typeset, finds no formula wider than its column on the desktop or
the phone in any built lesson (MathJax 3's HTML output cannot break a line:
a long formula is written as aligned lines), and checks that the lesson map
fits a phone. Its screenshots land in ``artifacts/site/``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import time
from pathlib import Path

import nbformat
import pytest
from tracked import lessons_folder

from convgrad.course import project
from convgrad.course.__main__ import main
from convgrad.course.lessons import Lesson, find_lessons
from convgrad.course.publish.chromium import find_chromium
from convgrad.course.publish.site import (
    MARKER,
    NO_LINKS_NOTE,
    TEMPLATE,
    TOOLS,
    _prepare_out,
    binder_url,
    index_page,
    lesson_page,
    lesson_title,
    section,
    site_links,
    syllabus_page,
)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = ROOT / "artifacts" / "site"
# a developer's run builds these five, not all thirteen (02 and 12: display
# math, 12 the longest formulas; each quick to run); CONVGRAD_SITE_LESSONS=all
# (CI's run; with
# CONVGRAD_SITE=OUT/, a site built by `python -m convgrad.course site OUT/`)
# builds and checks every lesson: its views, and its formulas typeset and
# within their column, on the desktop and the phone
ALL_LESSONS = os.environ.get("CONVGRAD_SITE_LESSONS") == "all"
SITE_LESSONS = (
    [p.name[:2] for p in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))]
    if ALL_LESSONS
    else ["00", "02", "03", "07", "12"]
)
#: pages whose formulas are checked typeset: in CI two without display
#: math and two with it; with CONVGRAD_SITE_LESSONS=all, every lesson (the
#: width check, test_no_formula_is_wider_than_its_column, takes every built
#: lesson either way)
MATH_LESSONS = SITE_LESSONS if ALL_LESSONS else ["00", "02", "03", "12"]
REQUIRE = os.environ.get("CONVGRAD_REQUIRE_BROWSER") == "1"
# CONVGRAD_SITE=OUT/ tests a site already built there instead of building one
#: a view's scene player (convgrad/viz/scene.js)
PLAYER = ".convgrad-scene"  # drawn (``.cgs`` inside) when scrolled near
OPEN_SECONDS = 2.0
SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}


def _nb(*sources: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(s[5:]) if s.startswith("code:")
            else nbformat.v4.new_markdown_cell(s)
            for s in sources
        ]
    )


def _lesson(tmp_path: Path, name: str) -> Lesson:
    number, slug = name.split("-", 1)
    return Lesson(tmp_path / f"{name}.ipynb", int(number), slug)


LESSON = _nb(
    "# Lesson 3 · col2im\n\nIntro.\n\n## Objectives\n\n- see the overlap;\n"
    "- write `col2im`.\n\n### A detail\n\nstill objectives",
    "code:x = 1",
    "## Notes\n\n```python\n## Summary (not a heading: fenced)\n```",
    "## Summary\n\n- col2im **adds**.\n\n## Exercises\n\n**3.1** Write it.",
)


def test_sections_are_read_up_to_the_next_heading_of_their_level():
    assert lesson_title(LESSON) == "Lesson 3 · col2im"
    assert section(LESSON, "objectives") == (
        "- see the overlap;\n- write `col2im`.\n\n### A detail\n\nstill objectives"
    )
    assert section(LESSON, "Summary") == "- col2im **adds**."
    assert section(LESSON, "Exercises") == "**3.1** Write it."
    assert section(LESSON, "Prerequisites") is None
    assert lesson_title(_nb("no title"), "fallback") == "fallback"


def test_every_lesson_has_a_title_objectives_and_a_summary():
    for lesson in find_lessons(lessons_folder()):
        nb = lesson.read()
        assert lesson_title(nb), f"{lesson.path.name}: no '# title'"
        assert section(nb, "Objectives"), f"{lesson.path.name}: no '## Objectives'"
        assert section(nb, "Summary"), f"{lesson.path.name}: no '## Summary'"


def test_the_lesson_map_links_what_is_built(tmp_path):
    syllabus = (
        "# convgrad: the course\n\nEleven lessons.\n\n## Lesson map\n\n"
        "| # | lesson | idea |\n|---|---|---|\n| 03 | col2im | adds |\n"
        "| 04 | conv backward | three |\n\nDependencies: 03 → 04.\n\n"
        "## Learning outcomes\n\n1. derive\n"
    )
    lesson = _lesson(tmp_path, "03-col2im-scatter")
    page = index_page([(lesson, LESSON)], syllabus)
    assert page.startswith("# convgrad: the course\n\nEleven lessons.")
    assert "| 03 | [col2im](03-col2im-scatter.ipynb) | adds |" in page
    assert "| 04 | conv backward | three |" in page  # not built: no link
    assert "Dependencies: 03 → 04." in page
    assert "Learning outcomes" not in page
    assert "### [Lesson 3 · col2im](03-col2im-scatter.ipynb)" in page
    assert "- write `col2im`." in page
    assert "(03-col2im-scatter.ipynb#summary)" in page
    assert page.rstrip().endswith("03-col2im-scatter\nsyllabus\n```")
    # without a syllabus the map is made from the lessons' titles
    bare = index_page([(lesson, LESSON)], None)
    assert "| 03 | [Lesson 3 · col2im](03-col2im-scatter.ipynb) |" in bare
    assert "syllabus" not in bare
    course = syllabus_page(syllabus, {3: "03-col2im-scatter"})
    assert course.startswith("# Syllabus\n")
    assert "| 03 | [col2im](03-col2im-scatter.ipynb) | adds |" in course


def test_a_lesson_page_links_its_notebook_and_binder(tmp_path):
    lesson = _lesson(tmp_path, "03-col2im-scatter")
    url = binder_url(lesson)
    # the README badge's form, on this lesson, at deploy/versions.env's
    # repository and release
    env = (ROOT / "deploy" / "versions.env").read_text(encoding="utf-8")
    repository = re.search(r"^REPOSITORY=(\S+)", env, re.M)[1]
    release = re.search(r"^RELEASE=(\S+)", env, re.M)[1]
    assert url == (f"https://mybinder.org/v2/gh/{repository}/{release}"
                   "?urlpath=lab/tree/notebooks/03-col2im-scatter.ipynb")
    assert binder_url(lesson, "a/b", "c").startswith(
        "https://mybinder.org/v2/gh/a/b/c?")
    page = lesson_page(LESSON, lesson, url)
    assert page.cells[0].source == LESSON.cells[0].source
    links = page.cells[1].source
    assert 'href="notebooks/03-col2im-scatter.ipynb" download' in links
    assert f'href="{url}"' in links
    assert len(page.cells) == len(LESSON.cells) + 1


def _versions(tmp_path: Path, **values: str) -> Path:
    """A checkout's deploy/versions.env: the repository's own, with
    ``values`` set (as configure would: no longer placeholders)."""
    env = (ROOT / project.VERSIONS).read_text(encoding="utf-8")
    for key, value in values.items():
        env = re.sub(rf"^{key}=.*$", f"{key}={value}", env, flags=re.M)
    (tmp_path / "deploy").mkdir(exist_ok=True)
    (tmp_path / project.VERSIONS).write_text(env, encoding="utf-8")
    return tmp_path


def test_while_versions_env_holds_placeholders_the_site_links_nowhere(tmp_path):
    root = _versions(tmp_path)  # as committed: every value a placeholder
    assert {"REPOSITORY", "RELEASE"} <= project.read_project(root).placeholders
    assert site_links(root=root) is None
    assert site_links(branch="spring", root=root) is None  # the repository
    assert site_links(repository="a/b", root=root) is None  # the release
    # given in full, or set in the file, they are links
    assert site_links("a/b", "spring", root=root) == ("a/b", "spring")
    root = _versions(tmp_path, REPOSITORY="alice/cnn", RELEASE="spring")
    assert site_links(root=root) == ("alice/cnn", "spring")
    assert site_links(branch="fall", root=root) == ("alice/cnn", "fall")


def test_a_page_without_links_says_how_to_set_them(tmp_path):
    lesson = _lesson(tmp_path, "03-col2im-scatter")
    links = lesson_page(LESSON, lesson, None).cells[1].source
    assert 'href="notebooks/03-col2im-scatter.ipynb" download' in links
    assert "convgrad-binder" not in links and "mybinder" not in links
    assert "github" not in links.lower().replace("no binder or github link", "")
    assert NO_LINKS_NOTE in links and 'class="convgrad-unset"' in links
    assert "configure --repo OWNER/NAME --release BRANCH" in links


def _theme_options(tmp_path: Path, **site: object) -> dict:
    """html_theme_options of the site's Sphinx configuration, for a
    site.json of ``site`` (conf.py reads it from beside itself)."""
    folder = tmp_path / "conf"
    folder.mkdir(parents=True)
    conf = (TEMPLATE / "conf.py").read_text(encoding="utf-8")
    (folder / "conf.py").write_text(conf, encoding="utf-8")
    (folder / "site.json").write_text(json.dumps(
        {"title": "t", "binderhub_url": project.BINDERHUB, **site}))
    namespace = {"__file__": str(folder / "conf.py")}
    exec(compile(conf, str(folder / "conf.py"), "exec"), namespace)  # noqa: S102
    return namespace["html_theme_options"]


def test_the_theme_shows_repository_and_launch_buttons_only_for_a_real_one(tmp_path):
    none = _theme_options(tmp_path / "a", repository_url=None, branch=None)
    assert "repository_url" not in none and "launch_buttons" not in none
    assert not none.get("use_repository_button")
    real = _theme_options(tmp_path / "b", repository_url="https://github.com/a/b",
                          branch="spring")
    assert real["repository_url"] == "https://github.com/a/b"
    assert real["repository_branch"] == "spring" and real["use_repository_button"]
    assert real["launch_buttons"]["binderhub_url"] == project.BINDERHUB


def test_the_site_replaces_only_a_site(tmp_path):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "thesis.tex").write_text("keep me")
    with pytest.raises(ValueError, match="must be empty or a site"):
        _prepare_out(other)
    assert (other / "thesis.tex").read_text() == "keep me"
    old = tmp_path / "site"
    old.mkdir()
    (old / MARKER).write_text("")
    (old / "stale.html").write_text("")
    _prepare_out(old)
    assert old.is_dir() and not any(old.iterdir())


def test_cli_names_an_unknown_lesson(tmp_path, capsys):
    code = main(["--notebooks", str(NOTEBOOKS), "site", str(tmp_path / "s"),
                 "--lesson", "99"])  # fmt: skip
    assert code == 2
    assert "99" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


# --------------------------------------------------------------------------
# the real check: the built site in headless Chromium, offline
# --------------------------------------------------------------------------


def _skip(why: str) -> None:
    if REQUIRE:
        pytest.fail(f"{why}; CONVGRAD_REQUIRE_BROWSER=1")
    pytest.skip(why)


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    missing = [x for x in TOOLS if importlib.util.find_spec(x) is None]
    if missing:
        _skip(f"needs {', '.join(missing)} (pip install -e '.[site]')")
    if find_chromium() is None:
        _skip("needs chromium (.ci/install-browser)")
    from convgrad.course.publish.site import Site, build_site

    lessons = find_lessons(lessons_folder(), SITE_LESSONS)
    built = os.environ.get("CONVGRAD_SITE")
    if built:  # a site built before, e.g. by `python -m convgrad.course site`
        out = Path(built)
        pages = [out / f"{x.stem}.html" for x in lessons]
        return Site(out, lessons, pages, 0.0, 0)
    out = tmp_path_factory.mktemp("site") / "out"
    site = build_site(out, lessons, log=print)
    print(f"site: {len(site.pages)} lessons, {site.nbytes / 1e6:.1f} MB, "
          f"{site.seconds:.0f} s")  # fmt: skip
    return site


@pytest.fixture(scope="module")
def offline_browser(built_site, request):
    p = request.getfixturevalue("playwright_driver")
    browser = p.chromium.launch(
        executable_path=find_chromium(),
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run",
              "--disable-quic"],
    )  # fmt: skip
    # the browser's first page pays its start-up (fonts, caches): not a
    # lesson's opening time
    warm = browser.new_page()
    warm.goto((built_site.out / "genindex.html").resolve().as_uri())
    warm.close()
    yield browser
    browser.close()


class Visit:
    """A page opened from disk with the network cut off, and what it did."""

    def __init__(self, browser, path: Path, width: int = 1280,
                 height: int = 900, touch: bool = False) -> None:
        size = {"width": width, "height": height}
        # a phone is touched: a coarse pointer (CSS ``pointer: coarse``)
        self.context = browser.new_context(viewport=size, has_touch=touch,
                                           is_mobile=touch)  # fmt: skip
        self.remote: list[str] = []
        self.errors: list[str] = []

        def route(r):
            if r.request.url.startswith(("file:", "data:", "blob:")):
                r.continue_()
            else:
                self.remote.append(r.request.url)
                r.abort()

        self.context.route("**/*", route)
        page = self.page = self.context.new_page()
        page.on("request", lambda r: None if r.url.startswith(
            ("file:", "data:", "blob:")) else self.remote.append(r.url))  # fmt: skip
        page.on("requestfailed", lambda r: self.errors.append(f"failed {r.url}"))
        page.on("pageerror", lambda e: self.errors.append(f"page error {e}"))
        page.on("console", lambda m: self.errors.append(f"console {m.text}")
                if m.type == "error" else None)  # fmt: skip
        start = time.perf_counter()
        page.goto(path.resolve().as_uri(), wait_until="load")
        self.seconds = time.perf_counter() - start

    def assert_clean(self, name: str) -> None:
        assert self.remote == [], f"{name} sent requests to {sorted(set(self.remote))}"
        assert self.errors == [], f"{name}: {self.errors}"

    def close(self) -> None:
        self.context.close()


def _assert_plays(player, where: str, least: float = 12, touch: int = 32) -> dict:
    """Scroll to a view, check it fits and reads (no grid scrolls sideways,
    every control ``touch`` px at least), press its Play, and wait for its
    caption to move on."""
    player.scroll_into_view_if_needed()
    player.locator(".cgs").wait_for(state="visible", timeout=20_000)
    caption = player.locator(".cgs-caption")
    before = caption.inner_text()
    assert before.startswith("step 1/"), f"{where}: caption {before!r}"
    fonts = player.evaluate("""r => Math.min(...[...r.querySelectorAll(
        '.cgs-nums[font-size], .cgs-labels')].map(
        g => parseFloat(g.getAttribute('font-size'))))""")
    assert fonts >= least, f"{where}: text of {fonts} px"
    sizes = player.evaluate("""r => [...r.querySelectorAll('button, select')]
        .map(b => b.getBoundingClientRect()).map(b => [b.width, b.height])""")
    small = [wh for wh in sizes if min(wh) < touch]
    assert not small, f"{where}: controls smaller than {touch} px to touch: {small}"
    wide = player.evaluate("""r => [...r.querySelectorAll('.cgs-scroll')]
        .map(s => s.scrollWidth - s.clientWidth).filter(d => d > 0)""")
    assert not wide, f"{where}: grids scroll sideways by {wide} px in their box"
    box = player.bounding_box()
    width = player.evaluate("r => document.documentElement.clientWidth")
    assert box["x"] >= -0.5 and box["x"] + box["width"] <= width + 0.5, (
        f"{where}: the view {box} leaves the {width} px page")
    player.locator(".cgs-play").click()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        time.sleep(0.2)
        if caption.inner_text() != before:
            return {"font": fonts}
    raise AssertionError(f"{where}: Play did not move the caption")


#: what scrolls sideways in its own box in the lesson, but code: tables
#: wrap their cells on a phone, printed lines and results shown as text wrap
#: (convgrad-site.css); code, in a cell or shown as code (an HTML output's
#: highlighted <pre>), keeps its lines and scrolls, as the theme has it. A
#: view's grids (_assert_plays) and formulas (their own test) are left to
#: their checks
_SCROLLING = """() => [...document.querySelectorAll('article *')].filter(e => {
    const x = getComputedStyle(e).overflowX;
    return (x === 'auto' || x === 'scroll') && e.scrollWidth - e.clientWidth > 1
        && !e.closest('.cgs, .math, mjx-container')
        && !(e.matches('pre') && e.closest('div.cell_input, div.output.text_html'));
}).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} by ` +
    `${e.scrollWidth - e.clientWidth} px: ${e.textContent.trim().slice(0, 60)}`)"""


@pytest.mark.browser
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("number", SITE_LESSONS)
def test_a_lesson_page_plays_offline(built_site, offline_browser, number, screen):
    at = [f"{x.number:02d}" for x in built_site.lessons].index(number)
    lesson, html = built_site.lessons[at], built_site.pages[at]
    width, height = SCREENS[screen]
    visit = Visit(offline_browser, html, width, height, touch=screen == "phone")
    page, name = visit.page, f"{html.name} ({screen})"
    try:
        print(f"{name}: opened in {visit.seconds:.2f} s")
        assert visit.seconds < OPEN_SECONDS, f"{name} took {visit.seconds:.2f} s"
        # the lesson's own sections, and the links to run it
        assert page.locator("section#objectives, h2:has-text('Objectives')").count()
        assert page.locator("section#summary").count() == 1
        notebook = page.locator("a.convgrad-notebook").first.get_attribute("href")
        assert (html.parent / notebook).is_file()
        # Binder and GitHub only for a repository that exists: while
        # deploy/versions.env holds placeholders, the page says how to set them
        if site_links() is None:
            assert page.locator("a.convgrad-binder").count() == 0
            assert page.locator(".convgrad-unset").first.is_visible()
            assert page.locator("a[href*='mybinder.org'], "
                                "a[href*='github.com']").count() == 0
        else:
            binder = page.locator("a.convgrad-binder").first.get_attribute("href")
            assert binder == binder_url(lesson)
        if screen == "desktop":
            # the navigation lists every built lesson, and the search box is there
            nav = page.locator("nav.bd-links a.reference.internal")
            assert nav.count() >= len(built_site.pages)
            assert page.locator(".search-button, form.bd-search").count()
        # exercise cells hold the student copy's stub
        code = " ".join(page.locator("div.cell_input pre").all_inner_texts())
        if "exercises.check(" in code:
            assert "raise NotImplementedError" in code
        # every view plays in the page, laid out for its width
        players = page.locator(PLAYER)
        assert players.count() >= 1, f"{name} shows no view"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{lesson.stem}-{screen}.png"))
        for k in range(players.count()):
            # a phone's numbers are 12 px at least (its panels stack); a wide
            # column may keep one row of 10.5-px numbers (viz/scene.js)
            _assert_plays(players.nth(k), f"{name}, view {k + 1}",
                          12 if screen == "phone" else 10.5,
                          44 if screen == "phone" else 32)
            players.nth(k).screenshot(
                path=str(ARTIFACTS / f"{lesson.stem}-{screen}-view{k + 1}.png"))
        assert page.evaluate(
            "() => document.documentElement.scrollWidth <= innerWidth + 1"
        ), f"{name}: the page scrolls sideways"
        boxes = page.evaluate(_SCROLLING)
        assert not boxes, f"{name}: these scroll sideways in their box: {boxes}"
        exercises = page.locator("section#exercises")
        if exercises.count():
            exercises.first.scroll_into_view_if_needed()
            shot = ARTIFACTS / f"{lesson.stem}-{screen}-exercises.png"
            page.screenshot(path=str(shot))
        visit.assert_clean(name)
    finally:
        visit.close()


@pytest.mark.browser
def test_the_lesson_map_and_search_work_offline(built_site, offline_browser):
    visit = Visit(offline_browser, built_site.index)
    try:
        page = visit.page
        for html in built_site.pages:
            link = page.locator(f"article a[href='{html.name}']")
            assert link.count() >= 1, f"the lesson map does not link {html.name}"
        page.screenshot(path=str(ARTIFACTS / "index.png"), full_page=True)
        visit.assert_clean("index.html")
    finally:
        visit.close()
    search = built_site.out / "search.html"
    page_url = search.resolve().as_uri() + "?q=adjoint"
    visit = Visit(offline_browser, search)
    try:
        visit.page.goto(page_url, wait_until="load")
        results = visit.page.locator("#search-results ul.search li a")
        results.first.wait_for(timeout=10_000)
        hrefs = [results.nth(k).get_attribute("href") for k in range(results.count())]
        assert any("03-col2im-scatter" in h for h in hrefs), hrefs
        visit.assert_clean("search.html")
    finally:
        visit.close()


#: the lesson page audited for WCAG 2.2 AA (its views: col2im, the conv matrix)
AUDIT_LESSON = "03"


@pytest.mark.browser
def test_a_lesson_page_has_no_wcag_violations(built_site, offline_browser):
    """axe-core (tests/wcag_audit.py) on a whole lesson page, every view
    drawn: the theme's chrome is ours here (we configure and template it),
    so nothing is left out of the audit."""
    from wcag_audit import audit, axe_script, report

    axe_script()  # skips (or fails in CI) without npm, before the page opens
    at = [f"{x.number:02d}" for x in built_site.lessons].index(AUDIT_LESSON)
    lesson, html = built_site.lessons[at], built_site.pages[at]
    visit = Visit(offline_browser, html)
    page = visit.page
    try:
        players = page.locator(PLAYER)
        assert players.count() >= 1, f"{html.name} shows no view"
        for k in range(players.count()):  # each is drawn when it comes near
            players.nth(k).scroll_into_view_if_needed()
            players.nth(k).locator(".cgs svg").first.wait_for(timeout=20_000)
        players.first.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{lesson.stem}-audited.png"))
        # the page's own requests; axe then reads the style sheets itself
        # (with XHR, which a file:// page may not: its CSS-only rule, 1.3.4
        # orientation, is then left "incomplete", not passed)
        visit.assert_clean(html.name)
        found = audit(page)
        assert found == [], f"{html.name}:\n{report(found)}"
    finally:
        visit.close()


def _typeset(page) -> None:
    """Wait until MathJax 3 has typeset the page's formulas, if it has any:
    it loads after the page and typesets once it has started."""
    if page.locator("article .math").count():
        page.wait_for_function(
            "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
            timeout=20_000,
        )
        page.evaluate("() => MathJax.startup.promise")


def _display_math(nb: nbformat.NotebookNode) -> int:
    """How many display formulas (``$$ ... $$`` or ``\\[ ... \\]``) the
    lesson's markdown holds."""
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return text.count("$$") // 2 + text.count("\\[")


@pytest.mark.browser
@pytest.mark.parametrize("number", MATH_LESSONS)
def test_a_lesson_pages_formulas_are_typeset_offline(
    built_site, offline_browser, number
):
    at = [f"{x.number:02d}" for x in built_site.lessons].index(number)
    lesson, html = built_site.lessons[at], built_site.pages[at]
    display = _display_math(lesson.read())
    visit = Visit(offline_browser, html)
    page = visit.page
    try:
        _typeset(page)
        found = page.evaluate("""() => {
            const math = [...document.querySelectorAll('article .math')];
            return {
                math: math.length,
                typeset: math.filter(m => m.querySelector('mjx-container')).length,
                display: document.querySelectorAll(
                    'article mjx-container[display="true"]').length,
                text: document.querySelector('article').innerText,
            };
        }""")
        where = f"{html.name}: {found['math']} formulas, {found['typeset']} typeset"
        assert found["typeset"] == found["math"], where
        assert found["display"] >= display, (
            f"{html.name}: {display} display formulas in the lesson, "
            f"{found['display']} typeset")
        for raw in ("\\[", "\\(", "$$"):
            assert raw not in found["text"], f"{html.name} shows raw {raw!r}"
        if display:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.locator('mjx-container[display="true"]').first.screenshot(
                path=str(ARTIFACTS / f"{lesson.stem}-math.png"))
        visit.assert_clean(html.name)
    finally:
        visit.close()


#: every typeset formula of the page: its TeX, whether it is on a line of
#: its own, how wide it is drawn, and how wide its column is (a display
#: formula's box spans the column; an inline one's column is its paragraph's)
_FORMULAS = """() => [...document.querySelectorAll('article mjx-container')].map(c => {
    const math = c.querySelector('mjx-math').getBoundingClientRect();
    const item = MathJax.startup.document.getMathItemsWithin(c)[0];
    const display = c.getAttribute('display') === 'true';
    const column = display ? c : c.closest('p, li, td, th, dd, div');
    const box = column.getBoundingClientRect();
    return {
        tex: item ? item.math.trim().replace(/\\s+/g, ' ') : '?',
        display: display,
        width: Math.round(math.width),
        column: column.clientWidth,
        out: Math.max(box.left - math.left, math.right - box.right,
                      -math.left, math.right - document.documentElement.clientWidth),
        scroll: display ? c.scrollWidth - c.clientWidth : 0,  // inline: no box
    };
})"""


@pytest.mark.browser
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("number", SITE_LESSONS)
def test_no_formula_is_wider_than_its_column(
    built_site, offline_browser, number, screen
):
    """On a desktop and on a 390-px phone, every formula is drawn within its
    column, and no display formula scrolls sideways in its box (the theme
    gives each one a scroll bar rather than overflow the page)."""
    at = [f"{x.number:02d}" for x in built_site.lessons].index(number)
    lesson, html = built_site.lessons[at], built_site.pages[at]
    width, height = SCREENS[screen]
    visit = Visit(offline_browser, html, width, height, touch=screen == "phone")
    page, name = visit.page, f"{html.name} ({screen})"
    try:
        _typeset(page)
        formulas = page.evaluate(_FORMULAS)
        wide = [f"{f['width']} px in {f['column']}: {f['tex'][:60]}"
                for f in formulas if f["out"] > 0.5 or f["scroll"] > 0]  # fmt: skip
        display = [k for k, f in enumerate(formulas) if f["display"]]
        if display:
            # the widest display formula, on the screen as the reader sees it
            k = max(display, key=lambda k: formulas[k]["width"])
            shown = page.locator("article mjx-container").nth(k)
            shown.scroll_into_view_if_needed()
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(ARTIFACTS / f"{lesson.stem}-{screen}-formula.png"))
        assert not wide, f"{name}: formulas wider than their column: {wide}"
        if _display_math(lesson.read()):
            assert display, f"{name}: no display formula typeset"
        visit.assert_clean(name)
    finally:
        visit.close()


@pytest.mark.browser
def test_the_lesson_map_fits_a_phone(built_site, offline_browser):
    width, height = SCREENS["phone"]
    visit = Visit(offline_browser, built_site.index, width, height)
    try:
        fit = visit.page.evaluate("""() => {
            const table = document.querySelector('#lesson-map table');
            const box = table.parentElement.getBoundingClientRect();
            const cells = [...table.querySelectorAll('th, td')].map(
                c => c.getBoundingClientRect());
            return {
                page: document.documentElement.scrollWidth - innerWidth,
                right: Math.max(...cells.map(r => r.right)) - box.right,
                left: box.left - Math.min(...cells.map(r => r.left)),
                columns: table.rows[0].cells.length,
                last: table.rows[0].cells[table.rows[0].cells.length - 1].innerText,
            };
        }""")
        visit.page.locator("#lesson-map").screenshot(
            path=str(ARTIFACTS / "index-phone-lesson-map.png"))
        assert fit["page"] <= 1, f"the home page scrolls sideways: {fit}"
        # every column, "you write" included, is on the screen, not cut off
        assert fit["right"] <= 1 and fit["left"] <= 1, fit
        assert fit["columns"] == 4 and fit["last"].strip() == "you write", fit
        visit.assert_clean("index.html (phone)")
    finally:
        visit.close()
