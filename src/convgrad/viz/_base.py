"""What every view shares: grids of numbered cells, the layout, the frame
loop, the widget and the exports.

A view plays a list of trace events. Frame ``i`` shows the state after
event ``i``: the event's source and destination cells are outlined, the
destination grid's colours are the partial replay of events ``0..i``, and a
caption says in words what moved. The figure is built once (and rebuilt
only when a control changes the geometry); ``update(i)`` touches artists
only.
"""

from __future__ import annotations

import html
import io
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..trace.events import fmt

# --------------------------------------------------------------------------
# colours and sizes (Okabe-Ito highlights on a cividis map: colour-blind safe)
# --------------------------------------------------------------------------

SOURCE = "#E69F00"  # orange: where the value comes from
DEST = "#D55E00"  # vermillion: where it lands
WINDOW = "#0072B2"  # blue, dashed: the window that is sliding
BEST = "#009E73"  # bluish green, dotted: max-pool's best so far
PADDING = "#DDDDDD"  # the padding ring
CMAP = "cividis"

FIGSIZE = (12.8, 7.2)  # 1280 x 720 at dpi 100
DPI = 100
# A live canvas in JupyterLab gets a cell about 960 px wide (file browser
# closed, 1400 px window): at dpi 75 the whole figure fits without a
# sideways scrollbar. Exports and png() keep 1280 x 720.
LIVE_DPI = 75
CELL_MAX = 0.72  # inches
READABLE = 0.42  # inches: a cell that holds "−0.45" at 10 pt
TITLE_PT = 13
CAPTION_PT = 14
LABEL_PT = 10

_WHITE = ListedColormap(["white"])


def _cmap():
    import matplotlib

    return matplotlib.colormaps[CMAP].with_extremes(bad="white")


def cell_text(v: float) -> str:
    """A cell's number: at most 2 decimals, Unicode minus."""
    if not np.isfinite(v):
        return fmt(v)
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text.replace("-", "−")


# --------------------------------------------------------------------------
# a grid of numbered cells
# --------------------------------------------------------------------------


@dataclass
class Panel:
    """What the layout needs to know about one grid: its size in cells."""

    rows: int
    cols: int
    pad: tuple[int, int] = (0, 0)
    colorbar: bool = False
    row_labels: Sequence[str] | None = None
    col_labels: Sequence[str] | None = None
    cell: float = 0.0  # inches; set by layout()

    @property
    def extent(self) -> tuple[int, int]:
        return self.rows + 2 * self.pad[0], self.cols + 2 * self.pad[1]

    @property
    def label_space(self) -> float:
        """Inches left of the grid for its row labels."""
        longest = max((len(s) for s in self.row_labels or ["00"]), default=2)
        return 0.15 + 0.09 * longest


def layout(fig: Figure, panels: list[Panel]) -> tuple[list, list, float]:
    """Place one Axes per panel, left to right, vertically centred.

    Cells are square and, where the width allows, the same size in every
    panel. When one wide panel (an unfold matrix) would shrink all cells
    below what holds a number at 10 pt, the small panels keep readable
    cells and the wide one takes what is left. Sets ``panel.cell``; returns
    the grid Axes, the colour-bar Axes (``None`` where a panel has none)
    and the smallest cell. No constrained layout: positions are fixed, so a
    redraw computes nothing.
    """
    fw, fh = fig.get_size_inches()
    top, bottom, side = 0.95, 1.15, 0.35
    cbar_w = 0.9
    gaps = sum(p.label_space + 0.25 for p in panels) + sum(
        cbar_w for p in panels if p.colorbar
    )
    col_labels = any(p.col_labels for p in panels)
    bottom_labels = 0.55 if col_labels else 0.3
    avail_w = fw - 2 * side - gaps
    avail_h = fh - top - bottom - bottom_labels
    width_cells = sum(p.extent[1] for p in panels)
    height_cells = max(p.extent[0] for p in panels)
    cell = min(CELL_MAX, avail_w / width_cells, avail_h / height_cells)
    for p in panels:
        p.cell = cell
    if cell < READABLE and len(panels) > 1:
        wide = max(panels, key=lambda p: p.extent[1])
        small = [p for p in panels if p is not wide]
        for p in small:
            p.cell = min(READABLE, avail_h / p.extent[0])
        rest = avail_w - sum(p.extent[1] * p.cell for p in small)
        wide.cell = max(
            0.05, min(CELL_MAX, rest / wide.extent[1], avail_h / wide.extent[0])
        )
    used = sum(p.extent[1] * p.cell for p in panels) + gaps
    x = side + max(0.0, (fw - 2 * side - used) / 2)
    axes, cbars = [], []
    for p in panels:
        rows, cols = p.extent
        x += p.label_space
        w, h = cols * p.cell, rows * p.cell
        y = bottom + bottom_labels + (avail_h - h) / 2
        axes.append(fig.add_axes((x / fw, y / fh, w / fw, h / fh)))
        x += w + 0.25
        if p.colorbar:
            cbars.append(fig.add_axes(((x - 0.1) / fw, y / fh, 0.16 / fw, h / fh)))
            x += cbar_w
        else:
            cbars.append(None)
    return axes, cbars, min(p.cell for p in panels)


class Grid:
    """A 2-D array drawn as numbered cells on one Axes, with a padding ring.

    ``image`` holds the colours (``get_array()`` is the data shown),
    ``texts[r][c]`` the numbers, and :meth:`box` makes outline rectangles
    that :meth:`place` moves.
    """

    def __init__(
        self,
        ax,
        panel: Panel,
        cell: float,
        *,
        title: str,
        values: np.ndarray | None = None,
        norm: Normalize | None = None,
        cax=None,
        cbar_label: str = "",
        integer: bool = False,
    ) -> None:
        self.ax, self.panel = ax, panel
        rows, cols = panel.rows, panel.cols
        ph, pw = panel.pad
        data = np.zeros((rows, cols)) if values is None else np.asarray(values)
        colored = norm is not None
        self.image = ax.imshow(
            np.ma.masked_array(data, mask=np.zeros(data.shape, bool)),
            cmap=_cmap() if colored else _WHITE,
            norm=norm,
            extent=(-0.5, cols - 0.5, rows - 0.5, -0.5),
            interpolation="none",
            zorder=1,
        )
        self.norm = norm
        ax.set_xlim(-0.5 - pw, cols - 0.5 + pw)
        ax.set_ylim(rows - 0.5 + ph, -0.5 - ph)
        ax.set_facecolor(PADDING if (ph or pw) else "white")
        # cell borders: one LineCollection (gridlines on ticks cost a lot)
        xs = np.arange(-0.5 - pw, cols + pw, 1.0)
        ys = np.arange(-0.5 - ph, rows + ph, 1.0)
        segments = [((x, ys[0]), (x, ys[-1])) for x in xs]
        segments += [((xs[0], y), (xs[-1], y)) for y in ys]
        ax.add_collection(
            LineCollection(segments, colors="#888888", linewidths=0.8, zorder=2)
        )
        ax.tick_params(which="major", labelsize=LABEL_PT, length=0)
        # index labels, thinned when cells are smaller than a 10 pt label
        pts = (panel.cell or cell) * 72
        rstep = max(1, int(np.ceil(13 / pts)))
        cstep = max(1, int(np.ceil((13 if panel.col_labels is None else 26) / pts)))
        rlabels = panel.row_labels or [str(r) for r in range(rows)]
        clabels = panel.col_labels or [str(c) for c in range(cols)]
        ax.set_yticks(range(0, rows, rstep), rlabels[::rstep])
        ax.set_xticks(
            range(0, cols, cstep),
            clabels[::cstep],
            rotation=90 if panel.col_labels is not None else 0,
        )
        ax.set_title(title, fontsize=TITLE_PT)
        for spine in ax.spines.values():
            spine.set_visible(False)
        if colored and cax is not None:
            cb = ax.figure.colorbar(self.image, cax=cax)
            cb.ax.tick_params(labelsize=LABEL_PT)
            if integer:
                cb.set_ticks(
                    np.arange(np.ceil(norm.vmin), np.floor(norm.vmax) + 1)  # type: ignore[union-attr]
                )
            if cbar_label:
                cb.set_label(cbar_label, fontsize=LABEL_PT)
        # numbers: hidden when a cell is too small to hold them at 10 pt
        points = pts
        self.show_numbers = points >= 27
        size = float(np.clip(points * 0.3, LABEL_PT, 14))
        self.texts = [
            [
                ax.text(c, r, "", ha="center", va="center", fontsize=size, zorder=3)
                for c in range(cols)
            ]
            for r in range(rows)
        ]
        self._shown = np.full((rows, cols), None, dtype=object)
        self._colors = np.full((rows, cols), "k", dtype=object)
        self.set_values(data)

    def set_values(self, values: np.ndarray, hidden: np.ndarray | None = None) -> None:
        """Show ``values``; cells where ``hidden`` is set are blank and white."""
        values = np.asarray(values, dtype=float)
        hidden = np.zeros(values.shape, bool) if hidden is None else hidden
        self.image.set_data(np.ma.masked_array(values, mask=hidden))
        if self.norm is not None:
            rgba = self.image.cmap(self.norm(values))
            light = rgba[..., :3] @ np.array([0.299, 0.587, 0.114]) > 0.5
            colors = np.where(light | hidden, "k", "w")
        else:
            colors = np.full(values.shape, "k")
        for (r, c), v in np.ndenumerate(values):
            text = "" if hidden[r, c] or not self.show_numbers else cell_text(v)
            if text != self._shown[r, c]:
                self.texts[r][c].set_text(text)
                self._shown[r, c] = text
            if colors[r, c] != self._colors[r, c]:
                self.texts[r][c].set_color(colors[r, c])
                self._colors[r, c] = colors[r, c]

    def box(self, color: str, *, lw: float = 3.5, ls: str = "-") -> Rectangle:
        rect = Rectangle(
            (0, 0),
            1,
            1,
            fill=False,
            edgecolor=color,
            linewidth=lw,
            linestyle=ls,
            zorder=5,
            visible=False,
        )
        self.ax.add_patch(rect)
        return rect

    @staticmethod
    def place(rect: Rectangle, r: int, c: int, h: int = 1, w: int = 1) -> None:
        """Outline ``h x w`` cells whose top-left cell is ``(r, c)``."""
        rect.set_xy((c - 0.5, r - 0.5))
        rect.set_width(w)
        rect.set_height(h)
        rect.set_visible(True)


def cell_of(rect: Rectangle) -> tuple[int, int]:
    """The ``(row, col)`` a one-cell outline sits on (for tests, captions)."""
    x, y = rect.get_xy()
    return int(round(y + 0.5)), int(round(x + 0.5))


def partial_states(
    events: Sequence[Any], shape: tuple[int, int], index
) -> tuple[np.ndarray, np.ndarray]:
    """Every frame's destination plane: ``states[i]`` is the replay of
    events ``0..i`` and ``touched[i]`` the cells written so far.

    ``index(e)`` maps an event to its (row, col) in the plane, or ``None``.
    Scans write their running best; everything else adds.
    """
    from ..trace.events import GatherEvent, ScanEvent

    states = np.zeros((len(events), *shape))
    touched = np.zeros((len(events), *shape), dtype=bool)
    acc = np.zeros(shape)
    seen = np.zeros(shape, dtype=bool)
    for i, e in enumerate(events):
        rc = index(e)
        if rc is not None:
            if isinstance(e, GatherEvent):
                acc[rc] = e.value
                seen[rc] = True
            elif not e.padding:
                if isinstance(e, ScanEvent):
                    acc[rc] = e.total
                else:
                    acc[rc] += e.value
                seen[rc] = True
        states[i], touched[i] = acc, seen
    return states, touched


def norm_for(states: np.ndarray, *extra: np.ndarray) -> Normalize:
    """One colour scale for every frame, so colours compare across frames."""
    finite = [a[np.isfinite(a)] for a in (states, *extra) if a.size]
    values = np.concatenate([f.ravel() for f in finite]) if finite else np.zeros(1)
    lo, hi = float(values.min(initial=0.0)), float(values.max(initial=0.0))
    if lo == hi:
        hi = lo + 1.0
    return Normalize(vmin=lo, vmax=hi)


# --------------------------------------------------------------------------
# figures: an ipympl canvas when that backend is active, else plain Agg
# --------------------------------------------------------------------------


def ipympl_active() -> bool:
    """True when ``%matplotlib widget`` (ipympl) is the pyplot backend."""
    if "matplotlib.pyplot" not in sys.modules:
        return False
    import matplotlib

    backend = str(matplotlib.rcParams._get_backend_or_none() or "").lower()
    return "ipympl" in backend or backend == "widget"


def new_figure() -> Figure:
    """A 1280x720 figure. Under ipympl its canvas is a widget; otherwise it
    is an off-screen Agg figure that pyplot does not know about (so inline
    backends never show it by themselves)."""
    if ipympl_active():
        import matplotlib.pyplot as plt

        with plt.ioff():
            fig = plt.figure(figsize=FIGSIZE, dpi=LIVE_DPI)
        canvas = fig.canvas
        canvas.header_visible = False  # type: ignore[attr-defined]
        canvas.toolbar_visible = False  # type: ignore[attr-defined]
        canvas.resizable = False  # type: ignore[attr-defined]
        return fig
    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    OffscreenCanvas(fig)
    return fig


class OffscreenCanvas(FigureCanvasAgg):
    """An Agg canvas whose ``draw_idle`` only marks the figure stale.

    Nothing shows an off-screen figure until someone renders it (``png()``,
    ``savefig``, an export), and each of those draws anyway; drawing on
    every ``draw_idle`` as the base canvas does would render twice.
    """

    def draw_idle(self, *args: Any, **kwargs: Any) -> None:
        self.figure.stale = True


# --------------------------------------------------------------------------
# the view base class
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Control:
    """A widget control: an int slider or a checkbox for one parameter."""

    name: str
    lo: int = 0
    hi: int = 0
    kind: str = "int"  # or "bool"


class View:
    """Base class: subclasses define ``_model``, ``_artists`` and ``_show``.

    ``_model(params)`` validates and computes (raising the geometry rule's
    ValueError/TypeError) and returns a dict with at least ``events``;
    ``_artists()`` builds the panels on ``self.fig`` (cleared first);
    ``_show(i)`` sets the artists for frame ``i`` and returns the caption.
    """

    controls: tuple[Control, ...] = ()
    title = ""

    def __init__(self, **params: Any) -> None:
        self._params = params
        self.m = self._model(params)
        self.fig = new_figure()
        self._frame = 0
        self._exporting = False
        self._image = None  # the Image widget that shows an Agg figure
        self._widget = None
        self._build()

    # ---- the frame loop ----------------------------------------------------

    @property
    def events(self) -> list:
        """The trace this view plays, one event per frame."""
        return self.m["events"]

    @property
    def n_frames(self) -> int:
        return len(self.events)

    @property
    def frame(self) -> int:
        """The frame on show."""
        return self._frame

    @property
    def caption(self) -> str:
        """The current caption, in words."""
        return self._caption.get_text()

    @property
    def params(self) -> dict[str, Any]:
        return dict(self._params)

    def update(self, i: int) -> None:
        """Show frame ``i``: the state after event ``i``."""
        n = self.n_frames
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TypeError(f"frame must be an int, got {i!r}")
        if not 0 <= i < max(n, 1):
            raise ValueError(f"frame must lie in [0, {n}), got {i}")
        self._frame = int(i)
        if n:
            text = self._show(int(i))
            self._caption.set_text(f"step {i + 1}/{n}:  {text}")
        else:
            self._caption.set_text("no events for this configuration")
        self._request_draw()

    def _request_draw(self) -> None:
        if self._exporting:
            return  # the movie writer draws each frame itself
        self.fig.canvas.draw_idle()
        if self._image is not None:
            self._image.value = self.png()

    def _build(self) -> None:
        self.fig.clear()
        self.fig.set_facecolor("white")
        self.fig.suptitle(self.title_text(), fontsize=16, y=0.975)
        self._caption = self.fig.text(
            0.5,
            0.035,
            "",
            ha="center",
            va="bottom",
            fontsize=CAPTION_PT,
            wrap=False,
        )
        self._artists()
        self.update(0)

    def title_text(self) -> str:
        p = self._params
        parts = [
            f"{k}={p[k]}"
            for k in ("kernel_size", "stride", "padding", "dilation")
            if k in p
        ]
        return f"{self.title}   ({', '.join(parts)})"

    def rebuild(self, **changes: Any) -> None:
        """Change parameters (e.g. ``stride=2``): new trace, new artists.

        An invalid combination raises the geometry rule's error and leaves
        the view as it was.
        """
        params = {**self._params, **changes}
        model = self._model(params)
        self._params, self.m = params, model
        self._build()

    def png(self, dpi: float | None = None) -> bytes:
        """The current frame as PNG bytes."""
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png", dpi=dpi or DPI)
        return buf.getvalue()

    def close(self) -> None:
        """Release the figure (and pyplot's reference to it, if any)."""
        if "matplotlib.pyplot" in sys.modules:
            import matplotlib.pyplot as plt

            plt.close(self.fig)

    # ---- exports -----------------------------------------------------------

    def export_frames(self, every: int = 1, max_frames: int | None = 40) -> list[int]:
        """The frames an export plays: every ``every``-th, at most
        ``max_frames`` of them (the stride grows to fit), always the last."""
        if not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be an int of at least 1, got {every!r}")
        if max_frames is not None and (
            not isinstance(max_frames, int) or max_frames < 2
        ):
            raise ValueError(
                f"max_frames must be None or an int of at least 2, got {max_frames!r}"
            )
        n = self.n_frames
        step = every
        if max_frames is not None and n > max_frames:
            step = max(step, -(-(n - 1) // (max_frames - 1)))
        frames = list(range(0, n, step))
        if frames and frames[-1] != n - 1:
            frames.append(n - 1)
        return frames

    def _animation(self, frames: list[int], fps: float):
        from matplotlib.animation import FuncAnimation

        return FuncAnimation(
            self.fig,
            self.update,
            frames=frames,
            interval=1000.0 / fps,
            repeat=False,
            cache_frame_data=False,
            blit=False,
        )

    def to_jshtml(
        self,
        fps: float = 2,
        every: int = 1,
        max_frames: int | None = 40,
        dpi: float = 72,
        default_mode: str = "once",
    ) -> str:
        """A self-contained HTML animation (inline PNG frames, no kernel)."""
        from matplotlib.animation import HTMLWriter

        frames = self.export_frames(every, max_frames)
        keep = self._frame
        self._exporting = True
        try:
            anim = self._animation(frames, fps)
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "view.html")
                writer = HTMLWriter(
                    fps=fps, embed_frames=True, default_mode=default_mode
                )
                anim.save(path, writer=writer, dpi=dpi)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
        finally:
            self._exporting = False
            self.update(keep)
        return text

    def save_gif(
        self,
        path: str | os.PathLike,
        fps: float = 2,
        every: int = 1,
        max_frames: int | None = 40,
        dpi: float = 72,
    ) -> list[int]:
        """Write an animated GIF (Pillow); returns the frames it holds."""
        from matplotlib.animation import PillowWriter

        frames = self.export_frames(every, max_frames)
        keep = self._frame
        self._exporting = True
        try:
            anim = self._animation(frames, fps)
            anim.save(os.fspath(path), writer=PillowWriter(fps=fps), dpi=dpi)
        finally:
            self._exporting = False
            self.update(keep)
        return frames

    # ---- the widget --------------------------------------------------------

    def widget(self):
        """Play (jslinked to a slider), step/reset buttons, the controls, a
        message line for invalid combinations, and the figure."""
        if self._widget is None:
            self._widget = _Widget(self)
        return self._widget.box

    def _repr_mimebundle_(self, **kwargs: Any):
        return self.widget()._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        args = ", ".join(
            f"{k}={v!r}"
            for k, v in self._params.items()
            if not isinstance(v, np.ndarray)
        )
        return f"{type(self).__name__}({args}): {self.n_frames} frames"

    # ---- hooks -------------------------------------------------------------

    def _model(self, params: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def _artists(self) -> None:  # pragma: no cover
        raise NotImplementedError

    def _show(self, i: int) -> str:  # pragma: no cover
        raise NotImplementedError


class _Widget:
    """The ipywidgets front of a view. Built on first ``view.widget()``."""

    def __init__(self, view: View) -> None:
        import ipywidgets as w

        self.view = view
        n = max(view.n_frames, 1)
        self.play = w.Play(min=0, max=n - 1, step=1, interval=700, value=0)
        self.slider = w.IntSlider(
            min=0,
            max=n - 1,
            value=view.frame,
            description="step",
            continuous_update=True,
            layout=w.Layout(width="420px"),
        )
        self.link = w.jslink((self.play, "value"), (self.slider, "value"))
        self.back = w.Button(description="◀ step", layout=w.Layout(width="80px"))
        self.next = w.Button(description="step ▶", layout=w.Layout(width="80px"))
        self.reset = w.Button(description="reset", layout=w.Layout(width="70px"))
        self.message = w.HTML("")
        self.caption = w.HTML(self._caption_html())
        self.inputs: dict[str, Any] = {}
        for c in view.controls:
            value = view.params.get(c.name)
            if c.kind == "bool":
                ctl = w.Checkbox(value=bool(value), description=c.name, indent=False)
            else:
                ctl = w.IntSlider(
                    value=int(value),
                    min=c.lo,
                    max=c.hi,
                    description=c.name,
                    continuous_update=False,
                    style={"description_width": "initial"},
                    layout=w.Layout(width="210px"),
                )
            ctl.observe(self._on_control, names="value")
            self.inputs[c.name] = ctl
        canvas = view.fig.canvas
        if isinstance(canvas, w.DOMWidget):  # ipympl: the canvas is a widget
            self.figure = canvas
        else:  # inline backends: a PNG of the Agg figure
            self.figure = w.Image(
                value=view.png(), format="png", layout=w.Layout(max_width="100%")
            )
            view._image = self.figure
        self.slider.observe(self._on_frame, names="value")
        self.back.on_click(lambda _: self._step(-1))
        self.next.on_click(lambda _: self._step(+1))
        self.reset.on_click(lambda _: self._goto(0))
        self.box = w.VBox(
            [
                w.HBox([self.play, self.back, self.slider, self.next, self.reset]),
                w.HBox(
                    list(self.inputs.values()), layout=w.Layout(flex_flow="row wrap")
                ),
                self.message,
                self.figure,
                self.caption,
            ]
        )

    def _caption_html(self) -> str:
        return f"<span style='font-size:14px'>{html.escape(self.view.caption)}</span>"

    def _goto(self, i: int) -> None:
        if self.slider.value == i:
            self.view.update(i)
            self.caption.value = self._caption_html()
        else:
            self.slider.value = i  # _on_frame updates the view

    def _step(self, delta: int) -> None:
        self._goto(int(np.clip(self.slider.value + delta, 0, self.slider.max)))

    def _on_frame(self, change) -> None:
        self.view.update(int(change["new"]))
        self.caption.value = self._caption_html()

    def _on_control(self, change) -> None:
        name = change["owner"].description
        values = {k: ctl.value for k, ctl in self.inputs.items()}
        try:
            self.view.rebuild(**values)
        except (ValueError, TypeError) as err:
            self.message.value = (
                f"<span style='color:{DEST};font-size:14px'><b>{html.escape(name)}"
                f"={html.escape(repr(change['new']))} is not allowed here:</b> "
                f"{html.escape(str(err))}</span>"
            )
            return
        self.message.value = ""
        n = max(self.view.n_frames, 1)
        self.play.value = 0
        self.slider.value = 0
        self.play.max = n - 1
        self.slider.max = n - 1
        self.view.update(0)
        self.caption.value = self._caption_html()
