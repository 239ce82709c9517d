"""The course tooling: student copies, offline slide decks, course checks.

Default tests stay fast: they export only the start lesson to slides and run
two student copies under nbval. The ``browser`` tests export every lesson's
offline deck once and check every slide in headless Chromium: overflow, the
animations' size, place and text size, and their players at 1280x720; every
text at least 12 px on a 1024x768 projector.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest
from tracked import lessons_folder, tracked_notebooks

from convgrad import exercises
from convgrad.course import (
    find_leaks,
    find_lessons,
    solution_lines,
    student_copy,
    write_student_copies,
)
from convgrad.course.__main__ import course_problems, main
from convgrad.course.publish import MissingTool, slides
from convgrad.course.publish.assets import remote_references
from convgrad.course.publish.chromium import find_chromium, print_pdf
from convgrad.course.publish.execute import execute_static, joined_streams
from convgrad.course.publish.slides import (
    ANIMATION_TAG,
    HEIGHT,
    NPM_ASSETS,
    WIDTH,
    animations_on_their_own_slide,
    compile_note,
    export_slides,
    npm_note,
    offline_problems,
    sections_on_their_own_subslide,
)
from convgrad.course.student import STUB
from convgrad.exercises import display
from convgrad.viz.export import PLAYER_CLASS

REPO = Path(__file__).resolve().parents[1]
# the lessons as git tracks them (tracked.py): a learner's work in this
# clone is neither read nor run
NOTEBOOKS = lessons_folder()
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


def test_every_lesson_has_a_plan_legible_code_and_no_solution_text(tmp_path):
    # plans exist for every lesson, code fits a slide, every cell has
    # slideshow metadata, and no student copy shows a reference solution;
    # checked on the lessons as committed (tracked.py): a learner who solved
    # an exercise in this clone has not leaked a solution
    for name, text in tracked_notebooks().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert course_problems(tmp_path, REPO / "course" / "plans") == []


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
        messages = [exercises.check(name, stub, quiet=True).message for name in names]
        assert all("not attempted yet" in x for x in messages)
        # as check prints it: wrapped at words
        text = "".join(display.wrap(x) + "\n" for x in messages)
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
    first subslide's section; every further subslide adds one. The deck
    splits a markdown cell with several ``## `` sections first."""
    nb = sections_on_their_own_subslide(nbformat.from_dict(nb))
    kinds = [c.metadata.get("slideshow", {}).get("slide_type") for c in nb.cells]
    return 2 * kinds.count("slide") + kinds.count("subslide")


def test_start_lesson_exports_to_an_offline_deck(tmp_path, capfd):
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
    assert page.count(f'class="{PLAYER_CLASS}"') == views
    # the views' renderer, once for the deck (nbconvert sorts attributes)
    assert len(re.findall(r'<script\b[^>]*type="module"', page)) == 1
    assert len(re.findall(r'<(?:script|style)\b[^>]*class="cgs-renderer"',
                          page)) == 2  # fmt: skip
    assert "analytic" in page and "numeric" in page
    assert not (REPO / "assets").exists(), "assets must never land in the repo"
    # the kernel said nothing on its way (no "running over TCP without
    # encryption" warning, no jupyter_client warning)
    err = capfd.readouterr().err
    assert "WARNING" not in err and "encryption" not in err, err[-2000:]


# a first export's one-time costs, stated in its progress (issue #41, point 8)


def _cached_but(cache: Path, missing: str | None) -> None:
    """Mark every npm package of the decks as fetched into ``cache``, but
    ``missing``."""
    for spec in NPM_ASSETS:
        if spec != missing:
            where = cache / spec.replace("/", "__").replace("@", "_at_")
            where.mkdir(parents=True)
            (where / ".complete").write_text(spec)


def test_the_npm_note_names_what_a_first_export_fetches(tmp_path):
    _cached_but(tmp_path, "mathjax@2.7.7")
    if shutil.which("npm"):
        note = npm_note(tmp_path)
        assert note == (
            "slides: first export: installing reveal.js assets from npm "
            f"(mathjax@2.7.7) into {tmp_path} while the lessons run "
            f"(one time, ~{slides.FIRST_NPM_SECONDS} s; later exports copy them)"
        )
    (tmp_path / "mathjax_at_2.7.7" / ".complete").parent.mkdir()
    (tmp_path / "mathjax_at_2.7.7" / ".complete").write_text("mathjax@2.7.7")
    assert npm_note(tmp_path) is None  # all fetched: nothing to say


def test_without_npm_a_first_offline_export_stops_before_any_lesson(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CONVGRAD_ASSET_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on it
    ran = []
    monkeypatch.setattr(slides, "execute_static", lambda *a, **k: ran.append(a))
    with pytest.raises(MissingTool, match="needs npm"):
        export_slides(tmp_path / "out", find_lessons(NOTEBOOKS, ["00"]),
                      offline=True, log=lambda m: None)  # fmt: skip
    assert ran == []


def test_the_compile_note_says_when_the_lessons_will_compile(tmp_path, monkeypatch):
    from convgrad.kernels import _jit

    place = tmp_path / "kernels_x"
    place.mkdir()
    monkeypatch.setattr(_jit, "cache_place", lambda: _jit.CachePlace(place, "t"))
    assert compile_note() == (
        f"slides: first export: compiling kernels (one time, "
        f"~{slides.FIRST_COMPILE_SECONDS} s in all): the lessons compile Numba's "
        f"kernels as they run, into {place}; later exports load them"
    )
    (place / "im2col.im2col.cg1-95.py311.nbi").write_bytes(b"")
    assert compile_note() is None  # a warm cache: nothing to say
    monkeypatch.setattr(_jit, "cache_place", lambda: _jit.CachePlace(None, "none"))
    assert "each lesson compiles the kernels it uses" in compile_note()


def test_a_first_export_says_its_one_time_costs_as_it_pays_them(tmp_path, monkeypatch):
    """A first export in a fresh environment: an empty kernel cache, and one
    npm package not fetched yet (requirejs, the smallest; the others are
    this machine's). The progress names both one-time costs before the
    lessons start, the package is fetched while the lesson runs, and the
    lesson's kernel compiles into the cache the note names."""
    _npm_or_skip()
    from convgrad.course.publish.assets import npm_package
    from convgrad.kernels import _jit

    cache = tmp_path / "assets"
    for spec in NPM_ASSETS:
        if spec != "requirejs@2":
            source = npm_package(spec).parent  # this machine's cache
            (cache / source.name).mkdir(parents=True)
            (cache / source.name / "package").symlink_to(source / "package")
            shutil.copy(source / ".complete", cache / source.name)
    monkeypatch.setenv("CONVGRAD_ASSET_CACHE", str(cache))
    numba_cache = tmp_path / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(numba_cache))  # the kernel's
    place = _jit.choose_place(Path(_jit.__file__).parent, os.environ)
    assert place.kind == "NUMBA_CACHE_DIR"
    monkeypatch.setattr(_jit, "cache_place", lambda: place)
    lines: list[str] = []
    [deck] = export_slides(tmp_path / "out", find_lessons(NOTEBOOKS, ["00"]),
                           offline=True, log=lines.append)  # fmt: skip
    assert lines[0] == "slides: 1 lesson(s), 1 at a time"
    assert lines[1].startswith("slides: first export: installing reveal.js assets "
                               "from npm (requirejs@2) into ")  # fmt: skip
    assert lines[2].startswith("slides: first export: compiling kernels (one time")
    assert str(place.path) in lines[2]
    assert lines[3] == "slides: lesson 1/1 00-start-here.ipynb"
    assert any(re.fullmatch(r"slides: reveal\.js assets from npm installed in \d+ s", x)
               for x in lines[3:])  # fmt: skip
    assert (cache / "requirejs_at_2" / ".complete").is_file()
    assert any(place.path.glob("*.nbi")), "the lesson compiled into the named cache"
    page = deck.html.read_text(encoding="utf-8")
    assert offline_problems(page, deck.html.parent) == []
    # a second export pays neither
    lines.clear()
    export_slides(tmp_path / "out2", find_lessons(NOTEBOOKS, ["00"]), offline=True,
                  log=lines.append)  # fmt: skip
    assert [x for x in lines if "one time" in x or "installed in" in x] == []


def test_an_exported_kernel_embeds_its_views_and_prints_its_bars(tmp_path):
    # the export starts the kernel with CONVGRAD_VIEWS=embed: each view is
    # its scene and the renderer, every step of it; a training bar is one
    # line of text once it finishes, not an empty widget
    view = "from convgrad import viz\nviz.Col2imView((3, 3), kernel_size=2, stride=1)"
    bar = ("from convgrad.training import progress_bar\n"
           "with progress_bar(total=4, desc='epoch 1/1') as bar:\n"
           "    for _ in range(4):\n        bar.update(1)")  # fmt: skip
    nb = _nb(_code(view), _code(bar), _code("import os; os.environ['CONVGRAD_VIEWS']"))
    out = execute_static(nb, tmp_path)
    assert len(out.cells) == 3
    html = "".join(o.get("data", {}).get("text/html", "") for o in out.cells[0].outputs)
    assert f'class="{PLAYER_CLASS}"' in html
    scene = json.loads(re.search(r'class="cgs-data">(.*?)</script>', html).group(1))
    assert scene["steps"] == len(scene["frames"]) == 16
    printed = out.cells[1].outputs
    assert [o.output_type for o in printed] == ["stream"], printed
    assert "epoch 1/1: 100%" in printed[0].text and "\r" not in printed[0].text
    assert "'embed'" in out.cells[2].outputs[0]["data"]["text/plain"]
    assert os.environ.get("CONVGRAD_VIEWS") is None, "the exporter's own is restored"


def test_the_slides_cli_has_no_frame_options(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--notebooks", str(NOTEBOOKS), "slides", str(tmp_path), "--steps", "3"])
    assert "--steps" in capsys.readouterr().err


def test_markdown_sections_become_subslides():
    nb = _nb(
        _md("## Summary\n\n- one\n\n## Exercises\n\n1. two\n\n```\n## not a head\n```",
            slideshow={"slide_type": "slide"}),  # fmt: skip
        _md("# Title\n\n## Objectives\n\n- read", slideshow={"slide_type": "slide"}),
        _md("one ## heading only", slideshow={"slide_type": "-"}),
    )
    out = sections_on_their_own_subslide(nb)
    kinds = [c.metadata["slideshow"]["slide_type"] for c in out.cells]
    assert kinds == ["slide", "subslide", "slide", "-"]
    assert out.cells[0].source == "## Summary\n\n- one"
    assert out.cells[1].source.startswith("## Exercises")
    assert "## not a head" in out.cells[1].source


# --------------------------------------------------------------------------
# the real check: every offline deck in headless Chromium, every slide
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


#: at most this much HTML per embedded view (its element: the scene; the
#: renderer and its styles come once per deck)
PLAYER_LIMIT = 0.4e6  # lesson 04's 1152-step channel view: 0.26 MB
#: the smallest number or label a view shows on a 1280-px slide
#: (--cgs-text-min in the deck template): 12.2 px on a 1024x768 screen
SLIDE_FONT_MIN = 15.2
#: no text of a slide is drawn smaller on a 1024x768 screen (issue 44)
PROJECTOR = (1024, 768)
LEGIBLE_PX = 12
SHOTS = REPO / "artifacts" / "slides"
_PLAYER_HTML = re.compile(rf"<{PLAYER_CLASS}\b.*?</{PLAYER_CLASS}>", re.S)


def player_sizes(page: str) -> list[int]:
    """Bytes of each embedded animation (its element and scene)."""
    return [len(m.group(0).encode()) for m in _PLAYER_HTML.finditer(page)]


@pytest.fixture(scope="module")
def offline_decks(tmp_path_factory):
    """Every lesson's offline deck, exported once for the module's browser
    tests (``CONVGRAD_DECKS=OUT/``: the decks ``python -m convgrad.course
    slides OUT/ --offline`` exported before), and the seconds it took."""
    _browser_or_skip()
    lessons = find_lessons(NOTEBOOKS)
    built = os.environ.get("CONVGRAD_DECKS")
    if built:
        return [slides.Deck(x, Path(built) / f"{x.stem}.slides.html")
                for x in lessons], 0.0  # fmt: skip
    started = time.monotonic()
    # two lessons at once: each runs in its own kernel (CI has 2 cores)
    decks = export_slides(tmp_path_factory.mktemp("decks"), lessons,
                          offline=True, log=lambda m: None, jobs=2)  # fmt: skip
    return decks, time.monotonic() - started


@pytest.fixture(scope="module")
def deck_browser(request):
    # the session's one driver: a second sync_playwright() cannot start
    # while the lesson tests' browser is alive
    chromium, _ = _browser_or_skip()
    p = request.getfixturevalue("playwright_driver")
    browser = p.chromium.launch(
        executable_path=chromium,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )
    yield browser
    browser.close()


@pytest.mark.browser
def test_offline_decks_play_in_chromium(offline_decks, deck_browser):
    """Every lesson's offline deck: each animation within the size limit;
    each slide screenshotted at 1280x720 (artifacts/slides/) and checked for
    overflow; each animation centred, filling its slide, its smallest text
    at least 15.2 px, and its player working, with no network request and no
    page error."""
    chromium, _ = _browser_or_skip()
    decks, exported = offline_decks
    started = time.monotonic()
    sizes = {d.html.name: player_sizes(d.html.read_text()) for d in decks}
    assert any(sizes.values()), "no exported deck embeds a view animation"
    big = {k: [f"{v / 1e6:.2f} MB" for v in vs if v > PLAYER_LIMIT]
           for k, vs in sizes.items()}  # fmt: skip
    assert not any(big.values()), f"animations over {PLAYER_LIMIT / 1e6} MB: {big}"
    pdf = print_pdf(decks[0].html, chromium)
    assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 20_000

    browser = deck_browser
    problems: list[str] = []
    played = 0
    for deck in decks:
        found, n = _check_deck(browser, deck.html, SHOTS / deck.lesson.stem)
        problems += found
        played += n
    print(f"\ndecks: exported in {exported:.0f} s, checked in "
          f"{time.monotonic() - started:.0f} s; {played} animations "
          f"played; largest {max(max(v, default=0) for v in sizes.values()) / 1e6:.2f}"
          " MB")  # fmt: skip
    # the views again on a projector's 1920x1080 (1024x768: the next test)
    for deck in decks:
        problems += _screens(browser, deck.html, SHOTS / deck.lesson.stem)
    assert problems == [], "\n".join(problems)
    assert played == sum(len(v) for v in sizes.values())


@pytest.mark.browser
def test_every_slide_is_legible_on_a_1024x768_projector(offline_decks, deck_browser):
    """Every slide of every deck at 1024x768, where reveal.js draws the
    1280x720 slide at 0.8 of its size: no visible text (a view's numbers,
    labels, legend and controls, code, output, a formula's scripts, the
    slide number) is drawn under 12 px, and a view stays within its slide.
    Each slide is screenshotted (artifacts/slides/LESSON/NN-1024x768.png)."""
    decks, _ = offline_decks
    width, height = PROJECTOR
    problems: list[str] = []
    for deck in decks:
        shots = SHOTS / deck.lesson.stem
        shots.mkdir(parents=True, exist_ok=True)
        for old in shots.glob(f"*-{width}x{height}.png"):
            old.unlink()
        page = deck_browser.new_page(viewport={"width": width, "height": height})
        page.goto(deck.html.resolve().as_uri(), timeout=120_000)
        page.wait_for_selector(".reveal.ready", state="attached", timeout=120_000)
        for k, at in enumerate(page.evaluate(_SLIDES), 1):
            m = page.evaluate(_GO, at)
            page.evaluate(_TYPESET)
            where = f"{deck.html.name} slide {k} ({m['title']!r}) at {width}x{height}"
            small = sorted((t for t in page.evaluate(_TEXTS) if t["px"] < LEGIBLE_PX),
                           key=lambda t: t["px"])  # the smallest first
            if small:
                shown = "; ".join(f"{t['text']!r} {t['px']:.1f} px ({t['where']})"
                                  for t in small[:4])  # fmt: skip
                problems.append(f"{where}: {len(small)} texts under "
                                f"{LEGIBLE_PX} px: {shown}")  # fmt: skip
            if m["player"]:
                slide, box = m["slide"], m["player"]["box"]
                if box["y"] + box["h"] > slide["y"] + slide["h"] + 2:
                    problems.append(f"{where}: the view runs below the slide")
            page.screenshot(path=str(shots / f"{k:02d}-{width}x{height}.png"))
        page.close()
    assert problems == [], "\n".join(problems)


#: once the present slide's formulas are typeset (the deck's MathJax 2
#: typesets them again for each slide it shows)
_TYPESET = """() => new Promise(ok => {
  const present = () => [...document.querySelectorAll(
    '.reveal .slides section.present')].filter(x => !x.querySelector('section'))[0];
  const shown = (k) => {
    const math = [...present().querySelectorAll('script[type^="math/tex"]')];
    const done = math.every(m => {
      const out = m.previousElementSibling;
      return out && out.classList.contains('MathJax_CHTML')
        && out.getClientRects().length;
    });
    if (done || k > 400) requestAnimationFrame(() => requestAnimationFrame(ok));
    else setTimeout(() => shown(k + 1), 25);
  };
  if (window.MathJax && MathJax.Hub) MathJax.Hub.Queue(() => shown(0)); else shown(0);
})"""

#: every visible text of the present slide (and the slide number) with the
#: size it is drawn at on the screen: its font size times the scale of what
#: holds it (reveal.js scales the slide; an SVG its viewBox). Text hidden
#: from the eye (display, visibility, opacity, or clipped to a pixel as
#: MathJax's copy for screen readers is) does not count; a menu counts with
#: the option it shows.
_TEXTS = """() => {
  const present = [...document.querySelectorAll('.reveal .slides section.present')]
    .filter(x => !x.querySelector('section'))[0];
  const clipped = el => {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const st = getComputedStyle(a), r = a.getBoundingClientRect();
      const clips = st.clip !== 'auto' || st.clipPath !== 'none';
      if (clips && (r.width <= 2 || r.height <= 2)) return true;
    }
    return false;
  };
  const drawn = el => {  // CSS px of el's font on the screen
    const px = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest('svg');
    if (svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
      return px * Math.min(r.width / vb.width, r.height / vb.height);
    }
    let box = el;  // wide enough that offsetWidth's rounding does not count
    while (box && !(box.offsetWidth >= 200)) box = box.parentElement;
    return box ? px * box.getBoundingClientRect().width / box.offsetWidth : px;
  };
  const out = [];
  const note = (el, text) => {
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return;
    if (clipped(el)) return;
    const cls = el.getAttribute('class') || el.tagName.toLowerCase();
    const up = el.parentElement && el.parentElement.getAttribute('class');
    out.push({px: drawn(el), text: text.slice(0, 40),
              where: (cls + (up ? ' in ' + up : '')).slice(0, 80)});
  };
  const roots = [present, document.querySelector('.reveal .slide-number')]
    .filter(Boolean);
  roots.forEach(root => {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      const text = t.textContent.trim();
      if (!text || t.parentElement.closest('script, style, select')) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      if (![...range.getClientRects()].some(r => r.width > 0 && r.height > 0)) continue;
      note(t.parentElement, text);
    }
    root.querySelectorAll('select').forEach(s => {
      const o = s.options[s.selectedIndex];
      if (o && s.getClientRects().length) note(s, o.text);
    });
  });
  return out;
}"""


def _screens(browser, deck: Path, shots: Path) -> list[str]:
    """Screenshot every view's sub-slide at 1920x1080; a view must stay
    within its slide."""
    problems = []
    for width, height in ((1920, 1080),):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(deck.resolve().as_uri(), timeout=120_000)
        page.wait_for_selector(".reveal.ready", state="attached", timeout=120_000)
        for k, at in enumerate(page.evaluate(_SLIDES), 1):
            m = page.evaluate(_GO, at)
            if not m["player"]:
                continue
            page.screenshot(path=str(shots / f"{k:02d}-{width}x{height}.png"))
            slide, box = m["slide"], m["player"]["box"]
            if box["y"] + box["h"] > slide["y"] + slide["h"] + 2:
                problems.append(f"{deck.name} slide {k} at {width}x{height}: "
                                f"the view runs below the slide")  # fmt: skip
        page.close()
    return problems


_SLIDES = """() => new Promise(ok => require(['assets/reveal.js/dist/reveal.js'], R => {
  const leaves = [...document.querySelectorAll('.reveal .slides section')]
    .filter(s => !s.querySelector('section'));
  ok(leaves.map(s => { const at = R.getIndices(s); return [at.h, at.v || 0]; }));
}))"""

_GO = """([h, v]) => new Promise(ok => require(
  ['assets/reveal.js/dist/reveal.js'], R => {
  R.slide(h, v);
  const present = () => [...document.querySelectorAll(
    '.reveal .slides section.present')].filter(x => !x.querySelector('section'))[0];
  const drawn = (k) => {  // a view is drawn once its slide shows it
    const v = present().querySelector('.convgrad-scene');
    if (!v || v.querySelector('.cgs svg') || k > 100) measure();
    else setTimeout(() => drawn(k + 1), 20);
  };
  const measure = () => requestAnimationFrame(() => requestAnimationFrame(() => {
    const s = present();
    const box = r => ({x: r.left, y: r.top, w: r.width, h: r.height});
    const player = s.querySelector('.convgrad-scene');
    ok({height: s.scrollHeight, width: s.scrollWidth,
        slide: box(s.getBoundingClientRect()), scale: R.getScale(),
        title: (s.innerText.trim().split('\\n')[0] || '').slice(0, 50),
        player: player && {box: box(player.getBoundingClientRect()),
                           // the element has no id: the page's
                           // n-th player, for page.locator(...).nth(n)
                           index: [...document.querySelectorAll(
                             '.convgrad-scene')].indexOf(player),
                           font: Math.min(...[...player.querySelectorAll(
                             '.cgs-nums[font-size], .cgs-labels')].map(
                             g => parseFloat(g.getAttribute('font-size'))))}});
  }));
  drawn(0);
}))"""


def _check_deck(browser, deck: Path, shots: Path) -> tuple[list[str], int]:
    """Screenshot and measure every slide of ``deck``; play its animations.
    Returns the problems found and how many animations played."""
    shots.mkdir(parents=True, exist_ok=True)
    for old in shots.glob("[0-9][0-9].png"):  # not the other screens' shots
        old.unlink()
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    remote, errors = [], []
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:"))
            else remote.append(r.url))  # fmt: skip
    page.on("requestfailed", lambda r: errors.append(f"failed {r.url}"))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(deck.resolve().as_uri(), timeout=120_000)
    page.wait_for_selector(".reveal.ready", state="attached", timeout=120_000)
    problems, played = [], 0
    for k, at in enumerate(page.evaluate(_SLIDES), 1):
        m = page.evaluate(_GO, at)
        where = f"{deck.name} slide {k} ({m['title']!r})"
        if m["height"] > HEIGHT + 1 or m["width"] > WIDTH + 1:
            problems.append(f"{where}: {m['width']}x{m['height']} px overflows "
                            f"the {WIDTH}x{HEIGHT} slide")  # fmt: skip
        if m["player"]:
            problems += _check_player(page, m, where)
            played += 1
        page.screenshot(path=str(shots / f"{k:02d}.png"))
    problems += [f"{deck.name} loaded {u}" for u in remote]
    problems += [f"{deck.name}: {e}" for e in errors]
    page.close()
    return problems, played


def _check_player(page, m: dict, where: str) -> list[str]:
    """A view on its sub-slide: as wide as the slide, centred, legible, and
    it plays, steps, pauses and resets."""
    problems = []
    slide, box = m["slide"], m["player"]["box"]
    if abs(slide["w"] - box["w"]) > 2 or abs(slide["x"] - box["x"]) > 2:
        problems.append(f"{where}: the view {box} is not as wide as its slide "
                        f"{slide}")  # fmt: skip
    if box["y"] + box["h"] > slide["y"] + slide["h"] + 2:
        problems.append(f"{where}: the view {box} runs below its slide {slide}")
    # on the 1280-px slide; a projector scales it (15 px at 1920x1080)
    if not m["player"]["font"] >= SLIDE_FONT_MIN:
        problems.append(f"{where}: smallest text {m['player']['font']} px, "
                        f"below {SLIDE_FONT_MIN}")  # fmt: skip
    player = page.locator(f".{PLAYER_CLASS}").nth(m["player"]["index"])
    try:
        player.locator(".cgs-caption").wait_for(state="visible", timeout=30_000)
    except Exception:  # noqa: BLE001 - reported as a problem
        return [*problems, f"{where}: the player never became ready"]
    caption = player.locator(".cgs-caption")
    first = caption.inner_text()
    for b in player.locator("button, select, input").all():
        if not (b.get_attribute("title") or b.get_attribute("aria-label")):
            problems.append(f"{where}: a control has no label")
    slider = player.locator("input.cgs-slider")
    if slider.input_value() != "1" or not first.startswith("step 1/"):
        problems.append(f"{where}: starts at {slider.input_value()}: {first!r}")
    player.locator(".cgs-next").click()
    if slider.input_value() != "2" or not caption.inner_text().startswith("step 2/"):
        problems.append(f"{where}: forward one step went to {slider.input_value()}")
    player.locator(".cgs-speed").select_option("75")  # 8x
    player.locator(".cgs-play").click()
    goal = min(4, int(slider.get_attribute("max")))  # some views have 3 steps
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and int(slider.input_value()) < goal:
        time.sleep(0.1)
    if player.locator(".cgs").get_attribute("data-playing") == "1":
        player.locator(".cgs-play").click()  # pause
    at = slider.input_value()
    time.sleep(0.5)
    if int(at) < goal:
        problems.append(f"{where}: Play did not advance the slider ({at})")
    elif slider.input_value() != at:
        problems.append(f"{where}: Pause did not stop the slider")
    if not caption.inner_text().startswith(f"step {slider.input_value()}/"):
        problems.append(f"{where}: the caption does not follow the slider")
    player.locator(".cgs-reset").click()
    if slider.input_value() != "1" or caption.inner_text() != first:
        problems.append(f"{where}: Reset did not go back to step 1")
    return problems


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

    anim = f'<div class="{PLAYER_CLASS}">scene</div>'
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


def test_printed_pieces_of_one_stream_become_one_output():
    """A busy kernel sends two prints a moment apart as two outputs; the
    export joins each run of one stream, so a slide is as tall as on a
    quiet machine (lesson 02's timing slide overflowed by one gap)."""
    out = nbformat.v4.new_output
    outputs = [out("stream", name="stdout", text="im2col: 54x\n"),
               out("stream", name="stdout", text="col2im: 159x\n"),
               out("stream", name="stderr", text="a warning\n"),
               out("stream", name="stdout", text="after\n"),
               out("execute_result", data={"text/plain": "1"},
                   execution_count=1),
               out("stream", name="stdout", text="last\n")]
    joined = joined_streams(outputs)
    assert [(o.output_type, o.get("name"), o.get("text")) for o in joined] == [
        ("stream", "stdout", "im2col: 54x\ncol2im: 159x\n"),
        ("stream", "stderr", "a warning\n"),
        ("stream", "stdout", "after\n"),
        ("execute_result", None, None),
        ("stream", "stdout", "last\n")]
