"""The figure of a view: made once, laid out once.

An off-screen Agg figure that pyplot does not know (so inline backends
never show it by themselves): the pictures of a view (``png()``, GIFs).
:func:`draw` lays out the title, the geometry line, the grids and the
caption; afterwards only artists change.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import _grid as g
from ._layout import layout
from ._panel import dest_index


def new_figure() -> Figure:
    """A view's figure: off-screen Agg, unknown to pyplot (so no backend
    shows it by itself); what shows it (``png()``, a GIF) draws it."""
    fig = Figure(figsize=g.FIGSIZE, dpi=g.LIVE_DPI)
    OffscreenCanvas(fig)
    return fig


class OffscreenCanvas(FigureCanvasAgg):
    """An Agg canvas whose ``draw_idle`` only marks the figure stale: what
    shows it (``png()``, an export) draws anyway."""

    def draw_idle(self, *args: Any, **kwargs: Any) -> None:
        self.figure.stale = True


def _text(fig: Figure, y: float, text: str, va: str, size: float, **kw: Any):
    """A centred line of text, ``y`` inches from the top (va="top") or the
    bottom (va="bottom") of the figure."""
    fh = fig.get_size_inches()[1]
    pos = 1 - y / fh if va == "top" else y / fh
    return fig.text(0.5, pos, text, ha="center", va=va, fontsize=size, **kw)


def draw(fig: Figure, title: str, subtitle: str, m: Any, panels: list[g.Panel]):
    """Lay out a view on ``fig`` (cleared first): its title, the geometry
    line, a warning for any stand-in data, the grids and the caption.
    Returns the grids by panel name and the caption's Text."""
    fig.clear()
    fig.set_facecolor("white")
    _text(fig, 0.05, title, "top", g.SUPTITLE_PT, weight="bold")
    _text(fig, 0.27, subtitle, "top", g.TEXT_PT, color="#444444")
    warn = "; ".join(
        f"{k}: seeded stand-in numbers ({why})" for k, why in m.synthetic.items()
    )
    _text(fig, 0.06, warn, "bottom", g.TEXT_PT, color=g.WARN)
    caption = _text(fig, 0.26 if warn else 0.08, "", "bottom", g.CAPTION_PT)
    for p in panels:
        if p.name in m.synthetic:
            p.title += "  (stand-in)"
    axes = layout(fig, panels, top=0.45, bottom=0.5 if warn else 0.32)
    grids = {}
    for p, ax in zip(panels, axes, strict=True):
        widest = _widest(p, m)
        if g.number_size(p.cell, widest) < g.TEXT_PT:
            p.compact = True  # −.25 where −0.25 does not fit
            widest = _widest(p, m)
        # a grid too small even for those is coloured, never left blank
        if g.number_size(p.cell, widest) < g.TEXT_PT:
            p.colored = True
        grids[p.name] = g.Grid(ax, p, _norm(p, m), widest)
    return grids, caption


def _widest(p: g.Panel, m: Any) -> str:
    """The widest number the panel will ever show."""
    if p.values is not None:
        values = p.values
    else:
        values = m.frames.seen(dest_index(p, m.shape))
    texts = [g.cell_text(v, p.compact) for v in np.unique(values)] or ["0"]
    return max(texts, key=g.text_em)


def _norm(p: g.Panel, m: Any):
    """One colour scale for all frames (None: a white grid)."""
    if not p.colored:
        return None
    if p.values is None:
        return g.norm_for(m.frames.seen())
    return g.norm_for(p.values, m.frames.seen())
