"""The live player of a view: an anywidget whose traits are its state.

- ``params``: the values of the view's parameter controls (what the scene
  was built with, unless a change is being answered);
- ``frame``: the step on show (0-based);
- ``scene``: every step's numbers, outlines and caption (:mod:`.scene`);
- ``error``: why the last change of ``params`` was refused ('' if it was
  not).

The browser holds the whole scene, so Play, pause, step, scrub and speed
run there and the kernel hears nothing while a view plays; it sets
``frame`` once the player comes to rest on a step (pause, step, scrub, end)
and ``params`` when a control changes. The kernel answers a change of
``params``: the view at the new parameters and its scene, at step 1; or,
for a combination the view refuses, ``error`` and ``params`` put back on
the scene's values, which the controls show. The learner's code moves the
player the same way (``ui.frame = 4``, ``ui.params = {...}``).

The widget holds the view it plays (``ui.view``, the learner's): a view
is a function from parameters to a scene, and knows no widget. The widget
keeps it at its traits: a new combination rebuilds it
(:meth:`~._base.View.rebuild`) and the step on show is its frame, so
``view.params``, ``view.frame`` and ``view.png()`` say what the player
shows. Nothing runs the other way: ``view.update(i)`` moves the view's
pictures, not a player.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from .scene import asset, control_values


class SceneWidget(anywidget.AnyWidget):
    """The live player of ``view`` (what ``view.widget()`` makes)."""

    _esm = traitlets.Unicode(asset("scene.js")).tag(sync=True)
    _css = traitlets.Unicode(asset("scene.css")).tag(sync=True)
    scene = traitlets.Dict().tag(sync=True)
    frame = traitlets.Int(0).tag(sync=True)
    params = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, view: Any) -> None:
        self.view = view
        super().__init__(scene=view.scene(), params=control_values(view),
                         frame=view.frame)  # fmt: skip

    def _shown(self) -> dict[str, Any]:
        """The values the scene on show was built with."""
        return {c["name"]: c["value"] for c in self.scene["controls"]}

    @traitlets.validate("frame")
    def _valid_frame(self, proposal: dict) -> int:
        i, n = proposal["value"], self.scene["steps"]
        if not 0 <= i < max(n, 1):
            raise ValueError(f"frame must lie in [0, {n}), got {i}")
        return i

    @traitlets.observe("frame")
    def _on_frame(self, change: dict) -> None:
        if change["new"] < self.view.n_frames:  # (another player may have
            self.view.update(change["new"])  # rebuilt it) a built figure follows

    @traitlets.observe("params")
    def _on_params(self, change: dict) -> None:
        values, shown = dict(change["new"]), self._shown()
        if values == shown:  # what the scene shows already (a put-back)
            return
        try:
            self.view.rebuild(**values)  # the view as it was if it refuses
        except (ValueError, TypeError) as err:
            names = ", ".join(f"{k}={v!r}" for k, v in values.items()
                              if shown.get(k) != v)  # fmt: skip
            with self.hold_sync():
                self.error = f"{names} is not allowed here: {err}"
                self.params = shown  # the controls go back to the scene's
            return
        with self.hold_sync():
            self.scene = self.view.scene()
            self.frame = 0
            self.params = control_values(self.view)
            self.error = ""

    @property
    def caption(self) -> str:
        """The caption of the step on show."""
        return self.view.caption_of(self.frame)
