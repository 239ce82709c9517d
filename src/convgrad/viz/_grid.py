"""Grids of numbered cells, and where they go on the figure.

A :class:`Panel` says what one grid shows: its size in cells, its padding
ring, its title, which outlines ("marks") it carries. :func:`layout` places
the panels left to right with square cells; :class:`Grid` draws one panel
on its Axes and changes only artists afterwards (``set_values``,
:meth:`Grid.place`).

Sizes are in points and inches of one figure, 8.0 x 4.5 in: drawn live at
100 dpi it is 800 x 450 px, which fits JupyterLab's output area with the
file browser open (about 840 px at a 1280 px window); exported for a slide
at 160 dpi it is 1280 x 720 px, the slide itself. No text is below 8.5 pt:
11.8 px live and 18.9 px on the slide.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.patches import Rectangle

from ._panel import (  # noqa: F401
    TEXT_PT,
    Panel,
    cell_text,
    dark_text,
    number_size,
    text_em,
    value_range,
)
from .palette import CMAP, INSET, MARK_STYLE, PADDING, TRAIL, WARN  # noqa: F401

FIGSIZE = (8.0, 4.5)  # inches
LIVE_DPI = 100  # 800 x 450 px in the notebook
SLIDE_DPI = 160  # 1280 x 720 px on a slide
TITLE_PT = 10
CAPTION_PT = 10
SUPTITLE_PT = 11
CELL_MAX = 0.5  # inches

_WHITE = ListedColormap(["white"])


def cmap():
    import matplotlib

    return matplotlib.colormaps[CMAP].with_extremes(bad="white")


def norm_for(*arrays: np.ndarray) -> Normalize:
    """One colour scale for every frame, so colours compare across frames."""
    lo, hi = value_range(*arrays)
    return Normalize(vmin=lo, vmax=hi)


class Grid:
    """A 2-D array drawn as numbered cells on one Axes, with a padding ring.

    ``image`` holds the colours (``get_array()`` is the data shown),
    ``texts[r][c]`` the numbers, ``marks[role]`` the outlines.
    """

    def __init__(
        self, ax, panel: Panel, norm: Normalize | None, widest: str = "−0.45"
    ) -> None:
        self.ax, self.panel, self.norm = ax, panel, norm
        rows, cols = panel.rows, panel.cols
        ph, pw = panel.pad
        data = np.zeros((rows, cols)) if panel.values is None else panel.values
        self.image = ax.imshow(
            np.ma.masked_array(data, mask=np.zeros(data.shape, bool)),
            cmap=cmap() if norm is not None else _WHITE,
            norm=norm,
            extent=(-0.5, cols - 0.5, rows - 0.5, -0.5),
            interpolation="none",
            zorder=1,
        )
        ax.set_xlim(-0.5 - pw, cols - 0.5 + pw)
        ax.set_ylim(rows - 0.5 + ph, -0.5 - ph)
        ax.set_facecolor(PADDING if (ph or pw) else "white")
        # every cell border, the outer ones included (unclipped, so the
        # last row and column keep their full line)
        xs = np.arange(-0.5 - pw, cols + pw, 1.0)
        ys = np.arange(-0.5 - ph, rows + ph, 1.0)
        lines = [((x, ys[0]), (x, ys[-1])) for x in xs]
        lines += [((xs[0], y), (xs[-1], y)) for y in ys]
        ax.add_collection(
            LineCollection(
                lines, colors="#777777", linewidths=0.8, zorder=2, clip_on=False
            )
        )
        if panel.blocks is not None:  # heavier lines between the blocks
            bh, bw = panel.blocks
            heavy = [((x, ys[0]), (x, ys[-1])) for x in xs[bw:-1:bw]]
            heavy += [((xs[0], y), (xs[-1], y)) for y in ys[bh:-1:bh]]
            ax.add_collection(
                LineCollection(heavy, colors="#222222", linewidths=2.2, zorder=4)
            )
        for spine in ax.spines.values():
            spine.set_visible(False)
        self._ticks(panel)
        ax.set_title(panel.title, fontsize=TITLE_PT, pad=7)
        size = number_size(panel.cell, widest)
        self.show_numbers = size >= TEXT_PT
        self.texts = [
            [
                ax.text(c, r, "", ha="center", va="center", fontsize=size, zorder=3)
                for c in range(cols)
            ]
            for r in range(rows)
        ]
        self._shown = np.full((rows, cols), None, dtype=object)
        self._colors = np.full((rows, cols), "k", dtype=object)
        roles = panel.marks + (TRAIL if "dst" in panel.marks else ())
        self.marks = {role: self._box(role) for role in roles}
        self.set_values(data)

    def _ticks(self, panel: Panel) -> None:
        ax, pts = self.ax, panel.cell * 72
        ax.tick_params(which="major", labelsize=TEXT_PT, length=0, pad=2)
        rlabels = panel.row_labels or [str(r) for r in range(panel.rows)]
        clabels = panel.col_labels or [str(c) for c in range(panel.cols)]
        # thin the labels until each fits its share of the axis
        rstep = max(1, int(np.ceil(TEXT_PT * 1.25 / pts)))
        need = (max(text_em(t) for t in clabels) + 0.6) * TEXT_PT
        cstep = max(1, int(np.ceil(need / pts)))
        ax.set_yticks(range(0, panel.rows, rstep), rlabels[::rstep])
        ax.set_xticks(range(0, panel.cols, cstep), clabels[::cstep])

    def _box(self, role: str) -> Rectangle:
        color, ls, lw = MARK_STYLE[role]
        rect = Rectangle(
            (0, 0),
            1,
            1,
            fill=False,
            edgecolor=color,
            linewidth=lw,
            linestyle=ls,
            zorder=5,
            visible=False,
            clip_on=False,
        )
        self.ax.add_patch(rect)
        return rect

    def set_values(self, values: np.ndarray, hidden: np.ndarray | None = None) -> None:
        """Show ``values``; cells where ``hidden`` is set are blank and white."""
        values = np.asarray(values, dtype=float)
        hidden = np.zeros(values.shape, bool) if hidden is None else hidden
        self.image.set_data(np.ma.masked_array(values, mask=hidden))
        if self.norm is not None:
            rgba = self.image.cmap(self.norm(values))
            colors = np.where(dark_text(rgba[..., :3]) | hidden, "k", "w")
        else:
            colors = np.full(values.shape, "k")
        for (r, c), v in np.ndenumerate(values):
            shown = self.show_numbers and not hidden[r, c]
            text = cell_text(v, self.panel.compact) if shown else ""
            if text != self._shown[r, c]:
                self.texts[r][c].set_text(text)
                self._shown[r, c] = text
            if colors[r, c] != self._colors[r, c]:
                self.texts[r][c].set_color(colors[r, c])
                self._colors[r, c] = colors[r, c]

    def place(self, role: str, where: tuple[int, ...] | None) -> None:
        """Outline ``(r, c)`` or ``(r, c, h, w)`` (top-left cell, size);
        ``None`` hides the outline."""
        rect = self.marks[role]
        if where is None:
            rect.set_visible(False)
            return
        r, c, h, w = (*where, 1, 1) if len(where) == 2 else where
        inset = INSET.get(role, 0.0)
        rect.set_xy((c - 0.5 + inset, r - 0.5 + inset))
        rect.set_width(w - 2 * inset)
        rect.set_height(h - 2 * inset)
        rect.set_visible(True)


def cell_of(rect: Rectangle) -> tuple[int, int]:
    """The ``(row, col)`` a one-cell outline sits on (for tests, captions)."""
    x, y = rect.get_xy()
    return int(round(y + 0.5)), int(round(x + 0.5))
