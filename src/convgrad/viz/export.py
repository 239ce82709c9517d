"""Static animations of a view: HTML that plays with no kernel, and GIFs.

Every frame of an export is a real step: by default all of them, or the
first ``steps`` of them, or every ``every``-th step (the last step always
included). The same ``view.update(i)`` draws each frame.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from ._grid import SLIDE_DPI


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


def _animation(view: Any, frames: list[int], fps: float):
    from matplotlib.animation import FuncAnimation

    return FuncAnimation(
        view.fig,
        view.update,
        frames=frames,
        interval=1000.0 / fps,
        repeat=False,
        cache_frame_data=False,
        blit=False,
    )


def _playing(view: Any, run):
    keep = view.frame
    view._exporting = True
    try:
        return run()
    finally:
        view._exporting = False
        view.update(keep)


def to_jshtml(
    view: Any,
    fps: float = 2,
    steps: int | None = None,
    every: int = 1,
    dpi: float = SLIDE_DPI,
    default_mode: str = "once",
) -> str:
    """A self-contained HTML animation (inline PNG frames, no kernel)."""
    from matplotlib.animation import HTMLWriter

    frames = export_frames(view.n_frames, steps, every)

    def run() -> str:
        anim = _animation(view, frames, fps)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "view.html")
            writer = HTMLWriter(fps=fps, embed_frames=True, default_mode=default_mode)
            anim.save(path, writer=writer, dpi=dpi)
            with open(path, encoding="utf-8") as f:
                return f.read()

    return _playing(view, run)


def save_gif(
    view: Any,
    path: str | os.PathLike,
    fps: float = 2,
    steps: int | None = None,
    every: int = 1,
    dpi: float = 72,
) -> list[int]:
    """Write an animated GIF (Pillow); returns the frames it holds."""
    from matplotlib.animation import PillowWriter

    frames = export_frames(view.n_frames, steps, every)

    def run() -> None:
        anim = _animation(view, frames, fps)
        anim.save(os.fspath(path), writer=PillowWriter(fps=fps), dpi=dpi)

    _playing(view, run)
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
