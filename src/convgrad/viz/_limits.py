"""How big a view may be: it says so past ``LARGE_STEPS`` steps, and is
refused past ``MAX_STEPS``.

A view's scene grows with its steps (each step's changed cells, outlines
and caption): about 200 bytes a step. Past ``LARGE_STEPS`` nobody watches
it through, so the view warns (:class:`LargeSceneWarning`, and the same
words in its scene, which the player shows) and suggests an input that
plays about ``LARGE_STEPS`` steps; past ``MAX_STEPS`` its parameters are
refused as any other bad parameter is, with a ``ValueError``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from typing import Any

from ._data import is_data

#: more steps than this and a view says its scene is large (about 2 MB of
#: scene, 7 minutes of play at the fastest speed), suggesting a smaller input
LARGE_STEPS = 10_000
#: more steps than this and a view refuses its parameters (a ValueError, as
#: for any other refused parameter): the scene would be hundreds of MB
MAX_STEPS = 400_000
FASTEST_MS = 40  # the player's fastest speed, ms per step (scene.SPEEDS)
#: more cells than this in a view's grids and it says its scene is large
#: (the browser draws each cell: a rectangle and a number)
LARGE_CELLS = 100_000
#: more cells than this and a view refuses its parameters (ConvMatrixView's
#: matrix, whose cells grow with the square of the input's area)
MAX_CELLS = 1_000_000


class LargeSceneWarning(UserWarning):
    """A view plays more steps than anyone will watch (``LARGE_STEPS``)."""


def bounded(events: Iterable) -> tuple:
    """A trace's events, refused (a ValueError naming ``input_size``) when
    there are more than ``MAX_STEPS``: before the view builds anything."""
    events = tuple(itertools.islice(events, MAX_STEPS + 1))
    if len(events) > MAX_STEPS:
        raise ValueError(
            f"input_size is too large for a view: it would play more than "
            f"{MAX_STEPS:,} steps, a scene of hundreds of MB. A smaller "
            "input shows the same pattern, such as input_size=(16, 16)"
        )
    return events


def smaller_input(params: Mapping[str, Any], ratio: float) -> str:
    """Advice for a view ``ratio`` times too large: an ``input_size`` whose
    area is ``ratio`` times smaller (a view's steps and cells grow with its
    input's area)."""
    size = params.get("input_size")
    data = [k for k, v in params.items() if k != "input_size" and is_data(v)
            and not isinstance(v, str)]  # fmt: skip
    if data or size is None:
        return "a smaller input shows the same pattern"
    h, w = (size, size) if isinstance(size, int) else tuple(size)
    scale = math.sqrt(1 / max(ratio, 1.0))
    h2, w2 = max(1, int(h * scale)), max(1, int(w * scale))
    return f"a smaller input shows the same pattern: try input_size=({h2}, {w2})"


def size_note(params: Mapping[str, Any], steps: int, cells: int = 0) -> str:
    """What a view of ``steps`` steps and ``cells`` cells in its grids says
    of its size ('' up to ``LARGE_STEPS`` steps and ``LARGE_CELLS``
    cells)."""
    ratio = max(steps / LARGE_STEPS, cells / LARGE_CELLS)
    if ratio <= 1:
        return ""
    minutes = steps * FASTEST_MS / 60_000
    size = (f"{steps:,} steps, {minutes:.0f} min of play at the fastest speed"
            if steps > LARGE_STEPS else f"{cells:,} cells to draw")  # fmt: skip
    return f"a large view: {size}; {smaller_input(params, ratio)}"
