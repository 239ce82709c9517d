"""Static animations of a view: HTML that plays with no kernel, and GIFs.

Every frame of an export is a real step: by default all of them, or the
first ``steps`` of them, or every ``every``-th step (the last step always
included). The same ``view.update(i)`` draws each frame, at ``SLIDE_DPI``
by default: 1280 x 720 px, the size of a slide.

**Frame format.** Consecutive steps differ in a few cells, the outlines and
the caption, so an export stores the first frame whole and, for every later
frame, only the 8 x 8 px tiles that changed since the one before (runs of
tiles packed into one small image per frame). Frames share one palette of
at most 256 colours: exact when the frames hold no more colours than that,
otherwise each pixel takes the nearest palette colour (the flat cell colours
dominate the counts and stay exact; anti-aliased edges move slightly). A
81-step view is then about 0.5 MB of HTML instead of 9 MB of PNG frames.

**Player.** ``player.js`` and ``player.css`` (beside this module) are
inlined into each export, which stays one self-contained piece of HTML that
works from ``file://`` with no network: Play/Pause, one step back and
forward, Reset, a step slider counting from 1 like the caption, and a speed
menu, each with a tooltip. Its controls sit in the figure's two top corners,
where no view draws (``CORNER`` px each side of the title; a test holds
every view to it), so the figure keeps its full size: text at least 18.9 px
on a 1280 x 720 slide.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import json
import os
from collections.abc import Iterator
from importlib import resources
from typing import Any

import numpy as np

from ._encode import Encoded, Mapper, encode, make_palette
from ._grid import SLIDE_DPI

#: px of the top corners (at SLIDE_DPI) the player's controls use; the view
#: titles leave them free (tests/test_export.py checks every view)
CORNER = 180
TOP_BAND = 72  # px: the band above the grids, where title and controls sit
PLAYER_CLASS = "convgrad-player"
_SERIAL = itertools.count(1)


def export_frames(n: int, steps: int | None = None, every: int = 1) -> list[int]:
    """The frame indices an export plays (0-based)."""
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
# rendering: one RGB array per frame
# --------------------------------------------------------------------------


def render_frames(view: Any, frames: list[int], dpi: float) -> Iterator[np.ndarray]:
    """Draw each frame with ``view.update(i)``; yield it as an RGB array
    ``(height, width, 3)``. The view is left on the frame it showed.

    Every frame is a full Agg render (text dominates it). Redrawing only
    what changes over a background, as a blitting animation does, was tried:
    pixel-identical, but no faster in measurement (2026-12-01, loaded box),
    so the simple way stays.
    """
    keep = view.frame
    view._exporting = True  # update() skips its own redraw; we draw here
    try:
        for i in frames:
            yield _full(view, i, dpi)
    finally:
        view._exporting = False
        if view.n_frames:
            view.update(keep)


def _full(view: Any, i: int, dpi: float) -> np.ndarray:
    view.update(i)
    buf = io.BytesIO()
    view.fig.savefig(buf, format="rgba", dpi=dpi, facecolor=view.fig.get_facecolor())
    w, h = np.round(view.fig.get_size_inches() * dpi).astype(int)
    rgba = np.frombuffer(buf.getvalue(), np.uint8).reshape(h, w, 4)
    return np.ascontiguousarray(rgba[..., :3])


# --------------------------------------------------------------------------
# HTML: the player and its data
# --------------------------------------------------------------------------


def _asset(name: str) -> str:
    return resources.files("convgrad.viz").joinpath(name).read_text(encoding="utf-8")


def _uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def player_html(
    enc: Encoded, total: int, fps: float = 2, loop: bool = False, label: str = ""
) -> str:
    """The self-contained player for ``enc`` (``total``: the view's steps)."""
    pid = f"convgrad-player-{os.getpid()}-{next(_SERIAL)}"
    data = {
        "width": enc.width,
        "height": enc.height,
        "total": total,
        "steps": enc.steps,
        "fps": fps,
        "tile": enc.tile,
        "loop": loop,
        "deltas": [None if d is None else [_uri(d[0]), d[1]] for d in enc.deltas],
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    alt = html.escape(label or "animation", quote=True)
    return (
        f'<div class="{PLAYER_CLASS}" id="{pid}" '
        f'style="aspect-ratio:{enc.width}/{enc.height}">'
        f'<img class="cgp-key" alt="{alt}, step {enc.steps[0]}" '
        f'width="{enc.width}" height="{enc.height}" src="{_uri(enc.key)}">'
        f'<script type="application/json" class="cgp-data">{payload}</script>'
        "</div>"
        f"<style>{_asset('player.css')}</style>"
        f"<script>{_asset('player.js')}\n"
        f'convgradPlayer.mount(document.getElementById("{pid}"));</script>'
    )


def to_jshtml(
    view: Any,
    fps: float = 2,
    steps: int | None = None,
    every: int = 1,
    dpi: float = SLIDE_DPI,
    default_mode: str = "once",
) -> str:
    """A self-contained HTML animation of ``view`` (no kernel, no network).

    ``default_mode``: ``"once"`` stops at the last step, ``"loop"`` starts
    again from the first.
    """
    if default_mode not in ("once", "loop"):
        raise ValueError(f"default_mode must be 'once' or 'loop', got {default_mode!r}")
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps!r}")
    frames = export_frames(view.n_frames, steps, every) or [0]
    images = list(render_frames(view, frames, dpi))
    enc = encode(images, [i + 1 for i in frames])
    return player_html(enc, max(view.n_frames, 1), fps, default_mode == "loop",
                       getattr(view, "title", ""))  # fmt: skip


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


class StaticAnimation:
    """What a static view displays as: its animation, which needs no
    kernel. The HTML is made once, on first display; then the figure is
    released."""

    def __init__(self, view: Any, **options: Any) -> None:
        self.view, self.options = view, options
        self._html: str | None = None

    def html(self) -> str:
        if self._html is None:
            self._html = to_jshtml(self.view, **self.options)
            self.view.close()
        return self._html

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {"text/html": self.html()}
