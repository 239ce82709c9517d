"""The course tooling: student copies, offline slide decks, course checks.

Default tests stay fast: they export only the start lesson to slides and run
two student copies under nbval. The ``browser`` test opens offline decks in
headless Chromium and presses an animation's Play.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import nbformat
import pytest

from convgrad import exercises
from convgrad.course import (
    find_leaks,
    find_lessons,
    solution_lines,
    student_copy,
    write_student_copies,
)
from convgrad.course.__main__ import course_problems, main
from convgrad.course.slides import (
    ANIMATION_TAG,
    animations_on_their_own_slide,
    export_slides,
    find_chromium,
    offline_problems,
    remote_references,
)
from convgrad.course.student import STUB

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
REQUIRE_BROWSER = os.environ.get("CONVGRAD_REQUIRE_BROWSER") == "1"
CHECK_CALL = re.compile(r"""exercises\.check\(\s*["'](\w+)["']""")


def _nb(*cells: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def _code(source: str, **metadata) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(textwrap.dedent(source).strip("\n"))
    cell.metadata.update(metadata)
    return cell


def _md(source: str, **metadata) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(textwrap.dedent(source).strip("\n"))
    cell.metadata.update(metadata)
    return cell


def _solution_body(name: str) -> list[str]:
    """The reference solution's source lines after its signature."""
    source = textwrap.dedent(inspect.getsource(exercises.solution(name)))
    lines = source.splitlines()
    start = next(i for i, x in enumerate(lines) if x.rstrip().endswith(":")) + 1
    return lines[start:]


# --------------------------------------------------------------------------
# lessons
# --------------------------------------------------------------------------


def test_lessons_are_found_in_order():
    lessons = find_lessons(NOTEBOOKS)
    on_disk = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    assert [x.path.name for x in lessons] == on_disk
    assert lessons[0].stem == "00-start-here"
    numbers = [x.number for x in lessons]
    assert numbers == sorted(set(numbers))
    assert [x.stem for x in find_lessons(NOTEBOOKS, ["00"])] == ["00-start-here"]


def test_unknown_lesson_is_named():
    with pytest.raises(ValueError, match=r"only must name lessons .*'99'"):
        find_lessons(NOTEBOOKS, ["99"])


def test_every_lesson_has_a_plan_legible_code_and_no_solution_text():
    # plans exist for every lesson, code fits a slide, every cell has
    # slideshow metadata, and no student copy shows a reference solution
    assert course_problems(NOTEBOOKS, REPO / "course" / "plans") == []


# --------------------------------------------------------------------------
# student copies: the convention
# --------------------------------------------------------------------------


def test_markers_become_a_stub_and_tagged_cells_go():
    body = _solution_body("col2im")
    marked = "\n".join(
        [
            "def col2im(col, input_size, kernel_size, stride=1, padding=0,",
            "           dilation=1):",
            "    # BEGIN SOLUTION",
            *body,
            "    # END SOLUTION",
            "",
            "",
            'exercises.check("col2im", col2im)',
        ]
    )
    run = _code("print('ran')")
    run.outputs = [nbformat.v4.new_output("stream", text="ran\n")]
    run.execution_count = 3
    run.metadata["execution"] = {"iopub.status.idle": "2026-01-01"}
    nb = _nb(
        _md("# Lesson", slideshow={"slide_type": "slide"}),
        run,
        _code(marked, slideshow={"slide_type": "-"}),
        _code("\n".join(_solution_body("im2col")), tags=["solution"]),
        _md("**Answer.** The pixel gets 4 copies.", tags=["solution"]),
        _md(
            """
            **Q.** How many windows cover pixel (2, 2)?
            <!-- BEGIN SOLUTION -->
            Four: two along each axis.
            <!-- END SOLUTION -->
            Try it.
            """
        ),
    )
    nb.metadata["widgets"] = {"state": {}}
    copy = student_copy(nb, "lesson.ipynb")

    assert len(copy.cells) == 4  # the two tagged cells are gone
    assert copy.cells[0].source == "# Lesson"
    assert copy.cells[0].metadata["slideshow"] == {"slide_type": "slide"}
    assert copy.cells[1].outputs == [] and copy.cells[1].execution_count is None
    assert "execution" not in copy.cells[1].metadata
    assert "widgets" not in copy.metadata
    stubbed = copy.cells[2].source.splitlines()
    assert stubbed[2] == "    " + STUB
    assert stubbed[-1] == 'exercises.check("col2im", col2im)'
    assert "Four" not in copy.cells[3].source
    assert "Try it." in copy.cells[3].source and "**Q.**" in copy.cells[3].source
    assert find_leaks(copy) == []
    assert find_leaks(nb), "the original does hold the solution"
    assert _assert_stubs_only(copy.cells[2].source, "copy") == 1
    with pytest.raises(AssertionError, match="col2im is not a stub"):
        _assert_stubs_only(nb.cells[2].source, "original")
    for line in body:
        if line.strip():
            assert line not in "\n".join(c.source for c in copy.cells)
    # the stub runs, and the checker reports the exercise unattempted
    namespace = {"exercises": exercises}
    exec(copy.cells[2].source.replace("exercises.check", "result = exercises.check"),
         namespace)
    assert namespace["result"].status == "not attempted"
    # the source notebook is untouched
    assert nb.cells[1].outputs and len(nb.cells) == 6


@pytest.mark.parametrize(
    "source, rule",
    [
        ("x = 1\n# BEGIN SOLUTION\nx = 2", "never closed"),
        ("x = 1\n# END SOLUTION", "without a '# BEGIN SOLUTION'"),
        ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION", "inside another"),
    ],
)
def test_unbalanced_code_markers_are_rejected(source, rule):
    pattern = rf"lesson\.ipynb, cell 0: .*{re.escape(rule)}"
    with pytest.raises(ValueError, match=pattern):
        student_copy(_nb(_code(source)), "lesson.ipynb")


def test_unbalanced_markdown_markers_are_rejected():
    with pytest.raises(ValueError, match="must pair up"):
        student_copy(_nb(_md("a <!-- BEGIN SOLUTION --> b")), "lesson.ipynb")


@pytest.mark.parametrize("name", sorted(exercises.EXERCISES))
def test_an_unmarked_solution_is_caught(name, tmp_path):
    # every reference solution has lines the detector knows ...
    assert solution_lines()[name], f"{name} has no distinctive line to look for"
    fn = exercises.solution(name)
    pasted = _nb(_code(inspect.getsource(fn)))
    leaks = find_leaks(pasted)
    assert name in {x.exercise for x in leaks}
    # ... and a student copy that would show it is refused
    folder = tmp_path / "nb"
    folder.mkdir()
    nbformat.write(pasted, folder / "05-pasted.ipynb")
    with pytest.raises(ValueError, match=r"05-pasted\.ipynb: the student copy would"):
        write_student_copies(tmp_path / "out", find_lessons(folder))
    assert not (tmp_path / "out" / "05-pasted.ipynb").exists()


def test_a_solution_printed_in_an_output_is_caught():
    cell = _code("show()")
    text = "\n".join(_solution_body("maxpool_backward"))
    cell.outputs = [nbformat.v4.new_output("stream", text=text)]
    # outputs are cleared in copies; the detector still reads them
    assert {x.exercise for x in find_leaks(_nb(cell))} == {"maxpool_backward"}


def _assert_stubs_only(source: str, where: str) -> int:
    """Every function an exercise cell hands to the checker is a bare stub:
    an optional docstring, then ``raise NotImplementedError``."""
    checked = {
        call.args[1].id
        for call in ast.walk(_parse(source))
        if isinstance(call, ast.Call)
        and ast.unparse(call.func) == "exercises.check"
        and len(call.args) == 2
        and isinstance(call.args[1], ast.Name)
    }
    stubs = 0
    for node in _parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name in checked:
            body = node.body
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                body = body[1:]
            assert len(body) == 1 and isinstance(body[0], ast.Raise), (
                f"{where}: {node.name} is not a stub"
            )
            assert ast.unparse(body[0].exc) == "NotImplementedError", where
            stubs += 1
    return stubs


def _parse(source: str) -> ast.Module:
    # IPython magics are not Python; blank them before parsing
    return ast.parse(re.sub(r"(?m)^\s*[%!].*$", "", source))


def _expect_not_attempted(nb: nbformat.NotebookNode) -> int:
    """Tag each exercise-check cell so nbval compares its output with the
    checker's 'not attempted yet' message; returns how many were tagged."""

    def stub(*args, **kwargs):
        raise NotImplementedError

    tagged = 0
    for cell in nb.cells:
        names = CHECK_CALL.findall(cell.source) if cell.cell_type == "code" else []
        if not names:
            continue
        text = "".join(
            exercises.check(name, stub, quiet=True).message + "\n" for name in names
        )
        assert all("not attempted yet" in x for x in text.splitlines())
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        cell.execution_count = 1  # nbval compares only cells that "ran"
        cell.metadata.setdefault("tags", []).append("nbval-check-output")
        tagged += 1
    return tagged


def test_student_copies_have_no_solutions_and_run_under_nbval(tmp_path):
    out = tmp_path / "student"
    lessons = find_lessons(NOTEBOOKS)
    only = [arg for x in lessons for arg in ("--lesson", x.stem)]
    argv = ["--notebooks", str(NOTEBOOKS), "student-copies", str(out), *only]
    assert main(argv) == 0
    copies = sorted(out.glob("*.ipynb"))
    assert [p.name for p in copies] == [x.path.name for x in lessons]
    stubs = 0
    for path in copies:
        nb = nbformat.read(path, as_version=4)
        assert find_leaks(nb) == [], path.name
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None
                stubs += _assert_stubs_only(cell.source, path.name)
    # every lesson after 00 hands at least one stub to the checker
    assert stubs >= len(copies) - 1

    # run the start lesson and the first lesson with exercises, as a
    # student gets them: every exercise must report "not attempted yet"
    def calls_checker(path: Path) -> bool:
        nb = nbformat.read(path, as_version=4)
        return any(CHECK_CALL.search(c.source) for c in nb.cells)

    with_exercises = [p for p in copies[1:] if calls_checker(p)]
    assert with_exercises, "no lesson calls exercises.check"
    chosen = [copies[0], with_exercises[0]]
    if os.environ.get("CONVGRAD_COURSE_ALL_COPIES") == "1":
        chosen = copies
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    tagged = 0
    for path in chosen:
        nb = nbformat.read(path, as_version=4)
        tagged += _expect_not_attempted(nb)
        nbformat.write(nb, run_dir / path.name)
    assert tagged >= 1
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env",
         "--nbval-cell-timeout=300", "-p", "no:cacheprovider", "-q",
         *[p.name for p in chosen]],
        cwd=run_dir, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", proc.stdout)


def test_cli_reports_bad_lesson(tmp_path, capsys):
    code = main(["--notebooks", str(NOTEBOOKS), "student-copies", str(tmp_path),
                 "--lesson", "99"])
    assert code == 2
    assert "only must name lessons" in capsys.readouterr().err


# --------------------------------------------------------------------------
# slides
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        '<script src="https://cdn.example.org/reveal.js"></script>',
        '<script src="//cdn.example.org/x.js"></script>',
        '<link rel="stylesheet" href="http://cdn.example.org/a.css">',
        '<link rel="preload" href="https://fonts.example.org/f.woff2">',
        "<style>@import url(https://fonts.googleapis.com/css?family=Lato);</style>",
        "<style>@import 'https://example.org/x.css';</style>",
        "<style>p { background: url('https://example.org/bg.png'); }</style>",
        '<div style="background: url(http://example.org/a.png)"></div>',
        "<script>require(['https://unpkg.com/reveal.js@4.0.2/dist/reveal.js'])</script>",
        "<script type=module>import m from 'https://cdn.example.org/m.mjs';</script>",
        '<img src="https://example.org/logo.png">',
    ],
)
def test_remote_reference_finder_catches(html):
    page = f"<html><head></head><body>{html}</body></html>"
    assert len(remote_references(page)) == 1


def test_remote_reference_finder_allows_local_and_links():
    page = """<html><head>
    <script src="assets/require.js"></script>
    <link rel="stylesheet" href="assets/reveal.js/dist/reveal.css">
    <style>@import url(fonts/source-sans-pro.css);</style>
    <script>var svg = "http://www.w3.org/2000/svg"; var a = 'a/b.js';</script>
    </head><body><a href="https://pytorch.org/docs">docs</a>
    <img src="data:image/png;base64,AAAA"></body></html>"""
    assert remote_references(page) == []


def _npm_or_skip() -> None:
    if shutil.which("npm") is None:
        if os.environ.get("CONVGRAD_REQUIRE_SLIDES") == "1":
            pytest.fail("npm is missing and CONVGRAD_REQUIRE_SLIDES=1")
        pytest.skip("offline slides fetch their assets with npm, which is missing")


def _sections(nb: nbformat.NotebookNode) -> int:
    """<section>s reveal needs: a slide is an outer section holding its
    first subslide's section; every further subslide adds one."""
    kinds = [c.metadata.get("slideshow", {}).get("slide_type") for c in nb.cells]
    return 2 * kinds.count("slide") + kinds.count("subslide")


def test_start_lesson_exports_to_an_offline_deck(tmp_path):
    _npm_or_skip()
    decks = export_slides(
        tmp_path, find_lessons(NOTEBOOKS, ["00"]), offline=True, log=lambda m: None
    )
    [deck] = decks
    page = deck.html.read_text(encoding="utf-8")
    assert remote_references(page) == []
    assert offline_problems(page, tmp_path) == []
    # the deck really points at the local copies
    for local in ("assets/reveal.js/dist/reveal.js", "assets/require.js",
                  "assets/jquery.min.js", "assets/mathjax/MathJax.js"):
        assert local in page
        assert (tmp_path / local).is_file()
    assert "width: 1280" in page and "height: 720" in page
    # one <section> per slide and subslide; executed outputs are in it
    nb = nbformat.read(NOTEBOOKS / "00-start-here.ipynb", as_version=4)
    # in 00, each view's animation gets a sub-slide of its own, and the rest
    # of the view's slide continues on another
    views = sum(".widget()" in c.source for c in nb.cells if c.cell_type == "code")
    assert views >= 1
    assert page.count("<section") == _sections(nb) + 2 * views
    assert "analytic" in page and "numeric" in page
    assert not (REPO / "assets").exists(), "assets must never land in the repo"


def test_views_are_embedded_as_their_animation(monkeypatch):
    # the export sets the static flag in the deck's kernel; set it here
    from convgrad import viz

    monkeypatch.setattr(viz.View, "static", True)
    view = viz.Col2imView(input_size=(3, 3), kernel_size=2, stride=1)
    shown = view.widget()
    page = shown._repr_html_()
    assert 'class="animation"' in page
    frames = re.findall(r'frames\[\d+\] = "data:image/png;base64,', page)
    assert len(frames) == view.n_frames > 2  # every step is a frame
    assert view._repr_mimebundle_() == {"text/html": page}
    monkeypatch.setattr(viz.View, "static", False)
    live = viz.Col2imView(input_size=(4, 4))
    assert not isinstance(live.widget(), type(shown))
    live.close()


# --------------------------------------------------------------------------
# the real check: offline decks in headless Chromium, press Play
# --------------------------------------------------------------------------


def _browser_or_skip():
    chromium = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if chromium is None or sync_playwright is None or shutil.which("npm") is None:
        why = "needs chromium, the playwright package and npm"
        if REQUIRE_BROWSER:
            pytest.fail(f"{why}; CONVGRAD_REQUIRE_BROWSER=1")
        pytest.skip(why)
    return chromium, sync_playwright


def _lesson_like(*words: str) -> list[str]:
    return [
        x.stem for x in find_lessons(NOTEBOOKS) if any(w in x.slug for w in words)
    ]


@pytest.mark.browser
def test_offline_decks_play_in_chromium(tmp_path, request):
    chromium, _ = _browser_or_skip()
    wanted = ["00-start-here", *_lesson_like("col2im", "maxpool")]
    assert len(wanted) >= 2, "the col2im lesson has not landed"
    decks = export_slides(
        tmp_path, find_lessons(NOTEBOOKS, wanted), offline=True, pdf=True,
        log=lambda m: None,
    )
    animated = [d for d in decks if 'class="animation"' in d.html.read_text()]
    assert animated, "no exported deck embeds a view animation"
    start = decks[0]
    assert start.pdf is not None and start.pdf.read_bytes()[:5] == b"%PDF-"
    assert start.pdf.stat().st_size > 20_000

    # the session's one driver: a second sync_playwright() cannot start
    # while the lesson tests' browser is alive
    p = request.getfixturevalue("playwright_driver")
    browser = p.chromium.launch(
        executable_path=chromium,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )
    try:
        for deck in animated:
            _press_play(browser, deck.html)
    finally:
        browser.close()


def _press_play(browser, deck: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    remote, errors = [], []
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:"))
            else remote.append(r.url))
    page.on("requestfailed", lambda r: errors.append(f"failed {r.url}"))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(deck.resolve().as_uri())
    page.wait_for_selector(".reveal.ready", state="attached", timeout=30_000)
    # reveal is an AMD module here; ask require.js for it and go to the view
    page.evaluate(
        """() => new Promise(ok => require(['assets/reveal.js/dist/reveal.js'],
        R => { const s = document.querySelector('.animation').closest('section');
               const at = R.getIndices(s); R.slide(at.h, at.v); ok(); }))"""
    )
    player = page.locator("section.present .animation").first
    player.wait_for(state="visible", timeout=10_000)
    frame = player.locator("img").first
    slider = player.locator("input.anim-slider").first
    first_src, first_at = frame.get_attribute("src"), int(slider.input_value())
    assert first_at == 0
    # the buttons' icons come from the local font-awesome
    family = player.locator("i.fa").first.evaluate(
        "e => getComputedStyle(e).fontFamily"
    )
    assert "FontAwesome" in family
    player.locator("button[onclick*='play_animation']").first.click()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and int(slider.input_value()) < 2:
        time.sleep(0.2)
    assert int(slider.input_value()) >= 2, "Play did not advance the slider"
    assert frame.get_attribute("src") != first_src, "the frame did not change"
    assert remote == [], f"{deck.name} loaded {remote}"
    assert errors == [], f"{deck.name}: {errors}"
    page.screenshot(path=str(deck.with_suffix(".png")))
    page.close()


def test_each_animation_gets_a_subslide_of_its_own():
    def cell(kind, html=None, **meta):
        c = nbformat.v4.new_code_cell("x", metadata={"slideshow": {"slide_type": kind}})
        c.metadata.update(meta)
        if html:
            c.outputs = [
                nbformat.v4.new_output(
                    "display_data", data={"text/html": html, "text/plain": "v"}
                )
            ]
        return c

    anim = '<div class="animation">frames</div>'
    nb = nbformat.v4.new_notebook(
        cells=[
            cell("slide"),
            cell("-", anim, tags=["mine"]),
            cell("skip"),
            cell("fragment"),
            cell("-", "<b>not a view</b>"),
            cell("slide"),
        ]
    )
    out = animations_on_their_own_slide(nb)
    kinds = [c.metadata["slideshow"]["slide_type"] for c in out.cells]
    # the code stays, its animation moves to a sub-slide, and what followed
    # the view on its slide continues on a sub-slide after it
    assert kinds == ["slide", "-", "subslide", "skip", "subslide", "-", "slide"]
    code, shown = out.cells[1], out.cells[2]
    assert code.outputs == [] and code.source == "x"
    assert anim in shown.outputs[0]["data"]["text/html"]
    assert shown.metadata["tags"] == ["mine", ANIMATION_TAG]
    assert out.cells[5].outputs  # an ordinary output stays where it was
