"""Views, headless: the pictures show what the trace says, frame by frame."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest
from PIL import Image

from convgrad import trace, viz
from convgrad.trace.events import fmt, ix
from convgrad.viz import painter
from convgrad.viz._panel import cell_text
from convgrad.viz.palette import LAYOUT


@pytest.fixture
def make():
    """Build views and close them after the test."""
    made = []

    def build(cls, **kwargs):
        view = cls(**kwargs)
        made.append(view)
        return view

    yield build
    for view in made:
        view.close()


def _col_cell(view, idx):
    win = view.model_.window
    _, _, ki, kj, oh, oj = idx
    return ki * win.k[1] + kj, oh * win.out[1] + oj


def _plane(events, shape):
    return trace.replay(events, shape)[0, 0]


# For every view: (class, kwargs, the source panel.role and where event e
# sits in it, the destination panel and where e lands, a replay's plane)
CASES = {
    "im2col": (
        viz.Im2colView,
        dict(input_size=(5, 4), kernel_size=3, stride=1, padding=1, dilation=1),
        ("x.src", lambda v, e: e.src[2:]),
        ("col", lambda v, e: _col_cell(v, e.dst)),
        lambda v, ev: trace.replay(
            ev, (1, 1, *v.model_.window.k, *v.model_.window.out)
        ).reshape(v.model_.shape),
    ),
    "col2im": (
        viz.Col2imView,
        dict(input_size=(7, 7), kernel_size=3, stride=2, padding=1),
        ("dcol.src", lambda v, e: _col_cell(v, e.src)),
        ("dx", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, 7, 7)),
    ),
    "maxpool": (
        viz.MaxPoolForwardView,
        dict(input_size=(6, 6), kernel_size=3, stride=2, padding=1),
        ("x.src", lambda v, e: e.src[2:]),
        ("y", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, *v.model_.window.out)),
    ),
    "routing": (
        viz.MaxPoolRoutingView,
        dict(input_size=(7, 7), kernel_size=3, stride=2, padding=1),
        ("dy.src", lambda v, e: e.src[2:]),
        ("dx", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, 7, 7)),
    ),
    "avgpool": (
        viz.AvgPoolSpreadView,
        dict(input_size=(5, 5), kernel_size=3, stride=2, padding=1),
        ("dy.src", lambda v, e: e.src[2:]),
        ("dx", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, 5, 5)),
    ),
    "transpose": (
        viz.ConvTransposeView,
        dict(input_size=(3, 3), kernel_size=3, stride=2, padding=1),
        ("x.src", lambda v, e: e.src[4:]),
        ("y", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, *v.model_.shape)),
    ),
    "overlap": (
        viz.OverlapView,
        dict(input_size=(8, 8), kernel_size=3, stride=2),
        None,
        ("so_far", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, 8, 8)),
    ),
    "gather": (
        viz.Col2imGatherView,
        dict(input_size=(7, 6), kernel_size=3, stride=2, padding=1),
        ("dcol.src", lambda v, e: _col_cell(v, e.src)),
        ("dx", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, 7, 6)),
    ),
    "fold": (
        viz.MaxPoolFoldView,
        dict(input_size=(5, 5), kernel_size=3, stride=2, padding=1),
        ("dcol.src", lambda v, e: _col_cell(v, e.src)),
        ("dx", lambda v, e: e.dst[2:]),
        lambda v, ev: _plane(ev, (1, 1, 5, 5)),
    ),
}


def _at(view, panel, role=None):
    """The ``(row, col)`` of outline ``panel.role`` (or ``panel``, ``role``)
    in the picture of the frame on show; None when it is hidden."""
    if role is None:
        panel, role = panel.split(".")
    where = view.drawn().panels[panel].marks[role]
    return None if where is None else where[:2]


def _shown(view, panel):
    """What ``panel`` shows in the picture of the frame on show: its numbers,
    masked where a cell is not written yet."""
    return view.drawn().panels[panel].values


@pytest.mark.parametrize("name", list(CASES))
def test_update_shows_the_event_and_the_partial_replay(make, name):
    cls, kwargs, src, dst, plane = CASES[name]
    view = make(cls, **kwargs)
    n = view.n_frames
    assert n == len(view.events) > 3
    # the routes and the gather never reach the padding
    assert any(e.padding for e in view.events) or name in (
        "routing", "overlap", "gather")
    for k in sorted({0, 1, n // 3, n // 2, n - 2, n - 1, 2}):
        view.update(k)
        e = view.events[k]
        assert view.frame == k
        if src is not None:
            assert _at(view, src[0]) == tuple(src[1](view, e))
            assert _at(view, src[0]) is not None
        assert _at(view, dst[0], "dst") == tuple(dst[1](view, e))
        shown = _shown(view, dst[0])
        want = plane(view, view.events[: k + 1])
        np.testing.assert_allclose(np.ma.getdata(shown), want, rtol=0, atol=1e-12)
        # the caption counts steps from 1 and says what moved, in numbers
        assert view.caption.startswith(f"step {k + 1}/{n}:")
        if name != "overlap":
            assert fmt(e.value) in view.caption
        if not e.padding and name not in ("im2col", "maxpool", "overlap"):
            where = e.dst[2:] if name == "transpose" else e.dst  # y[h,w]
            assert ix(where) in view.caption and fmt(e.total) in view.caption
        # the destination cell's number is the running total
        if not e.padding and name != "im2col":
            r, c = dst[1](view, e)
            grid = view.drawn().panels[dst[0]]
            assert grid.texts[r, c] == cell_text(e.total, grid.compact), e


def _kernel_result(view, name):
    """What the op (the Numba kernel behind F) computes for the view's data."""
    import convgrad as cg

    p, m = view.params, view.model_
    geo = dict(stride=p["stride"], padding=p["padding"])
    if name == "col2im":
        dcol = cg.Tensor(m.planes["dcol"][None])
        return cg.F.fold(dcol, (7, 7), p["kernel_size"], **geo).data[0, 0]
    x = cg.Tensor(
        m.planes["x" if name != "avgpool" else "dy"][None, None], requires_grad=True
    )
    if name == "routing":
        y = cg.F.max_pool2d(x, p["kernel_size"], **geo)
        y.backward(m.planes["dy"][None, None])
        return x.grad[0, 0]
    if name == "avgpool":
        x = cg.Tensor(np.zeros((1, 1, 5, 5)), requires_grad=True)
        y = cg.F.avg_pool2d(x, p["kernel_size"], **geo)
        y.backward(m.planes["dy"][None, None])
        return x.grad[0, 0]
    w = m.planes["w"][None, None]
    return cg.F.conv_transpose2d(x, w, **geo).data[0, 0]


@pytest.mark.parametrize("name", ["col2im", "routing", "avgpool", "transpose"])
def test_last_frame_is_what_the_op_computes(make, name):
    cls, kwargs, _, dst, _ = CASES[name]
    view = make(cls, **kwargs)
    view.update(view.n_frames - 1)
    shown = np.ma.getdata(_shown(view, dst[0]))
    np.testing.assert_array_equal(shown, _kernel_result(view, name))


def test_replay_frames_last_frame_is_replay():
    rng = np.random.default_rng(3)
    col = rng.standard_normal((1, 2, 3, 3, 4, 4)).astype(np.float32)
    t = trace.col2im(col, (7, 7), 3, stride=2, padding=1)
    states, touched = trace.replay_frames(t)
    assert states.dtype == np.float32 and states.shape == (len(list(t)), 1, 2, 7, 7)
    np.testing.assert_array_equal(states[-1], trace.replay(t))
    assert touched[-1].sum() == (trace.replay(t) != 0).sum() or touched[-1].all()


def test_views_scrub_backwards_as_well(make):
    view = make(viz.Col2imView)
    view.update(view.n_frames - 1)
    view.update(3)
    image = _shown(view, "dx")
    np.testing.assert_array_equal(
        np.ma.getdata(image), _plane(view.events[:4], (1, 1, 7, 7))
    )
    touched = {e.dst[2:] for e in view.events[:4] if not e.padding}
    shown = {tuple(rc) for rc in np.argwhere(~np.ma.getmaskarray(image))}
    assert shown == touched


def test_im2col_view_highlights_the_padding_cell_it_reads(make):
    view = make(viz.Im2colView, input_size=(4, 4), kernel_size=3, padding=1)
    e = view.events[0]
    assert e.padding and e.src[2:] == (-1, -1)
    view.update(0)
    assert _at(view, "x", "src") == (-1, -1)
    assert "padding" in view.caption


def test_maxpool_view_marks_the_best_so_far_and_ties_keep_the_first(make):
    x = np.array([[0.5, 0.5], [0.5, 0.1]])
    view = make(viz.MaxPoolForwardView, x=x, kernel_size=2)
    assert view.n_frames == 4
    for k, e in enumerate(view.events):
        view.update(k)
        assert _at(view, "x", "best") == (0, 0)  # first 0.5 wins
        assert e.argmax == 0
    assert "not above 0.5" in view.caption


def test_routing_view_adds_where_windows_share_the_argmax(make):
    x = np.zeros((5, 5))
    x[2, 2] = 9.0  # every 3x3 window with stride 2 contains it
    dy = np.array([[0.1, 0.2], [0.3, 0.4]])
    view = make(viz.MaxPoolRoutingView, x=x, dy=dy, kernel_size=3, stride=2)
    view.update(3)
    assert all(e.dst == (0, 0, 2, 2) for e in view.events)
    shown = np.ma.getdata(_shown(view, "dx"))
    assert shown[2, 2] == pytest.approx(1.0) and shown.sum() == pytest.approx(1.0)
    assert _at(view, "x", "best") == (2, 2)
    assert view.synthetic == {}


def test_transpose_view_caption_shows_the_product(make):
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    w = np.array([[0.5, -1.0], [2.0, 0.25]])
    view = make(viz.ConvTransposeView, x=x, w=w, kernel_size=2, stride=2)
    view.update(5)
    e = view.events[5]
    _, _, ki, kj, i, j = e.src
    assert e.value == x[i, j] * w[ki, kj]
    assert f"{fmt(x[i, j])}·{fmt(w[ki, kj])} = {fmt(e.value)}" in view.caption
    assert _at(view, "w", "src") == (ki, kj)


def test_overlap_view_final_panel_is_the_overlap_count(make):
    view = make(viz.OverlapView, input_size=(7, 7), kernel_size=3, stride=2)
    final = np.ma.getdata(_shown(view, "count"))
    np.testing.assert_array_equal(final, trace.overlap_count((7, 7), 3, stride=2))
    view.update(view.n_frames - 1)
    so_far = np.ma.getdata(_shown(view, "so_far"))
    np.testing.assert_array_equal(so_far, final)
    assert "uneven" in view.drawn().panels["count"].title
    even = make(viz.OverlapView, input_size=(8, 8), kernel_size=4, stride=2)
    assert "uneven" not in even.drawn().panels["count"].title


def test_update_rejects_frames_out_of_range(make):
    view = make(viz.AvgPoolSpreadView)
    with pytest.raises(ValueError, match="frame must lie in"):
        view.update(view.n_frames)
    with pytest.raises(TypeError, match="frame"):
        view.update(1.5)  # type: ignore[arg-type]


def test_unknown_or_repeated_arguments_are_type_errors():
    with pytest.raises(TypeError, match="unexpected keyword argument 'strides'"):
        viz.Col2imView(strides=2)
    with pytest.raises(TypeError, match="twice"):
        viz.Col2imView((5, 5), input_size=(5, 5))
    with pytest.raises(ValueError, match="stride"):
        viz.Col2imView(stride=0)  # the trace's own rule and message


def test_rebuild_resizes_and_an_invalid_rebuild_changes_nothing(make):
    view = make(viz.Col2imView)
    drawn, n = view.painter, view.n_frames
    view.rebuild(stride=1)
    assert view.painter is not drawn and view.n_frames == 5 * 5 * 9 > n
    assert _shown(view, "dx").shape == (7, 7)
    assert _shown(view, "dcol").shape == (9, 25)
    with pytest.raises(ValueError, match="does not fit"):
        view.rebuild(kernel_size=9)
    assert view.params["kernel_size"] == 3 and view.n_frames == 225


def test_view_signature_lists_its_defaults():
    import inspect

    sig = inspect.signature(viz.MaxPoolRoutingView)
    assert list(sig.parameters)[:3] == ["input_size", "kernel_size", "stride"]
    assert sig.parameters["dy"].default is None


def test_live_views_is_the_registry(make):
    view = make(viz.OverlapView)
    assert view in viz.live_views()
    view.close()
    assert view not in viz.live_views()


# --------------------------------------------------------------------------
# truth: the learner's data, recomputed, or marked as a stand-in
# --------------------------------------------------------------------------


def test_a_changed_geometry_marks_the_learners_dy_as_a_stand_in(make):
    x = np.arange(16.0).reshape(4, 4)
    dy = np.array([[1.0, 2.0], [3.0, 4.0]])
    view = make(viz.MaxPoolRoutingView, x=x, dy=dy, kernel_size=2)
    np.testing.assert_array_equal(view.model_.planes["dy"], dy)
    assert view.synthetic == {} and "stand-in" not in view.drawn().panels["dy"].title
    view.rebuild(stride=1)  # dy must now be 3x3: the learner's no longer fits
    assert set(view.synthetic) == {"dy"}
    assert "stand-in" in view.drawn().panels["dy"].title
    warning = view.drawn().warning
    assert "dy: seeded stand-in numbers" in warning and "(2, 2)" in warning
    np.testing.assert_array_equal(view.model_.planes["x"], x)  # x still fits
    view.rebuild(stride=2)  # back: the learner's numbers again, no warning
    assert view.synthetic == {}
    np.testing.assert_array_equal(view.model_.planes["dy"], dy)
    assert "stand-in" not in view.drawn().warning


def test_data_may_be_a_function_of_the_geometry_and_is_recomputed(make):
    x = np.arange(36.0).reshape(6, 6) % 7

    def real_dy(kernel_size, stride, padding, dilation, ceil_mode, **_):
        import convgrad as cg

        y = cg.F.max_pool2d(
            x[None, None], kernel_size, stride, padding, dilation, ceil_mode
        )
        return np.cos(y.data)

    view = make(viz.MaxPoolRoutingView, x=x, dy=real_dy, kernel_size=2)
    assert view.model_.planes["dy"].shape == (3, 3)
    view.rebuild(kernel_size=3, stride=1)
    assert view.synthetic == {} and view.model_.planes["dy"].shape == (4, 4)
    np.testing.assert_allclose(
        view.model_.planes["dy"], real_dy(3, 1, 0, 1, False)[0, 0]
    )


def test_col2im_view_takes_dcol_in_unfolds_layout(make):
    dcol = np.arange(9 * 9.0).reshape(9, 9) / 10
    view = make(viz.Col2imView, dcol=dcol)
    assert view.synthetic == {}
    np.testing.assert_array_equal(view.model_.planes["dcol"], dcol)
    same = make(viz.Col2imView, dy=dcol.reshape(1, 9, 9))  # the dy alias
    np.testing.assert_array_equal(same.model_.planes["dcol"], dcol)
    wrong = make(viz.Col2imView, dcol=dcol.reshape(3, 27))
    assert set(wrong.synthetic) == {"dcol"}


def test_col2im_view_names_its_arrays_as_the_lesson_does(make):
    u = np.arange(9 * 9.0).reshape(9, 9) / 10
    view = make(viz.Col2imView, input_size=(5, 5), padding=1, dcol=u,
                names=("u", "dg"))
    titles = [p.title for p in view.layout]
    assert titles == ["u  (rows: taps, columns: windows)", "dg = col2im(u)"]
    assert view.title == "col2im: every u entry is added onto its input pixel"
    assert view.caption.startswith("step 1/") and "u[" in view.caption
    assert " to dg[" in view.caption or "at dg[" in view.caption
    assert "dcol" not in view.scene()["title"]
    plain = make(viz.Col2imView, input_size=(5, 5), padding=1, dcol=u)
    assert [p.title for p in plain.layout][1] == "dx = col2im(dcol)"
    with pytest.raises(ValueError, match="names must differ"):
        make(viz.Col2imView, names=("u", "u"))
    with pytest.raises(TypeError, match="names must be two non-empty"):
        make(viz.Col2imView, names="u")
    with pytest.raises(TypeError, match="names must be two non-empty"):
        view.rebuild(names=("u", ""))
    assert titles == [p.title for p in view.layout]  # left as it was


# --------------------------------------------------------------------------
# fit: everything inside the figure, and the figure inside the output area
# --------------------------------------------------------------------------

FIT_CASES = [
    (cls, kw)
    for cls, kw in [
        (viz.Im2colView, {}),
        (viz.Im2colView, dict(input_size=(7, 7), dilation=2)),
        (viz.Col2imView, {}),
        (viz.Col2imView, dict(stride=1, padding=1)),
        (viz.OverlapView, dict(input_size=(9, 9))),
        (viz.ConvTransposeView, dict(padding=1)),
        (viz.MaxPoolForwardView, dict(padding=1, ceil_mode=True)),
        (viz.MaxPoolRoutingView, dict(input_size=(7, 7), padding=1)),
        (viz.AvgPoolSpreadView, dict(kernel_size=3, padding=1)),
        (viz.ConvMatrixView, {}),
        (viz.ConvMatrixView, dict(padding=1)),
        (viz.ConvMatrixView, dict(backward=True)),
        (viz.ConvMatrixView, dict(backward=True, padding=1, stride=2)),
        (viz.GradientCheckerboardView, {}),
        (viz.GradientCheckerboardView, dict(input_size=(9, 9), padding=1)),
        (viz.Col2imGatherView, dict(padding=1)),
        (viz.MaxPoolFoldView, {}),
        (viz.MaxPoolFoldView, dict(input_size=(6, 5), padding=1)),
        (viz.NormSetsView, {}),
        (viz.NormSetsView, dict(kind="group", groups=3, batch=3)),
        (viz.NormSetsView, dict(kind="instance", input_size=(4, 5))),
    ]
]


@pytest.mark.parametrize("cls, kwargs", FIT_CASES)
def test_every_grid_and_its_labels_lie_inside_the_800px_picture(make, cls, kwargs):
    view = make(cls, **kwargs)
    drawn = view.drawn()
    width, height = drawn.size  # 450 px high, or taller as a page grows
    assert width == painter.WIDTH == 800 and height >= painter.HEIGHT == 450
    with Image.open(io.BytesIO(view.png())) as im:
        assert im.size == (800, height)
    boxes = []
    for grid in drawn.panels.values():
        x, y, w, h = grid.frame  # the grid, its labels and its title
        assert 0 <= x and x + w <= 800 and 0 <= y and y + h <= height, grid.name
        gx, gy, gw, gh = grid.box  # the cells, inside it
        assert x <= gx and gx + gw <= x + w and y <= gy and gy + gh <= y + h
        boxes.append(grid.frame)
    # the grids do not overlap one another
    for a, b in itertools.combinations(boxes, 2):
        apart = (a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0]
                 or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1])  # fmt: skip
        assert apart, (a, b)


@pytest.mark.parametrize("cls, kwargs", FIT_CASES)
def test_no_number_is_below_the_legible_size(make, cls, kwargs):
    view = make(cls, **kwargs)
    for grid in view.drawn().panels.values():
        # numbers at font_min, or font_soft where a grid would outgrow the
        # picture's height; else colours alone, as in the browser
        assert not grid.numbers or grid.font >= LAYOUT["font_soft"], grid.name
        assert grid.coloured or grid.numbers


def test_numbers_show_in_the_lesson_sized_views(make):
    for cls in (
        viz.Col2imView,
        viz.Im2colView,
        viz.MaxPoolRoutingView,
        viz.AvgPoolSpreadView,
        viz.ConvTransposeView,
        viz.OverlapView,
        viz.ConvMatrixView,
        viz.GradientCheckerboardView,
        viz.NormSetsView,
    ):
        view = make(cls)
        assert all(g.numbers for g in view.drawn().panels.values()), cls


# --------------------------------------------------------------------------
# the widget
# --------------------------------------------------------------------------


def test_the_widgets_traits_are_its_state_and_the_view_knows_no_widget(make):
    import anywidget

    from convgrad.viz.scene import asset

    view = make(viz.Col2imView)
    ui = view.widget()
    assert isinstance(ui, anywidget.AnyWidget) and ui.view is view
    assert ui.scene == view.scene() and len(ui.scene["frames"]) == view.n_frames
    assert ui.params == {"kernel_size": 3, "stride": 2, "padding": 0, "dilation": 1}
    assert (ui.frame, ui.error) == (0, "")
    # the module is scene.js as it is (no glue), its styles scene.css
    assert ui._esm == asset("scene.js") and ui._css == asset("scene.css")
    assert "export default" in ui._esm and "globalThis" not in ui._esm
    # the view calls no widget: each widget() is a player of its own
    other = view.widget()
    assert other is not ui
    ui.frame = 4  # the browser came to rest on step 5: the view follows
    assert ui.caption.startswith(f"step 5/{view.n_frames}") and other.frame == 0
    assert view.frame == 4 and view.caption == ui.caption
    view.png()  # a picture now: laid out ...
    ui.frame = 6  # ... and follows the player too
    assert view.drawn().caption.startswith("step 7/")
    view.update(9)  # nothing runs the other way: the player stays
    assert (ui.frame, view.frame) == (6, 9)
    for bad in (-1, view.n_frames):
        with pytest.raises(ValueError, match="frame must lie in"):
            ui.frame = bad
    assert ui.frame == 6
    other.close()
    ui.close()


def test_controls_rebuild_and_an_invalid_combination_changes_nothing(make):
    view = make(viz.Col2imView)
    ui = view.widget()
    names = [c["name"] for c in ui.scene["controls"]]
    assert names == ["kernel_size", "stride", "padding", "dilation"]
    before, shown = ui.scene, dict(ui.params)
    sent = []
    ui.observe(lambda change: sent.append(change["name"]), names=["params", "error"])
    ui.frame = 7
    ui.params = {"kernel_size": 5, "stride": 2, "padding": 0, "dilation": 2}
    assert "does not fit" in ui.error and "dilation=2" in ui.error
    assert ui.scene == before and ui.frame == 7 and ui.view is view
    # params go back to the scene's values (the controls show params): a
    # change the browser hears, so the same refused request is answered again
    assert ui.params == shown and sorted(sent) == ["error", "params", "params"]
    sent.clear()
    ui.params = {"kernel_size": 5, "stride": 2, "padding": 0, "dilation": 2}
    assert "does not fit" in ui.error and ui.params == shown
    assert sent == ["params", "params"]  # the same error: no change of it
    assert view.params["dilation"] == 1  # the view as it was
    ui.params = {"kernel_size": 5, "stride": 2, "padding": 0, "dilation": 1}
    assert ui.error == "" and ui.params["kernel_size"] == 5
    # the widget keeps the view it holds at its params
    assert ui.view is view and view.params["kernel_size"] == 5
    assert ui.scene == view.scene() and ui.frame == view.frame == 0
    assert ui.scene["steps"] == view.n_frames == 25 * 4
    assert ui.scene["controls"][0]["value"] == 5
    ui.close()


def test_two_players_of_one_view_each_keep_their_own_state(make):
    view = make(viz.Col2imView)
    a, b = view.widget(), view.widget()
    a.params = {**a.params, "kernel_size": 5}
    assert a.scene["subtitle"].startswith("kernel_size=5")
    assert b.params["kernel_size"] == 3 and b.scene["subtitle"].startswith(
        "kernel_size=3")  # fmt: skip
    # b's next change is built from b's own values, not from the view's
    b.params = {**b.params, "stride": 1}
    assert b.error == "" and b.scene["subtitle"].startswith("kernel_size=3, stride=1")
    assert {c["name"]: c["value"] for c in b.scene["controls"]} == b.params
    assert a.scene["subtitle"].startswith("kernel_size=5, stride=2")
    assert view.params["kernel_size"] == 3  # the last change made
    a.close()
    b.close()


def test_pool_controls_include_the_flags(make):
    view = make(viz.AvgPoolSpreadView)
    ui = view.widget()
    kinds = {c["name"]: c["kind"] for c in ui.scene["controls"]}
    assert kinds == {"kernel_size": "int", "stride": "int", "padding": "int",
                     "ceil_mode": "bool", "count_include_pad": "bool"}
    n = view.n_frames
    ui.params = {**ui.params, "ceil_mode": True}
    assert view.n_frames > n  # the 5th row and column get windows
    assert ui.scene["steps"] == view.n_frames and ui.error == ""
    ui.params = {**ui.params, "padding": 2}
    assert "half the kernel" in ui.error and ui.params["padding"] == 0
    ui.close()


def test_display_modes(make, monkeypatch):
    view = make(viz.OverlapView)
    assert viz.display_mode() == "live"
    bundle, _ = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == repr(view)
    # a view displayed again shows the same player (marimo asks twice), one
    # that lives as long as the view (marimo keeps only the view)
    again, _ = view._repr_mimebundle_()
    key = "application/vnd.jupyter.widget-view+json"
    assert again[key]["model_id"] == bundle[key]["model_id"]
    try:
        viz.display_as("embed")
        bundle, _ = view._repr_mimebundle_()
        assert set(bundle) == {"text/html", "text/plain"}
        assert 'class="convgrad-scene"' in bundle["text/html"]
        viz.display_as("pictures")
        png = view._repr_mimebundle_()[0]["image/png"]
        assert png.startswith(b"\x89PNG")
        assert view.frame == 0  # the picture is the last step; the view stays
        with pytest.raises(ValueError, match="mode must be one of"):
            viz.display_as("static")
    finally:
        viz.display_as("live")
    monkeypatch.setenv("CONVGRAD_VIEWS", "embed")
    from convgrad import display

    monkeypatch.setattr(display, "_MODE", [None])
    assert viz.display_mode() == "embed"
    monkeypatch.setenv("CONVGRAD_VIEWS", "gif")
    with pytest.raises(ValueError, match="CONVGRAD_VIEWS"):
        viz.display_mode()


def test_a_view_lays_out_no_picture_until_one_is_asked_for(make):
    view = make(viz.MaxPoolRoutingView)
    view.widget().close()
    view.update(2)
    assert view._painter is None  # the browser draws; the painter waits
    assert view.png().startswith(b"\x89PNG") and view._painter is not None


def test_the_picture_says_the_caption_of_its_step(make):
    view = make(viz.Col2imView)
    view.update(3)
    assert view.drawn().caption == view.caption
    assert view.caption.startswith("step 4/")


# --------------------------------------------------------------------------
# the trail (speed is measured in benchmarks/bench_views.py, not here)
# --------------------------------------------------------------------------


def test_a_fading_trail_follows_the_last_two_destinations(make):
    view = make(viz.OverlapView, input_size=(7, 7), kernel_size=3, stride=2)
    k = 10
    view.update(k)
    now, one, two = (view.events[k - j].dst[2:] for j in range(3))
    assert _at(view, "so_far.dst") == now
    for role, where in (("trail1", one), ("trail2", two)):
        assert _at(view, "so_far", role) == (where if where != now else None)
    view.update(0)
    assert _at(view, "so_far.trail1") is None and _at(view, "so_far.trail2") is None


def test_small_real_numbers_show_compact_rather_than_vanish(make):
    rng = np.random.default_rng(0)
    dcol = np.round(rng.normal(size=(9, 9)) * 0.05, 3)  # −0.063 and such
    view = make(viz.Col2imView, input_size=(6, 6), stride=2, padding=1, dcol=dcol)
    grid = view.drawn().panels["dcol"]
    assert grid.compact and grid.numbers
    r, c = np.unravel_index(np.argmin(dcol), dcol.shape)
    assert grid.texts[r, c] == cell_text(dcol[r, c], compact=True)
    assert grid.texts[r, c].startswith("−.")
    assert cell_text(-0.25, compact=True) == "−.25" and cell_text(1.5, True) == "1.5"


# --------------------------------------------------------------------------
# lesson 12: batch norm's backward, two sums over N, H, W, then dx
# --------------------------------------------------------------------------


def _bn_reference(view):
    from convgrad.exercises import solution

    m = view.model_
    return solution("batch_norm_backward")(
        m.planes["dy"], m.planes["x_hat"], m.planes["gamma"], m.planes["sigma"])


def test_batch_norm_view_completes_both_sums_before_any_dx(make):
    view = make(viz.BatchNormBackwardView)  # N=2, C=1, 3x3: M = 18
    dy, x_hat = view.model_.planes["dy"], view.model_.planes["x_hat"]
    assert view.n_frames == 3 * 18
    sums = 2 * 18  # a dβ and a dγ step at every position
    view.update(sums - 1)  # the last sum step
    for name in ("dx0_0", "dx1_0"):
        assert np.ma.getmaskarray(_shown(view, name)).all()
    assert view.drawn().panels["dbeta"].texts[0, 0] == cell_text(dy.sum())
    assert view.drawn().panels["dgamma"].texts[0, 0] == cell_text(
        (dy * x_hat).sum())
    view.update(sums)  # the first dx: it reads both finished sums
    assert _at(view, "dbeta.read") == _at(view, "dgamma.read")
    assert _at(view, "dbeta.read") is not None
    assert _at(view, "dgamma.read") is not None
    assert _at(view, "dx0_0", "dst") == (0, 0)
    assert view.caption.startswith(f"step {sums + 1}/54:  dx[0,0,0,0] = ")
    shown = np.ma.getmaskarray(_shown(view, "dx0_0"))
    assert (~shown).sum() == 1
    view.update(sums - 1)  # not before: a sum step writes, it reads no sum
    assert _at(view, "dbeta.read") is None


@pytest.mark.parametrize("kwargs", [{}, dict(batch=1, channels=2),
                                    dict(batch=3, input_size=(2, 3))])
def test_batch_norm_view_last_frame_is_the_reference_backward(make, kwargs):
    view = make(viz.BatchNormBackwardView, **kwargs)
    view.update(view.n_frames - 1)
    want = _bn_reference(view)
    for got, ref in zip(view.gradients(), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)
    n, c = view.params["batch"], view.params["channels"]
    for b in range(n):
        for k in range(c):
            shown = np.ma.getdata(_shown(view, f"dx{b}_{k}"))
            np.testing.assert_allclose(shown, want[0][b, k], rtol=1e-12)
    np.testing.assert_allclose(
        np.ma.getdata(_shown(view, "dgamma"))[0], want[1])
    for grid in view.drawn().panels.values():
        assert not grid.numbers or grid.font >= LAYOUT["font_soft"]


def test_batch_norm_view_says_a_stand_in(make):
    view = make(viz.BatchNormBackwardView, x=np.zeros((3, 3)))
    assert set(view.synthetic) == {"x"}


@pytest.mark.parametrize("kwargs, words", [
    (dict(batch=0), "batch must be a positive int, got 0"),
    (dict(channels=1.5), "channels must be a positive int"),
    (dict(input_size=(3, 0)), "input_size"),
    (dict(eps=-1e-5), "eps must be a finite number >= 0"),
])
def test_batch_norm_view_names_a_bad_parameter(kwargs, words):
    import re

    with pytest.raises(ValueError, match=re.escape(words)):
        viz.BatchNormBackwardView(**kwargs)


# --------------------------------------------------------------------------
# lesson 12: which elements share a mean and a variance, under each norm
# --------------------------------------------------------------------------

# kind -> (steps, M) for N=2, C=6, 3x2 and G=2: (C, N·H·W), (N, C·H·W),
# (N·G, C/G·H·W), (N·C, H·W)
NORM_SETS = {"batch": (6, 12), "layer": (2, 36), "group": (4, 18),
             "instance": (12, 6)}  # fmt: skip


@pytest.mark.parametrize("kind", list(NORM_SETS))
def test_norm_sets_partition_the_input_into_sets_of_m(make, kind):
    view = make(viz.NormSetsView, kind=kind)  # N=2, C=6, 3x2, G=2
    steps, m = NORM_SETS[kind]
    sets = view.sets()
    assert view.n_frames == len(sets) == steps
    assert all(s.shape == (2, 6, 3, 2) and s.sum() == m for s in sets)
    assert (np.sum(sets, axis=0) == 1).all()  # every element in one set
    x_hat = view.x_hat
    for s in sets:
        assert abs(x_hat[s].mean()) < 1e-12
        np.testing.assert_allclose(x_hat[s].var(), 1, rtol=1e-3)
    # a set is whole H×W planes: batch's spans the images, the others one
    planes = [np.argwhere(s.all(axis=(2, 3))) for s in sets]
    assert all(len(p) * 6 == m for p in planes)
    images = {len(set(p[:, 0])) for p in planes}
    assert images == ({2} if kind == "batch" else {1})


def test_norm_sets_are_torchs_normalisations(make):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x = np.random.default_rng(3).standard_normal((3, 6, 2, 3))
    tx = torch.tensor(x)
    theirs = {
        "batch": tf.batch_norm(tx, None, None, training=True),
        "layer": tf.layer_norm(tx, (6, 2, 3)),
        "group": tf.group_norm(tx, 3),
        "instance": tf.instance_norm(tx),
    }
    for kind, want in theirs.items():
        view = make(viz.NormSetsView, batch=3, input_size=(2, 3), groups=3,
                    kind=kind, x=x)
        assert view.synthetic == {}
        np.testing.assert_allclose(view.x_hat, want.numpy(), rtol=1e-10,
                                   atol=1e-12)
        # the last frame's grid shows x̂ of every set, plane (n, c) at
        # block (n, c)
        view.update(view.n_frames - 1)
        shown = _shown(view, "xh")
        assert not np.ma.getmaskarray(shown).any()
        np.testing.assert_allclose(
            np.ma.getdata(shown).reshape(3, 2, 6, 3).transpose(0, 2, 1, 3),
            want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", list(NORM_SETS))
def test_norm_sets_outline_the_set_and_write_its_x_hat(make, kind):
    view = make(viz.NormSetsView, kind=kind)
    sets = view.sets()
    for k in (0, 1, view.n_frames - 1):
        view.update(k)
        grid = sets[k].transpose(0, 2, 1, 3).reshape(6, 12)  # as drawn
        r, c, h, w = view.drawn().panels["xh"].marks["set"]
        box = np.zeros_like(grid)
        box[r:r + h, c:c + w] = True
        np.testing.assert_array_equal(box, grid)
        # written: the sets so far, and no other cell
        done = np.sum(sets[:k + 1], axis=0).astype(bool)
        written = ~np.ma.getmaskarray(_shown(view, "xh"))
        np.testing.assert_array_equal(
            written, done.transpose(0, 2, 1, 3).reshape(6, 12))


@pytest.mark.parametrize("kind, words", [
    ("batch", "channel 1 of every image: one μ, σ over (N, H, W), "
              "M = N·H·W = 2·3·2 = 12"),
    ("layer", "image 1, every channel: one μ, σ over (C, H, W), "
              "M = C·H·W = 6·3·2 = 36"),
    ("group", "image 0, group 1 (channels 3–5): one μ, σ over "
              "(C/G, H, W), M = (C/G)·H·W = 3·3·2 = 18"),
    ("instance", "image 0, channel 1 alone: one μ, σ over (H, W), "
                 "M = H·W = 3·2 = 6"),
])  # fmt: skip
def test_norm_sets_caption_names_the_set_its_axes_and_m(make, kind, words):
    view = make(viz.NormSetsView, kind=kind)
    view.update(1)
    head = f"step 2/{NORM_SETS[kind][0]}:  "
    assert view.caption == head + words
    e, x = view.events[1], view.model_.planes["x"][view.sets()[1]]
    assert (e.mean, e.sigma) == (x.mean(), np.sqrt(x.var() + 1e-5))
    assert view.title.startswith(f"{kind} norm: ")


def test_norm_sets_kind_is_a_menu_the_player_rebuilds_on(make):
    view = make(viz.NormSetsView)
    sc = view.scene()
    kind = next(c for c in sc["controls"] if c["name"] == "kind")
    assert kind["kind"] == "choice" and kind["value"] == "batch"
    assert kind["choices"] == ["batch", "layer", "group", "instance"]
    assert "kind=batch, groups=2, batch=2" == sc["subtitle"]
    ui = view.widget()
    ui.params = {**ui.params, "kind": "layer"}
    assert ui.error == "" and ui.view.params["kind"] == "layer"
    assert ui.scene["steps"] == 2 and ui.scene["title"].startswith("layer")
    # 6 channels do not split into 4 groups: refused, the view unchanged
    ui.params = {**ui.params, "kind": "group", "groups": 4}
    assert "groups must divide channels" in ui.error
    assert ui.params["kind"] == "layer" and ui.view.params["kind"] == "layer"
    ui.params = {**ui.params, "kind": "norm"}
    assert "kind must be one of" in ui.error


def test_norm_sets_groups_matter_for_group_norm_only(make):
    # layer norm is group norm with G = 1, instance norm with G = C
    x = np.random.default_rng(5).standard_normal((2, 6, 3, 2))
    one = make(viz.NormSetsView, kind="group", groups=1, x=x)
    every = make(viz.NormSetsView, kind="group", groups=6, x=x)
    layer = make(viz.NormSetsView, kind="layer", groups=4, x=x)  # ignored
    inst = make(viz.NormSetsView, kind="instance", groups=5, x=x)
    assert np.array_equal(one.x_hat, layer.x_hat)
    assert np.array_equal(every.x_hat, inst.x_hat)
    assert [s.sum() for s in layer.sets()] == [36, 36]
    assert one.synthetic == {}


@pytest.mark.parametrize("kwargs, words", [
    (dict(kind="Batch"), "kind must be one of 'batch', 'layer', 'group', "
                         "'instance'; got 'Batch'"),
    (dict(kind="group", groups=4), "groups must divide channels: 6 channels "
                                   "do not split into 4 groups"),
    (dict(groups=0), "groups must be a positive int, got 0"),
    (dict(batch=1.0), "batch must be a positive int"),
    (dict(input_size=(0, 3)), "input_size"),
    (dict(eps=float("nan")), "eps must be a finite number >= 0"),
    (dict(channels=400, input_size=(40, 40)), "input_size is too large"),
])  # fmt: skip
def test_norm_sets_view_names_a_bad_parameter(kwargs, words):
    import re

    with pytest.raises(ValueError, match=re.escape(words)):
        viz.NormSetsView(**kwargs)


@pytest.mark.parametrize("kind", ["batch", "group"])
def test_a_click_on_an_element_picks_its_sets_step(make, kind):
    view = make(viz.NormSetsView, kind=kind, batch=3, input_size=(2, 3))
    sets = view.sets()
    for panel in view.scene()["panels"]:
        picks = np.array(panel["picks"]).reshape(3, 2, 6, 3)  # n, h, c, w
        for (n, h, c, w), step in np.ndenumerate(picks):
            assert sets[step][n, c, h, w]
    # other views list no picks: their scenes are as they were
    other = make(viz.BatchNormBackwardView)
    assert all("picks" not in p for p in other.scene()["panels"])
