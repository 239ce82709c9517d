"""The view base: a view declares, the base does the rest.

A view class declares its ``defaults`` (its keyword arguments, which are
also its signature), its ``controls``, and three methods:

- ``model(p)`` computes a frozen :class:`Model` from the parameters, by
  calling one trace (the trace validates the geometry, once);
- ``panels(m)`` lists the grids to draw (:class:`~._panel.Panel`);
- ``marks(e)`` says, for event ``e``, where each outline goes, and
  ``describe(e)`` what the caption says.

From that declaration the base makes a **scene** (:meth:`View.scene`, see
:mod:`.scene`): the panels and, per step, what changes. The browser draws
it: the live widget in JupyterLab, and the same renderer embedded in a
slide or a web page, where it plays with no kernel. How views display is
one explicit choice, :func:`convgrad.viz.display_as`: ``"live"`` (the
widget), ``"embed"`` (the scene in the page) or ``"pictures"`` (a PNG of
the frame on show, where no JavaScript runs). A view knows no widget: a
live widget holds the view it plays, and its traits are the player's
state (:mod:`._widget`), which it keeps the view at.

The pictures (``png()``, ``save_gif()``) are painted from the same scene,
by the browser's layout rule (:mod:`.painter`, laid out on first use);
``drawn()`` says what the picture of the frame on show holds. ``update(i)``
moves the frame on show for all of them (not a live player's: ``ui.frame``).
"""

from __future__ import annotations

import inspect
import os
import warnings
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..display import MODE_ENV, MODES, display_as, display_mode  # noqa: F401
from ..trace import Frames
from ._data import is_data, supply
from ._limits import LargeSceneWarning, size_note
from ._panel import Panel
from .palette import TRAIL

_LIVE: weakref.WeakSet = weakref.WeakSet()


def live_views() -> list[View]:
    """Every view still alive (the seam the browser test finds views by)."""
    return list(_LIVE)


@dataclass(frozen=True)
class Control:
    """A widget control for one parameter: an int slider, a checkbox
    (``kind="bool"``) or a menu of words (``kind="choice"``, its
    ``choices``)."""

    name: str
    lo: int = 0
    hi: int = 0
    kind: str = "int"  # or "bool", or "choice"
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Model:
    """What a view plays: the events, the geometry, the fixed planes shown,
    every frame's destination plane (kept as what each event changed), and
    which arrays are stand-ins."""

    events: tuple
    window: Any
    planes: Mapping[str, np.ndarray]
    frames: Frames  # frame i: the destination after event i
    synthetic: Mapping[str, str] = field(default_factory=dict)  # name -> why

    @property
    def shape(self) -> tuple[int, ...]:
        """The destination plane's shape."""
        return self.frames.shape

    @property
    def states(self) -> Frames:
        """The destination after each event: ``states[i]`` (``states[-1]``
        is the op's result)."""
        return self.frames


def mark_keys(panels: list[Panel]) -> list[str]:
    """Every outline of ``panels`` as ``"panel.role"`` (a destination's
    fading trail included)."""
    keys = []
    for p in panels:
        roles = p.marks + (TRAIL if "dst" in p.marks else ())
        keys += [f"{p.name}.{role}" for role in roles]
    return keys


class View:
    """Base class of every view (see the module docstring)."""

    title: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}
    aliases: ClassVar[dict[str, str]] = {}
    controls: ClassVar[tuple[Control, ...]] = ()

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
        self._frame = 0
        self._painter: Any = None  # the pictures' layout, made on first use
        # what the view displayed as itself (a cell's last expression), kept
        # only to live as long as the view: a host keeps the object it
        # displays, and marimo closes the comm of a widget nobody holds.
        # The view never calls it (the player's state is its own).
        self._shown: Any = None
        self._set_model(self.model(self._params))
        _LIVE.add(self)

    # ---- what subclasses declare -------------------------------------------

    def model(self, p: dict[str, Any]) -> Model:  # pragma: no cover
        raise NotImplementedError

    def panels(self, m: Model) -> list[Panel]:  # pragma: no cover
        raise NotImplementedError

    def marks(self, e: Any) -> dict[str, tuple[int, ...] | None]:  # pragma: no cover
        """``{"panel.role": (r, c) or (r, c, h, w) or None}`` for event e."""
        raise NotImplementedError

    def describe(self, e: Any) -> str:
        return e.describe()

    # ---- the frames --------------------------------------------------------

    def _set_model(self, model: Model) -> None:
        self.model_ = model
        self.layout = self.panels(model)  # what the scene and the figure draw
        for p in self.layout:
            if p.name in model.synthetic:
                p.title += "  (stand-in)"
        self.mark_keys = mark_keys(self.layout)
        note = self.size_note()
        if note:
            warnings.warn(f"{type(self).__name__}: {note}", LargeSceneWarning,
                          stacklevel=3)  # fmt: skip

    def size_note(self) -> str:
        """What the view says of its size: '' unless it is large (more steps
        or cells than :mod:`._limits` allows without a word)."""
        cells = sum(p.rows * p.cols for p in self.layout)
        return size_note(self._params, self.n_frames, cells)

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
        """The caption of the frame on show."""
        return self.caption_of(self._frame)

    def caption_of(self, i: int) -> str:
        n = self.n_frames
        if not n:
            return "no events for this configuration"
        return f"step {i + 1}/{n}:  {self.describe(self.model_.events[i])}"

    @property
    def params(self) -> dict[str, Any]:
        return dict(self._params)

    @property
    def synthetic(self) -> dict[str, str]:
        """The arrays now shown as seeded stand-ins, and why."""
        return dict(self.model_.synthetic)

    def frame_marks(self, i: int) -> dict[str, tuple[int, ...] | None]:
        """Where every outline is on frame ``i``: the event's own marks, and
        a fading trail where the two events before it landed (none where
        they landed on the cell event ``i`` lands on)."""
        events = self.model_.events
        before = [self.marks(events[i - back]) for back in range(len(TRAIL), 0, -1)
                  if i - back >= 0]  # fmt: skip
        return self._with_trail(self.marks(events[i]), before)

    def every_frame_marks(self) -> Iterator[dict[str, tuple[int, ...] | None]]:
        """``frame_marks(i)`` for every frame in turn, asking ``marks`` once
        per event."""
        recent: list[dict] = []
        for e in self.model_.events:
            now = self.marks(e)
            yield self._with_trail(now, recent)
            recent = [*recent, now][-len(TRAIL):]

    def _with_trail(self, now: dict, before: list[dict]) -> dict:
        """The outlines of a frame whose event has marks ``now``, after
        events with marks ``before`` (oldest first)."""
        shown: dict[str, tuple[int, ...] | None] = dict.fromkeys(self.mark_keys)
        shown.update(now)
        dsts = {k: v for k, v in now.items() if k.endswith(".dst")}
        for role, old in zip(TRAIL, reversed(before), strict=False):
            for key, where in old.items():
                if key in dsts and where != dsts[key]:
                    shown[f"{key[:-4]}.{role}"] = where
        return {k: None if v is None else tuple(int(x) for x in v)
                for k, v in shown.items()}  # fmt: skip

    def update(self, i: int) -> None:
        """Show frame ``i``: the state after event ``i`` (step ``i + 1``)."""
        n = self.n_frames
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TypeError(f"frame must be an int, got {i!r}")
        if not 0 <= i < max(n, 1):
            raise ValueError(f"frame must lie in [0, {n}), got {i}")
        self._frame = int(i)

    def scene(self) -> dict[str, Any]:
        """The view as data for the browser (see :mod:`.scene`)."""
        from .scene import build_scene

        return build_scene(self)

    def rebuild(self, **changes: Any) -> None:
        """Change this view's parameters (e.g. ``stride=2``): new trace,
        new scene, its pictures at the first step. What a live player does
        when a control changes; a player does not follow a rebuild made
        from code (set ``ui.params`` to move one).

        An invalid combination raises the geometry rule's error and leaves
        the view as it was.
        """
        unknown = set(changes) - set(self.defaults)
        if unknown:
            raise TypeError(f"rebuild() got unknown parameters {sorted(unknown)}")
        params = {**self._params, **changes}
        model = self.model(params)
        self._params, self._frame = params, 0
        self._set_model(model)
        self._painter = None

    def data(self, p, name, shape, salt, synthetic, also=()) -> np.ndarray:
        """The learner's array ``name``, or a seeded stand-in that says so
        (see :func:`~._data.supply`)."""
        return supply(p, name, shape, salt, synthetic, also)

    def params_text(self) -> str:
        """The geometry on show, as the controls name it."""
        p = self._params
        return ", ".join(f"{c.name}={p[c.name]}" for c in self.controls)

    # ---- the pictures ------------------------------------------------------

    @property
    def painter(self):
        """The scene laid out for pictures (:class:`~.painter.Painter`),
        made on first use."""
        if self._painter is None:
            from .painter import Painter

            self._painter = Painter(self.scene())
        return self._painter

    def drawn(self):
        """What the picture of the frame on show holds, per panel: its
        numbers, their text, the cells' colours and the outlines
        (:class:`~.painter.Drawn`)."""
        return self.painter.drawn(self._frame)

    def png(self, dpi: float | None = None) -> bytes:
        """The frame on show as PNG bytes: 800 x 450 px at ``dpi`` 100 (the
        default; taller only if its grids cannot fit), ``dpi / 100`` times
        that otherwise (160: a slide's 1280 x 720)."""
        return self.painter.png(self._frame, 100 if dpi is None else dpi)

    def close(self) -> None:
        """Forget the view (the registry's) and its pictures' layout."""
        _LIVE.discard(self)
        self._painter = None

    # ---- exports and display -----------------------------------------------

    def to_jshtml(self, **options: Any) -> str:
        """The view as self-contained HTML: the scene and the renderer,
        which play with no kernel and no network."""
        from .export import to_jshtml

        return to_jshtml(self, **options)

    def save_gif(self, path: str | os.PathLike, **options: Any) -> list[int]:
        """Write an animated GIF; returns the frames it holds."""
        from .export import save_gif

        return save_gif(self, path, **options)

    def export_frames(self, steps: int | None = None, every: int = 1) -> list[int]:
        from .export import export_frames

        return export_frames(self.n_frames, steps, every)

    def widget(self):
        """What the view displays as in the mode in force
        (:func:`display_as`): a new live player (its parameters and step
        are its own: ``ui.params``, ``ui.frame``), the embedded scene or a
        picture."""
        mode = display_mode()
        if mode == "live":
            from ._widget import SceneWidget

            return SceneWidget(self)
        if mode == "embed":
            from .export import Embedded

            return Embedded(self)
        from .export import Picture

        return Picture(self)

    def _repr_mimebundle_(self, **kwargs: Any):
        # one player per displayed view (a host may ask for the bundle again)
        mode = display_mode()
        if self._shown is None or self._shown[0] != mode:
            self._shown = (mode, self.widget())
        bundle = self._shown[1]._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        return {**data, "text/plain": repr(self)}, meta

    def __repr__(self) -> str:
        args = ", ".join(
            f"{k}={v!r}" for k, v in self._params.items() if not is_data(v)
        )
        return f"{type(self).__name__}({args}): {self.n_frames} frames"
