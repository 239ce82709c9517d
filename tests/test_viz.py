"""Views, headless: the artists show what the trace says, frame by frame."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from convgrad import trace, viz  # noqa: E402
from convgrad.trace.events import fmt, ix  # noqa: E402
from convgrad.viz._base import cell_of, cell_text  # noqa: E402


@pytest.fixture
def make():
    """Build views and close their figures after the test."""
    made = []

    def build(cls, **kwargs):
        view = cls(**kwargs)
        made.append(view)
        return view

    yield build
    for view in made:
        view.close()


# For every view: (class, kwargs, where the source and destination of event
# e sit in the source/destination grids, the destination plane of a replay)


def _col_cell(view, idx):
    kw, ow = view.m["win"].k[1], view.m["win"].out[1]
    _, _, ki, kj, oh, oj = idx
    return ki * kw + kj, oh * ow + oj


def _plane(events, shape):
    return trace.replay(events, shape)[0, 0]


CASES = {
    "im2col": (
        viz.Im2colView,
        dict(input_size=(5, 4), kernel_size=3, stride=1, padding=1, dilation=1),
        lambda v, e: e.src[2:],
        lambda v, e: _col_cell(v, e.dst),
        lambda v, ev: trace.replay(ev, (1, 1, *v.m["win"].k, *v.m["win"].out)).reshape(
            np.prod(v.m["win"].k), -1
        ),
    ),
    "col2im": (
        viz.Col2imView,
        dict(input_size=(7, 7), kernel_size=3, stride=2, padding=1),
        lambda v, e: _col_cell(v, e.src),
        lambda v, e: e.dst[2:],
        lambda v, ev: _plane(ev, (1, 1, *v.m["hw"])),
    ),
    "maxpool": (
        viz.MaxPoolForwardView,
        dict(input_size=(6, 6), kernel_size=3, stride=2, padding=1),
        lambda v, e: e.src[2:],
        lambda v, e: e.dst[2:],
        lambda v, ev: _plane(ev, (1, 1, *v.m["win"].out)),
    ),
    "routing": (
        viz.MaxPoolRoutingView,
        dict(input_size=(7, 7), kernel_size=3, stride=2, padding=1),
        lambda v, e: e.src[2:],
        lambda v, e: e.dst[2:],
        lambda v, ev: _plane(ev, (1, 1, *v.m["hw"])),
    ),
    "avgpool": (
        viz.AvgPoolSpreadView,
        dict(input_size=(5, 5), kernel_size=3, stride=2, padding=1),
        lambda v, e: e.src[2:],
        lambda v, e: e.dst[2:],
        lambda v, ev: _plane(ev, (1, 1, *v.m["hw"])),
    ),
    "transpose": (
        viz.ConvTransposeView,
        dict(input_size=(3, 3), kernel_size=3, stride=2, padding=1),
        lambda v, e: e.src[4:],
        lambda v, e: e.dst[2:],
        lambda v, ev: _plane(ev, (1, 1, *v.m["geom"].out)),
    ),
    "overlap": (
        viz.OverlapView,
        dict(input_size=(8, 8), kernel_size=3, stride=2),
        None,
        lambda v, e: e.dst[2:],
        lambda v, ev: _plane(ev, (1, 1, *v.m["hw"])),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_update_shows_the_event_and_the_partial_replay(make, name):
    cls, kwargs, src_cell, dst_cell, plane = CASES[name]
    view = make(cls, **kwargs)
    n = view.n_frames
    assert n == len(view.events) > 3
    assert any(e.padding for e in view.events) or name in ("routing", "overlap")
    for k in sorted({0, 1, n // 3, n // 2, n - 2, n - 1, 2}):
        view.update(k)
        e = view.events[k]
        assert view.frame == k
        if src_cell is not None:
            assert cell_of(view.src_box) == tuple(src_cell(view, e))
            assert view.src_box.get_visible()
        assert cell_of(view.dst_box) == tuple(dst_cell(view, e))
        shown = view.dst_grid.image.get_array()
        want = plane(view, view.events[: k + 1])
        np.testing.assert_allclose(np.ma.getdata(shown), want, rtol=0, atol=1e-12)
        # the caption says what moved, with the event's own numbers
        assert view.caption.startswith(f"step {k + 1}/{n}:")
        if name != "overlap":
            assert fmt(e.value) in view.caption
        if not e.padding and name not in ("im2col", "maxpool", "overlap"):
            assert ix(e.dst) in view.caption and fmt(e.total) in view.caption
        # the destination cell's number is the running total
        if not e.padding and name != "im2col":
            r, c = dst_cell(view, e)
            text = view.dst_grid.texts[r][c].get_text()
            assert text == cell_text(e.total), (text, e)


def test_views_scrub_backwards_as_well(make):
    view = make(viz.Col2imView)
    view.update(view.n_frames - 1)
    view.update(3)
    shown = np.ma.getdata(view.dst_grid.image.get_array())
    np.testing.assert_array_equal(shown, _plane(view.events[:4], (1, 1, 7, 7)))
    hidden = np.ma.getmaskarray(view.dst_grid.image.get_array())
    touched = {e.dst[2:] for e in view.events[:4] if not e.padding}
    assert {tuple(rc) for rc in np.argwhere(~hidden)} == touched


def test_im2col_view_highlights_the_padding_cell_it_reads(make):
    view = make(viz.Im2colView, input_size=(4, 4), kernel_size=3, padding=1)
    e = view.events[0]
    assert e.padding and e.src[2:] == (-1, -1)
    view.update(0)
    assert cell_of(view.src_box) == (-1, -1)
    assert "padding" in view.caption


def test_maxpool_view_marks_the_best_so_far_and_ties_keep_the_first(make):
    x = np.array([[0.5, 0.5], [0.5, 0.1]])
    view = make(viz.MaxPoolForwardView, x=x, kernel_size=2)
    assert view.n_frames == 4
    for k, e in enumerate(view.events):
        view.update(k)
        assert cell_of(view.best_box) == (0, 0)  # the first 0.5 wins the tie
        assert e.argmax == 0
    assert "not above 0.5" in view.caption


def test_routing_view_adds_where_windows_share_the_argmax(make):
    x = np.zeros((5, 5))
    x[2, 2] = 9.0  # every 3x3 window with stride 2 contains it
    dy = np.array([[0.1, 0.2], [0.3, 0.4]])
    view = make(viz.MaxPoolRoutingView, x=x, dy=dy, kernel_size=3, stride=2)
    view.update(3)
    assert all(e.dst == (0, 0, 2, 2) for e in view.events)
    shown = np.ma.getdata(view.dst_grid.image.get_array())
    assert shown[2, 2] == pytest.approx(1.0) and shown.sum() == pytest.approx(1.0)
    assert cell_of(view.argmax_box) == (2, 2)


def test_transpose_view_caption_shows_the_product(make):
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    w = np.array([[0.5, -1.0], [2.0, 0.25]])
    view = make(viz.ConvTransposeView, x=x, w=w, kernel_size=2, stride=2)
    view.update(5)
    e = view.events[5]
    _, _, ki, kj, i, j = e.src
    assert e.value == x[i, j] * w[ki, kj]
    assert f"{fmt(x[i, j])}·{fmt(w[ki, kj])} = {fmt(e.value)}" in view.caption
    assert cell_of(view.w_box) == (ki, kj)


def test_overlap_view_final_panel_is_the_overlap_count(make):
    view = make(viz.OverlapView, input_size=(7, 7), kernel_size=3, stride=2)
    final = np.ma.getdata(view.final_grid.image.get_array())
    np.testing.assert_array_equal(final, trace.overlap_count((7, 7), 3, 2))
    view.update(view.n_frames - 1)
    np.testing.assert_array_equal(np.ma.getdata(view.dst_grid.image.get_array()), final)
    assert "uneven" in view.final_grid.ax.get_title()
    even = make(viz.OverlapView, input_size=(8, 8), kernel_size=4, stride=2)
    assert "uneven" not in even.final_grid.ax.get_title()


def test_update_rejects_frames_out_of_range(make):
    view = make(viz.AvgPoolSpreadView)
    with pytest.raises(ValueError, match="frame must lie in"):
        view.update(view.n_frames)
    with pytest.raises(TypeError, match="frame"):
        view.update(1.5)  # type: ignore[arg-type]


def test_rebuild_resizes_and_an_invalid_rebuild_changes_nothing(make):
    view = make(viz.Col2imView)
    fig, n = view.fig, view.n_frames
    view.rebuild(stride=1)
    assert view.fig is fig and view.n_frames == 5 * 5 * 9 > n
    assert view.dst_grid.image.get_array().shape == (7, 7)
    assert view.src_grid.image.get_array().shape == (9, 25)
    with pytest.raises(ValueError, match="does not fit"):
        view.rebuild(kernel_size=9)
    assert view.params["kernel_size"] == 3 and view.n_frames == 225


# --------------------------------------------------------------------------
# the widget
# --------------------------------------------------------------------------


def test_widget_plays_steps_and_reports_invalid_controls(make):
    import ipywidgets as widgets

    view = make(viz.Col2imView)
    box = view.widget()
    assert isinstance(box, widgets.VBox) and view.widget() is box
    ui = view._widget
    assert ui.link.source == (ui.play, "value") and ui.link.target == (
        ui.slider,
        "value",
    )
    assert ui.slider.max == view.n_frames - 1
    assert isinstance(ui.figure, widgets.Image)  # Agg: the figure as a PNG
    png = ui.figure.value
    ui.next.click()
    assert ui.slider.value == 1 and view.frame == 1
    assert ui.figure.value != png  # the picture followed
    ui.slider.value = 10
    assert view.frame == 10 and "dcol" in ui.caption.value
    ui.back.click()
    assert view.frame == 9
    ui.reset.click()
    assert view.frame == 0 and ui.slider.value == 0
    # an invalid combination: a message, no exception, the view unchanged
    ui.inputs["kernel_size"].value = 5
    ui.inputs["dilation"].value = 2  # span 9 > 7
    assert "does not fit" in ui.message.value
    assert view.params["dilation"] == 1
    ui.inputs["dilation"].value = 1  # valid again: kernel 5 is applied
    assert ui.message.value == ""
    assert view.params["kernel_size"] == 5
    assert ui.slider.max == view.n_frames - 1 == 25 * 4 - 1


def test_pool_widget_has_flag_controls(make):
    view = make(viz.AvgPoolSpreadView)
    ui = view._widget or (view.widget(), view._widget)[1]
    assert set(ui.inputs) == {
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
    }
    n = view.n_frames
    ui.inputs["ceil_mode"].value = True
    assert view.n_frames > n  # the 5th row and column get windows
    ui.inputs["padding"].value = 2  # more than half the kernel
    assert "half the kernel" in ui.message.value


def test_view_displays_as_its_widget(make):
    view = make(viz.OverlapView)
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


IPYMPL = r"""
import warnings
warnings.simplefilter("ignore", DeprecationWarning)
import matplotlib
matplotlib.use("module://ipympl.backend_nbagg")
import matplotlib.pyplot as plt
import ipywidgets
from convgrad import viz
v = viz.MaxPoolRoutingView()
assert isinstance(v.fig.canvas, ipywidgets.DOMWidget), type(v.fig.canvas)
assert v.fig.canvas in v.widget().children
v.update(2)
v.close()
assert plt.get_fignums() == []
print("ok")
"""


def test_under_ipympl_the_canvas_is_the_widget():
    out = subprocess.run(
        [sys.executable, "-c", IPYMPL], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# --------------------------------------------------------------------------
# exports
# --------------------------------------------------------------------------


def test_to_jshtml_has_every_frame(make):
    view = make(viz.AvgPoolSpreadView)
    view.update(5)
    html = view.to_jshtml(fps=4, dpi=30)
    frames = re.findall(r'frames\[(\d+)\] = "data:image/png;base64', html)
    assert [int(f) for f in frames] == list(range(view.n_frames))
    assert view.frame == 5  # the export leaves the view where it was


def test_export_frames_are_bounded():
    view = viz.Col2imView(stride=1)  # 225 frames
    try:
        frames = view.export_frames(max_frames=40)
        assert len(frames) <= 40 and frames[0] == 0 and frames[-1] == 224
        assert view.export_frames(every=100, max_frames=None) == [0, 100, 200, 224]
        with pytest.raises(ValueError, match="every"):
            view.export_frames(every=0)
    finally:
        view.close()


def test_save_gif_writes_a_readable_gif_with_the_right_frames(make, tmp_path):
    from PIL import Image

    view = make(viz.MaxPoolForwardView, input_size=(4, 4), kernel_size=2)
    path = tmp_path / "scan.gif"
    frames = view.save_gif(path, fps=5, max_frames=10, dpi=30)
    assert frames == view.export_frames(max_frames=10)
    assert 5 < len(frames) <= 10 and frames[-1] == view.n_frames - 1
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == len(frames)
        assert gif.size == (int(12.8 * 30), int(7.2 * 30))


# --------------------------------------------------------------------------
# speed
# --------------------------------------------------------------------------


def test_update_is_fast_and_building_a_lesson_view_is_quick(make):
    start = time.perf_counter()
    view = make(viz.Col2imView, input_size=(7, 7), kernel_size=3, stride=1)
    built = time.perf_counter() - start
    start = time.perf_counter()
    for k in range(0, view.n_frames, 7):
        view.update(k)
    per_update = (time.perf_counter() - start) / len(range(0, view.n_frames, 7))
    assert per_update < 0.03, per_update
    assert built < 3.0, built  # budget 1 s; slack for a busy shared machine
