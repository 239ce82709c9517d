"""Static exports of views: frames, their encoding, the player, GIFs.

The deck's browser test (tests/test_course.py) plays these players in
Chromium; here they are taken apart in Python: every frame a real step,
the deltas rebuilding each frame exactly, the size of a lesson's largest
view, and the figure's top corners left free for the player's controls.
"""

from __future__ import annotations

import base64
import inspect
import io
import json
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from PIL import Image

matplotlib.use("Agg")

from convgrad import viz  # noqa: E402
from convgrad.viz import export  # noqa: E402
from convgrad.viz._grid import SLIDE_DPI, TEXT_PT  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
LIMIT = 1.6e6  # bytes of HTML per view (the goal: about 1.5 MB)


def _data(page: str) -> dict:
    m = re.search(r'<script type="application/json" class="cgp-data">(.*?)</script>',
                  page, re.S)  # fmt: skip
    assert m, "no player data in the export"
    return json.loads(m.group(1).replace("<\\/", "</"))


def _key(page: str) -> np.ndarray:
    m = re.search(r'<img class="cgp-key"[^>]* src="data:image/png;base64,([^"]+)"',
                  page)  # fmt: skip
    assert m, "no key frame in the export"
    png = base64.b64decode(m.group(1))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _decode(page: str) -> list[np.ndarray]:
    """Every frame of an export, rebuilt the way player.js draws them."""
    data, frame = _data(page), _key(page).copy()
    t, frames = data["tile"], [frame.copy()]
    for delta in data["deltas"]:
        if delta is not None:
            png = base64.b64decode(delta[0].split(",", 1)[1])
            atlas = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
            r = delta[1]
            for i in range(0, len(r), 6):
                x, y, w, h, sx, sy = (v * t for v in r[i : i + 6])
                block = atlas[sy : sy + h, sx : sx + w]
                frame[y : y + h, x : x + w] = block[: frame.shape[0] - y,
                                                    : frame.shape[1] - x]  # fmt: skip
        frames.append(frame.copy())
    return frames


def _views():
    """Every concrete view class, with its defaults."""
    return [
        cls
        for _, cls in inspect.getmembers(viz, inspect.isclass)
        if issubclass(cls, viz.View) and cls is not viz.View
    ]


# --------------------------------------------------------------------------
# which frames
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, steps, every, frames",
    [
        (5, None, 1, [0, 1, 2, 3, 4]),
        (5, 3, 1, [0, 1, 2]),
        (5, None, 2, [0, 2, 4]),
        (6, None, 4, [0, 4, 5]),  # the last step always plays
        (5, 99, 1, [0, 1, 2, 3, 4]),
        (0, None, 1, []),
    ],
)
def test_export_frames_are_real_steps(n, steps, every, frames):
    assert export.export_frames(n, steps, every) == frames


@pytest.mark.parametrize("kwargs", [{"steps": 0}, {"steps": 2.5}, {"every": 0},
                                    {"every": True}])  # fmt: skip
def test_bad_frame_choices_are_named(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        export.export_frames(10, **kwargs)


# --------------------------------------------------------------------------
# encoding: the deltas rebuild every frame
# --------------------------------------------------------------------------


def test_deltas_rebuild_every_frame_exactly_when_colours_are_few():
    rng = np.random.default_rng(0)
    colours = rng.integers(0, 256, (40, 3), dtype=np.uint8)
    frames = [colours[rng.integers(0, 40, (48, 80))]]
    for _ in range(6):  # a few blocks change per step, at odd offsets
        f = frames[-1].copy()
        y, x = rng.integers(0, 40), rng.integers(0, 70)
        f[y : y + rng.integers(1, 9), x : x + rng.integers(1, 11)] = colours[
            rng.integers(0, 40)
        ]
        frames.append(f)
    frames.append(frames[-1].copy())  # a step that changes nothing
    enc = export.encode(frames, list(range(1, len(frames) + 1)))
    assert enc.exact and enc.deltas[-1] is None
    page = export.player_html(enc, len(frames))
    rebuilt = _decode(page)
    assert len(rebuilt) == len(frames)
    for k, (a, b) in enumerate(zip(rebuilt, frames, strict=True)):
        assert np.array_equal(a, b), f"frame {k} differs"


def test_a_view_export_plays_every_step_and_rebuilds_its_frames():
    view = viz.Col2imView(input_size=(3, 3), kernel_size=2, stride=1)
    n = view.n_frames
    assert n > 2
    view.update(1)
    page = view.to_jshtml(dpi=40)
    assert view.frame == 1, "the export leaves the view on its frame"
    data = _data(page)
    assert data["steps"] == list(range(1, n + 1)) and data["total"] == n
    assert len(data["deltas"]) == n - 1
    # each rebuilt frame is that step drawn by update(i) (through the palette)
    rendered = list(export.render_frames(view, list(range(n)), 40))
    rebuilt = _decode(page)
    for k, (a, b) in enumerate(zip(rebuilt, rendered, strict=True)):
        err = np.abs(a.astype(int) - b.astype(int))
        assert a.shape == b.shape and err.mean() < 1.0, f"frame {k}"
    assert not np.array_equal(rebuilt[0], rebuilt[-1])
    view.close()


def test_steps_and_every_choose_real_steps():
    view = viz.Col2imView(input_size=(4, 4), kernel_size=2, stride=1)
    n = view.n_frames
    assert _data(view.to_jshtml(steps=3, dpi=30))["steps"] == [1, 2, 3]
    every = _data(view.to_jshtml(every=5, dpi=30))["steps"]
    assert every == [i + 1 for i in export.export_frames(n, every=5)]
    assert every[-1] == n
    with pytest.raises(ValueError, match="default_mode"):
        view.to_jshtml(default_mode="reflect")
    view.close()


# --------------------------------------------------------------------------
# the player: one self-contained piece of HTML, from real files
# --------------------------------------------------------------------------


def test_the_player_is_package_data_in_real_files():
    folder = resources.files("convgrad.viz")
    js = folder.joinpath("player.js").read_text(encoding="utf-8")
    css = folder.joinpath("player.css").read_text(encoding="utf-8")
    for cls in ("cgp-play", "cgp-back", "cgp-next", "cgp-reset", "cgp-slider",
                "cgp-speed"):  # fmt: skip
        assert cls in js
    assert "title" in js and "container-type" in css
    # the wheel is the whole src/convgrad folder (hatch takes every file in
    # it, not only .py): the .js and .css go with it
    config = (REPO / "pyproject.toml").read_text()
    wheel = re.search(r"\[tool\.hatch\.build\.targets\.wheel\]\n(.*?)(?:\n\[|\Z)",
                      config, re.S)  # fmt: skip
    assert wheel and wheel.group(1).strip() == 'packages = ["src/convgrad"]'
    assert "[tool.hatch.build]" not in config
    if shutil.which("node"):
        path = Path(str(folder.joinpath("player.js")))
        run = subprocess.run(["node", "--check", str(path)], capture_output=True,
                             text=True, check=False)  # fmt: skip
        assert run.returncode == 0, run.stderr


def test_an_export_loads_nothing_from_the_network():
    view = viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2, stride=2)
    page = view.to_jshtml(dpi=30)
    view.close()
    assert f'class="{export.PLAYER_CLASS}"' in page
    assert "convgradPlayer.mount" in page and "<style>" in page
    urls = re.findall(r"""(?:src|href)=["']?(?!data:)([a-z]+:)?//""", page)
    assert urls == []
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    # two exports on one page mount two players
    other = viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2, stride=2)
    ids = re.findall(r'id="(convgrad-player-[^"]+)"', page + other.to_jshtml(dpi=30))
    other.close()
    assert len(set(ids)) == 2


def test_static_animation_renders_once_and_releases_the_figure(monkeypatch):
    monkeypatch.setattr(viz.View, "static", True)
    monkeypatch.setattr(viz.View, "static_options", {"dpi": 30, "steps": 2})
    view = viz.Im2colView(input_size=(3, 3), kernel_size=2)
    shown = view.widget()
    assert isinstance(shown, export.StaticAnimation)
    page = shown._repr_html_()
    assert _data(page)["steps"] == [1, 2]
    assert view not in viz.live_views(), "the figure was released"
    assert shown._repr_mimebundle_() == {"text/html": page}


def test_save_gif_holds_every_exported_step(tmp_path):
    view = viz.Col2imView(input_size=(3, 3), kernel_size=2, stride=1)
    path = tmp_path / "v.gif"
    frames = view.save_gif(path, dpi=30, every=5)
    n = view.n_frames
    view.close()
    with Image.open(path) as gif:
        assert frames == export.export_frames(n, every=5) and frames[-1] == n - 1
        assert gif.n_frames == len(frames)
        assert gif.size == (240, 135)


# --------------------------------------------------------------------------
# on a slide: text size, the controls' corners, the size of a real view
# --------------------------------------------------------------------------


def test_slide_frames_are_1280x720_with_text_of_at_least_18px():
    assert SLIDE_DPI * 8.0 == 1280 and SLIDE_DPI * 4.5 == 720
    assert TEXT_PT / 72 * SLIDE_DPI >= 18.0


@pytest.mark.parametrize("cls", _views(), ids=lambda c: c.__name__)
def test_views_leave_the_top_corners_to_the_player(cls):
    view = cls()
    fig = view.fig
    fig.set_dpi(SLIDE_DPI)
    try:
        renderer = fig.canvas.get_renderer()
        width, height = fig.get_size_inches() * SLIDE_DPI
        for text in fig.texts:
            if not text.get_text() or not text.get_visible():
                continue
            box = text.get_window_extent(renderer)
            if height - box.y1 < export.TOP_BAND:  # in the band at the top
                assert box.x0 >= export.CORNER, text.get_text()
                assert box.x1 <= width - export.CORNER, text.get_text()
        for ax in fig.axes:
            box = ax.get_tightbbox(renderer)
            assert height - box.y1 >= export.TOP_BAND - 1, (
                f"{cls.__name__}: a panel reaches into the controls' band"
            )
    finally:
        view.close()


def test_the_largest_lesson_view_exports_within_the_size_limit():
    # lesson 07's overlap view: 144 steps, the most of any lesson's view, at
    # the slide's 1280x720 (tests/test_course.py measures every deck's)
    view = viz.OverlapView(input_size=(9, 9), kernel_size=3, stride=2)
    assert view.n_frames == 144
    page = view.to_jshtml()
    view.close()
    data = _data(page)
    assert data["steps"] == list(range(1, 145))
    assert (data["width"], data["height"]) == (1280, 720)
    assert len(page.encode()) <= LIMIT, f"{len(page.encode()) / 1e6:.2f} MB"
