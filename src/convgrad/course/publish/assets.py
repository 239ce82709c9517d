"""What the published course is made of, and what it must not load.

* npm packages (reveal.js, MathJax, ...), fetched once with ``npm pack``
  into ``~/.cache/convgrad/slide-assets`` (or ``$CONVGRAD_ASSET_CACHE``) and
  copied next to the decks or into the site;
* the finder of everything a page would load from the network, which an
  offline deck or site must not.
"""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import MissingTool

# --------------------------------------------------------------------------
# npm packages
# --------------------------------------------------------------------------


def asset_cache() -> Path:
    """Where fetched npm packages are kept between exports."""
    env = os.environ.get("CONVGRAD_ASSET_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "convgrad" / "slide-assets"


def _cached_at(spec: str, cache: Path | None) -> Path:
    cache = asset_cache() if cache is None else Path(cache)
    return cache / spec.replace("/", "__").replace("@", "_at_")


def is_cached(spec: str, cache: Path | None = None) -> bool:
    """Has ``spec`` been fetched into ``cache`` (default :func:`asset_cache`)?"""
    return (_cached_at(spec, cache) / ".complete").is_file()


def require_npm(spec: str) -> str:
    """The npm program, or :class:`MissingTool` saying why ``spec`` needs it."""
    npm = shutil.which("npm")
    if npm is None:
        raise MissingTool(
            f"fetching {spec} needs npm (offline decks and the site take "
            f"reveal.js, require.js, jQuery, the widget manager, Font Awesome "
            f"and MathJax from the npm registry): install Node.js and npm "
            f"(apt-get install npm), or export the slides without --offline"
        )
    return npm


def npm_package(spec: str, cache: Path | None = None) -> Path:
    """The unpacked npm package ``spec`` (fetched with ``npm pack`` once
    into ``cache``, default :func:`asset_cache`)."""
    where = _cached_at(spec, cache)
    done = where / ".complete"
    if done.is_file():
        return where / "package"
    npm = require_npm(spec)
    where.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(
        [npm, "pack", spec, "--pack-destination", str(where), "--silent"],
        capture_output=True, text=True, check=False,
    )
    if run.returncode != 0:
        raise RuntimeError(f"npm pack {spec} failed:\n{run.stderr.strip()}")
    tarballs = sorted(where.glob("*.tgz"))
    if len(tarballs) != 1:
        raise RuntimeError(f"npm pack {spec} left {len(tarballs)} tarballs in {where}")
    shutil.rmtree(where / "package", ignore_errors=True)
    with tarfile.open(tarballs[0]) as tar:
        tar.extractall(where, filter="data")
    tarballs[0].unlink()
    done.write_text(spec + "\n")
    return where / "package"


def copy_from_package(
    spec: str, items: Iterable[tuple[str, str]], target: Path,
    cache: Path | None = None,
) -> None:
    """Copy ``(path in the package, path under target)`` pairs of the npm
    package ``spec`` into ``target``; source maps are left out."""
    package = npm_package(spec, cache)
    for source, dest in items:
        src, dst = package / source, Path(target) / dest
        if not src.exists():
            raise RuntimeError(f"npm package {spec} has no {source}")
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.map"))
        else:
            shutil.copy2(src, dst)


# --------------------------------------------------------------------------
# what a page loads from the network
# --------------------------------------------------------------------------

_REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
_CSS_REMOTE = re.compile(
    r"""(@import\s+(url\()?\s*["']?\s*(https?:)?//|url\(\s*["']?\s*(https?:)?//)""",
    re.IGNORECASE,
)
_JS_REMOTE = re.compile(r"""["'`](https?:)?//[^"'`\s]+["'`]""", re.IGNORECASE)
# an XML namespace is a name, not something a browser fetches
_NAMESPACE = re.compile(r"""["'`]https?://www\.w3\.org/[^"'`]*["'`]""")


@dataclass(frozen=True)
class RemoteReference:
    """Something a deck would load from the network."""

    tag: str
    where: str
    value: str

    def __str__(self) -> str:
        return f"<{self.tag}> {self.where}: {self.value[:120]}"


class _RemoteFinder(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[RemoteReference] = []
        self._inside: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        for attr in ("src", "href", "data", "poster"):
            if attr not in values:
                continue
            if tag == "a" and attr == "href":
                continue  # a link the reader may follow, not a load
            if _REMOTE.match(values[attr]):
                self.found.append(RemoteReference(tag, attr, values[attr]))
        if "style" in values and _CSS_REMOTE.search(values["style"]):
            self.found.append(RemoteReference(tag, "style", values["style"]))
        self._inside = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag: str) -> None:
        self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside == "style":
            for m in _CSS_REMOTE.finditer(data):
                found = data[m.start() :][:120]
                self.found.append(RemoteReference("style", "css", found))
        elif self._inside == "script":
            for m in _JS_REMOTE.finditer(_NAMESPACE.sub('""', data)):
                self.found.append(RemoteReference("script", "inline", m.group(0)))


def remote_references(page: str) -> list[RemoteReference]:
    """Every script, style sheet, font or image ``page`` loads over the
    network: ``src``/``href`` attributes (``<a>`` links excepted), CSS
    ``@import``/``url()`` in ``<style>`` and ``style=``, and URL strings in
    inline scripts."""
    finder = _RemoteFinder()
    finder.feed(page)
    finder.close()
    return finder.found


def remote_references_in_assets(folder: Path) -> list[RemoteReference]:
    """Remote ``@import``/``url()`` in the style sheets under ``folder``."""
    found = []
    for css in sorted(Path(folder).rglob("*.css")):
        text = css.read_text(encoding="utf-8", errors="replace")
        for m in _CSS_REMOTE.finditer(text):
            found.append(RemoteReference("css", str(css), text[m.start() :][:120]))
    return found


def local_references(page: str) -> list[str]:
    """The relative ``src``/``href`` of every script and style sheet."""
    out: list[str] = []

    class Finder(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):  # noqa: ANN001
            values = dict(attrs)
            if tag == "script" and values.get("src"):
                out.append(values["src"])
            if tag == "link" and values.get("href"):
                out.append(values["href"])

    Finder().feed(page)
    return [x for x in out if not _REMOTE.match(x) and not x.startswith("data:")]
