"""Run inside a lesson's kernel by the browser test; never imported by it.

``browser_harness.probe_code`` sends this file's text to the notebook's own
kernel (no cell is added) and ``exec``s it in a fresh namespace whose
``ARGS`` names a displayed widget's model id. From that widget it finds the
player's parts, the ipympl canvas and, through ``convgrad.viz.live_views()``,
the view whose figure the canvas draws. It prints one JSON line after
``ARGS["marker"]``. It renders the figure afresh with Agg, reduced to grey
block means, so the browser can compare the canvas pixels with it.
"""

from __future__ import annotations

import json
from typing import Any


def _members(root: Any) -> list:
    """``root`` and every widget under it (through ``children``)."""
    seen, stack, members = set(), [root], []
    while stack:
        w = stack.pop()
        if w is None or id(w) in seen:
            continue
        seen.add(id(w))
        members.append(w)
        stack.extend(getattr(w, "children", ()) or ())
    return members


def _linked(registry: dict, widget: Any, trait: str, ids: set) -> tuple | None:
    """The (widget, trait) in ``ids`` that a jslink ties to ``widget.trait``."""
    from ipywidgets.widgets.widget_link import Link

    for link in list(registry.values()):
        if not isinstance(link, Link):
            continue
        (a, ta), (b, tb) = link.source, link.target
        if a is widget and ta == trait and id(b) in ids:
            return b, tb
        if b is widget and tb == trait and id(a) in ids:
            return a, ta
    return None


def _view_of(figure: Any) -> Any:
    """The live view that draws ``figure`` (None if convgrad has none)."""
    try:
        from convgrad.viz import live_views
    except ImportError:
        return None
    return next((v for v in live_views() if v.fig is figure), None)


def _texts(fig: Any) -> list:
    from matplotlib.text import Text

    return [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.figure is fig
    ]


def _signature(fig: Any, block: int) -> dict:
    import numpy as np
    from matplotlib.backends.backend_agg import RendererAgg

    w, h = (int(round(v)) for v in fig.bbox.size)
    renderer = RendererAgg(w, h, fig.dpi)
    fig.draw(renderer)
    grey = np.asarray(renderer.buffer_rgba(), dtype=float)[..., :3].mean(axis=2)
    hb, wb = h // block, w // block
    blocks = grey[: hb * block, : wb * block].reshape(hb, block, wb, block)
    values = blocks.mean(axis=(1, 3))
    return {"w": w, "h": h, "block": block,
            "values": np.round(values, 2).ravel().tolist()}  # fmt: skip


def probe(model_id: str, block: int) -> dict:
    import ipywidgets

    registry = ipywidgets.Widget.widgets
    root = registry.get(model_id)
    members = _members(root)
    ids = {id(w) for w in members}
    out: dict[str, Any] = {"found_root": root is not None}
    play = next((w for w in members if isinstance(w, ipywidgets.Play)), None)
    slider = toggle = None
    if play is not None:
        slider = (_linked(registry, play, "value", ids) or (None,))[0]
        toggle = (_linked(registry, play, "playing", ids) or (None,))[0]
    out["play"] = None if play is None else {
        "value": play.value, "min": play.min, "max": play.max,
        "playing": play.playing, "interval": play.interval,
        "display": play.layout.display}  # fmt: skip
    out["slider"] = None if slider is None else {
        "value": slider.value, "min": slider.min, "max": slider.max,
        "description": slider.description}  # fmt: skip
    out["toggle"] = None if toggle is None else {
        "value": toggle.value, "description": toggle.description}  # fmt: skip
    canvases = [w for w in members if hasattr(w, "figure") and hasattr(w, "draw_idle")]
    out["n_canvases"] = len(canvases)
    out["view"] = out["signature"] = None
    if not canvases:
        return out
    fig = canvases[0].figure
    view = _view_of(fig)
    if view is not None:
        texts = _texts(fig)
        px = fig.dpi / 72
        smallest = min(texts, key=lambda t: t.get_fontsize(), default=None)
        out["view"] = {
            "type": type(view).__name__,
            "caption": str(view.caption),
            "frame": view.frame,
            "n_frames": view.n_frames,
            "figure_texts": [t.get_text() for t in texts],
            "figure_px": [round(v) for v in fig.bbox.size],
            "min_text_px": None
            if smallest is None
            else round(smallest.get_fontsize() * px, 1),
            "min_text": None if smallest is None else smallest.get_text()[:40],
            "synthetic": dict(getattr(view, "synthetic", {}) or {}),
        }
    out["signature"] = _signature(fig, block)
    return out


if __name__ == "convgrad_browser_probe":
    ARGS = globals()["ARGS"]
    print(ARGS["marker"] + json.dumps(probe(ARGS["model_id"], ARGS["block"]),
                                      default=str))  # fmt: skip
