"""Static views for exports: run inside the kernel that executes a deck.

:func:`install` is what the slide export runs first in every lesson's
kernel (the cell is removed again before the deck is written). It

- sets ``CONVGRAD_STATIC_VIEWS=1`` (``convgrad.viz`` may honour it too);
- turns ``%matplotlib widget`` into ``%matplotlib inline``: an ipympl canvas
  needs a live kernel (and a CDN module) to draw, a PNG does not;
- makes every view display as its ``to_jshtml()`` animation: ``view`` and
  ``view.widget()`` both show the inline-PNG player, which needs no kernel;
- sizes ordinary figures for a 1280x720 slide.
"""

from __future__ import annotations

import os
from typing import Any

ENV = "CONVGRAD_STATIC_VIEWS"
#: keyword arguments for ``to_jshtml`` in a deck: few frames, slide-sized
JSHTML_KWARGS: dict[str, Any] = {"fps": 2, "max_frames": 40, "dpi": 72}


class StaticAnimation:
    """What ``view.widget()`` returns in a static export: displays as the
    view's jshtml animation and then releases the figure."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self._html: str | None = None

    def html(self) -> str:
        if self._html is None:
            self._html = self.view.to_jshtml(**JSHTML_KWARGS)
            close = getattr(self.view, "close", None)
            if callable(close):
                close()
        return self._html

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {"text/html": self.html()}


def _static_widget(self: Any) -> StaticAnimation:
    cached = self.__dict__.get("_static_animation")
    if cached is None:
        cached = StaticAnimation(self)
        self.__dict__["_static_animation"] = cached
    return cached


def _static_bundle(self: Any, include: Any = None, exclude: Any = None) -> dict:
    return {"text/html": self.widget().html()}


def _static_display(self: Any) -> None:
    from IPython.display import HTML, display

    display(HTML(self.widget().html()))


def patch_views(module: Any) -> list[type]:
    """Make every view class in ``module`` (``convgrad.viz``) display as its
    static animation. A view class is one with ``to_jshtml`` and ``widget``.
    Returns the classes patched."""
    patched = []
    for value in vars(module).values():
        if not isinstance(value, type):
            continue
        if not (callable(getattr(value, "to_jshtml", None))
                and callable(getattr(value, "widget", None))):
            continue
        value.widget = _static_widget
        value._repr_mimebundle_ = _static_bundle
        value._ipython_display_ = _static_display
        patched.append(value)
    return patched


def _inline_matplotlib_magic(shell: Any) -> None:
    original = shell.find_line_magic("matplotlib")

    def matplotlib(line: str = "") -> Any:
        words = line.split()
        if words and words[0] in {"widget", "ipympl", "notebook", "nbagg"}:
            words[0] = "inline"
        return original(" ".join(words))

    shell.register_magic_function(matplotlib, "line", "matplotlib")


def install() -> None:
    """Switch the running kernel to static views (see the module docstring)."""
    os.environ[ENV] = "1"
    import matplotlib

    matplotlib.rcParams["figure.figsize"] = (9.6, 4.8)  # fits a 1280x720 slide
    matplotlib.rcParams["figure.dpi"] = 100
    matplotlib.rcParams["animation.embed_limit"] = 60.0  # MB
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - nbconvert always has IPython
        shell = None
    else:
        shell = get_ipython()
    if shell is not None:
        _inline_matplotlib_magic(shell)
        shell.run_line_magic("matplotlib", "inline")
    from convgrad import viz

    patch_views(viz)
