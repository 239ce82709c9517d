"""The view base: a view declares, the base does the rest.

A view class declares its ``defaults`` (its keyword arguments, which are
also its signature), its ``controls``, and three methods:

- ``model(p)`` computes a frozen :class:`Model` from the parameters, by
  calling one trace (the trace validates the geometry, once);
- ``panels(m)`` lists the grids to draw (:class:`~._grid.Panel`);
- ``marks(e)`` says, for event ``e``, where each outline goes, and
  ``describe(e)`` what the caption says.

The base merges parameters, supplies the learner's arrays or seeded
stand-ins (and says so when a stand-in replaces the learner's own), builds
the figure once, and plays frame ``i`` with :meth:`View.update`: outlines
moved, the destination grid set to the replay of events ``0..i``, the
caption rewritten. The same ``update`` drives the widget, the exports and
the tests.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import os
import sys
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from . import _figure
from . import _grid as g
from ._data import is_data, supply

STATIC_ENV = "CONVGRAD_STATIC_VIEWS"
#: seconds after the last change before a browser canvas is checked to show
#: it, and how many times it is asked again while it does not
SETTLE_S = 0.4
SETTLE_TRIES = 5
_LIVE: weakref.WeakSet = weakref.WeakSet()


def live_views() -> list[View]:
    """Every view still alive (the seam the browser test finds views by)."""
    return list(_LIVE)


@dataclass(frozen=True)
class Control:
    """A widget control: an int slider or a checkbox for one parameter."""

    name: str
    lo: int = 0
    hi: int = 0
    kind: str = "int"  # or "bool"


@dataclass(frozen=True)
class Model:
    """What a view plays: the events, the geometry, the fixed planes shown,
    every frame's destination plane, and which arrays are stand-ins."""

    events: tuple
    window: Any
    planes: Mapping[str, np.ndarray]
    states: np.ndarray  # (frames, *plane): the destination after each event
    touched: np.ndarray  # (frames, *plane): the cells written so far
    synthetic: Mapping[str, str] = field(default_factory=dict)  # name -> why

    @property
    def shape(self) -> tuple[int, ...]:
        """The destination plane's shape."""
        return tuple(self.states.shape[1:])


class View:
    """Base class of every view (see the module docstring)."""

    title: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}
    aliases: ClassVar[dict[str, str]] = {}
    controls: ClassVar[tuple[Control, ...]] = ()
    #: None: follow the CONVGRAD_STATIC_VIEWS environment variable
    static: ClassVar[bool | None] = None
    #: what a static view's animation is exported with (slides set it)
    static_options: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        params = [
            inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=v)
            for k, v in cls.defaults.items()
        ]
        cls.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]

    def __init__(self, *args: Any, **params: Any) -> None:
        names = list(self.defaults)
        if len(args) > len(names):
            raise TypeError(
                f"{type(self).__name__}() takes at most {len(names)} "
                f"positional arguments, got {len(args)}"
            )
        given = dict(zip(names, args, strict=False))
        for k, v in params.items():
            k = self.aliases.get(k, k)
            if k not in self.defaults:
                raise TypeError(
                    f"{type(self).__name__}() got an unexpected keyword argument "
                    f"{k!r}; it takes {', '.join(names)}"
                )
            if k in given:
                raise TypeError(f"{type(self).__name__}() got {k!r} twice")
            given[k] = v
        self._params = {**self.defaults, **given}
        self.model_ = self.model(self._params)
        self.fig = _figure.new_figure()
        self._frame = 0
        self._exporting = False
        self._on_draw: list[Callable[[], None]] = []
        self._widget: Any = None
        self._changes = self._drawn = 0  # changes made; changes the last draw showed
        self._settle: asyncio.TimerHandle | None = None
        self.fig.canvas.mpl_connect("draw_event", self._on_drawn)
        self._build()
        _LIVE.add(self)

    # ---- what subclasses declare -------------------------------------------

    def model(self, p: dict[str, Any]) -> Model:  # pragma: no cover
        raise NotImplementedError

    def panels(self, m: Model) -> list[g.Panel]:  # pragma: no cover
        raise NotImplementedError

    def marks(self, e: Any) -> dict[str, tuple[int, ...] | None]:  # pragma: no cover
        """``{"panel.role": (r, c) or (r, c, h, w) or None}`` for event e."""
        raise NotImplementedError

    def describe(self, e: Any) -> str:
        return e.describe()

    # ---- the frame loop ----------------------------------------------------

    @property
    def events(self) -> tuple:
        """The trace this view plays, one event per frame."""
        return self.model_.events

    @property
    def n_frames(self) -> int:
        return len(self.model_.events)

    @property
    def frame(self) -> int:
        """The frame on show (0-based; the caption counts steps from 1)."""
        return self._frame

    @property
    def caption(self) -> str:
        return self._caption.get_text()

    @property
    def params(self) -> dict[str, Any]:
        return dict(self._params)

    @property
    def synthetic(self) -> dict[str, str]:
        """The arrays now shown as seeded stand-ins, and why."""
        return dict(self.model_.synthetic)

    def update(self, i: int) -> None:
        """Show frame ``i``: the state after event ``i`` (step ``i + 1``)."""
        n = self.n_frames
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TypeError(f"frame must be an int, got {i!r}")
        if not 0 <= i < max(n, 1):
            raise ValueError(f"frame must lie in [0, {n}), got {i}")
        self._frame = i = int(i)
        if n:
            e = self.model_.events[i]
            self._place(self.marks(e))
            self._trail(i)
            states, touched = self.model_.states[i], self.model_.touched[i]
            for grid in self._dests:
                at = grid.panel.plane
                if at is None:
                    grid.set_values(states, ~touched)
                else:
                    grid.set_values(states[at], ~touched[at])
            text = f"step {i + 1}/{n}:  {self.describe(e)}"
        else:
            text = "no events for this configuration"
        self._caption.set_text(text)
        self._request_draw()

    def _place(self, marks: dict[str, tuple[int, ...] | None]) -> None:
        for key, where in marks.items():
            panel, role = key.split(".")
            self.grids[panel].place(role, where)

    def _trail(self, i: int) -> None:
        """Fading outlines where the two events before ``i`` landed (none
        where they landed on the cell event ``i`` lands on)."""
        now = {
            k: v
            for k, v in self.marks(self.model_.events[i]).items()
            if k.endswith(".dst")
        }
        trail = {f"{k[:-4]}.{r}": None for k in now for r in g.TRAIL}
        for back, role in enumerate(g.TRAIL, start=1):
            if i - back < 0:
                break
            e = self.model_.events[i - back]
            for key, where in self.marks(e).items():
                if key.endswith(".dst") and key in now and where != now[key]:
                    trail[f"{key[:-4]}.{role}"] = where
        self._place(trail)

    def _request_draw(self) -> None:
        if self._exporting:
            return  # the exporter draws each frame itself
        self._changes += 1
        canvas = self.fig.canvas
        if hasattr(canvas, "syncing_data_url"):  # ipympl's canvas widget
            # every picture whole, not a difference from the one before: a
            # picture the front end drops (it keeps one image at a time) then
            # costs nothing, where a lost difference left a mix of two frames
            canvas._force_full = True
            canvas.draw_idle()
            self._settle_later()
        else:
            canvas.draw_idle()
        for hook in self._on_draw:
            hook()

    def _settle_later(self, tries: int = SETTLE_TRIES) -> None:
        """Make sure the browser ends up showing the last change.

        ``draw_idle`` asks the browser to ask for a picture, and ipympl's
        front end drops that ask while a picture is on its way. A change made
        between the kernel drawing and the browser receiving is then never
        drawn, and the canvas stays one step behind (a quick Reset then step
        forward shows it). So, once the changes stop for ``SETTLE_S``, the
        last frame is asked for once more, as a whole picture (the browser
        test saw a canvas that mixed two frames after a quick Reset and step,
        and one whole picture mends whatever the front end lost), and a
        change that no draw has shown yet is asked for again, up to
        ``tries`` times in all.

        It is *asked for*, never pushed: the front end keeps one picture on
        its way at a time, and pictures are differences from the one before,
        so a picture pushed beside one it asked for loses one of the two and
        the canvas shows a mix of frames. A front end not yet ready for
        pictures (ipympl syncs ``_data_url`` until it says 'initialized')
        asks for the whole figure once it is, so it is left alone.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop (a script): nothing will ask anyway
        if self._settle is not None:
            self._settle.cancel()
        self._settle = loop.call_later(SETTLE_S, self._ask_again, tries)

    def _ask_again(self, tries: int) -> None:
        self._settle = None
        canvas = self.fig.canvas
        if canvas.syncing_data_url:
            return
        behind = self._drawn != self._changes
        if behind or tries == SETTLE_TRIES:  # once a burst ends, whatever came
            canvas._force_full = True
            canvas.draw_idle()
        if behind and tries > 1:
            self._settle_later(tries - 1)

    def _on_drawn(self, event: Any) -> None:
        # only a draw whose picture goes to the browser counts: ipympl marks
        # its picture old for it (webagg's draw); a draw on another renderer
        # (a test's probe, savefig) leaves the mark down and shows nothing
        if getattr(event.canvas, "_png_is_old", True):
            self._drawn = self._changes

    def _build(self) -> None:
        self.grids, self._caption = _figure.draw(
            self.fig,
            self.title,
            self.params_text(),
            self.model_,
            self.panels(self.model_),
        )
        self._dests = [gr for gr in self.grids.values() if gr.panel.values is None]
        self.update(min(self._frame, max(self.n_frames - 1, 0)))

    def data(self, p, name, shape, salt, synthetic, also=()) -> np.ndarray:
        """The learner's array ``name``, or a seeded stand-in that says so
        (see :func:`~._data.supply`)."""
        return supply(p, name, shape, salt, synthetic, also)

    def params_text(self) -> str:
        """The geometry on show, as the controls name it."""
        p = self._params
        return ", ".join(f"{c.name}={p[c.name]}" for c in self.controls)

    def rebuild(self, **changes: Any) -> None:
        """Change parameters (e.g. ``stride=2``): new trace, new artists.

        An invalid combination raises the geometry rule's error and leaves
        the view as it was.
        """
        unknown = set(changes) - set(self.defaults)
        if unknown:
            raise TypeError(f"rebuild() got unknown parameters {sorted(unknown)}")
        params = {**self._params, **changes}
        model = self.model(params)
        self._params, self.model_, self._frame = params, model, 0
        self._build()

    def png(self, dpi: float | None = None) -> bytes:
        """The current frame as PNG bytes."""
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png", dpi=dpi or g.LIVE_DPI)
        return buf.getvalue()

    def close(self) -> None:
        """Release the figure (and pyplot's reference to it, if any)."""
        _LIVE.discard(self)
        if self._settle is not None:
            self._settle.cancel()
            self._settle = None
        if "matplotlib.pyplot" in sys.modules:
            import matplotlib.pyplot as plt

            plt.close(self.fig)

    # ---- exports and display -----------------------------------------------

    def export_frames(self, steps: int | None = None, every: int = 1) -> list[int]:
        from .export import export_frames

        return export_frames(self.n_frames, steps, every)

    def to_jshtml(self, **options: Any) -> str:
        """A self-contained HTML animation that plays with no kernel."""
        from .export import to_jshtml

        return to_jshtml(self, **options)

    def save_gif(self, path: str | os.PathLike, **options: Any) -> list[int]:
        """Write an animated GIF; returns the frames it holds."""
        from .export import save_gif

        return save_gif(self, path, **options)

    @classmethod
    def is_static(cls) -> bool:
        """Whether views display as static animations (slide exports)."""
        if cls.static is not None:
            return cls.static
        return os.environ.get(STATIC_ENV) == "1"

    def widget(self):
        """The live player: Play/pause, steps, speed, the controls and the
        figure. In static mode, the exported animation instead."""
        if self.is_static():
            from .export import StaticAnimation

            if not isinstance(self._widget, StaticAnimation):
                self._widget = StaticAnimation(self, **self.static_options)
            return self._widget
        if self._widget is None:
            from ._widget import Player

            self._widget = Player(self)
        return self._widget.box

    def _repr_mimebundle_(self, **kwargs: Any):
        return self.widget()._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        args = ", ".join(
            f"{k}={v!r}" for k, v in self._params.items() if not is_data(v)
        )
        return f"{type(self).__name__}({args}): {self.n_frames} frames"
