"""The one palette and the one set of measures of every view: what the
browser's renderer (``scene.js``) and the picture painter
(:mod:`.painter`) both draw with. A scene carries them (``style``, see
:mod:`.scene`), so the two sides read one table rather than agree by hand.

Outlines use the Okabe-Ito colours and differ in dash pattern too, so none
is told apart by colour alone; cell colours follow cividis, whose lightness
rises monotonically. ``tests/test_palette.py`` simulates the common
colour-vision deficiencies on both.
"""

from __future__ import annotations

#: role -> (colour, dash ("-" solid, "--" dashed, ":" dotted), line width
#: (an outline is ``width·cell·a + b`` px, ``(a, b)`` = ``LAYOUT["mark_width"]``)
MARK_STYLE = {
    "src": ("#E69F00", "-", 3.0),  # orange: where the value comes from
    "dst": ("#D55E00", "-", 3.0),  # vermillion: where it lands
    "window": ("#0072B2", "--", 2.2),  # blue, dashed: the sliding window
    "best": ("#009E73", ":", 3.0),  # bluish green, dotted: the argmax
    "read": ("#56B4E9", "--", 3.0),  # sky blue, dashed: a finished sum read
    "set": ("#CC79A7", "--", 3.0),  # reddish purple, dashed: one mean's set
    # a fading trail of where the last two values landed
    "trail1": ("#D55E0099", "-", 2.0),
    "trail2": ("#D55E0044", "-", 1.5),
}
#: what each outline means, for a legend and for screen readers
MARK_MEANING = {
    "src": "where the value comes from (orange, solid)",
    "dst": "where it lands (vermillion, solid)",
    "window": "the window (blue, dashed)",
    "best": "the window's maximum, its argmax (green, dotted)",
    "read": "a finished sum the step reads (sky blue, dashed)",
    "set": "the elements sharing one mean and variance (purple, dashed)",
}
TRAIL = ("trail1", "trail2")
#: outlines drawn inside their cell (a fraction of it), apart from a window
INSET = {"best": 0.14, "trail1": 0.06, "trail2": 0.1}
PADDING = "#DDDDDD"  # the padding ring
CMAP = "cividis"
#: cividis at 17 even stops (matplotlib's, checked by tests/test_palette.py):
#: the browser interpolates between them
CMAP_STOPS = (
    "#00224e", "#002e6a", "#1a386f", "#32436d", "#434e6c", "#535a6d",
    "#61656f", "#6f7073", "#7d7c78", "#8c8878", "#9b9476", "#aba072",
    "#bcae6c", "#cdbb63", "#dec958", "#f0d846", "#fee838",
)  # fmt: skip

#: The renderer's measures, in CSS px: ``scene.js`` lays a scene out with
#: them (a host may raise or lower some with its ``--cgs-*`` properties: a
#: slide's larger cells and text) and so does the painter of its pictures
#: (:mod:`.painter`), which is a host of a fixed size, as a slide is.
LAYOUT = {
    "font": "'DejaVu Sans', Verdana, 'Segoe UI', Arial, sans-serif",
    "font_min": 12,  # no number is smaller (a host may set --cgs-font-min)
    "font_soft": 10.5,  # ... but on a wide screen, rather than outgrow its height
    "font_max": 15,  # numbers grow no larger (unless the cell is large)
    "narrow": 600,  # a screen narrower than this stacks the panels (a phone)
    "cell_max": 48,  # the largest cell (a host may set --cgs-cell-max)
    "cell_floor": 12,  # the smallest cell a phone's or a slide's grid takes
    "max_grid_height": 460,  # the grids' height on a page (--cgs-max-grid-height)
    "gap": 18,  # between panels side by side (scene.css: --cgs-gap)
    "row_gap": 8,  # between rows of panels, wrapped (--cgs-row-gap)
    "group_gap": 14,  # between the columns of a split stack (--cgs-group-gap)
    "stack_gap": 6,  # between panels stacked in a column (--cgs-stack-gap)
    "fill": [0.88, 4],  # a number fills 0.88 of its cell less 4 px
    "grid_top": 4,  # above a grid, in its own picture
    "grid_right": 8,  # right of a grid
    "label_gap": [6, 4],  # row labels: their width + 6; column labels + 4
    "lines": ["#777", 0.8],  # every cell border
    "lines_min_cell": 4,  # px: a grid of smaller cells draws its outer border only
    "blocks": ["#222", 2.4],  # the heavier lines between a block matrix's blocks
    # an outline's edges (not the trail's): a white rim, then a black edge,
    # each this many px wider than the outline, so each outline has 3:1
    # against any cell (WCAG 1.4.11)
    "edges": [["#fff", 4], ["#000", 2]],
    "mark_width": [1.25 / 36, 0.6],  # px: style width · cell · a + b
    "line_height": 1.3,
    # the player's text, size (px) and colour; scene.js sets them as the
    # player's --cgs-<name>-size and --cgs-<name>-ink, which scene.css uses
    "text": {
        "title": [15, "#1a1a1a"],
        "sub": [13, "#444"],
        "warn": [13, "#B34700"],
        "caption": [14, "#1a1a1a"],
        "panel": [13, "#1a1a1a"],
        "label": [12, "#333"],
        "legend": [12, "#333"],
    },
}


def style() -> dict:
    """The palette as a scene carries it to the browser."""
    return {
        "marks": {
            role: {"color": color, "dash": dash, "width": width}
            for role, (color, dash, width) in MARK_STYLE.items()
        },
        "inset": dict(INSET),
        "padding": PADDING,
        "layout": LAYOUT,
        "cmap": list(CMAP_STOPS),
    }
