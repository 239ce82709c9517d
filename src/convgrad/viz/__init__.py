"""Views: watch the kernels work, one event per frame.

Each view builds its matplotlib figure once; ``update(i)`` moves the
highlights, recolours the destination grid and rewrites the caption. The
same ``update`` drives the widget (``view.widget()``, or just display the
view), the static exports (``to_jshtml``, ``save_gif``) and the tests.

Under ``%matplotlib widget`` (ipympl) the figure's canvas is the widget;
under any other backend the figure is drawn off-screen and shown as a PNG.
"""

from __future__ import annotations

from ._base import View
from .views import (
    AvgPoolSpreadView,
    Col2imView,
    ConvTransposeView,
    Im2colView,
    MaxPoolForwardView,
    MaxPoolRoutingView,
    OverlapView,
)

__all__ = [
    "AvgPoolSpreadView",
    "Col2imView",
    "ConvTransposeView",
    "Im2colView",
    "MaxPoolForwardView",
    "MaxPoolRoutingView",
    "OverlapView",
    "View",
]
