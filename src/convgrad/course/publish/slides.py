"""Slide decks: every lesson as a reveal.js deck, views as embedded scenes.

Each lesson's student copy (no solutions) is executed in a fresh kernel
started with ``CONVGRAD_VIEWS=embed`` (see :func:`convgrad.viz.display_as`),
so every view is embedded as its scene and the browser renderer: it plays
every step with no kernel, and exporting it costs what building the scene
costs. The deck is what ``jupyter nbconvert --to slides --execute``
writes, from the cells' ``metadata.slideshow.slide_type``, at 1280x720,
with two rules of its own: each view's animation fills a sub-slide of its
own, and a markdown cell with several ``## `` sections becomes one
sub-slide per section.

``offline=True`` makes every script, style sheet and font local: the
packages below are fetched from the npm registry **at export time** (``npm
pack``, cached under ``~/.cache/convgrad/slide-assets`` or
``$CONVGRAD_ASSET_CACHE``), never committed, and copied into
``OUT/assets/`` next to the decks.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ...viz.export import PLAYER_CLASS, one_renderer
from ..lessons import Lesson, find_lessons
from ..student import student_copy
from . import require
from .assets import (
    asset_cache,
    copy_from_package,
    is_cached,
    local_references,
    remote_references,
    remote_references_in_assets,
    require_npm,
)
from .chromium import find_chromium, print_pdf
from .execute import embedded_views, execute_static

ASSETS = "assets"
#: npm package -> (path in the package, path under ``assets/``)
NPM_ASSETS: dict[str, list[tuple[str, str]]] = {
    "reveal.js@4.0.2": [  # the white theme: its fonts are local, others import
        ("dist/reveal.js", "reveal.js/dist/reveal.js"),  # from Google Fonts
        ("dist/reveal.css", "reveal.js/dist/reveal.css"),
        ("dist/theme/white.css", "reveal.js/dist/theme/white.css"),
        ("dist/theme/fonts", "reveal.js/dist/theme/fonts"),
        ("plugin/notes", "reveal.js/plugin/notes"),
    ],
    "@jupyter-widgets/html-manager@1": [("dist", "html-manager/dist")],
    "requirejs@2": [("require.js", "require.js")],
    "jquery@3": [("dist/jquery.min.js", "jquery.min.js")],
    "font-awesome@4.7.0": [
        ("css", "font-awesome/css"),
        ("fonts", "font-awesome/fonts"),
    ],
    "mathjax@2.7.7": [
        ("MathJax.js", "mathjax/MathJax.js"),
        ("config/TeX-AMS_CHTML-full.js", "mathjax/config/TeX-AMS_CHTML-full.js"),
        ("config/Safe.js", "mathjax/config/Safe.js"),
        ("extensions", "mathjax/extensions"),
        ("jax/element", "mathjax/jax/element"),
        ("jax/input/TeX", "mathjax/jax/input/TeX"),
        ("jax/output/CommonHTML", "mathjax/jax/output/CommonHTML"),
        ("fonts/HTML-CSS/TeX/woff", "mathjax/fonts/HTML-CSS/TeX/woff"),
        ("fonts/HTML-CSS/TeX/otf", "mathjax/fonts/HTML-CSS/TeX/otf"),
    ],
}

#: nbconvert settings that point the deck at ``assets/`` (relative URLs)
OFFLINE_URLS = {
    "reveal_url_prefix": f"{ASSETS}/reveal.js",
    "require_js_url": f"{ASSETS}/require.js",
    "jquery_url": f"{ASSETS}/jquery.min.js",
    "widget_renderer_url": f"{ASSETS}/html-manager/dist/embed-amd.js",
    "mathjax_url": f"{ASSETS}/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe",
    "font_awesome_url": f"{ASSETS}/font-awesome/css/font-awesome.min.css",
}

TEMPLATES = Path(__file__).parent / "templates"
WIDTH, HEIGHT = 1280, 720

_FONT_AWESOME_LINK = re.compile(
    r"""href=(["'])https?://[^"']*font-awesome[^"']*?\.css\1""", re.IGNORECASE
)


def install_assets(out: Path, cache: Path | None = None) -> Path:
    """Copy every offline asset into ``out/assets``; return that folder."""
    target = Path(out) / ASSETS
    for spec, items in NPM_ASSETS.items():
        copy_from_package(spec, items, target, cache)
    return target


def offline_problems(page: str, folder: Path) -> list[str]:
    """Why a deck saved in ``folder`` would not work offline: network
    references, in the page or its style sheets, and local ones that do not
    resolve to a file."""
    problems = [str(x) for x in remote_references(page)]
    for ref in local_references(page):
        if not (Path(folder) / ref.split("?")[0].split("#")[0]).is_file():
            problems.append(f"missing local file {ref}")
    assets = Path(folder) / ASSETS
    if assets.is_dir():
        problems += [str(x) for x in remote_references_in_assets(assets)]
    return problems


# --------------------------------------------------------------------------
# export
# --------------------------------------------------------------------------


ANIMATION_TAG = "convgrad-animation"


def _has_animation(cell: nbformat.NotebookNode) -> bool:
    mark = f'class="{PLAYER_CLASS}"'
    return any(
        mark in "".join(out.get("data", {}).get("text/html", ""))
        for out in cell.get("outputs", [])
    )


def animations_on_their_own_slide(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Give every view's animation a sub-slide of its own.

    The code that builds the view stays on its slide, without output; a copy
    of the cell with the input hidden follows as a new sub-slide, so the
    animation can use the slide's full height and stay legible in a room.
    What followed the view on its slide continues on a sub-slide after it.
    """
    cells = []
    promote = False
    for cell in nb.cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if promote and kind in ("-", "fragment", ""):
            cell.metadata["slideshow"] = {"slide_type": "subslide"}
        if kind not in ("skip", "notes"):
            promote = False
        if cell.cell_type != "code" or not _has_animation(cell):
            cells.append(cell)
            continue
        promote = True
        shown = nbformat.from_dict(cell)
        shown.metadata["slideshow"] = {"slide_type": "subslide"}
        shown.metadata["tags"] = [*cell.metadata.get("tags", []), ANIMATION_TAG]
        if "id" in cell:
            shown["id"] = f"{cell['id']}-animation"[:64]
        cell.outputs = []
        cells += [cell, shown]
    nb.cells = cells
    return nb


_HEADING = re.compile(r"^## ", re.MULTILINE)


def sections_on_their_own_subslide(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Split a markdown cell with several ``## `` sections (a summary and
    the exercises, say) into one cell per section: the first keeps the
    cell's place, each further one starts a sub-slide. Headings inside a
    fenced code block do not count."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            cells.append(cell)
            continue
        parts, fenced, lines = [[]], False, cell.source.splitlines(keepends=True)
        for line in lines:
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            started = any(x.strip() for x in parts[-1])
            if not fenced and started and _HEADING.match(line):
                parts.append([])
            parts[-1].append(line)
        heads = sum(1 for p in parts if p and _HEADING.match(p[0]))
        if len(parts) == 1 or heads < 2:
            cells.append(cell)
            continue
        for k, part in enumerate(parts):
            piece = nbformat.from_dict(cell)
            piece.source = "".join(part).rstrip("\n")
            if k:
                piece.metadata["slideshow"] = {"slide_type": "subslide"}
                if "id" in cell:
                    piece["id"] = f"{cell['id']}-{k}"[:64]
            cells.append(piece)
    nb.cells = cells
    return nb


def render_deck(nb: nbformat.NotebookNode, title: str, offline: bool) -> str:
    """The reveal.js HTML of an executed notebook (its views' renderer
    loaded once: :func:`convgrad.viz.export.one_renderer`)."""
    require("nbconvert", "slides", "a slide deck")
    from nbconvert import SlidesExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    nb = sections_on_their_own_subslide(nbformat.from_dict(nb))
    nb = animations_on_their_own_slide(nb)
    exporter = SlidesExporter(
        extra_template_basedirs=[str(TEMPLATES)],
        template_name="convgrad_reveal",
        reveal_width=str(WIDTH),
        reveal_height=str(HEIGHT),
        reveal_theme="white",
        reveal_transition="none",
        # nbconvert's scroll script gives every slide taller than 95% of
        # the window a scroll bar and a 20 px top margin, an animation's
        # 720 px sub-slide included; the template's CSS scrolls instead
        reveal_scroll=False,
        reveal_number="c/t",
    )
    exporter.register_preprocessor(
        TagRemovePreprocessor(remove_input_tags={ANIMATION_TAG}), enabled=True
    )
    if offline:
        for name, value in OFFLINE_URLS.items():
            setattr(exporter, name, value)
    page, _ = exporter.from_notebook_node(
        nb, resources={"metadata": {"name": title}}
    )
    if offline:
        local = OFFLINE_URLS["font_awesome_url"]
        page = _FONT_AWESOME_LINK.sub(f'href="{local}"', page)
    return one_renderer(page)  # the deck loads the views' renderer once


@dataclass(frozen=True)
class Deck:
    lesson: Lesson
    html: Path
    pdf: Path | None = None


def _closing_loop(run):
    """``run`` for a worker thread: nbclient leaves an asyncio loop behind
    in each thread it runs in; close it when the lesson is done."""

    def wrapped(lesson: Lesson) -> str:
        try:
            return run(lesson)
        finally:
            from jupyter_core.utils import ensure_event_loop

            ensure_event_loop().close()

    return wrapped


# --------------------------------------------------------------------------
# a first export's one-time costs (benchmarks/RESULTS.md, "Slide decks: a
# first export"): the npm packages, fetched while the lessons run, and the
# Numba kernels the lessons compile into the cache
# --------------------------------------------------------------------------

#: seconds, rounded up, that each took on a 2-core machine
FIRST_NPM_SECONDS = 10
FIRST_COMPILE_SECONDS = 15


def npm_note(cache: Path | None = None) -> str | None:
    """The progress line for npm packages not fetched yet (None: all are in
    the cache). Raises :class:`MissingTool` at once if npm is missing."""
    missing = [spec for spec in NPM_ASSETS if not is_cached(spec, cache)]
    if not missing:
        return None
    require_npm(missing[0])
    where = asset_cache() if cache is None else Path(cache)
    return (
        f"slides: first export: installing reveal.js assets from npm "
        f"({', '.join(missing)}) into {where} while the lessons run "
        f"(one time, ~{FIRST_NPM_SECONDS} s; later exports copy them)"
    )


def compile_note() -> str | None:
    """The progress line when the lessons' kernels will compile Numba's
    kernels: the cache they use holds none yet (a first export on this
    machine, or with a new numba or Python), or there is no cache."""
    from ...kernels._jit import cache_place  # the kernels' process finds the same

    place = cache_place()
    if place.path is None:
        return (
            "slides: no folder can hold Numba's kernel cache: each lesson compiles "
            "the kernels it uses, a few seconds each (set NUMBA_CACHE_DIR)"
        )
    if any(place.path.glob("*.nbi")):
        return None
    return (
        f"slides: first export: compiling kernels (one time, ~"
        f"{FIRST_COMPILE_SECONDS} s in all): the lessons compile Numba's kernels "
        f"as they run, into {place.path}; later exports load them"
    )


def _one_write(log):  # noqa: ANN001
    """``log``, except that ``print`` writes each line in one call: lessons
    run in threads, and print's two writes (the text, the newline) let
    another thread's line in between."""
    if log is print:
        return lambda message: print(f"{message}\n", end="", flush=True)
    return log


def _assets_meanwhile(
    out: Path, note: str | None, log  # noqa: ANN001
) -> tuple[ThreadPoolExecutor, Future]:
    """Install the offline assets into ``out/assets`` in a thread of its
    own, so that fetching them from npm overlaps the lessons' execution."""

    def install() -> None:
        started = time.monotonic()
        install_assets(out)
        if note is not None:
            log(f"slides: reveal.js assets from npm installed in "
                f"{time.monotonic() - started:.0f} s")

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="slide-assets")
    return pool, pool.submit(install)


def export_slides(
    out: Path,
    lessons: Iterable[Lesson] | None = None,
    offline: bool = False,
    pdf: bool = False,
    timeout: int = 600,
    log=print,  # noqa: ANN001
    jobs: int = 2,
) -> list[Deck]:
    """Export every lesson to ``out/NN-title.slides.html``.

    ``offline``: all assets local (``out/assets``), and the export fails if
    a deck still references the network; the npm packages are fetched (the
    first time) and copied while the lessons run. ``pdf``: also print each
    deck to ``NN-title.pdf`` with headless Chromium (skipped, with a message,
    when no Chromium is installed). ``jobs``: lessons executed at once, each
    in its own kernel (default 2, one per core of a 2-core machine). The progress
    lines say what a first export costs once: the npm packages, and the
    Numba kernels the lessons compile.
    """
    require("nbconvert", "slides", "python -m convgrad.course slides")
    out = Path(out)
    lessons = find_lessons() if lessons is None else list(lessons)
    log = _one_write(log)
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be an int of at least 1, got {jobs!r}")
    out.mkdir(parents=True, exist_ok=True)
    chromium = find_chromium() if pdf else None
    if pdf and chromium is None:
        log("slides: no chromium found (apt-get install chromium); skipping --pdf")
    log(f"slides: {len(lessons)} lesson(s), {min(jobs, len(lessons))} at a time")
    notes = [npm_note() if offline else None, compile_note()]
    for note in filter(None, notes):
        log(note)
    assets = _assets_meanwhile(out, notes[0], log) if offline else None

    def export(lesson: Lesson) -> str:
        where = f"slides: lesson {lessons.index(lesson) + 1}/{len(lessons)}"
        where += f" {lesson.path.name}"
        log(where)
        nb = student_copy(lesson.read(), lesson.path.name)
        nb = execute_static(nb, lesson.path.parent, timeout=timeout, progress=where)
        return render_deck(nb, lesson.stem, offline)

    # each lesson runs in a kernel of its own: ``jobs`` of them at once
    try:
        with embedded_views():
            if jobs == 1:
                pages = [export(lesson) for lesson in lessons]
            else:
                with ThreadPoolExecutor(max_workers=jobs) as pool:
                    pages = list(pool.map(_closing_loop(export), lessons))
        if assets is not None:
            assets[1].result()  # the npm packages, fetched meanwhile
    finally:
        if assets is not None:
            assets[0].shutdown(wait=True)
    decks = []
    for lesson, page in zip(lessons, pages, strict=True):
        if offline:
            problems = offline_problems(page, out)
            if problems:
                shown = "\n  ".join(problems[:8])
                raise RuntimeError(
                    f"{lesson.path.name}: the offline deck still loads from the "
                    f"network:\n  {shown}"
                )
        path = out / f"{lesson.stem}.slides.html"
        path.write_text(page, encoding="utf-8")
        pdf_path = print_pdf(path, chromium) if chromium is not None else None
        decks.append(Deck(lesson, path, pdf_path))
    return decks
