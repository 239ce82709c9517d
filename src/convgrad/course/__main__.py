"""``python -m convgrad.course``: student copies, slide decks, course checks.

The publishers (``slides``, ``site``: :mod:`convgrad.course.publish`) are
imported when their command runs, so the other commands need none of their
tools; a missing one is reported with the extra that installs it.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
from pathlib import Path

from .lessons import find_lessons, repo_root
from .student import find_leaks, read_lesson, student_copy, write_student_copies

MAX_CODE_WIDTH = 79


def _lessons(args: argparse.Namespace):
    return find_lessons(args.notebooks, args.lesson or None)


def _readable_lessons(args: argparse.Namespace):
    """The lessons, each read once first: a malformed notebook stops the
    command with its name (exit 2) before a deck or page is built."""
    lessons = _lessons(args)
    for lesson in lessons:
        read_lesson(lesson)
    return lessons


def _out_folder(out: Path) -> Path:
    """``out`` may be missing (it is made) or a folder, never a file."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must be a folder, but {out} is a file")
    return out


def _at_least_one(kind: type):
    """An argparse type: a number of ``kind`` that is at least 1 (or, for
    floats, finite and above 0), so ``--timeout -5``, ``--jobs 0`` or
    ``--time-limit inf`` is refused, naming the flag."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be {'an int' if kind is int else 'a number'}, got {text!r}"
            ) from None
        if kind is int and value < 1:
            raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
        if kind is float and not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(
                f"must be a finite number above 0, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _student_copies(args: argparse.Namespace) -> int:
    paths = write_student_copies(args.out, _lessons(args))
    for path in paths:
        print(f"student copy: {path}")
    print(f"{len(paths)} student copies in {args.out}")
    return 0


def _slides(args: argparse.Namespace) -> int:
    from .publish.slides import export_slides  # nbconvert: the slides extra

    out, lessons = _out_folder(args.out), _readable_lessons(args)
    decks = export_slides(
        out, lessons, offline=args.offline, pdf=args.pdf,
        timeout=args.timeout, jobs=args.jobs,
    )
    for deck in decks:
        extra = f" and {deck.pdf.name}" if deck.pdf else ""
        print(f"deck: {deck.html}{extra}")
    return 0


def _link(args: argparse.Namespace) -> int:
    from .link import lesson_links

    links = lesson_links(
        args.hub, args.repo, args.lesson, branch=args.branch,
        folder=args.folder, depth=args.depth, notebooks=args.notebooks,
    )
    for link in links:
        print(link.url if len(links) == 1 else f"{link.lesson.stem}: {link.url}")
    if args.repo is None or args.branch is None:
        from .project import VERSIONS, read_project

        used = {"REPOSITORY"} if args.repo is None else set()
        used |= {"RELEASE"} if args.branch is None else set()
        marked = sorted(used & read_project().placeholders)
        if marked:
            print(f"note: {', '.join(marked)} in {VERSIONS} still a placeholder; "
                  f"name yours with python -m convgrad.course configure",
                  file=sys.stderr)
    return 0


def _site(args: argparse.Namespace) -> int:
    from .publish.site import build_site  # Sphinx: the site extra

    out, lessons = _out_folder(args.out), _readable_lessons(args)
    site = build_site(
        out, lessons, jobs=args.jobs, timeout=args.timeout,
        repository=args.repo, branch=args.branch,
    )
    print(f"site: {site.index} ({len(site.pages)} lessons, "
          f"{site.nbytes / 1e6:.1f} MB, built in {site.seconds:.0f} s)")  # fmt: skip
    return 0


def _assignments(args: argparse.Namespace) -> int:
    from .grading import write_assignments

    made = write_assignments(args.out, _lessons(args), seed=args.seed,
                             timeout=args.timeout)
    for path in made.notebooks:
        print(f"assignment: {path}")
    total = sum(made.points.values())
    print(f"{len(made.notebooks)} assignments, {len(made.points)} graded "
          f"exercises, {total} points, in {made.root}; nbgrader's "
          f"configuration: {made.config}")
    print(f"the graded cases' seed is in {made.seed_file} (no notebook holds "
          f"it): keep it, and grade with --seed-file {made.seed_file}")
    return 0


class _Progress:
    """The grade command's progress: on a terminal one line that updates
    (notebooks done of all, how the exercises went so far, the notebooks
    being graded); elsewhere a line per finished notebook."""

    def __init__(self, out=None) -> None:
        self.out = sys.stdout if out is None else out
        self.live = self.out.isatty()
        self.counts: dict[str, int] = {}
        self.shown = False

    @staticmethod
    def _tally(counts: dict[str, int]) -> str:
        from .grading import ROW_STATUSES

        return ", ".join(f"{counts[x]} {x}" for x in ROW_STATUSES
                         if counts.get(x))

    def __call__(self, step) -> None:
        if step.statuses is not None:
            for status in step.statuses.values():
                self.counts[status] = self.counts.get(status, 0) + 1
        if not self.live:
            if step.statuses is not None:
                mine: dict[str, int] = {}
                for status in step.statuses.values():
                    mine[status] = mine.get(status, 0) + 1
                print(f"[{step.done}/{step.total}] {step.notebook}: "
                      f"{self._tally(mine) or 'no exercises'}",
                      file=self.out, flush=True)
            return
        line = f"[{step.done}/{step.total}]"
        if self.counts:
            line += f" {self._tally(self.counts)}"
        if step.running:
            line += f"; grading {', '.join(step.running)}"
        width = shutil.get_terminal_size().columns - 1
        if len(line) > width:
            line = line[:max(width - 1, 0)] + "…"
        self.out.write(f"\r\x1b[K{line}")
        self.out.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.out.write("\n")
            self.out.flush()


def _grade(args: argparse.Namespace) -> int:
    from .grading import grade_class, write_csv, write_wide_csv

    seed = args.seed
    if seed is None and args.seed_file is not None:
        text = args.seed_file.read_text().strip()
        if not text.isdigit():
            raise ValueError(f"{args.seed_file} must hold the seed, a "
                             f"non-negative integer, got {text[:20]!r}")
        seed = int(text)
    if args.points_possible and args.wide is None:
        raise ValueError("--points-possible is a row of the --wide table: "
                         "pass --wide FILE too")
    progress = _Progress()
    try:
        report = grade_class(
            args.submissions, seed, time_limit=args.time_limit,
            notebook_limit=args.notebook_limit, lessons=args.lesson or None,
            jobs=args.jobs, notebooks=args.notebooks, progress=progress,
            sandbox=args.sandbox,
        )
    finally:
        progress.close()
    write_csv(report.rows, args.out)
    if args.wide is not None:
        write_wide_csv(report.rows, args.wide,
                       points_possible=args.points_possible)
    for path, reason in report.unreadable:
        print(f"could not read {path}: {reason}")
    for path, reason in report.skipped:
        print(f"not graded: {path}: {reason}")
    students = len({row.student for row in report.rows})
    print(f"{len(report.rows)} grades of {students} students in {args.out}"
          + (f", by student in {args.wide}" if args.wide is not None else "")
          + (f"; {len(report.unreadable)} notebooks could not be read"
             if report.unreadable else "")
          + (f"; {len(report.skipped)} files not graded"
             if report.skipped else ""))
    return 0


class _RefuseTag(argparse.Action):
    """``configure --tag``, once an alias of ``--release``: refused, saying
    why, since a lesson link to a tag works only on its first click."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(
            "--tag is not accepted: the release must be a branch, because "
            "nbgitpuller merges origin/<branch> on every lesson link after "
            "the first, which a tag does not have. Cut a branch from the "
            "tag (git branch NAME TAG && git push origin NAME) and give "
            "--release NAME"
        )


def _configure(args: argparse.Namespace) -> int:
    from .project import VERSIONS, configure, out_of_step, read_project

    if args.check:
        problems = out_of_step()
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    changed = configure(repository=args.repo, image=args.image,
                        release=args.release, registry=args.registry)
    project = read_project()
    for path in changed:
        print(f"wrote {path}")
    marks = sorted(project.placeholders)
    print(f"{VERSIONS}: repository {project.repository}, image "
          f"{project.image_ref}"
          + (f"; still placeholders: {', '.join(marks)}" if marks else ""))
    return 0


def course_problems(
    notebooks: Path | None = None, plans: Path | None = None
) -> list[str]:
    """What keeps the course from matching its lessons: a lesson without a
    lesson plan, solution text in a student copy, code wider than a slide,
    or a cell without slideshow metadata."""
    lessons = find_lessons(notebooks)
    if plans is None:
        root = Path(notebooks).parent if notebooks else repo_root()
        plans = root / "course" / "plans"
    problems = []
    for lesson in lessons:
        name = lesson.path.name
        if not list(Path(plans).glob(f"{lesson.number:02d}-*.md")):
            problems.append(f"{name}: no lesson plan {plans}/{lesson.number:02d}-*.md")
        nb = read_lesson(lesson)
        for leak in find_leaks(student_copy(nb, name)):
            problems.append(f"{name}: solution text in the student copy: {leak}")
        for index, cell in enumerate(nb.cells):
            if "slide_type" not in cell.metadata.get("slideshow", {}):
                problems.append(f"{name}, cell {index}: no slideshow.slide_type")
            if cell.cell_type != "code":
                continue
            for number, line in enumerate(cell.source.splitlines(), 1):
                if len(line) > MAX_CODE_WIDTH:
                    problems.append(
                        f"{name}, cell {index}, line {number}: {len(line)} "
                        f"characters (a slide shows {MAX_CODE_WIDTH})"
                    )
    return problems


def _check(args: argparse.Namespace) -> int:
    problems = course_problems(args.notebooks)
    for problem in problems:
        print(problem)
    n = len(find_lessons(args.notebooks))
    print(f"{n} lessons, {len(problems)} problems")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m convgrad.course",
        description="Build the course around the lessons in notebooks/.",
    )
    parser.add_argument(
        "--notebooks", type=Path, default=None,
        help="the lessons folder (default: notebooks/ of this checkout)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("student-copies", help="lessons without solutions or outputs")
    p.add_argument("out", type=Path)
    p.add_argument("--lesson", action="append", help="only this lesson (NN or stem)")
    p.set_defaults(run=_student_copies)

    p = sub.add_parser("slides", help="reveal.js decks; views play with no kernel")
    p.add_argument("out", type=Path)
    p.add_argument("--offline", action="store_true",
                   help="all scripts, styles and fonts local (fetched with npm)")
    p.add_argument("--pdf", action="store_true",
                   help="also print each deck to PDF with headless Chromium")
    p.add_argument("--lesson", action="append", help="only this lesson (NN or stem)")
    p.add_argument("--timeout", type=_at_least_one(int), default=600,
                   help="seconds per cell")
    p.add_argument("--jobs", type=_at_least_one(int), default=2,
                   help="lessons executed at once, each in its own kernel "
                   "(default: 2)")
    p.set_defaults(run=_slides)

    p = sub.add_parser("check", help="plans, leaks, slide metadata, code width")
    p.set_defaults(run=_check, lesson=None)

    p = sub.add_parser("link", help="nbgitpuller links that open lessons on a hub")
    p.add_argument("hub", help="the hub's address, e.g. https://hub.example.org")
    p.add_argument("repo", nargs="?", default=None,
                   help="the git URL students pull the lessons from (default: "
                        "REPOSITORY of deploy/versions.env, on GitHub)")
    p.add_argument("--branch", default=None,
                   help="the branch to pull (default: RELEASE of "
                        "deploy/versions.env, the branch the image is built from)")
    p.add_argument("--lesson", action="append",
                   help="only this lesson (NN or stem; default: every lesson)")
    p.add_argument("--folder", default=None,
                   help="clone folder in the student's home (default: repo name)")
    p.add_argument("--depth", type=_at_least_one(int), default=None,
                   help="git clone --depth")
    p.set_defaults(run=_link)

    p = sub.add_parser(
        "configure",
        help="name the repository, image and release (deploy/versions.env)",
        description="Set REPOSITORY, IMAGE and RELEASE in deploy/versions.env "
        "and write the lines that cannot read it: the README's Binder badge, "
        "deploy/z2jh/values.yaml's image name and tag, pyproject.toml's "
        "Source URL.",
    )
    p.add_argument("--repo", help="GitHub OWNER/NAME of this repository")
    p.add_argument("--release",
                   help="the release BRANCH (not a tag: nbgitpuller cannot "
                        "follow one): the image is built from it and tagged "
                        "with it, the badge and lesson links open it")
    p.add_argument("--tag", action=_RefuseTag, nargs="?", help=argparse.SUPPRESS)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--registry",
                       help="HOST or HOST/PATH: the image becomes "
                            "HOST/OWNER/NAME/singleuser (OWNER/NAME of "
                            "--repo) or HOST/PATH/NAME/singleuser; Docker "
                            "Hub takes --image instead")
    group.add_argument("--image", help="the image's full name, without a tag")
    p.add_argument("--check", action="store_true",
                   help="only say which written lines no longer match")
    p.set_defaults(run=_configure)

    p = sub.add_parser("site", help="a static website of the executed lessons")
    p.add_argument("out", type=Path)
    p.add_argument("--lesson", action="append", help="only this lesson (NN or stem)")
    p.add_argument("--jobs", type=_at_least_one(int), default=2,
                   help="lessons executed at once")
    p.add_argument("--timeout", type=_at_least_one(int), default=600,
                   help="seconds per cell")
    p.add_argument("--repo", default=None,
                   help="GitHub owner/name of the Binder and source links "
                        "(default: REPOSITORY of deploy/versions.env)")
    p.add_argument("--branch", default=None,
                   help="branch of those links (default: its RELEASE)")
    p.set_defaults(run=_site)

    p = sub.add_parser("assignments",
                       help="the lessons as an nbgrader source course")
    p.add_argument("out", type=Path)
    p.add_argument("--lesson", action="append", help="only this lesson (NN or stem)")
    p.add_argument("--seed", type=int, default=None,
                   help="the graded cases' seed (default: a random one)")
    p.add_argument("--timeout", type=int, default=600,
                   help="seconds per cell when nbgrader runs a notebook")
    p.set_defaults(run=_assignments)

    p = sub.add_parser("grade", help="grade students' notebooks into a CSV file")
    p.add_argument("submissions", type=Path,
                   help="one folder per student, holding their lesson notebooks")
    p.add_argument("--out", type=Path, default=Path("grades.csv"),
                   help="the grade file (default: grades.csv)")
    p.add_argument("--seed", type=int, default=None,
                   help="the graded cases' seed (default: --seed-file's, "
                        "else $CONVGRAD_GRADE_SEED)")
    p.add_argument("--seed-file", type=Path, default=None,
                   help="the file holding it (assignments writes "
                        "OUT/grading-seed.txt)")
    p.add_argument("--lesson", action="append",
                   help="only this lesson's notebooks (NN, stem or file name)")
    p.add_argument("--time-limit", type=_at_least_one(float), default=10.0,
                   help="seconds per call of an answer (default: 10)")
    p.add_argument("--notebook-limit", type=_at_least_one(float), default=300.0,
                   help="seconds per notebook's grading process (default: 300)")
    p.add_argument("--jobs", type=_at_least_one(int), default=2,
                   help="notebooks graded at once, each in its own process")
    p.add_argument("--wide", type=Path, default=None, metavar="FILE",
                   help="also write a row per student, a column per exercise "
                        "and totals, for Canvas's or Moodle's grade import")
    p.add_argument("--points-possible", action="store_true",
                   help="with --wide: a second row of each column's points, "
                        "as Canvas exports it (Moodle takes no such row)")
    p.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                   help="grade without the sandbox (student code runs as you)")
    p.set_defaults(run=_grade)

    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, OSError, RuntimeError) as err:
        # an output path that is a file, or unwritable: one line, no traceback
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
