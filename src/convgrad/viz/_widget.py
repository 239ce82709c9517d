"""The live player of a view, in ipywidgets.

One row plays: a Play/Pause toggle, one step back and forward, the step
slider (counting from 1, as the caption does), Reset and a speed menu. The
toggle and the slider are ``jslink``ed to an ``ipywidgets.Play`` (kept out
of sight: its own stop button would reset rather than pause), so playing
runs in the browser and keeps its pace while the kernel is busy. A second
row holds the view's controls; an invalid combination is reported on the
line below them and changes nothing.
"""

from __future__ import annotations

import html
from typing import Any

from ._grid import WARN

#: the speed menu: label -> milliseconds per step
SPEEDS = (
    ("¼×", 2400),
    ("½×", 1200),
    ("1×", 600),
    ("2×", 300),
    ("4×", 150),
    ("8×", 75),
    ("16×", 40),
)
DEFAULT_SPEED = 300


class Player:
    """The widget front of a view. Built on the first ``view.widget()``."""

    def __init__(self, view: Any) -> None:
        import ipywidgets as w

        self.view = view
        n = max(view.n_frames, 1)
        self.play = w.Play(
            min=1,
            max=n,
            step=1,
            value=view.frame + 1,
            interval=DEFAULT_SPEED,
            repeat=False,
            layout=w.Layout(display="none"),
        )
        self.slider = w.IntSlider(
            min=1,
            max=n,
            value=view.frame + 1,
            description="step",
            continuous_update=True,
            tooltip="Drag to any step",
            style={"description_width": "36px"},
            layout=w.Layout(width="330px"),
        )
        self.toggle = w.ToggleButton(
            value=False,
            description="Play",
            icon="play",
            tooltip="Play the steps from here; press again to pause",
            layout=w.Layout(width="86px"),
        )
        self.links = [
            w.jslink((self.play, "value"), (self.slider, "value")),
            w.jslink((self.play, "playing"), (self.toggle, "value")),
        ]
        button = w.Layout(width="40px")
        self.back = w.Button(
            icon="step-backward", tooltip="Back one step", layout=button
        )
        self.next = w.Button(
            icon="step-forward", tooltip="Forward one step", layout=button
        )
        self.reset = w.Button(
            description="Reset",
            icon="fast-backward",
            tooltip="Pause and go back to step 1",
            layout=w.Layout(width="86px"),
        )
        self.speed = w.Dropdown(
            options=SPEEDS,
            value=DEFAULT_SPEED,
            description="speed",
            tooltip="Steps per second",
            style={"description_width": "40px"},
            layout=w.Layout(width="110px"),
        )
        self.message = w.HTML("")
        self.inputs: dict[str, Any] = {}
        for c in view.controls:
            value = view.params.get(c.name)
            if c.kind == "bool":
                ctl = w.Checkbox(
                    value=bool(value),
                    description=c.name,
                    indent=False,
                    layout=w.Layout(width="150px"),
                )
            else:
                ctl = w.IntSlider(
                    value=int(value),
                    min=c.lo,
                    max=c.hi,
                    description=c.name,
                    continuous_update=False,
                    style={"description_width": "initial"},
                    layout=w.Layout(width="196px"),
                )
            ctl.observe(self._on_control, names="value")
            self.inputs[c.name] = ctl
        canvas = view.fig.canvas
        if isinstance(canvas, w.DOMWidget):  # ipympl: the canvas is a widget
            self.figure = canvas
        else:  # inline backends: a PNG of the Agg figure
            self.figure = w.Image(value=view.png(), format="png")
            view._on_draw.append(self._repaint)
        self.slider.observe(self._on_step, names="value")
        self.toggle.observe(self._on_toggle, names="value")
        self.speed.observe(self._on_speed, names="value")
        self.back.on_click(lambda _: self._step(-1))
        self.next.on_click(lambda _: self._step(+1))
        self.reset.on_click(self._on_reset)
        row = [self.toggle, self.back, self.slider, self.next, self.reset, self.speed]
        children = [self.play, w.HBox(row)]
        if self.inputs:
            children.append(
                w.HBox(
                    list(self.inputs.values()), layout=w.Layout(flex_flow="row wrap")
                )
            )
        self.box = w.VBox([*children, self.message, self.figure])

    def _repaint(self) -> None:
        self.figure.value = self.view.png()

    def _step(self, delta: int) -> None:
        self.toggle.value = False
        self.slider.value = min(max(self.slider.value + delta, 1), self.slider.max)

    def _on_reset(self, _: Any = None) -> None:
        self.toggle.value = False
        self.slider.value = 1
        self.view.update(0)

    def _on_step(self, change: dict) -> None:
        self.view.update(int(change["new"]) - 1)

    def _on_toggle(self, change: dict) -> None:
        playing = bool(change["new"])
        self.toggle.description = "Pause" if playing else "Play"
        self.toggle.icon = "pause" if playing else "play"

    def _on_speed(self, change: dict) -> None:
        self.play.interval = int(change["new"])

    def _on_control(self, change: dict) -> None:
        name = change["owner"].description
        values = {k: ctl.value for k, ctl in self.inputs.items()}
        try:
            self.view.rebuild(**values)
        except (ValueError, TypeError) as err:
            self.message.value = (
                f"<span style='color:{WARN};font-size:14px'><b>{html.escape(name)}"
                f"={html.escape(repr(change['new']))} is not allowed here:</b> "
                f"{html.escape(str(err))}</span>"
            )
            return
        self.message.value = ""
        self.toggle.value = False
        n = max(self.view.n_frames, 1)
        # widen before moving, so no value is ever out of range
        self.play.max = self.slider.max = max(n, self.slider.max)
        self.play.value = self.slider.value = 1
        self.play.max = self.slider.max = n
        self.view.update(0)
