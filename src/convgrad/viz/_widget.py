"""The live player of a view: an anywidget that draws the view's scene.

The browser holds the whole scene (every step's numbers, outlines and
caption), so Play, pause, step, scrub and speed run there and the kernel
hears nothing while a view plays. Python runs when a parameter control
changes (``params``, sent by the browser: the view is rebuilt and a new
scene sent back, or the combination is refused: the scene stays, ``params``
goes back to the scene's values and the controls with it; ``status``
answers every ``params``), and when the learner's code moves
the view (``view.update(i)`` sets ``frame``). The browser sets ``frame``
once when the player comes to rest on a step (pause, step, scrub, end).
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from .scene import asset

WIDGET_JS = """
export default {
  render({ model, el }) {
    const root = document.createElement("div");
    el.appendChild(root);
    el.classList.add("convgrad-live");
    let quiet = false;  // a frame the kernel set: not sent back
    const player = globalThis.convgradScene.mount(root, model.get("scene"), {
      live: true,
      onParams(values) {
        model.set("params", values);
        model.save_changes();
      },
      onFrame(i) {
        if (quiet || model.get("frame") === i) return;
        model.set("frame", i);
        model.save_changes();
      },
    });
    const onScene = () => player.setScene(model.get("scene"));
    const onStatus = () => player.showError(model.get("status").error);
    const onFrame = () => {
      quiet = true;
      player.pause();
      player.goto(model.get("frame"));
      quiet = false;
    };
    model.on("change:scene", onScene);
    model.on("change:status", onStatus);
    model.on("change:frame", onFrame);
    if (model.get("frame")) player.goto(model.get("frame"));
    return () => {
      model.off("change:scene", onScene);
      model.off("change:status", onStatus);
      model.off("change:frame", onFrame);
      player.destroy();
    };
  },
};
"""


class SceneWidget(anywidget.AnyWidget):
    """The widget front of a view. Built on the first ``view.widget()``."""

    _esm = traitlets.Unicode(asset("scene.js") + "\n" + WIDGET_JS).tag(sync=True)
    _css = traitlets.Unicode(asset("scene.css")).tag(sync=True)
    scene = traitlets.Dict().tag(sync=True)
    frame = traitlets.Int(0).tag(sync=True)
    params = traitlets.Dict().tag(sync=True)
    #: the answer to the last ``params``: ``{"n": count, "error": why}``
    status = traitlets.Dict({"n": 0, "error": ""}).tag(sync=True)

    def __init__(self, view: Any) -> None:
        self.view = view
        super().__init__(scene=view.scene(), frame=view.frame)
        self.observe(self._on_params, names="params")
        self.observe(self._on_frame, names="frame")

    def _on_frame(self, change: dict) -> None:
        i = int(change["new"])
        if i != self.view.frame and 0 <= i < max(self.view.n_frames, 1):
            self.view.update(i)  # a figure already built follows too

    _settling = False  # params put back after a refusal: not a request

    def _on_params(self, change: dict) -> None:
        values = dict(change["new"])
        if not values or self._settling:
            return
        current = {k: self.view.params.get(k) for k in values}
        error = ""
        if values != current:
            try:
                self.view.rebuild(**values)
            except (ValueError, TypeError) as err:
                names = ", ".join(f"{k}={v!r}" for k, v in values.items()
                                  if current.get(k) != v)  # fmt: skip
                error = f"{names} is not allowed here: {err}"
        if error:  # the trait holds what the scene shows, not what was refused
            self._settling = True
            try:
                self.params = {k: self.view.params.get(k) for k in values}
            finally:
                self._settling = False
        self.status = {"n": self.status["n"] + 1, "error": error}

    @property
    def error(self) -> str:
        """Why the last change of the controls was refused ('' if it was not)."""
        return self.status["error"]

    def redraw(self) -> None:
        """Send the view's new scene (after a rebuild), at its first step."""
        self.scene = self.view.scene()
        self.frame = 0

    def show(self, i: int) -> None:
        """Move the browser's player to frame ``i`` (what ``view.update``
        calls)."""
        self.frame = int(i)
