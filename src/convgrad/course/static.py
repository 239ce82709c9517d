"""Static views for exports: run inside the kernel that executes a deck.

:func:`install` is what the slide export runs first in every lesson's
kernel (the cell is removed again before the deck is written). It

- turns views static (``convgrad.viz.View.static = True``, the flag the
  views read; ``CONVGRAD_STATIC_VIEWS=1`` says the same to a kernel that
  has not run it): ``view`` and ``view.widget()`` then display as the
  view's exported animation, which needs no kernel;
- turns ``%matplotlib widget`` into ``%matplotlib inline``: an ipympl canvas
  needs a live kernel (and a CDN module) to draw, a PNG does not;
- sizes ordinary figures for a 1280x720 slide.
"""

from __future__ import annotations

import os
from typing import Any

from ..viz._base import STATIC_ENV as ENV

#: keyword arguments for a view's ``to_jshtml`` in a deck
JSHTML_KWARGS: dict[str, Any] = {"fps": 2}


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

    viz.View.static = True
    viz.View.static_options = dict(JSHTML_KWARGS)
