"""The one place that names the repository, the image and the release.

``deploy/versions.env`` holds them (``REPOSITORY``, ``IMAGE``, ``RELEASE``)
as ``KEY=value`` lines that the shell scripts ``source`` and this module
reads. Everything else takes them from there: the lesson links
(:mod:`convgrad.course.link`), the site's Binder and source links,
``deploy/build-image.sh`` and ``deploy/tljh/setup.sh``.

Three files cannot read another file, so :func:`configure` writes the lines
they need from the one place, and :func:`out_of_step` says when one of them
no longer matches it:

* the README's Binder badge (a Markdown page is not a program);
* ``deploy/z2jh/values.yaml``'s image ``name`` and ``tag`` (helm does not
  template its values files);
* ``pyproject.toml``'s ``[project.urls]`` (static metadata).

A value marked ``# placeholder`` in the file is not a real one yet. While
the repository or the release is a placeholder, the badge points at the
instructions instead of launching a Binder that cannot exist, and the
package names no source URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from .lessons import repo_root

VERSIONS = Path("deploy") / "versions.env"
KEYS = ("REPOSITORY", "IMAGE", "RELEASE")
BINDERHUB = "https://mybinder.org"
START = "00-start-here.ipynb"
BADGE_LOGO = "https://mybinder.org/badge_logo.svg"
#: where the badge points while the repository is a placeholder
BADGE_HELP = "docs/course-tooling.md#binder"

# GitHub's owner/name; a git ref that is also a valid image tag (Docker:
# [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}) and a branch name (no '..', no '.lock')
REPOSITORY_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")
RELEASE_RULE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
# an image name without its tag: lower case, an optional registry host[:port]
IMAGE_RULE = re.compile(
    r"^(?:[a-z0-9.-]+(?::\d+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*"
    r"(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$"
)
_LINE = re.compile(
    r"^(?P<key>[A-Z][A-Z0-9_]*)=(?P<value>\S*)\s*(?:#\s*(?P<note>.*))?$"
)


@dataclass(frozen=True)
class Project:
    """What ``deploy/versions.env`` names, and which of it is a placeholder."""

    repository: str  # GitHub owner/name
    image: str  # the single-user image, without its tag
    release: str  # the branch the image, the badge and the links come from
    placeholders: frozenset[str] = frozenset()

    @property
    def repository_url(self) -> str:
        return f"https://github.com/{self.repository}"

    @property
    def image_ref(self) -> str:
        """The image as the hub pulls it: ``IMAGE:RELEASE``."""
        return f"{self.image}:{self.release}"

    @property
    def launchable(self) -> bool:
        """Whether a Binder link to this repository and release can work."""
        return not {"REPOSITORY", "RELEASE"} & self.placeholders

    def values(self) -> dict[str, str]:
        return {"REPOSITORY": self.repository, "IMAGE": self.image,
                "RELEASE": self.release}  # fmt: skip


def versions_file(root: Path | None = None) -> Path:
    return (repo_root() if root is None else Path(root)) / VERSIONS


def _entries(text: str) -> dict[str, tuple[str, str]]:
    """``KEY -> (value, note)`` of every ``KEY=value  # note`` line."""
    out = {}
    for line in text.splitlines():
        m = _LINE.match(line.strip())
        if m:
            out[m["key"]] = (m["value"], (m["note"] or "").strip())
    return out


def check_values(repository: str, image: str, release: str) -> None:
    """Raise ``ValueError`` naming the value and the rule it breaks."""
    if not REPOSITORY_RULE.match(repository):
        raise ValueError(
            f"repository must be GitHub's OWNER/NAME, got {repository!r}"
        )
    if not IMAGE_RULE.match(image):
        raise ValueError(
            f"image must be an image name without a tag, in lower case "
            f"(HOST/PATH/NAME), got {image!r}"
        )
    if not RELEASE_RULE.match(release) or ".." in release or release.endswith(
        ".lock"
    ):
        raise ValueError(
            f"release must be a branch name that is also an image tag "
            f"(letters, digits, '_', '.', '-'; at most 128), got {release!r}"
        )


def read_project(root: Path | None = None) -> Project:
    """The repository, image and release named in ``deploy/versions.env``."""
    path = versions_file(root)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: it names the repository, the image and the "
            f"release (run from a convgrad checkout)"
        )
    entries = _entries(path.read_text(encoding="utf-8"))
    missing = [key for key in KEYS if not entries.get(key, ("", ""))[0]]
    if missing:
        raise ValueError(f"{path} must set {', '.join(missing)}")
    values = {key: entries[key][0] for key in KEYS}
    check_values(values["REPOSITORY"], values["IMAGE"], values["RELEASE"])
    placeholders = frozenset(
        key for key in KEYS if entries[key][1].startswith("placeholder")
    )
    return Project(values["REPOSITORY"], values["IMAGE"], values["RELEASE"],
                   placeholders)  # fmt: skip


# --------------------------------------------------------------------------
# what the files that cannot read versions.env say
# --------------------------------------------------------------------------


def binder_url(
    repository: str, ref: str, notebook: str = START, binderhub: str = BINDERHUB
) -> str:
    """Binder's address that opens ``notebooks/NOTEBOOK`` in JupyterLab."""
    return f"{binderhub}/v2/gh/{repository}/{ref}?urlpath=lab/tree/notebooks/{notebook}"


def badge(project: Project) -> str:
    """The README's Binder badge: it launches the release's start lesson,
    or, while the repository or release is a placeholder, points at the
    instructions that say how to name yours."""
    target = BADGE_HELP
    if project.launchable:
        target = binder_url(project.repository, project.release)
    return f"[![Binder]({BADGE_LOGO})]({target})"


@dataclass(frozen=True)
class Spot:
    """A region of a file that :func:`configure` writes from the one place."""

    path: str
    pattern: re.Pattern
    render: object  # (match, project) -> the region's text

    def text(self, source: str, project: Project) -> str:
        m = self.pattern.search(source)
        if m is None:
            raise ValueError(
                f"{self.path}: the lines configure writes are not there "
                f"(expected a match for {self.pattern.pattern!r})"
            )
        return source[: m.start()] + self.render(m, project) + source[m.end() :]


def _badge(m: re.Match, project: Project) -> str:
    return m["marker"] + badge(project) + "\n"


def _image(m: re.Match, project: Project) -> str:
    return (f"{m['head']}{m['indent']}name: {project.image}\n"
            f"{m['indent']}tag: \"{project.release}\"\n")  # fmt: skip


def _urls(m: re.Match, project: Project) -> str:
    if "REPOSITORY" in project.placeholders:
        return m["marker"]
    return f'{m["marker"]}[project.urls]\nSource = "{project.repository_url}"\n'


SPOTS = (
    Spot("README.md", re.compile(
        r"(?P<marker><!-- binder-badge:[^\n]*-->\n)[^\n]*\n"), _badge),
    Spot("deploy/z2jh/values.yaml", re.compile(
        r"(?P<head>\nsingleuser:\n  image:\n(?:\s*#[^\n]*\n)*)"
        r"(?P<indent>    )name: [^\n]*\n    tag: [^\n]*\n"), _image),
    Spot("pyproject.toml", re.compile(
        r"(?P<marker># project\.urls:[^\n]*\n)"
        r"(?:\[project\.urls\]\nSource = \"[^\"\n]*\"\n)?"), _urls),
)  # fmt: skip


def rendered(
    root: Path | None = None, project: Project | None = None
) -> dict[Path, str]:
    """Each file of :data:`SPOTS` as :func:`configure` would write it."""
    root = repo_root() if root is None else Path(root)
    project = read_project(root) if project is None else project
    out: dict[Path, str] = {}
    for spot in SPOTS:
        path = root / spot.path
        source = out.get(path, path.read_text(encoding="utf-8"))
        out[path] = spot.text(source, project)
    return out


def out_of_step(root: Path | None = None) -> list[str]:
    """The files whose written lines no longer match ``deploy/versions.env``."""
    return [
        f"{path}: out of step with {VERSIONS} (run python -m convgrad.course "
        f"configure)"
        for path, text in rendered(root).items()
        if path.read_text(encoding="utf-8") != text
    ]


#: registries whose names have exactly two parts, NAMESPACE/NAME (Docker Hub)
TWO_PART_REGISTRIES = frozenset(
    {"docker.io", "index.docker.io", "registry-1.docker.io", "hub.docker.com"}
)


def image_in(registry: str, repository: str) -> str:
    """The single-user image's name in ``registry`` for ``repository``
    (GitHub ``OWNER/NAME``).

    ``HOST`` alone (``ghcr.io``, ``quay.io``, a school's own registry)
    gives ``HOST/owner/name/singleuser``: on a shared registry the first
    part of a name is the account that may push there, so it is the
    repository's owner, not a name of its own. ``HOST/PATH`` (``ghcr.io/
    my-org``) gives ``HOST/PATH/name/singleuser``. Docker Hub allows only
    ``NAMESPACE/NAME``, so it is refused with the name to give to
    ``image`` instead."""
    owner, name = (part.lower() for part in repository.split("/", 1))
    parts = registry.strip().strip("/").lower().split("/")
    if not parts[0]:
        raise ValueError(f"registry must be HOST or HOST/PATH, got {registry!r}")
    if parts[0] in TWO_PART_REGISTRIES:
        raise ValueError(
            f"registry {registry!r} is Docker Hub, whose image names have two "
            f"parts (NAMESPACE/NAME), so HOST/OWNER/NAME/singleuser cannot "
            f"exist there: give the image instead, for example --image "
            f"docker.io/{owner}/{name}-singleuser"
        )
    path = parts if len(parts) > 1 else [parts[0], owner]
    return "/".join([*path, name, "singleuser"])


def configure(
    root: Path | None = None,
    *,
    repository: str | None = None,
    image: str | None = None,
    release: str | None = None,
    registry: str | None = None,
) -> list[Path]:
    """Set the repository, image and release in ``deploy/versions.env``, then
    write the lines of :data:`SPOTS` from it; return the files changed.

    ``registry`` names the image from the repository (:func:`image_in`):
    ``HOST`` gives ``HOST/OWNER/NAME/singleuser``, ``HOST/PATH`` gives
    ``HOST/PATH/NAME/singleuser``; ``image`` names it in full. A value given
    is no longer a placeholder; one not given keeps its value and mark."""
    if image is not None and registry is not None:
        raise ValueError("give image or registry, not both")
    root = repo_root() if root is None else Path(root)
    old = read_project(root)
    given = {"REPOSITORY": repository, "IMAGE": image, "RELEASE": release}
    repository = old.repository if repository is None else repository
    if registry is not None:
        if (given["REPOSITORY"] is None and "REPOSITORY" in old.placeholders
                and "/" not in registry.strip("/")):
            raise ValueError(
                f"registry {registry!r} takes the image's owner from the "
                f"repository, which is still a placeholder ({repository}): "
                f"give --repo OWNER/NAME too"
            )
        image = given["IMAGE"] = image_in(registry, repository)
    new = replace(
        old,
        repository=repository,
        image=old.image if image is None else image,
        release=old.release if release is None else release,
    )
    check_values(new.repository, new.image, new.release)
    set_keys = {key for key, value in given.items() if value is not None}
    new = replace(new, placeholders=old.placeholders - set_keys)
    path = versions_file(root)
    text = path.read_text(encoding="utf-8")
    for key in set_keys:
        text = re.sub(rf"^{key}=.*$", f"{key}={new.values()[key]}", text,
                      flags=re.M)  # fmt: skip
    changed = []
    if text != path.read_text(encoding="utf-8"):
        path.write_text(text, encoding="utf-8")
        changed.append(path)
    for target, body in rendered(root, new).items():
        if target.read_text(encoding="utf-8") != body:
            target.write_text(body, encoding="utf-8")
            changed.append(target)
    return changed
