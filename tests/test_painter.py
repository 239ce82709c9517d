"""Pictures painted from the scene (convgrad.viz.painter): what the browser
draws, by the same layout table, checked against the scene and the trace.

For several views, every sampled frame's picture shows the scene's replay
(the numbers, their text, the colour of each cell at the scene's scale),
and its pixels say so: a cell a step writes is white in the step before's
picture and coloured in its own. The PNG and the GIF have the stated size
and frames, a 64x64 view stays readable (colours where numbers cannot
fit), and scene.js and scene.css take their measures from the scene.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image

from convgrad import viz
from convgrad.viz import painter, scene
from convgrad.viz.palette import LAYOUT

VIEWS = {
    "col2im": (viz.Col2imView, dict(input_size=(7, 7), kernel_size=3, stride=2,
                                     padding=1)),
    "maxpool": (viz.MaxPoolForwardView, dict(input_size=(6, 6), kernel_size=3,
                                             stride=2, padding=1)),
    "checkerboard": (viz.GradientCheckerboardView, dict(w="random", dy="random")),
    "batchnorm": (viz.BatchNormBackwardView, {}),
    "normsets": (viz.NormSetsView, dict(kind="group")),
    "convmatrix": (viz.ConvMatrixView, dict(padding=1)),
}  # fmt: skip


@pytest.fixture(params=list(VIEWS))
def view(request):
    cls, kwargs = VIEWS[request.param]
    v = cls(**kwargs)
    yield v
    v.close()


def _scale_colour(stops: list[str], t: np.ndarray) -> np.ndarray:
    """The scene's colour scale at ``t`` (0..1): its stops (hex), joined by
    straight lines, as the browser mixes them (0..255)."""
    rgb = np.array([[int(s[k : k + 2], 16) for k in (1, 3, 5)] for s in stops])
    at = np.linspace(0, 1, len(stops))
    return np.stack([np.interp(t, at, rgb[:, j]) for j in range(3)], -1)


def _frames(n: int) -> list[int]:
    return sorted({0, 1, n // 3, n // 2, n - 2, n - 1} & set(range(n)))


def test_each_frame_shows_the_scenes_replay_at_its_scale(view):
    sc = view.scene()
    states, shown = scene.replay(sc)
    numbers = np.array([float(v) for v in sc["numbers"]])
    for i in _frames(view.n_frames):
        view.update(i)
        drawn = view.drawn()
        assert drawn.caption == view.caption
        assert list(drawn.panels) == [p["id"] for p in sc["panels"]]
        for p in sc["panels"]:
            got, size = drawn.panels[p["id"]], p["rows"] * p["cols"]
            if "cells" in p:  # a fixed panel: its numbers, all shown
                want = numbers[p["cells"]]
                written = np.ones(size, bool)
            else:  # a destination: the replay's cells from its offset
                want = states[i, p["offset"] : p["offset"] + size]
                written = shown[i, p["offset"] : p["offset"] + size]
            want, written = want.reshape(got.values.shape), written.reshape(
                got.values.shape)  # fmt: skip
            np.testing.assert_array_equal(np.ma.getmaskarray(got.values), ~written)
            np.testing.assert_array_equal(got.values[written], want[written])
            # blank cells are white and say nothing
            assert (got.fills[~written] == 255).all()
            assert (got.texts[~written] == "").all()
            if got.numbers:
                texts = sc["compact"] if got.compact else sc["texts"]
                words = {float(numbers[k]): texts[k] for k in range(len(numbers))}
                for (r, c), v in np.ndenumerate(want):
                    if written[r, c]:
                        assert got.texts[r, c] == words[v]
            if got.coloured:
                lo, hi = p["scale"]
                t = np.clip((want - lo) / (hi - lo), 0, 1)
                want_rgb = _scale_colour(sc["style"]["cmap"], t)
                close = np.abs(got.fills.astype(float) - want_rgb) <= 0.5 + 1e-9
                assert close[written].all(), p["id"]
            else:
                assert (got.fills == 255).all()
            # the outlines where the scene's frames put them, so far
            for role, where in got.marks.items():
                key = f"{p['id']}.{role}"
                said = next((f["marks"][key] for f in reversed(sc["frames"][: i + 1])
                             if key in f["marks"]), None)  # fmt: skip
                if said is None:
                    assert where is None, key
                else:
                    assert where[: len(said)] == tuple(said), key


def _pixel(img: Image.Image, box, r: int, c: int, cell: float) -> tuple:
    """The colour near the top-left corner of cell ``(r, c)`` (clear of
    its number and its borders)."""
    x, y = box[0] + (c + 0.22) * cell, box[1] + (r + 0.22) * cell
    return img.getpixel((int(x), int(y)))


@pytest.mark.parametrize("name", ["col2im", "checkerboard"])
def test_a_cell_a_step_writes_is_coloured_from_that_steps_picture_on(name):
    cls, kwargs = VIEWS[name]
    view = cls(**kwargs)
    pnt = view.painter
    dst = "dx"
    pad = next(p["pad"] for p in view.scene()["panels"] if p["id"] == dst)
    seen: set = set()
    checked = 0
    for k, e in enumerate(view.events):
        cell = e.dst[2:]
        if e.padding or cell in seen:
            seen.add(cell)
            continue
        seen.add(cell)
        if k == 0:
            continue
        before, after = pnt.drawn(k - 1).panels[dst], pnt.drawn(k).panels[dst]
        r, c = cell[0] + pad[0], cell[1] + pad[1]
        was, now = pnt.image(k - 1), pnt.image(k)
        assert _pixel(was, before.box, r, c, before.cell) == (255, 255, 255)
        want = tuple(int(v) for v in after.fills[cell])
        assert want != (255, 255, 255)
        assert _pixel(now, after.box, r, c, after.cell) == want
        checked += 1
        if checked == 3:
            break
    assert checked == 3
    view.close()


@pytest.mark.parametrize("dpi", [None, 160, 50])
def test_png_is_a_png_of_the_stated_size(view, dpi):
    # 800 CSS px wide, 450 high or taller (as a page grows), at dpi / 100
    height = view.painter.height
    assert height >= 450
    size = (round(8 * (dpi or 100)), round(height * (dpi or 100) / 100))
    data = view.png(dpi)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "PNG" and im.mode == "RGB"
        assert im.size == size == view.painter.size(dpi or 100)


def test_png_refuses_a_bad_dpi():
    view = viz.Col2imView()
    for bad in (0, -3, True, "100", float("nan")):
        with pytest.raises(ValueError, match="dpi"):
            view.png(bad)
    view.close()


def test_save_gif_writes_the_frames_it_says(tmp_path):
    view = viz.MaxPoolForwardView(input_size=(4, 4), kernel_size=2, stride=2)
    path = tmp_path / "pool.gif"
    frames = view.save_gif(path, steps=7, every=2, dpi=40)
    assert frames == [0, 2, 4, 6]
    with Image.open(path) as gif:
        assert gif.n_frames == 4 and gif.size == (320, 180)
        firsts = []
        for k in range(gif.n_frames):
            gif.seek(k)
            firsts.append(np.asarray(gif.convert("RGB")))
    # each frame is its step's picture, not one picture four times
    assert len({f.tobytes() for f in firsts}) == 4
    view.close()


def test_a_64x64_view_keeps_to_the_picture_with_colours_where_numbers_cannot_fit():
    view = viz.Col2imView(input_size=(64, 64), kernel_size=3, stride=2)
    view.update(view.n_frames - 1)
    drawn = view.drawn()
    width, height = drawn.size
    assert width == 800
    dx = drawn.panels["dx"]
    assert not dx.numbers and dx.coloured  # too small for numbers: colours
    assert 64 * dx.cell > 0.9 * 760  # ... as large as the picture's width allows
    assert (dx.texts == "").all()
    assert len({tuple(c) for c in dx.fills.reshape(-1, 3)}) > 20
    for grid in drawn.panels.values():
        x, y, w, h = grid.frame
        assert 0 <= x and x + w <= 800 and 0 <= y and y + h <= height, grid.name
    with Image.open(io.BytesIO(view.png())) as im:
        assert im.size == (800, height)
    view.close()


def test_a_lesson_sized_view_shows_its_numbers_at_the_browsers_sizes():
    view = viz.Col2imView()
    drawn = view.drawn()
    for grid in drawn.panels.values():
        assert grid.numbers and grid.font >= LAYOUT["font_min"]
        assert grid.cell <= LAYOUT["cell_max"]
    view.close()


def test_the_renderer_takes_its_measures_from_the_scene():
    sc = viz.Col2imView().scene()
    assert sc["style"]["layout"] == LAYOUT
    js, css = scene.asset("scene.js"), scene.asset("scene.css")
    # no second copy of the table in the renderer: it reads scene.style.layout
    for name in ("FONT_MIN", "CELL_MAX", "LABEL_FONT", "GAP", "HALO", "CELL_FLOOR"):
        assert not re.search(rf"\bvar {name}\b", js), name
    assert '"#777"' not in js and "/ 36" not in js
    assert "font-size: 1" not in css.split(".cgs-message")[0]  # the text's sizes
    for name in LAYOUT["text"]:
        assert f"--cgs-{name}-size" in css or name == "label", name
        assert f"--cgs-{name}-ink" in css or name in ("title", "caption"), name


def test_a_still_picture_shows_its_panels_without_steps():
    fig = viz.conv_matrix_figure(input_size=(3, 3), kernel_size=2)
    drawn = fig.drawn()
    assert set(drawn.panels) == {"C", "CT"}
    assert drawn.caption.startswith("row k of C") and "step" not in drawn.caption
    with Image.open(io.BytesIO(fig.png())) as im:
        assert im.size == (painter.WIDTH, fig.painter.height)
        assert fig.painter.height >= painter.HEIGHT


def _view_classes():
    import inspect

    return [c for _, c in inspect.getmembers(viz, inspect.isclass)
            if issubclass(c, viz.View) and c is not viz.View]  # fmt: skip


@pytest.mark.parametrize("cls", _view_classes(), ids=lambda c: c.__name__)
def test_every_view_paints_its_first_and_last_steps(cls, tmp_path):
    view = cls()
    sc = view.scene()
    pictures = []
    for i in (0, view.n_frames - 1):
        view.update(i)
        drawn = view.drawn()
        assert list(drawn.panels) == [p["id"] for p in sc["panels"]]
        with Image.open(io.BytesIO(view.png())) as im:
            assert im.size == view.painter.size() and im.size[0] == 800
            pictures.append(np.asarray(im))
    if view.n_frames > 1:
        assert not np.array_equal(*pictures)  # the steps differ on the picture
    frames = view.save_gif(tmp_path / "v.gif", steps=3, dpi=30)
    with Image.open(tmp_path / "v.gif") as gif:
        assert gif.n_frames == len(frames) == min(3, view.n_frames)
    view.close()
