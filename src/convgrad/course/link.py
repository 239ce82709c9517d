"""nbgitpuller links: one click puts a lesson in a student's hub home.

A link has the form nbgitpuller's own link generator makes::

    HUB/hub/user-redirect/git-pull?repo=REPO&branch=BRANCH
        &targetpath=FOLDER&urlpath=lab/tree/FOLDER/notebooks/LESSON.ipynb

``user-redirect`` sends the student (after login, which may start their
server) to ``/user/<name>/git-pull``: nbgitpuller's page there clones the
repository into ``FOLDER`` on the first click and merges on later clicks,
never overwriting the student's own edits, then opens ``urlpath``.

``FOLDER`` (nbgitpuller's ``targetpath``) is relative to the server's root
directory, and ``urlpath`` to the same root. That root is the folder the
server starts in, so it is the student's home only where the hub starts the
server there: ``deploy/z2jh/values.yaml`` sets KubeSpawner's ``working_dir``
to the home volume (otherwise the server would start in the image's
WORKDIR, ``/srv/convgrad``, and the clone would live in the container's
layer). ``tests/test_link.py`` checks where a clone lands.

By default a link pulls the **release** that ``deploy/versions.env`` names
(:mod:`convgrad.course.project`): the branch the hub's image was built from
(``deploy/build-image.sh`` builds ``--ref RELEASE`` and tags the image
``RELEASE``, which ``deploy/z2jh/values.yaml`` runs). The notebooks a
student pulls and the convgrad the image holds are then the same commit.
It is a branch, not a tag: nbgitpuller merges ``origin/<branch>`` on every
click after the first, and a tag has no ``origin/<tag>`` (the second click
fails in ``git diff ..origin/<tag>``).

This module only writes the URL. The pulling is nbgitpuller's: it must be
installed in the single-user image (``binder/requirements.txt`` pins it; the
``hub`` extra installs it here). The query parameters are the ones its
``/git-pull`` handler reads (nbgitpuller 1.3). ``targetpath`` is always
spelled out so that ``urlpath`` names the folder the clone really lands in:
left to itself nbgitpuller would name it after the URL's last segment,
``.git`` included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from .lessons import Lesson, find_lessons
from .project import read_project

# a folder name nbgitpuller may create in the home: no separators, no dot-dirs
FOLDER = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
REPO_SCHEMES = ("https", "http", "file", "ssh", "git")


@dataclass(frozen=True)
class LessonLink:
    lesson: Lesson
    url: str


def _split(url: str, name: str, rule: str):
    """``urlsplit(url)``, with urllib's complaints ("Invalid IPv6 URL", a
    port that is not a number) told as the parameter's rule."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (parsing the port is what may raise)
    except ValueError as err:
        raise ValueError(f"{name} must be {rule}, got {url!r} ({err})") from None
    return parts


def _hub_base(hub: str) -> str:
    parts = _split(hub, "hub", "the hub's http(s) address")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"hub must be the hub's http(s) address such as "
            f"https://hub.example.org, got {hub!r}"
        )
    if parts.query or parts.fragment:
        raise ValueError(f"hub must have no query or fragment, got {hub!r}")
    path = parts.path.rstrip("/")
    # people paste the address bar: https://host/hub/home or .../hub
    path = re.sub(r"/hub(/.*)?$", "", path)
    return f"{parts.scheme}://{parts.netloc}{path}"


def default_folder(repo: str) -> str:
    """The clone folder: the repository's last path segment, less ``.git``."""
    name = repo.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return name[:-4] if name.endswith(".git") else name


def _check_repo(repo: str) -> None:
    scheme = _split(repo, "repo", "a git URL").scheme
    scp_like = re.match(r"^[\w.-]+@[\w.-]+:", repo)  # git@github.com:org/repo
    if scheme not in REPO_SCHEMES and not scp_like:
        raise ValueError(
            f"repo must be a git URL (https://, file://, ssh:// or "
            f"git@host:path), got {repo!r}"
        )


def lesson_link(
    hub: str,
    repo: str | None,
    lesson: Lesson | str,
    *,
    branch: str | None = None,
    folder: str | None = None,
    depth: int | None = None,
    notebooks: Path | None = None,
) -> str:
    """The nbgitpuller link that opens ``lesson`` from ``repo`` on ``hub``.

    ``repo`` defaults to the repository and ``branch`` to the release of
    ``deploy/versions.env`` (the image's). ``lesson`` is a :class:`Lesson`
    or its number or stem (``"03"``, ``"03-col2im-scatter"``), looked up in
    ``notebooks``. ``folder`` is the
    clone's folder in the server's root, the student's home on the hub
    (default: the repository's name).
    ``depth`` is passed to ``git clone --depth`` (nbgitpuller's default is 1).
    """
    base = _hub_base(hub)
    if repo is None or branch is None:
        project = read_project()
        repo = project.repository_url if repo is None else repo
        branch = project.release if branch is None else branch
    _check_repo(repo)
    if not branch or branch != branch.strip() or " " in branch:
        raise ValueError(f"branch must be a git branch name, got {branch!r}")
    folder = default_folder(repo) if folder is None else folder
    if not FOLDER.match(folder):
        raise ValueError(
            f"folder must be one folder name (letters, digits, '_', '-', '.'; "
            f"no '/'), got {folder!r}"
        )
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int) or depth < 1
    ):
        raise ValueError(f"depth must be an int >= 1, got {depth!r}")
    if not isinstance(lesson, Lesson):
        [lesson] = find_lessons(notebooks, [lesson])
    params = {"repo": repo, "branch": branch, "targetpath": folder}
    if depth is not None:
        params["depth"] = str(depth)
    params["urlpath"] = f"lab/tree/{folder}/notebooks/{lesson.path.name}"
    query = urlencode(params, quote_via=quote)
    return f"{base}/hub/user-redirect/git-pull?{query}"


def lesson_links(
    hub: str,
    repo: str | None = None,
    lessons: list[str] | None = None,
    *,
    branch: str | None = None,
    folder: str | None = None,
    depth: int | None = None,
    notebooks: Path | None = None,
) -> list[LessonLink]:
    """One link per lesson (every lesson when ``lessons`` is empty)."""
    found = find_lessons(notebooks, lessons or None)
    if repo is None or branch is None:
        project = read_project()
        repo = project.repository_url if repo is None else repo
        branch = project.release if branch is None else branch
    return [
        LessonLink(
            x,
            lesson_link(hub, repo, x, branch=branch, folder=folder, depth=depth),
        )
        for x in found
    ]
