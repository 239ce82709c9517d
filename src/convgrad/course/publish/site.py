"""The course website: every lesson executed, every view as its animation.

``python -m convgrad.course site OUT/`` writes a static website that works
from ``file://`` with no network (a USB stick, a course server):

1. each lesson's student copy (the exercises hold their stubs, no solution
   text) runs in a fresh kernel in the course's static mode, exactly as the
   slides run (:func:`convgrad.course.publish.execute.execute_static`), so every view
   is its exported animation and plays with no kernel;
2. the executed lessons, a lesson map with each lesson's objectives, the
   syllabus (``course/README.md``) and the student copies (under
   ``OUT/notebooks/``, for download) go into a Sphinx source folder with
   ``templates/site/conf.py``;
3. each view stays in its page as its scene (a ``<convgrad-scene>``),
   laid out for the reader's screen, a phone's included; a page loads the
   renderer once, however many views it holds (:func:`_one_renderer`);
4. Sphinx, MyST-NB and the book theme render it; nothing is executed again.
   MathJax 3 comes from the slides' npm asset cache; everything else ships
   with the theme. The result is then searched for anything it would load
   from the network, and the build fails if it finds one.

Why plain Sphinx + MyST-NB and not Jupyter Book 1: Jupyter Book 1 is this
same stack (Sphinx, MyST-NB, sphinx-book-theme) behind a ``_config.yml``
and ``_toc.yml`` layer; it pins Sphinx 7 and myst-parser 3, adds five
extensions the site does not use, and one of them (thebe) puts a CDN
address in every page. Measured in docs/course-tooling.md.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ...viz.export import one_renderer
from .. import project
from ..lessons import Lesson, find_lessons
from ..student import student_copy
from . import MissingTool, require
from .assets import (
    copy_from_package,
    local_references,
    remote_references,
    remote_references_in_assets,
)
from .execute import execute_static

BINDERHUB = project.BINDERHUB
TEMPLATE = Path(__file__).parent / "templates" / "site"
#: a file in OUT/ that says the folder is a site this module may replace
MARKER = ".convgrad-site"
TOOLS = ("sphinx", "myst_nb", "sphinx_book_theme")
#: MathJax's current major version: MyST-NB configures MathJax 3 only (its
#: ``processHtmlClass``), and wraps each page in ``tex2jax_ignore
#: mathjax_ignore``, which MathJax 2 obeys: a MathJax 2 site typesets nothing
MATHJAX = "mathjax@3"
#: what the pages use of the npm package (path in it, path under _static/)
MATHJAX_FILES = [
    ("es5/tex-chtml.js", "mathjax/tex-chtml.js"),  # TeX in, HTML+CSS out
    ("es5/output/chtml/fonts/woff-v2", "mathjax/output/chtml/fonts/woff-v2"),
    ("es5/input/tex/extensions", "mathjax/input/tex/extensions"),  # autoloaded
    ("es5/ui", "mathjax/ui"),  # the right-click menu
    ("es5/a11y", "mathjax/a11y"),  # what the menu's accessibility items load
]

_HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_MAP_ROW = re.compile(r"^\|\s*(?P<number>\d{2})\s*\|\s*(?P<name>[^|]*?)\s*\|")


# --------------------------------------------------------------------------
# what a page says: read from the lessons
# --------------------------------------------------------------------------


def _headings(source: str):
    """``(index, level, text)`` of every markdown heading outside fences."""
    fenced = False
    for index, line in enumerate(source.splitlines()):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if m:
            yield index, len(m["level"]), m["text"]


def lesson_title(nb: nbformat.NotebookNode, default: str = "") -> str:
    """The text of the lesson's first ``#`` heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for _, level, text in _headings(cell.source):
                if level == 1:
                    return text
    return default


def section(nb: nbformat.NotebookNode, name: str) -> str | None:
    """The markdown under the heading ``name`` (any level, any case), up to
    the next heading of the same or a higher level, or the cell's end."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        heads = list(_headings(cell.source))
        for k, (index, level, text) in enumerate(heads):
            if text.strip().lower() != name.lower():
                continue
            end = next((i for i, lv, _ in heads[k + 1 :] if lv <= level), len(lines))
            return "\n".join(lines[index + 1 : end]).strip()
    return None


def _repository_and_branch(
    repository: str | None, branch: str | None
) -> tuple[str, str]:
    """The arguments, or what ``deploy/versions.env`` names in their place:
    its repository and its release."""
    if repository is None or branch is None:
        named = project.read_project()
        repository = named.repository if repository is None else repository
        branch = named.release if branch is None else branch
    return repository, branch


def site_links(
    repository: str | None = None, branch: str | None = None,
    root: Path | None = None,
) -> tuple[str, str] | None:
    """The repository and branch the site links to (Binder, GitHub), or
    None while what ``deploy/versions.env`` gives in place of a missing
    argument is still a placeholder: a link to a repository or release
    that does not exist would only lead a learner to an error page."""
    if repository is None or branch is None:
        named = project.read_project(root)
        used = {"REPOSITORY"} if repository is None else set()
        used |= {"RELEASE"} if branch is None else set()
        if used & named.placeholders:
            return None
        repository = named.repository if repository is None else repository
        branch = named.release if branch is None else branch
    return repository, branch


#: what a page shows instead of a Binder link while there is none to give
NO_LINKS_NOTE = (
    "No Binder or GitHub link: this site was built while "
    "<code>deploy/versions.env</code> named no repository or release (its "
    "values are placeholders). Set them with <code>python -m convgrad.course "
    "configure --repo OWNER/NAME --release BRANCH</code> and build the site "
    "again."
)


def binder_url(
    lesson: Lesson, repository: str | None = None, branch: str | None = None,
    binderhub: str = BINDERHUB,
) -> str:
    """Binder's address that opens ``lesson`` in JupyterLab (the README
    badge's form; default: the repository and release of
    ``deploy/versions.env``)."""
    repository, branch = _repository_and_branch(repository, branch)
    return project.binder_url(repository, branch, lesson.path.name, binderhub)


def links_cell(lesson: Lesson, binder: str | None) -> nbformat.NotebookNode:
    """The links at the top of a lesson page: the notebook and Binder, or,
    while ``binder`` is None (no repository named yet), a note saying how
    to name one instead of the Binder link."""
    launch = (
        f'<a class="convgrad-binder" href="{binder}">Open it on Binder</a>'
        if binder is not None
        else f'<span class="convgrad-unset">{NO_LINKS_NOTE}</span>'
    )
    cell = nbformat.v4.new_markdown_cell(
        '<div class="convgrad-links">'
        f'<a class="convgrad-notebook" href="notebooks/{lesson.path.name}" '
        f"download>Download the notebook</a>"
        f"{launch}"
        '<span class="convgrad-note">Here the animations play with no kernel; '
        "in the notebook the views are live and your exercises are checked."
        "</span></div>"
    )
    cell.metadata["slideshow"] = {"slide_type": "skip"}
    return cell


def lesson_page(
    executed: nbformat.NotebookNode, lesson: Lesson, binder: str | None
) -> nbformat.NotebookNode:
    """The executed lesson as its page: the links after the title cell."""
    nb = nbformat.from_dict(executed)
    nb.cells.insert(1 if nb.cells else 0, links_cell(lesson, binder))
    nb.metadata.pop("widgets", None)
    return nb


def _link_map_rows(text: str, stems: dict[int, str]) -> str:
    """Turn the lesson names of a ``| NN | name | ...`` table into links."""

    def link(m: re.Match) -> str:
        stem = stems.get(int(m["number"]))
        if stem is None or not m["name"]:
            return m.group(0)
        return f"| {m['number']} | [{m['name']}]({stem}.ipynb) |"

    return "\n".join(_MAP_ROW.sub(link, line) for line in text.splitlines())


def syllabus_page(syllabus: str, stems: dict[int, str]) -> str:
    """``course/README.md`` as the page "Syllabus", its lesson map linked."""
    lines = _link_map_rows(syllabus, stems).splitlines()
    for index, level, _ in _headings(syllabus):
        if level == 1:
            lines[index] = "# Syllabus"
            break
    return "\n".join(lines) + "\n"


def _syllabus_parts(syllabus: str) -> tuple[str, str, str]:
    """(title, first paragraph, the "Lesson map" section) of the syllabus."""
    lines = syllabus.splitlines()
    heads = list(_headings(syllabus))
    title = next((t for _, lv, t in heads if lv == 1), "convgrad")
    seconds = [i for i, lv, _ in heads if lv == 2]
    first = next((i for i, lv, _ in heads if lv == 1), -1)
    intro = "\n".join(lines[first + 1 : seconds[0] if seconds else len(lines)])
    intro = intro.strip().split("\n\n")[0]  # the rest is about the repository
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(syllabus)])
    return title, intro.strip(), section(nb, "Lesson map") or ""


def index_page(
    lessons: list[tuple[Lesson, nbformat.NotebookNode]], syllabus: str | None
) -> str:
    """The home page: the course's introduction, the lesson map and each
    lesson's objectives, and the hidden table of contents (navigation)."""
    stems = {lesson.number: lesson.stem for lesson, _ in lessons}
    if syllabus:
        title, intro, lesson_map = _syllabus_parts(syllabus)
    else:
        title, intro, lesson_map = "convgrad: the course", "", ""
    if not lesson_map:
        lesson_map = "| # | lesson |\n|---|---|\n" + "\n".join(
            f"| {lesson.number:02d} | {lesson_title(nb, lesson.stem)} |"
            for lesson, nb in lessons
        )
    out = [f"# {title}", "", intro, "", "## Lesson map", "",
           _link_map_rows(lesson_map, stems), "", "## What each lesson teaches", ""]
    for lesson, nb in lessons:
        out += [f"### [{lesson_title(nb, lesson.stem)}]({lesson.stem}.ipynb)", ""]
        objectives = section(nb, "Objectives")
        if objectives:
            out += [objectives, ""]
        if section(nb, "Summary") is not None:
            out += [f"[The lesson's summary]({lesson.stem}.ipynb#summary)", ""]
    toc = [lesson.stem for lesson, _ in lessons]
    if syllabus:
        toc.append("syllabus")
    out += ["```{toctree}", ":hidden:", ":caption: Lessons", "", *toc, "```", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------
# the build
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    out: Path
    lessons: list[Lesson]
    pages: list[Path]  # one per lesson, in order
    seconds: float  # the whole build
    nbytes: int  # the site's size on disk

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def require_tools() -> None:
    """Raise :class:`MissingTool` with the install command if Sphinx,
    MyST-NB, the theme or nbconvert is missing."""
    missing = []
    for name in (*TOOLS, "nbconvert"):
        try:
            require(name, "site", "the course website")
        except MissingTool:
            missing.append(name)
    if missing:
        raise MissingTool(
            f"the course website needs {', '.join(missing)}, not installed: "
            f"pip install 'convgrad[site]' (from a checkout: "
            f"pip install -e '.[site]')"
        )


def _prepare_out(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise FileNotFoundError(f"out must be a folder, got the file {out}")
        if any(out.iterdir()) and not (out / MARKER).is_file():
            raise ValueError(
                f"out must be empty or a site this command built (it has "
                f"{MARKER}); {out} has other files: choose another folder"
            )
        shutil.rmtree(out)
    out.mkdir(parents=True)


def install_mathjax(static: Path, cache: Path | None = None) -> Path:
    """Copy MathJax 3 from the npm asset cache (``npm pack`` on first use)
    into ``static/mathjax``."""
    copy_from_package(MATHJAX, MATHJAX_FILES, static, cache)
    return static / "mathjax"


def _sphinx(source: Path, out: Path, doctrees: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going",
         "-d", str(doctrees), str(source), str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if run.returncode != 0:
        raise RuntimeError(
            f"sphinx could not build the site (exit {run.returncode}):\n"
            f"{(run.stderr or run.stdout).strip()[-3000:]}"
        )


def _tidy(out: Path) -> None:
    """Drop what a reader never loads: build info, translations, source maps."""
    (out / ".buildinfo").unlink(missing_ok=True)
    shutil.rmtree(out / "_sources", ignore_errors=True)
    # the theme's translations, which Sphinx reads while building
    shutil.rmtree(out / "_static" / "locales", ignore_errors=True)
    for path in out.rglob("*.map"):
        path.unlink()


def _one_renderer(out: Path) -> None:
    """Every page of ``out`` with its views' renderer once (each view's
    output brought its own copy)."""
    for page in Path(out).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        once = one_renderer(text)
        if once != text:
            page.write_text(once, encoding="utf-8")


def site_problems(out: Path) -> list[str]:
    """Why the site in ``out`` would not work offline: every page's network
    references and unresolved local ones, and remote ``@import``/``url()``
    in its style sheets."""
    problems = []
    for page in sorted(Path(out).rglob("*.html")):
        if "_static" in page.relative_to(out).parts:
            continue  # the theme's template macros, never opened
        text = page.read_text(encoding="utf-8")
        where = page.relative_to(out)
        problems += [f"{where}: {x}" for x in remote_references(text)]
        for ref in local_references(text):
            path = ref.split("?")[0].split("#")[0]
            if path and not (page.parent / path).is_file():
                problems.append(f"{where}: missing local file {ref}")
    problems += [str(x) for x in remote_references_in_assets(Path(out) / "_static")]
    return problems


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _run_lesson(
    lesson: Lesson, timeout: int, progress: str | None = None
) -> tuple[nbformat.NotebookNode, float]:
    """One lesson's student copy, executed in static mode (in a worker);
    ``progress`` prefixes the line printed as each code cell starts."""
    start = time.perf_counter()
    try:
        nb = student_copy(lesson.read(), lesson.path.name)
        executed = execute_static(nb, lesson.path.parent, timeout=timeout,
                                  progress=progress)
    except Exception as err:  # noqa: BLE001 - sent back as text: it must pickle
        raise RuntimeError(f"{lesson.path.name} failed:\n{err}") from None
    return executed, time.perf_counter() - start


def execute_lessons(
    lessons: list[Lesson], jobs: int = 2, timeout: int = 600, log=print  # noqa: ANN001
) -> list[nbformat.NotebookNode]:
    """Each lesson's student copy, executed in static mode, ``jobs`` at once.

    Each lesson runs in a worker process of its own (and its kernel), so
    parallel runs share no environment, event loop or open socket.
    """
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be an int of at least 1, got {jobs!r}")
    context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
    workers = min(jobs, len(lessons)) or 1
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        n = len(lessons)
        futures = [
            pool.submit(_run_lesson, x, timeout,
                        f"site: lesson {k}/{n} {x.path.name}")
            for k, x in enumerate(lessons, start=1)
        ]  # fmt: skip
        executed = []
        try:
            for k, (lesson, future) in enumerate(zip(lessons, futures, strict=True), 1):
                nb, seconds = future.result()
                log(f"site: lesson {k}/{n} {lesson.path.name} ran in {seconds:.0f} s")
                executed.append(nb)
        except BaseException:
            for future in futures:
                future.cancel()  # the lessons not started yet
            raise
    return executed


def render_site(
    out: Path,
    lessons: list[Lesson],
    executed: list[nbformat.NotebookNode],
    repository: str | None = None,
    branch: str | None = None,
    log=print,  # noqa: ANN001
) -> list[Path]:
    """Render executed lessons into ``out`` with Sphinx; the lesson pages.

    While ``deploy/versions.env`` holds placeholders for what is not given,
    the pages have no Binder or GitHub link (:func:`site_links`), and each
    lesson page says how to set them."""
    links = site_links(repository, branch)
    if links is None:
        log(f"site: {project.VERSIONS} names no repository or release yet "
            f"(placeholders): no Binder or GitHub link; set them with python "
            f"-m convgrad.course configure --repo OWNER/NAME --release BRANCH")
    syllabus_path = lessons[0].path.parent.parent / "course" / "README.md"
    syllabus = None
    if syllabus_path.is_file():
        syllabus = syllabus_path.read_text(encoding="utf-8")
    stems = {x.number: x.stem for x in lessons}
    with tempfile.TemporaryDirectory(prefix="convgrad-site-") as tmp:
        source = Path(tmp) / "source"
        shutil.copytree(TEMPLATE, source)
        (source / "site.json").write_text(json.dumps({
            "title": "convgrad",
            # None: the theme shows no repository or launch button
            "repository_url": links and f"https://github.com/{links[0]}",
            "branch": links and links[1],
            "binderhub_url": BINDERHUB,
        }), encoding="utf-8")  # fmt: skip
        install_mathjax(source / "_static")
        notebooks = source / "_extra" / "notebooks"
        notebooks.mkdir(parents=True)
        for lesson, nb in zip(lessons, executed, strict=True):
            binder = links and binder_url(lesson, *links)
            page = lesson_page(nb, lesson, binder)
            nbformat.write(page, source / lesson.path.name)
            copy = student_copy(lesson.read(), lesson.path.name)
            nbformat.write(copy, notebooks / lesson.path.name)
        if syllabus:
            (source / "syllabus.md").write_text(
                syllabus_page(syllabus, stems), encoding="utf-8"
            )
        (source / "index.md").write_text(
            index_page(list(zip(lessons, executed, strict=True)), syllabus),
            encoding="utf-8",
        )
        log("site: rendering with sphinx")
        _sphinx(source, out, Path(tmp) / "doctrees")
    _tidy(out)
    _one_renderer(out)
    (out / MARKER).write_text("built by python -m convgrad.course site\n")
    problems = site_problems(out)
    if problems:
        shown = "\n  ".join(problems[:8])
        raise RuntimeError(f"the site would not work offline:\n  {shown}")
    return [out / f"{lesson.stem}.html" for lesson in lessons]


def build_site(
    out: Path,
    lessons: Iterable[Lesson] | None = None,
    jobs: int = 2,
    timeout: int = 600,
    repository: str | None = None,
    branch: str | None = None,
    log=print,  # noqa: ANN001
) -> Site:
    """Build the course website into ``out`` (see the module docstring).

    ``jobs`` lessons execute at once, each in a worker process and a kernel
    of its own (spawned: a script that calls this needs the usual ``if
    __name__ == "__main__":`` guard). ``out`` must
    be empty, missing, or a site this function built. Raises
    ``RuntimeError`` if a lesson fails, Sphinx warns, or a page would load
    anything from the network.
    """
    require_tools()
    start = time.perf_counter()
    out = Path(out)
    lessons = find_lessons() if lessons is None else list(lessons)
    if not lessons:
        raise ValueError("the site needs at least one lesson")
    _prepare_out(out)
    executed = execute_lessons(lessons, jobs, timeout, log)
    pages = render_site(out, lessons, executed, repository, branch, log)
    return Site(out, lessons, pages, time.perf_counter() - start, _size(out))
