"""The gradient views and traces: dw, the channel sums, the receptive field,
the convolution matrix. Their last frames are what torch computes."""

from __future__ import annotations

import numpy as np
import pytest

from convgrad import adjoint, trace, viz


def _at(view, panel, role):
    """The ``(row, col)`` of outline ``role`` on ``panel`` in the picture of
    the frame on show; None when it is hidden."""
    where = view.drawn().panels[panel].marks[role]
    return None if where is None else where[:2]


def _shown(view, panel):
    """What ``panel`` shows in the picture of the frame on show (masked
    where a cell is not written yet)."""
    return view.drawn().panels[panel].values

GEOMETRIES = [
    # n, c_in, c_out, groups, k, stride, padding, dilation, size
    (2, 4, 6, 2, 3, 2, 1, 1, 7),
    (1, 2, 2, 1, 3, 1, 1, 2, 6),
    (2, 3, 3, 3, 2, 2, 0, 1, 5),
    (1, 1, 1, 1, 3, 3, 2, 1, 4),
]


@pytest.mark.parametrize("n, ci, co, g, k, s, p, d, size", GEOMETRIES)
def test_gradient_traces_replay_torchs_gradients(torch, n, ci, co, g, k, s, p, d, size):
    rng = np.random.default_rng(k * 10 + s)
    x = rng.standard_normal((n, ci, size, size))
    w = rng.standard_normal((co, ci // g, k, k))
    tx, tw = torch.tensor(x), torch.tensor(w)
    y = torch.nn.functional.conv2d(tx, tw, stride=s, padding=p, dilation=d, groups=g)
    dy = rng.standard_normal(tuple(y.shape))
    tdy = torch.tensor(dy)
    want_w = torch.nn.grad.conv2d_weight(tx, w.shape, tdy, s, p, d, g).numpy()
    want_x = torch.nn.grad.conv2d_input(x.shape, tw, tdy, s, p, d, g).numpy()
    got_w = trace.replay(trace.conv2d_weight(x, w.shape, dy, s, p, d, g))
    got_x = trace.replay(trace.conv2d_input(x.shape, w, dy, s, p, d, g))
    np.testing.assert_allclose(got_w, want_w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_x, want_x, rtol=1e-12, atol=1e-12)


def test_gradient_traces_check_their_arguments():
    x, w = np.zeros((1, 2, 5, 5)), np.zeros((2, 2, 3, 3))
    with pytest.raises(ValueError, match="grad_output must have"):
        trace.conv2d_weight(x, w.shape, np.zeros((1, 2, 2, 2)))
    with pytest.raises(ValueError, match="groups"):
        trace.conv2d_input(x.shape, w, np.zeros((1, 2, 3, 3)), groups=3)
    with pytest.raises(TypeError, match="weight_size"):
        trace.conv2d_weight(x, 3, np.zeros((1, 2, 3, 3)))


def test_dx_trace_visits_every_output_channel_of_the_group():
    x_shape, w = (1, 4, 4, 4), np.ones((4, 2, 1, 1))
    events = list(trace.conv2d_input(x_shape, w, np.ones((1, 4, 4, 4)), groups=2))
    senders = {c: set() for c in range(4)}
    for e in events:
        senders[e.dst[1]].add(e.b[1])
    assert senders == {0: {0, 1}, 1: {0, 1}, 2: {2, 3}, 3: {2, 3}}


@pytest.fixture
def make():
    made = []

    def build(cls, **kwargs):
        made.append(cls(**kwargs))
        return made[-1]

    yield build
    for v in made:
        v.close()


def test_weight_grad_view_ends_at_conv2ds_weight_gradient(make, torch):
    view = make(
        viz.WeightGradView, input_size=(5, 5), kernel_size=3, stride=2, padding=1
    )
    x, dy = view.model_.planes["x"], view.model_.planes["dy"]
    want = torch.nn.grad.conv2d_weight(
        torch.tensor(x[None, None]), (1, 1, 3, 3), torch.tensor(dy[None, None]), 2, 1
    )
    view.update(view.n_frames - 1)
    shown = np.ma.getdata(_shown(view, "dw"))
    np.testing.assert_allclose(shown, want.numpy()[0, 0], atol=1e-12)
    e = view.events[5]
    view.update(5)
    assert _at(view, "dy", "src") == e.a[2:]
    assert _at(view, "dw", "dst") == e.dst[2:]
    assert "dy[" in view.caption and "dw[" in view.caption


@pytest.mark.parametrize("mode", ["dx", "dw"])
def test_channels_view_ends_at_torchs_gradient(make, torch, mode):
    view = make(viz.ChannelsView, mode=mode, padding=1, kernel_size=2)
    m = view.model_
    if mode == "dx":
        dy, w = m.planes["dy"], m.planes["w"]
        want = torch.nn.grad.conv2d_input(
            (1, 2, 3, 3), torch.tensor(w), torch.tensor(dy), 1, 1
        )
        view.update(view.n_frames - 1)
        for c in range(2):
            shown = np.ma.getdata(_shown(view, f"dx0_{c}"))
            np.testing.assert_allclose(shown, want.numpy()[0, c], atol=1e-12)
        # every output channel reaches dx[0, 0]
        assert {e.b[1] for e in view.events if e.dst[1] == 0} == {0, 1}
    else:
        x, dy = m.planes["x"], m.planes["dy"]
        want = torch.nn.grad.conv2d_weight(
            torch.tensor(x), (2, 1, 2, 2), torch.tensor(dy), 1, 1
        )
        view.update(view.n_frames - 1)
        shown = np.ma.getdata(_shown(view, "dw"))
        np.testing.assert_allclose(
            shown, viz.grad_views.block(want.numpy()), atol=1e-12
        )
        # dw collects from both images
        assert {e.a[0] for e in view.events} == {0, 1}


def test_channels_view_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match="mode must be"):
        viz.ChannelsView(mode="dy")


def test_receptive_field_grows_and_piles_up_in_the_middle(make):
    view = make(viz.ReceptiveFieldView, layers=3, input_size=(15, 15))
    assert view.n_frames == 3
    spans = [e.box[2] for e in view.events]
    assert spans == [3, 5, 7]  # 1 + 2 per layer of a 3x3 kernel
    last = view.model_.states[-1]
    assert last.max() == last[7, 7] == 49  # (1 3 6 7 6 3 1) squared: 7·7
    assert last.sum() == 9**3  # every path through three all-ones kernels
    shares = [e.centre_share for e in view.events]
    assert shares[0] == 1.0 and shares[0] > shares[1] > shares[2] > 0
    dilated = make(viz.ReceptiveFieldView, layers=2, dilation=2)
    assert dilated.events[-1].box[2] == 9 and (dilated.model_.states[-1] == 0).any()
    with pytest.raises(ValueError, match="layers"):
        viz.ReceptiveFieldView(layers=0)


def test_conv_matrix_is_the_convolution_and_its_transpose_the_backward(torch):
    rng = np.random.default_rng(5)
    w = rng.standard_normal((3, 3))
    for stride, padding, dilation, size in [(1, 0, 1, 4), (2, 1, 1, 5), (1, 2, 2, 6)]:
        c = adjoint.conv_matrix(w, (size, size), stride, padding, dilation)
        x = rng.standard_normal((size, size))
        tx = torch.tensor(x[None, None], requires_grad=True)
        y = torch.nn.functional.conv2d(
            tx,
            torch.tensor(w[None, None]),
            stride=stride,
            padding=padding,
            dilation=dilation,
        )
        np.testing.assert_allclose(c @ x.ravel(), y.detach().numpy().ravel())
        dy = rng.standard_normal(tuple(y.shape))
        y.backward(torch.tensor(dy))
        np.testing.assert_allclose(c.T @ dy.ravel(), tx.grad.numpy().ravel())
        # <Cx, dy> = <x, Cᵀdy>: the adjoint identity
        assert np.isclose((c @ x.ravel()) @ dy.ravel(), x.ravel() @ (c.T @ dy.ravel()))
    with pytest.raises(ValueError, match="2-D kernel"):
        adjoint.conv_matrix(np.ones((1, 1, 3, 3)), (4, 4))


def test_conv_matrix_figure_shows_c_and_its_transpose():
    fig = viz.conv_matrix_figure(input_size=(4, 4), kernel_size=3)
    panels = fig.drawn().panels
    from convgrad.viz._data import numbers

    c = adjoint.conv_matrix(numbers(0, (3, 3), 7), (4, 4))
    np.testing.assert_array_equal(np.ma.getdata(panels["C"].values), c)
    np.testing.assert_array_equal(np.ma.getdata(panels["CT"].values), c.T)
    # the zeros blank and white: the sparsity shows
    np.testing.assert_array_equal(np.ma.getmaskarray(panels["C"].values), c == 0)
    assert (panels["C"].fills[c == 0] == 255).all()
    assert (panels["C"].fills[c != 0] != 255).any(axis=-1).all()
    assert fig._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"


def test_transposed_conv_view_stamps_ones_by_default(make):
    view = make(viz.ConvTransposeView, input_size=(3, 3), kernel_size=3, stride=2)
    view.update(view.n_frames - 1)
    y = np.ma.getdata(_shown(view, "y"))
    np.testing.assert_array_equal(y, trace.overlap_count((7, 7), 3, stride=2))
    assert set(np.unique(y)) == {1, 2, 4}  # the checkerboard, in counts


def test_padding_products_say_which_side_is_padding():
    x, w = np.ones((1, 1, 3, 3)), np.ones((1, 1, 3, 3))
    dy = np.ones((1, 1, 3, 3))
    dw_pad = next(
        e for e in trace.conv2d_weight(x, w.shape, dy, padding=1) if e.padding
    )
    assert "x[" in dw_pad.describe("dy", "x", "dw").split(":")[1]
    assert "is padding" in dw_pad.describe("dy", "x", "dw")
    dx_pad = next(e for e in trace.conv2d_input(x.shape, w, dy, padding=1) if e.padding)
    text = dx_pad.describe("w", "dy", "dx")
    assert "lands in the padding at dx[" in text and "dy" not in text.split("·")[-1]


# --------------------------------------------------------------------------
# the convolution matrix, played; the checkerboard in the gradient
# --------------------------------------------------------------------------


def test_conv_matrix_view_builds_c_row_by_row(make):
    w = np.array([[0.1, 0.2, -0.3], [-0.4, 0.5, 0.6], [0.7, -0.8, 0.9]])
    view = make(viz.ConvMatrixView, w=w)
    assert view.synthetic == {} and view.n_frames == 4 * 9
    c = adjoint.conv_matrix(w, (4, 4))
    view.update(view.n_frames - 1)
    np.testing.assert_array_equal(np.ma.getdata(_shown(view, "C")), c)
    # the zeros are never written: blank, so the sparsity shows
    hidden = np.ma.getmaskarray(_shown(view, "C"))
    np.testing.assert_array_equal(hidden, c == 0)
    # row by row: the first 9 steps write row 0, the window of output 0
    assert [e.k for e in view.events[:9]] == [0] * 9
    view.update(5)
    e = view.events[5]
    assert _at(view, "C", "dst") == (e.k, e.p)
    assert _at(view, "w", "src") == e.tap
    assert _at(view, "x", "src") == e.pixel
    assert f"C[{e.k},{e.p}]" in view.caption and "row k=0" in view.caption


def test_conv_matrix_view_backward_is_ct_dy_column_by_column(make, torch):
    w = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9]])
    dy = np.array([[1.0, -2.0], [0.5, 3.0]])
    view = make(viz.ConvMatrixView, w=w, dy=dy, backward=True, padding=1,
                stride=2, input_size=(4, 4))  # fmt: skip
    c = adjoint.conv_matrix(w, (4, 4), 2, 1)
    view.update(view.n_frames - 1)
    dx = np.ma.getdata(_shown(view, "dx"))
    np.testing.assert_allclose(dx.ravel(), c.T @ dy.ravel())
    tx = torch.zeros((1, 1, 4, 4), dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.conv2d(tx, torch.tensor(w[None, None]), stride=2,
                                   padding=1)  # fmt: skip
    y.backward(torch.tensor(dy[None, None]))
    np.testing.assert_allclose(dx, tx.grad.numpy()[0, 0])
    # while column k plays, the column panel is column k of Cᵀ as an image
    for i in (0, 9, view.n_frames - 1):
        view.update(i)
        e = view.events[i]
        col = np.ma.getdata(_shown(view, "col"))
        np.testing.assert_array_equal(col, c.T[:, e.k].reshape(4, 4))
        assert _at(view, "dy", "src") == divmod(e.k, 2)
    assert [e.k for e in view.events] == sorted(e.k for e in view.events)
    assert any(e.padding for e in view.events)
    pad = next(e for e in view.events if e.padding)
    assert "lands on padding: dropped" in pad.describe()
    assert "Cᵀ" in view.title and "col2im" in view.title


def test_conv_matrix_view_names_bad_parameters(make):
    with pytest.raises(ValueError, match="backward must be True or False"):
        viz.ConvMatrixView(backward="yes")
    with pytest.raises(ValueError, match="input_size"):
        viz.ConvMatrixView(input_size=0)
    with pytest.raises(ValueError, match="does not fit"):
        viz.ConvMatrixView(kernel_size=5)
    view = make(viz.ConvMatrixView, w=np.ones((2, 2)))  # the kernel is 3x3
    assert set(view.synthetic) == {"w"} and "stand-in" in view.drawn().panels["w"].title


def test_gradient_checkerboard_view_ends_at_the_overlap_count(make):
    view = make(viz.GradientCheckerboardView)
    view.update(view.n_frames - 1)
    dx = np.ma.getdata(_shown(view, "dx"))
    count = trace.overlap_count((7, 7), 3, stride=2)
    np.testing.assert_array_equal(dx, count)
    assert set(np.unique(dx)) == {1, 2, 4}
    assert view.drawn().panels["count"].title == "overlap count: 1, 2, 4"
    e = view.events[4]
    view.update(4)
    assert _at(view, "dy", "src") == e.b[2:]
    assert _at(view, "w", "src") == e.a[2:]
    assert _at(view, "dx", "dst") == e.dst[2:]


def test_gradient_checkerboard_view_plays_the_learners_numbers(make, torch):
    rng = np.random.default_rng(2)
    w, dy = rng.standard_normal((3, 3)), rng.standard_normal((5, 4))
    view = make(viz.GradientCheckerboardView, input_size=(9, 8), w=w, dy=dy,
                padding=1)  # fmt: skip
    assert view.synthetic == {}
    want = torch.nn.grad.conv2d_input(
        (1, 1, 9, 8), torch.tensor(w[None, None]), torch.tensor(dy[None, None]),
        2, 1,
    )
    view.update(view.n_frames - 1)
    dx = np.ma.getdata(_shown(view, "dx"))
    np.testing.assert_allclose(dx, want.numpy()[0, 0], atol=1e-12)
    view.rebuild(stride=1)  # dy no longer fits: a marked stand-in
    assert set(view.synthetic) == {"dy"}


@pytest.mark.parametrize("cls, kwargs", [
    (viz.ConvMatrixView, {}),
    (viz.ConvMatrixView, {"backward": True}),
    (viz.GradientCheckerboardView, {}),
])  # fmt: skip
def test_the_new_views_embed_every_step(cls, kwargs):
    import json
    import re

    view = cls(**kwargs)
    n = view.n_frames
    try:
        viz.display_as("embed")
        page = view._repr_mimebundle_()[0]["text/html"]
    finally:
        viz.display_as("live")
    data = re.search(r'class="cgs-data">(.*?)</script>', page, re.S).group(1)
    scene = json.loads(data.replace("<\\/", "</"))
    assert scene["steps"] == len(scene["frames"]) == n
