"""The one palette of every view: what the figure draws with and what the
browser's renderer draws with (a scene carries it, see :mod:`.scene`).

Outlines use the Okabe-Ito colours and differ in dash pattern too, so none
is told apart by colour alone; cell colours follow cividis, whose lightness
rises monotonically. ``tests/test_palette.py`` simulates the common
colour-vision deficiencies on both.
"""

from __future__ import annotations

#: role -> (colour, matplotlib line style, line width in pt at 100 dpi)
MARK_STYLE = {
    "src": ("#E69F00", "-", 3.0),  # orange: where the value comes from
    "dst": ("#D55E00", "-", 3.0),  # vermillion: where it lands
    "window": ("#0072B2", "--", 2.2),  # blue, dashed: the sliding window
    "best": ("#009E73", ":", 3.0),  # bluish green, dotted: the argmax
    "read": ("#56B4E9", "--", 3.0),  # sky blue, dashed: a finished sum read
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
}
TRAIL = ("trail1", "trail2")
#: outlines drawn inside their cell (a fraction of it), apart from a window
INSET = {"best": 0.14, "trail1": 0.06, "trail2": 0.1}
PADDING = "#DDDDDD"  # the padding ring
WARN = "#D55E00"
CMAP = "cividis"
#: cividis at 17 even stops (matplotlib's, checked by tests/test_palette.py):
#: the browser interpolates between them
CMAP_STOPS = (
    "#00224e", "#002e6a", "#1a386f", "#32436d", "#434e6c", "#535a6d",
    "#61656f", "#6f7073", "#7d7c78", "#8c8878", "#9b9476", "#aba072",
    "#bcae6c", "#cdbb63", "#dec958", "#f0d846", "#fee838",
)  # fmt: skip


def style() -> dict:
    """The palette as a scene carries it to the browser."""
    return {
        "marks": {
            role: {"color": color, "dash": dash, "width": width}
            for role, (color, dash, width) in MARK_STYLE.items()
        },
        "inset": dict(INSET),
        "padding": PADDING,
        "warn": WARN,
        "cmap": list(CMAP_STOPS),
    }
