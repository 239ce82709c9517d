"""Static views for exports: run inside the kernel that executes a deck.

:func:`install` is what the slide export runs first in every lesson's
kernel (the cell is removed again before the deck is written). It

- turns views static (``convgrad.viz.View.static = True``, the flag the
  views read; ``CONVGRAD_STATIC_VIEWS=1`` says the same to a kernel that
  has not run it): ``view`` and ``view.widget()`` then display as the
  view's exported animation, which needs no kernel;
- turns ``%matplotlib widget`` into ``%matplotlib inline``: an ipympl canvas
  needs a live kernel (and a CDN module) to draw, a PNG does not;
- sizes ordinary figures for a 1280x720 slide;
- draws tqdm progress bars as one line of text when they finish: the
  notebook bar is a widget, which a deck would show as an empty gap.

:func:`animate` sets what the animations of the next cells play (the
export runs it before a cell whose metadata asks for a step count).
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

from ..viz._base import STATIC_ENV as ENV

#: keyword arguments for a view's ``to_jshtml`` in a deck
JSHTML_KWARGS: dict[str, Any] = {"fps": 3}
#: what a cell's ``metadata.convgrad.animation`` (or the slides command)
#: may set
ANIMATION_OPTIONS = ("steps", "every", "fps")


def _inline_matplotlib_magic(shell: Any) -> None:
    original = shell.find_line_magic("matplotlib")

    def matplotlib(line: str = "") -> Any:
        words = line.split()
        if words and words[0] in {"widget", "ipympl", "notebook", "nbagg"}:
            words[0] = "inline"
        return original(" ".join(words))

    shell.register_magic_function(matplotlib, "line", "matplotlib")


def check_animation_options(options: Any, where: str = "") -> dict[str, Any]:
    """``options`` as a dict, if each key is one of :data:`ANIMATION_OPTIONS`
    with a valid value (``steps``, ``every``: an int >= 1, ``steps`` may be
    None; ``fps``: a positive number); else a ValueError naming ``where``."""
    at = f"{where}: " if where else ""
    if not isinstance(options, dict):
        raise ValueError(f"{at}animation options must be a mapping, got {options!r}")
    for k, v in options.items():
        if k not in ANIMATION_OPTIONS:
            raise ValueError(f"{at}unknown animation option {k!r}; "
                             f"use {', '.join(ANIMATION_OPTIONS)}")  # fmt: skip
        number = isinstance(v, (int, float)) and not isinstance(v, bool)
        if k == "fps":
            ok = number and v > 0
        else:
            ok = (k == "steps" and v is None) or (number and v == int(v) and v >= 1)
        if not ok:
            rule = "a number > 0" if k == "fps" else "an int >= 1"
            raise ValueError(f"{at}animation option {k}={v!r}: use {rule}")
    return {
        k: int(v) if k != "fps" and v is not None else v for k, v in options.items()
    }


#: the deck's animation options (install() sets them)
_DECK: dict[str, Any] = dict(JSHTML_KWARGS)


def animate(**options: Any) -> None:
    """What the next views' animations play: ``steps`` (the first k steps),
    ``every`` (every m-th step and the last) and ``fps``, on top of the
    deck's options. ``animate()`` restores the deck's options."""
    from convgrad import viz

    viz.View.static_options = {**_DECK, **check_animation_options(options)}


def _slide_bar():
    """tqdm's text bar, kept off screen while it runs and printed once, as
    it finished, when it closes."""
    from tqdm.std import tqdm as std

    class SlideBar(std):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["file"] = io.StringIO()
            kwargs.setdefault("ncols", 90)
            super().__init__(*args, **kwargs)

        def close(self) -> None:
            if self.disable:
                return
            line, leave = str(self), self.leave
            super().close()
            if leave:
                print(line, file=sys.stdout, flush=True)

    return SlideBar


def _draw_progress_bars() -> None:
    import tqdm.auto
    import tqdm.autonotebook

    tqdm.auto.tqdm = tqdm.autonotebook.tqdm = _slide_bar()


def install(**options: Any) -> None:
    """Switch the running kernel to static views (see the module
    docstring); ``options`` are the deck's animation defaults."""
    os.environ[ENV] = "1"
    import matplotlib

    matplotlib.rcParams["figure.figsize"] = (9.6, 4.8)  # fits a 1280x720 slide
    matplotlib.rcParams["figure.dpi"] = 100
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - nbconvert always has IPython
        shell = None
    else:
        shell = get_ipython()
    if shell is not None:
        _inline_matplotlib_magic(shell)
        shell.run_line_magic("matplotlib", "inline")
    _draw_progress_bars()
    from convgrad import viz

    viz.View.static = True
    _DECK.clear()
    _DECK.update(JSHTML_KWARGS, **check_animation_options(options, "slides"))
    viz.View.static_options = dict(_DECK)
