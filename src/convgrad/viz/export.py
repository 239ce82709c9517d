"""A view outside the live kernel: embedded scenes, pictures and GIFs.

**Embedded** (:func:`to_jshtml`, and what a view displays as under
``display_as("embed")``): the view as a ``<convgrad-scene>`` element
holding its scene's JSON, then the renderer (``scene.js``, the ES module
the live widget loads too, inlined as a ``<script type="module">``, and
``scene.css``): one self-contained piece of HTML that plays every step
from ``file://`` with no kernel and no network (a module's ``src`` would
not load from ``file://``). Writing it costs what building the scene
costs: milliseconds. The element carries the view's title and step count
as its label, and says so in words where no JavaScript runs.

A page of several views needs the renderer once: the module defines the
element, and every ``<convgrad-scene>`` of the page draws itself.
:func:`one_renderer` keeps a page's first copy and drops the others; the
slide decks and the course website pass every page through it.

**Pictures** (for files and for where no JavaScript runs), painted from
the same scene by the browser's layout rule (:mod:`.painter`):
:func:`save_gif` paints chosen steps and writes an animated GIF;
:class:`Picture` is a PNG of the view's last step, what a view displays as
under ``display_as("pictures")`` (nbconvert to PDF).
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from .scene import asset, to_json

#: the element (and class) of an embedded scene (the slide and site
#: exports find views by it); scene.js defines it
PLAYER_CLASS = "convgrad-scene"
#: the class of the renderer's blocks in a page (its script and its styles)
RENDERER_CLASS = "cgs-renderer"
_RENDERER_BLOCK = re.compile(
    rf'<(script|style)\b[^>]*\bclass="{RENDERER_CLASS}"[^>]*>.*?</\1>', re.S
)


def export_frames(n: int, steps: int | None = None, every: int = 1) -> list[int]:
    """The frame indices an export plays (0-based): the first ``steps``
    (all by default), every ``every``-th of them, the last always."""
    if steps is not None and (
        not isinstance(steps, int) or isinstance(steps, bool) or steps < 1
    ):
        raise ValueError(f"steps must be None or an int of at least 1, got {steps!r}")
    if not isinstance(every, int) or isinstance(every, bool) or every < 1:
        raise ValueError(f"every must be an int of at least 1, got {every!r}")
    last = n if steps is None else min(n, steps)
    frames = list(range(0, last, every))
    if frames and frames[-1] != last - 1:
        frames.append(last - 1)
    return frames


# --------------------------------------------------------------------------
# embedded: the scene and the renderer
# --------------------------------------------------------------------------


def renderer_html() -> str:
    """The renderer as a page loads it: ``scene.css`` and ``scene.js`` (an
    ES module, inline), each block marked ``class="cgs-renderer"``."""
    return (
        f'<style class="{RENDERER_CLASS}">{asset("scene.css")}</style>'
        f'<script type="module" class="{RENDERER_CLASS}">{asset("scene.js")}'
        "</script>"
    )


def one_renderer(page: str) -> str:
    """``page`` with the renderer once: its first copy of each block
    (style, script) kept where it is, the later ones dropped. The module
    draws every ``<convgrad-scene>`` of the page, wherever it stands."""
    seen: set[str] = set()

    def first(m: re.Match) -> str:
        if m.group(1) in seen:
            return ""
        seen.add(m.group(1))
        return m.group(0)

    return _RENDERER_BLOCK.sub(first, page)


def element_html(scene: dict[str, Any]) -> str:
    """``scene`` as a ``<convgrad-scene>`` element: its JSON, its label and
    what a page without JavaScript says; drawn by the renderer."""
    label = html.escape(
        f"{scene['title']}: an animation of {scene['steps']} steps", quote=True
    )
    first = scene["frames"][0]["text"] if scene["frames"] else ""
    fallback = html.escape(
        f"{scene['title']} ({scene['subtitle']}): an animation of "
        f"{scene['steps']} steps, which needs JavaScript. Step 1: {first}"
    )
    return (
        f'<{PLAYER_CLASS} class="{PLAYER_CLASS}" role="figure" '
        f'aria-label="{label}" data-view="{html.escape(scene["view"])}">'
        f'<div class="cgs-stage"></div>'
        f'<p class="cgs-fallback">{fallback}</p>'
        f'<script type="application/json" class="cgs-data">{to_json(scene)}</script>'
        f"</{PLAYER_CLASS}>"
    )


def scene_html(scene: dict[str, Any]) -> str:
    """The self-contained player of ``scene`` (no kernel, no network): its
    element and the renderer."""
    return element_html(scene) + renderer_html()


def to_jshtml(view: Any, fps: float | None = None, default_mode: str = "once") -> str:
    """A self-contained HTML animation of ``view`` (no kernel, no network).

    ``fps``: the steps per second it starts playing at (the player's speed
    menu changes it); ``default_mode``: ``"once"`` stops at the last step,
    ``"loop"`` starts again from the first.
    """
    if default_mode not in ("once", "loop"):
        raise ValueError(f"default_mode must be 'once' or 'loop', got {default_mode!r}")
    scene = view.scene()
    if fps is not None:
        if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not fps > 0:
            raise ValueError(f"fps must be a positive number, got {fps!r}")
        interval = max(1, round(1000 / fps))
        scene["speed"] = interval
        if interval not in [ms for _, ms in scene["speeds"]]:
            scene["speeds"].append([f"{fps:g}/s", interval])
            scene["speeds"].sort(key=lambda s: -s[1])
    scene["loop"] = default_mode == "loop"
    return scene_html(scene)


class Embedded:
    """What a view displays as under ``display_as("embed")``: its scene and
    the renderer, as HTML (made on first display)."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self._html: str | None = None

    def html(self) -> str:
        if self._html is None:
            self._html = to_jshtml(self.view)
        return self._html

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {"text/html": self.html(), "text/plain": repr(self.view)}


# --------------------------------------------------------------------------
# pictures: painted from the scene
# --------------------------------------------------------------------------


def render_frames(view: Any, frames: list[int], dpi: float) -> Iterator[np.ndarray]:
    """Paint each of ``frames`` from the view's scene (laid out once, so
    every frame has one size); yield it as an RGB array ``(height, width,
    3)``. The frame the view shows does not move."""
    painter = view.painter
    for i in frames:
        yield np.asarray(painter.image(i, dpi))


def save_gif(
    view: Any,
    path: str | os.PathLike,
    fps: float = 2,
    steps: int | None = None,
    every: int = 1,
    dpi: float = 72,
) -> list[int]:
    """Write an animated GIF (Pillow, one palette); returns its frames."""
    from PIL import Image

    from ._encode import Mapper, make_palette

    if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not fps > 0:
        raise ValueError(f"fps must be a positive number, got {fps!r}")
    frames = export_frames(view.n_frames, steps, every) or [0]
    images = list(render_frames(view, frames, dpi))
    palette = make_palette([images[0], images[len(images) // 2], images[-1]])
    mapper = Mapper(palette)
    pics = []
    for im in images:
        pic = Image.fromarray(mapper(im), mode="P")
        pic.putpalette(palette.ravel().tolist())
        pics.append(pic)
    pics[0].save(os.fspath(path), save_all=True, append_images=pics[1:],
                 duration=round(1000 / fps), loop=0, optimize=False)  # fmt: skip
    return frames


class Picture:
    """What a view displays as under ``display_as("pictures")``: a PNG of
    its last step (the whole result), painted from its scene."""

    def __init__(self, view: Any) -> None:
        self.view = view

    def png(self) -> bytes:
        view = self.view
        return view.painter.png(max(view.n_frames - 1, 0))

    def _repr_png_(self) -> bytes:
        return self.png()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {"image/png": self.png(), "text/plain": repr(self.view)}
