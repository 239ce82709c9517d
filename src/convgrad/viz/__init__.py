"""Views: watch the kernels work, one event per step.

A view is a declaration (panels, outlines, captions) over one trace. From
it the kernel builds a **scene** (:meth:`View.scene`): every step's
numbers, outlines and caption, as data. The browser draws the scene
(``scene.js``), wherever it is shown:

- in JupyterLab, display the view (or ``ui = view.widget()``): a live
  widget whose Play, step, scrub and speed run in the browser; the kernel
  works only when a parameter control changes. The widget's traits are
  the player's state (``ui.params``, ``ui.frame``, ``ui.scene``,
  ``ui.error``) and ``ui.view`` the view it plays now;
- in a slide deck, the course website or any HTML page: ``to_jshtml()``,
  the scene as a ``<convgrad-scene>`` element and the same renderer (the
  ES module, once per page: ``export.one_renderer``), which plays with no
  kernel;
- as pictures, painted from the same scene by the browser's layout rule
  (:mod:`.painter`): ``png()``, ``save_gif()``.

:func:`display_as` chooses what displaying a view shows: ``"live"`` (the
default), ``"embed"`` or ``"pictures"``; a kernel started with
``CONVGRAD_VIEWS=embed`` begins in that mode (the exports do this).
"""

from __future__ import annotations

from ._base import Control, Model, View, display_as, display_mode, live_views
from ._limits import LargeSceneWarning
from .adjoint_views import ConvMatrixView, GradientCheckerboardView
from .checker_views import ConvTransposeView, OverlapView
from .field_views import ReceptiveFieldView, conv_matrix_figure
from .grad_views import ChannelsView, WeightGradView
from .norm_views import BatchNormBackwardView, NormSetsView
from .pool_views import (
    AvgPoolSpreadView,
    MaxPoolFoldView,
    MaxPoolForwardView,
    MaxPoolRoutingView,
)
from .views import Col2imGatherView, Col2imView, Im2colView

__all__ = [
    "AvgPoolSpreadView",
    "BatchNormBackwardView",
    "ChannelsView",
    "Col2imGatherView",
    "Col2imView",
    "Control",
    "ConvMatrixView",
    "ConvTransposeView",
    "GradientCheckerboardView",
    "Im2colView",
    "LargeSceneWarning",
    "MaxPoolFoldView",
    "MaxPoolForwardView",
    "MaxPoolRoutingView",
    "Model",
    "NormSetsView",
    "OverlapView",
    "ReceptiveFieldView",
    "View",
    "WeightGradView",
    "conv_matrix_figure",
    "display_as",
    "display_mode",
    "live_views",
]
