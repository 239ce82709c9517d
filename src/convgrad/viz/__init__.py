"""Views: watch the kernels work, one event per frame.

Each view builds its matplotlib figure once; ``update(i)`` moves the
outlines, recolours the destination grid and rewrites the caption. The
same ``update`` drives the widget (``view.widget()``, or just display the
view), the static exports (``to_jshtml``, ``save_gif``) and the tests.

Under ``%matplotlib widget`` (ipympl) the figure's canvas is the widget;
under any other backend the figure is drawn off-screen and shown as a PNG.
With ``View.static = True`` (or ``CONVGRAD_STATIC_VIEWS=1``) every view
displays as its static animation instead: what slide exports use.
"""

from __future__ import annotations

from ._base import Control, Model, View, live_views
from .adjoint_views import ConvMatrixView, GradientCheckerboardView
from .checker_views import ConvTransposeView, OverlapView
from .field_views import ReceptiveFieldView, conv_matrix_figure
from .grad_views import ChannelsView, WeightGradView
from .pool_views import AvgPoolSpreadView, MaxPoolForwardView, MaxPoolRoutingView
from .views import Col2imView, Im2colView

__all__ = [
    "AvgPoolSpreadView",
    "ChannelsView",
    "Col2imView",
    "Control",
    "ConvMatrixView",
    "ConvTransposeView",
    "GradientCheckerboardView",
    "Im2colView",
    "MaxPoolForwardView",
    "MaxPoolRoutingView",
    "Model",
    "OverlapView",
    "ReceptiveFieldView",
    "View",
    "WeightGradView",
    "conv_matrix_figure",
    "live_views",
]
