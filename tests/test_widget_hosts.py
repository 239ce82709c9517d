"""What a view's widget carries for hosts the browser tests cannot reach
(docs/hosts.md). Google Colab shows a third-party widget through its own
widget manager, which anywidget turns on and names in the display's
metadata; a view must pass that metadata on. Colab's manager ignores binary
buffers (colab-cdn-widget-manager#33), so a view's state must hold none.
"""

from __future__ import annotations

import json
import sys
import types

import pytest
from anywidget import _util as anywidget_util
from ipywidgets.widgets.widget import _remove_buffers

import convgrad.display
from convgrad import viz

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def live(monkeypatch):
    monkeypatch.setattr(convgrad.display, "_MODE", ["live"])


def test_in_colab_a_view_displays_with_colabs_widget_manager(monkeypatch, live):
    url = "https://manager.invalid/manager.min.js"
    turned_on = []
    colab = types.ModuleType("google.colab.output")
    colab.enable_custom_widget_manager = lambda: turned_on.append(True)
    colab._widgets = types.SimpleNamespace(_installed_url=url)
    monkeypatch.setitem(sys.modules, "google.colab.output", colab)
    anywidget_util.enable_custom_widget_manager_once.cache_clear()
    view = viz.Col2imView(input_size=(4, 4), kernel_size=2)
    try:
        data, meta = view._repr_mimebundle_()
        assert turned_on, "anywidget did not turn Colab's widget manager on"
        assert WIDGET_MIME in data and data["text/plain"] == repr(view)
        assert meta[WIDGET_MIME]["colab"]["custom_widget_manager"]["url"] == url
    finally:
        view.close()
        anywidget_util.enable_custom_widget_manager_once.cache_clear()


def test_outside_colab_a_view_adds_no_colab_metadata(live):
    assert "google.colab.output" not in sys.modules
    view = viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2)
    try:
        data, meta = view._repr_mimebundle_()
        assert WIDGET_MIME in data and "colab" not in json.dumps(meta)
    finally:
        view.close()


@pytest.mark.parametrize("make", [
    lambda: viz.Col2imView(input_size=(5, 5), kernel_size=2),
    lambda: viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2),
], ids=["col2im", "maxpool"])  # fmt: skip
def test_a_views_widget_state_is_json_without_binary_buffers(make, live):
    view = make()
    try:
        widget = view.widget()
        widget.frame = 1  # a step the kernel set, as view.update does
        state = widget.get_state()
        _, paths, buffers = _remove_buffers(state)
        assert (paths, buffers) == ([], [])
        assert json.loads(json.dumps(state))["scene"] == state["scene"]
    finally:
        view.close()
