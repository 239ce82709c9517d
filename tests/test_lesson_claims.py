"""The numbers the lessons and plans state, computed with convgrad's own
ops and cross-checked with torch, on both backends (issue 28).

Each test names the lesson or plan whose sentence it backs; if one of
them fails, the sentence is wrong, not only the code."""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, adjoint, geometry, nn, upsample

pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("each_backend")]


def _round_trip_counts(size, kernel_size, stride, padding):
    """``fold(unfold(ones))``: how many windows copy each pixel."""
    ones = np.ones((1, 1, size, size))
    kw = dict(kernel_size=kernel_size, stride=stride, padding=padding)
    return F.fold(F.unfold(ones, **kw), (size, size), **kw).data[0, 0]


# --------------------------------------------------------------------------
# lesson 2's table of named paddings, and plan 02, question 6
# --------------------------------------------------------------------------


def _torch_conv(torch, x, w, padding):
    return torch.nn.functional.conv2d(
        torch.tensor(x), torch.tensor(w), padding=padding).numpy()


@pytest.mark.parametrize("size, k", [(7, 3), (28, 5), (9, 7), (6, 3)])
def test_no_half_and_full_padding_give_the_sizes_lesson_2_tabulates(
    size, k, torch
):
    """Stride 1, odd k: padding 0 gives H - k + 1, k // 2 gives H, k - 1
    gives H + k - 1 (plan 02, question 6: k = 5 on 28x28 gives 24, 28
    and 32)."""
    rng = np.random.default_rng(size * 10 + k)
    x = rng.standard_normal((1, 2, size, size))
    w = rng.standard_normal((3, 2, k, k))
    table = [(0, size - k + 1), (k // 2, size), (k - 1, size + k - 1)]
    assert len({oh for _, oh in table}) == 3
    for p, oh in table:
        assert geometry.conv_out_size(size, k, 1, p, 1) == oh
        ours = F.conv2d(x, w, padding=p).data
        assert ours.shape == (1, 3, oh, oh)
        np.testing.assert_allclose(ours, _torch_conv(torch, x, w, p),
                                   rtol=1e-10, atol=1e-10)
    if (size, k) == (28, 5):
        assert [oh for _, oh in table] == [24, 28, 32]
    # the names are the numbers: "valid" is no padding, "same" half
    for named, p in (("valid", 0), ("same", k // 2)):
        ours = F.conv2d(x, w, padding=named).data
        np.testing.assert_array_equal(ours, F.conv2d(x, w, padding=p).data)
        np.testing.assert_allclose(ours, _torch_conv(torch, x, w, named),
                                   rtol=1e-10, atol=1e-10)


def test_same_padding_of_an_even_kernel_adds_the_extra_row_at_the_bottom(
    torch
):
    """Lesson 2: with an even kernel, "same" pads one more row and column
    at the bottom and right, as torch does."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 1, 6, 6))
    w = rng.standard_normal((1, 1, 4, 4))  # 3 rows of padding: 1 + 2
    same = F.conv2d(x, w, padding="same").data
    assert same.shape == (1, 1, 6, 6)
    lopsided = np.pad(x, ((0, 0), (0, 0), (1, 2), (1, 2)))
    np.testing.assert_allclose(same, F.conv2d(lopsided, w).data,
                               rtol=1e-12, atol=1e-12)
    other_way = np.pad(x, ((0, 0), (0, 0), (2, 1), (2, 1)))
    assert not np.allclose(same, F.conv2d(other_way, w).data)
    np.testing.assert_allclose(same, _torch_conv(torch, x, w, "same"),
                               rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------
# plan 03, question 1: kernel 3, stride 1 on a 5x5 image
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "padding, corner, edges, centre",
    [
        (1, 4, {6}, 9),  # the lesson's cell: padding 1
        (0, 1, {2, 3}, 9),  # no padding: the border is read far less often
    ],
)
def test_overlap_counts_of_kernel_3_stride_1_on_5x5(
    padding, corner, edges, centre, torch
):
    count = _round_trip_counts(5, 3, 1, padding)
    tk = dict(kernel_size=3, stride=1, padding=padding)
    theirs = torch.nn.functional.fold(
        torch.nn.functional.unfold(torch.ones(1, 1, 5, 5, dtype=torch.float64),
                                   **tk),
        (5, 5), **tk,
    )[0, 0].numpy()
    np.testing.assert_array_equal(count, theirs)
    assert {count[0, 0], count[0, -1], count[-1, 0], count[-1, -1]} == {corner}
    border = np.concatenate(
        [count[0, 1:-1], count[-1, 1:-1], count[1:-1, 0], count[1:-1, -1]]
    )
    assert set(border.tolist()) == edges
    assert count[2, 2] == centre


# --------------------------------------------------------------------------
# plan 07, question 3, and lesson 7: kernel 4, stride 2 is no cure
# --------------------------------------------------------------------------


def _transposed_of_constant(w):
    """``conv_transpose2d`` of a constant 6x6 image with kernel ``w``
    (4x4), stride 2: ours, and torch's for the same numbers."""
    return F.conv_transpose2d(np.ones((1, 1, 6, 6)), w[None, None], stride=2)


def test_kernel_4_stride_2_is_uniform_only_for_a_constant_kernel(torch):
    out = _transposed_of_constant(np.ones((4, 4))).data[0, 0]
    assert out.shape == (14, 14)
    np.testing.assert_array_equal(out[2:-2, 2:-2], 4.0)  # even overlap


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_4_stride_2_alternates_with_period_2_for_random_weights(
    seed, torch
):
    w = np.random.default_rng(seed).standard_normal((4, 4))
    out = _transposed_of_constant(w).data[0, 0]
    theirs = torch.nn.functional.conv_transpose2d(
        torch.ones(1, 1, 6, 6, dtype=torch.float64),
        torch.tensor(w[None, None]), stride=2,
    )[0, 0].numpy()
    np.testing.assert_allclose(out, theirs, rtol=1e-12, atol=1e-12)
    inner = out[2:-2, 2:-2]  # every pixel covered by exactly 2x2 stamps
    # output (r, c) adds the taps of w whose row and column have the
    # parities of r and c: four sums, one per parity class
    sums = np.array([[w[a::2, b::2].sum() for b in (0, 1)] for a in (0, 1)])
    np.testing.assert_allclose(inner, np.tile(sums, (5, 5)), rtol=1e-12)
    np.testing.assert_allclose(inner[2:], inner[:-2])  # period 2 down
    np.testing.assert_allclose(inner[:, 2:], inner[:, :-2])  # and across
    assert len(np.unique(np.round(inner, 12))) == 4  # a checkerboard


def _phase_spread_of_constant(model):
    """The checkerboard ``model`` draws on a constant 8x8 image: the
    relative spread of its output's 4 phase means, away from the border."""
    return upsample.phase_spread(model(np.ones((1, 1, 8, 8))).data[0, 0,
                                                                  2:-2, 2:-2])


def test_learned_kernel_4_stride_2_weights_leave_a_checkerboard():
    """Lesson 7 and plan 07's misconception: 300 SGD steps toward a
    nearest-neighbour 2x upsampler (a target with no checkerboard, which
    this layer could represent) fit it well, yet the 4 phases of a
    constant image still differ by a few percent; resize-then-convolve,
    trained the same way, is flat before and after."""
    # the layer can match the target exactly: [0, 1, 1, 0] along each axis
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8))
    exact = np.outer([0.0, 1, 1, 0], [0.0, 1, 1, 0])[None, None]
    np.testing.assert_array_equal(
        F.conv_transpose2d(x, exact, stride=2, padding=1).data,
        upsample.nearest_resize(x))
    up4 = nn.ConvTranspose2d(1, 1, 4, stride=2, padding=1, bias=False,
                             generator=1, dtype=np.float64)
    assert _phase_spread_of_constant(up4) > 1  # random: a strong pattern
    losses = upsample.fit_upsampler(up4, up4.parameters(), 300, lr=0.02,
                                    seed=1)
    assert losses[-1] < losses[0] / 100  # it learned the upsampler
    learned = _phase_spread_of_constant(up4)
    assert 0.01 < learned < 0.1  # 4.5%: a checkerboard of learned weights
    # the phase means are the kernel's phase sums, as for random weights
    w = up4.weight.data[0, 0]
    sums = np.array([[w[a::2, b::2].sum() for b in (1, 0)] for a in (1, 0)])
    np.testing.assert_allclose(
        upsample.phase_means(up4(np.ones((1, 1, 8, 8))).data[0, 0, 2:-2,
                                                             2:-2]),
        sums, rtol=1e-12)
    # it fades only as training goes on: 300 more steps, smaller still
    upsample.fit_upsampler(up4, up4.parameters(), 300, lr=0.02, seed=2)
    assert 0 < _phase_spread_of_constant(up4) < learned / 5

    conv = nn.Conv2d(1, 1, 3, padding=1, bias=False, generator=1,
                     dtype=np.float64)

    def resize_conv(x):
        return conv(upsample.nearest_resize(x))

    assert _phase_spread_of_constant(resize_conv) < 1e-12
    upsample.fit_upsampler(resize_conv, conv.parameters(), 300, lr=0.02,
                           seed=1)
    assert _phase_spread_of_constant(resize_conv) < 1e-12


@pytest.mark.parametrize("seed", [0, 1])
def test_resize_then_conv_is_flat_for_any_weights(seed, torch):
    w = np.random.default_rng(seed).standard_normal((1, 1, 3, 3))
    out = F.conv2d(upsample.nearest_resize(np.ones((1, 1, 6, 6))), w,
                   padding=1).data[0, 0]
    np.testing.assert_allclose(out[1:-1, 1:-1], w.sum(), rtol=1e-12)
    theirs = torch.nn.functional.conv2d(
        torch.nn.functional.interpolate(
            torch.ones(1, 1, 6, 6, dtype=torch.float64), scale_factor=2,
            mode="nearest"),
        torch.tensor(w), padding=1)[0, 0].numpy()
    np.testing.assert_allclose(out, theirs, rtol=1e-12)


@pytest.mark.parametrize("r, k, p", [(2, 3, 1), (2, 3, 0), (3, 2, 1)])
def test_subpixel_conv_is_a_transposed_conv(r, k, p, torch):
    """Lesson 7: pixel_shuffle(conv2d(x, w, padding=p), r) is
    conv_transpose2d with stride r, padding r*(K-1-p), kernel r*K."""
    rng = np.random.default_rng(r * 10 + k + p)
    x = rng.standard_normal((2, 3, 5, 4))
    w = rng.standard_normal((2 * r * r, 3, k, k))
    shuffled = F.pixel_shuffle(F.conv2d(x, w, padding=p), r).data
    v, pad = upsample.subpixel_as_transposed(w, r, p)
    assert v.shape == (3, 2, r * k, r * k) and pad == r * (k - 1 - p)
    stamped = F.conv_transpose2d(x, v, stride=r, padding=pad).data
    np.testing.assert_allclose(stamped, shuffled, rtol=1e-10, atol=1e-12)
    theirs = torch.nn.functional.pixel_shuffle(
        torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w),
                                   padding=p), r).numpy()
    np.testing.assert_allclose(shuffled, theirs, rtol=1e-10, atol=1e-12)


def test_icnr_makes_a_flat_subpixel_conv_and_random_does_not():
    ones = np.ones((1, 1, 8, 8))
    rand = np.random.default_rng(3).standard_normal((4, 1, 3, 3))
    flat = upsample.icnr((4, 1, 3, 3), 2, generator=3)
    for w, spread in ((rand, lambda s: s > 0.1), (flat, lambda s: s < 1e-12)):
        out = F.pixel_shuffle(F.conv2d(ones, w, padding=1), 2).data[0, 0]
        assert spread(upsample.phase_spread(out[2:-2, 2:-2]))
    # ICNR's sub-pixel conv is a resize of a plain conv
    plain = F.conv2d(ones, flat[::4], padding=1).data
    np.testing.assert_allclose(
        F.pixel_shuffle(F.conv2d(ones, flat, padding=1), 2).data,
        upsample.nearest_resize(plain), rtol=1e-12)


# conv_arithmetic's transposed cases: (name, input, kernel, stride,
# padding, output_padding, output)
TRANSPOSED_SIZES = [
    ("no padding, unit strides", 2, 3, 1, 0, 0, 4),
    ("padding, unit strides", 6, 4, 1, 2, 0, 5),
    ("half padding", 5, 3, 1, 1, 0, 5),
    ("full padding", 7, 3, 1, 2, 0, 5),
    ("no padding, strides", 2, 3, 2, 0, 0, 5),
    ("padding, strides", 3, 3, 2, 1, 0, 5),
    ("padding, strides, odd", 3, 3, 2, 1, 1, 6),
]


@pytest.mark.parametrize("name, i, k, s, p, op, o", TRANSPOSED_SIZES)
def test_transposed_conv_size_table(name, i, k, s, p, op, o, torch):
    """Lesson 7's table of conv_arithmetic's named transposed cases."""
    assert geometry.conv_transpose_out_size(i, k, s, p, op) == o
    ours = F.conv_transpose2d(np.zeros((1, 1, i, i)), np.zeros((1, 1, k, k)),
                              stride=s, padding=p, output_padding=op)
    theirs = torch.nn.functional.conv_transpose2d(
        torch.zeros(1, 1, i, i), torch.zeros(1, 1, k, k), stride=s,
        padding=p, output_padding=op)
    assert ours.shape[2:] == tuple(theirs.shape[2:]) == (o, o)
    # each is the adjoint of the conv that maps o back to i
    assert geometry.conv_out_size(o, k, s, p, 1) == i


# --------------------------------------------------------------------------
# lesson 8: a zero gradient inside the receptive field
# --------------------------------------------------------------------------


def test_receptive_field_can_hold_a_zero_gradient(torch):
    """Kernels [1, -1] then [1, 1]: one output reads 3 pixels, yet the
    middle one's gradient is 0 (the two paths through it cancel)."""
    w1 = np.array([[[[1.0, -1.0]]]])
    w2 = np.array([[[[1.0, 1.0]]]])
    x = cg.Tensor(np.random.default_rng(0).standard_normal((1, 1, 1, 5)),
                  requires_grad=True)
    y = F.conv2d(F.conv2d(x, w1), w2)
    seed = np.zeros(y.shape)
    seed[0, 0, 0, 0] = 1.0
    y.backward(seed)
    np.testing.assert_array_equal(x.grad[0, 0, 0], [1.0, 0.0, -1.0, 0.0, 0.0])
    tx = torch.tensor(x.data, requires_grad=True)
    ty = torch.nn.functional.conv2d(
        torch.nn.functional.conv2d(tx, torch.tensor(w1)), torch.tensor(w2)
    )
    ty.backward(torch.tensor(seed))
    np.testing.assert_array_equal(x.grad, tx.grad.numpy())
    # the receptive field is all 3 pixels: the same stack with weights
    # that do not cancel gives each of them a non-zero gradient
    reach = np.flatnonzero(_grad_of_first_output(x.data, np.abs(w1), w2))
    assert reach.tolist() == [0, 1, 2]


def _grad_of_first_output(x, w1, w2):
    t = cg.Tensor(x, requires_grad=True)
    y = F.conv2d(F.conv2d(t, w1), w2)
    seed = np.zeros(y.shape)
    seed[0, 0, 0, 0] = 1.0
    y.backward(seed)
    return t.grad[0, 0, 0]


# --------------------------------------------------------------------------
# plan 12, exercises 12.3 and 12.4: batch norm in training mode
# --------------------------------------------------------------------------


def test_one_number_per_channel_gets_no_gradient_and_torch_refuses_it(torch):
    """12.3: with N = H = W = 1, x̂ = 0 and dx = 0 whatever dy is; torch
    (and convgrad) refuse to normalise one value per channel."""
    from convgrad.exercises import solution

    dy = np.random.default_rng(2).standard_normal((1, 3, 1, 1))
    dx, dgamma, dbeta = solution("batch_norm_backward")(
        dy, np.zeros((1, 3, 1, 1)), np.array([0.5, 1.0, 2.0]), np.ones(3))
    np.testing.assert_array_equal(dx, 0.0)
    np.testing.assert_array_equal(dbeta, dy.ravel())
    for fn in (F.batch_norm, torch.nn.functional.batch_norm):
        x = np.ones((1, 3, 1, 1))
        with pytest.raises(ValueError, match="more than 1 value per channel"):
            fn(torch.tensor(x) if fn is not F.batch_norm else x, None, None,
               training=True)


def test_a_conv_bias_before_batch_norm_gets_no_gradient(torch):
    """12.4: the batch's mean removes the conv's bias, so its gradient is
    Σ dx over the channel: 0 (to rounding), and β does its job."""
    rng = np.random.default_rng(3)
    img, w = rng.standard_normal((2, 1, 5, 5)), rng.standard_normal((2, 1, 3, 3))
    b = cg.Tensor(rng.standard_normal(2), requires_grad=True)
    y = F.batch_norm(F.conv2d(img, w, b), None, None, np.array([1.5, 0.8]),
                     np.array([0.2, -0.4]), training=True)
    dy = rng.standard_normal(y.shape)
    y.backward(dy)
    tb = torch.tensor(b.data, requires_grad=True)
    ty = torch.nn.functional.batch_norm(
        torch.nn.functional.conv2d(torch.tensor(img), torch.tensor(w), tb),
        None, None, torch.tensor([1.5, 0.8], dtype=torch.float64),
        torch.tensor([0.2, -0.4], dtype=torch.float64),
        training=True)
    ty.backward(torch.tensor(dy))
    np.testing.assert_allclose(b.grad, 0.0, atol=1e-12)
    np.testing.assert_allclose(tb.grad.numpy(), 0.0, atol=1e-12)


# --------------------------------------------------------------------------
# lesson and plan 12 (issue 45): layer, group and instance norm are batch
# norm's three-term dx with the statistics over other axes
# --------------------------------------------------------------------------


def _norm_dx(x, dy, gamma, shape, axes, eps=1e-5):
    """Plan 12's one backward: dx̂ = γ·dy, the means over ``axes`` of the
    view ``shape``."""
    xs = x.reshape(shape)
    sigma = np.sqrt(xs.var(axis=axes, keepdims=True) + eps)
    x_hat = (xs - xs.mean(axis=axes, keepdims=True)) / sigma
    g = (dy * gamma).reshape(shape)
    mg = g.mean(axis=axes, keepdims=True)
    mgx = (g * x_hat).mean(axis=axes, keepdims=True)
    return ((g - mg - x_hat * mgx) / sigma).reshape(x.shape)


_N, _C, _H, _W = 3, 4, 2, 3
_NORMS = {  # name: (γ's shape, the view the statistics see, their axes)
    "batch": ((_C, 1, 1), (_N, _C, _H, _W), (0, 2, 3)),
    "layer": ((_C, _H, _W), (_N, _C, _H, _W), (1, 2, 3)),
    "group": ((_C, 1, 1), (_N, 2, _C // 2, _H, _W), (2, 3, 4)),
    "instance": ((_C, 1, 1), (_N, _C, 1, _H, _W), (2, 3, 4)),
}


def _torch_norm(torch, name, tx, gamma):
    tf, g = torch.nn.functional, torch.tensor(gamma)
    if name == "batch":
        return tf.batch_norm(tx, None, None, g.flatten(), training=True)
    if name == "layer":
        return tf.layer_norm(tx, (_C, _H, _W), g)
    return tf.group_norm(tx, 2 if name == "group" else _C, g.flatten())


@pytest.mark.parametrize("name", list(_NORMS))
def test_one_backward_over_the_normalised_axes_is_each_norms(name, torch):
    """Lesson 12: the same dx, parametrised by the axes, matches torch's
    batch_norm, layer_norm and group_norm (G = 2, and G = C: instance
    norm) at float64, γ given, with a random dy."""
    rng = np.random.default_rng(12)
    gshape, shape, axes = _NORMS[name]
    x = rng.standard_normal((_N, _C, _H, _W))
    dy = rng.standard_normal(x.shape)
    gamma = rng.uniform(0.5, 1.5, gshape)
    tx = torch.tensor(x, requires_grad=True)
    (tdx,) = torch.autograd.grad(_torch_norm(torch, name, tx, gamma), tx,
                                 torch.tensor(dy))
    np.testing.assert_allclose(_norm_dx(x, dy, gamma, shape, axes),
                               tdx.numpy(), rtol=1e-10, atol=1e-12)
    if name == "instance":
        ti = torch.tensor(x, requires_grad=True)
        y = torch.nn.functional.instance_norm(ti) * torch.tensor(gamma)
        (tdi,) = torch.autograd.grad(y, ti, torch.tensor(dy))
        np.testing.assert_allclose(tdi.numpy(), tdx.numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_only_batch_norms_dx_reaches_the_other_images():
    """Lesson 12: with dy in image 0 only, batch norm's dx reaches images
    1 and 2; layer, group and instance norm's stay in image 0."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((_N, _C, _H, _W))
    dy = np.zeros(x.shape)
    dy[0] = rng.standard_normal((_C, _H, _W))
    for name, (gshape, shape, axes) in _NORMS.items():
        gamma = rng.uniform(0.5, 1.5, gshape)
        dx = _norm_dx(x, dy, gamma, shape, axes)
        reach = np.abs(dx).max(axis=(1, 2, 3)) > 1e-12
        assert reach.tolist() == ([True] * 3 if name == "batch"
                                  else [True, False, False]), name


def test_layer_norms_gamma_factored_out_gets_dx_wrong():
    """Plan 12: layer norm's γ is per element, so it must go into dx̂
    before the means; factored out as γ/σ, as batch norm allows, dx is
    wrong."""
    rng = np.random.default_rng(14)
    gshape, shape, axes = _NORMS["layer"]
    x = rng.standard_normal((_N, _C, _H, _W))
    dy = rng.standard_normal(x.shape)
    gamma = rng.uniform(0.5, 1.5, gshape)
    right = _norm_dx(x, dy, gamma, shape, axes)
    factored = gamma * _norm_dx(x, dy, np.ones(gshape), shape, axes)
    assert np.abs(factored - right).max() > 0.1 * np.abs(right).max()


# --------------------------------------------------------------------------
# issue 45: lesson 2's column ratios, lesson 3's overlap view, lesson 7's
# parity rule for both paddings, plan 00's flipped kernel, lesson 9's report
# --------------------------------------------------------------------------


def _col_ratio(size, k, padding):
    x = np.zeros((1, 1, size, size))
    return F.unfold(x, k, padding=padding).size / x.size


@pytest.mark.parametrize("size, k, padding, ratio", [
    (7, 3, 1, 9.0),  # half padding: exactly KH·KW
    (28, 5, 2, 25.0),
    (7, 3, 0, 4.6),  # no padding: fewer windows than pixels
    (7, 3, 2, 14.9),  # full padding: more than KH·KW
    (28, 5, 4, 32.7),
])
def test_lesson_2_columns_are_kh_kw_times_the_image_only_at_half_padding(
    size, k, padding, ratio, torch
):
    got = _col_ratio(size, k, padding)
    assert round(got, 1) == ratio
    assert (got > k * k) == (padding > (k - 1) // 2)
    theirs = torch.nn.functional.unfold(torch.zeros(1, 1, size, size), k,
                                        padding=padding)
    assert theirs.numel() / size**2 == got


def test_lesson_3_overlap_view_default_counts_0_1_2_and_4():
    from convgrad import trace, viz

    defaults = viz.OverlapView.defaults
    assert defaults == dict(input_size=(8, 8), kernel_size=3, stride=2,
                            padding=0, dilation=1)
    count = _round_trip_counts(8, 3, 2, 0)
    np.testing.assert_array_equal(
        trace.overlap_count(defaults["input_size"], 3, stride=2), count)
    assert sorted(set(count.ravel().tolist())) == [0, 1, 2, 4]
    # the last row and column: 3 + 2·2 = 7 < 8, no window reaches them
    assert not count[-1].any() and not count[:, -1].any()


@pytest.mark.parametrize("padding", [0, 1, 2, 3])
def test_lesson_7_parity_rule_depends_on_the_padding(padding, torch):
    """Kernel 4, stride 2: an inside output (r, c) adds the taps whose row
    and column have the parities of r + p and c + p; so at even padding an
    even-even output gets w[0::2, 0::2].sum(), at padding 1 (the
    upsampler lesson 7 trains) w[1::2, 1::2].sum()."""
    w = np.random.default_rng(padding).standard_normal((4, 4))
    out = F.conv_transpose2d(np.ones((1, 1, 6, 6)), w[None, None], stride=2,
                             padding=padding).data[0, 0]
    theirs = torch.nn.functional.conv_transpose2d(
        torch.ones(1, 1, 6, 6, dtype=torch.float64),
        torch.tensor(w[None, None]), stride=2, padding=padding)[0, 0]
    np.testing.assert_allclose(out, theirs.numpy(), rtol=1e-12, atol=1e-12)
    inside = range(2, out.shape[0] - 2)
    for r in inside:
        for c in inside:
            want = w[(r + padding) % 2::2, (c + padding) % 2::2].sum()
            assert out[r, c] == pytest.approx(want, rel=1e-12)
    even_even = w[0::2, 0::2].sum() if padding % 2 == 0 else w[1::2,
                                                                1::2].sum()
    other = w[1::2, 1::2].sum() if padding % 2 == 0 else w[0::2, 0::2].sum()
    assert out[2, 2] == pytest.approx(even_even, rel=1e-12)
    assert out[2, 2] != pytest.approx(other, rel=1e-6)


def _conv_grads(x, w, dy, padding):
    xt = cg.Tensor(x, requires_grad=True)
    wt = cg.Tensor(w, requires_grad=True)
    F.conv2d(xt, wt, padding=padding).backward(dy)
    return xt.grad[0, 0], wt.grad[0, 0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plan_00_an_all_ones_dy_lets_a_flipped_kernel_pass_a_check_of_totals(
    seed, torch
):
    """5x5 input, 3x3 kernel, padding 1, dy = 1: the flipped kernel's dx
    is right in the 3x3 interior and in total, wrong on the border; its dw
    is right at the centre tap and in total only. A random dy breaks the
    totals too."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, 1, 5, 5))
    w = rng.standard_normal((1, 1, 3, 3))
    ones = np.ones((1, 1, 5, 5))
    dx, dw = _conv_grads(x, w, ones, 1)
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    torch.nn.functional.conv2d(tx, tw, padding=1).backward(torch.ones(ones.shape,
                                                          dtype=torch.float64))
    np.testing.assert_allclose(dx, tx.grad.numpy()[0, 0], rtol=1e-12)
    np.testing.assert_allclose(dw, tw.grad.numpy()[0, 0], rtol=1e-12)
    # the flipped kernel's dx, and the flipped dw
    dx_flip = F.conv_transpose2d(ones, w[:, :, ::-1, ::-1],
                                 padding=1).data[0, 0]
    dw_flip = dw[::-1, ::-1]
    np.testing.assert_allclose(dx_flip[1:-1, 1:-1], dx[1:-1, 1:-1],
                               rtol=1e-12)
    assert dx_flip.sum() == pytest.approx(dx.sum(), rel=1e-12)
    border = ~np.isclose(dx_flip, dx)
    assert border[[0, -1]].any() and border[:, [0, -1]].any()
    assert not border[1:-1, 1:-1].any()
    assert dw_flip.sum() == pytest.approx(dw.sum(), rel=1e-12)
    assert np.isclose(dw_flip, dw).sum() == 1  # the centre tap alone
    # a random dy gives the flipped kernel away, totals included
    dy = rng.standard_normal((1, 1, 5, 5))
    dx_r, _ = _conv_grads(x, w, dy, 1)
    dx_r_flip = F.conv_transpose2d(dy, w[:, :, ::-1, ::-1],
                                   padding=1).data[0, 0]
    assert not np.isclose(dx_r_flip.sum(), dx_r.sum())
    assert not np.allclose(dx_r_flip[1:-1, 1:-1], dx_r[1:-1, 1:-1])


def test_plan_00_an_all_ones_dy_cannot_see_a_backward_that_ignores_dy():
    """Exercise 1.2's ``2*x + 1`` for ``dy * (2*x + 1)``: right everywhere
    when dy = 1, wrong everywhere else."""
    from convgrad.exercises import solution

    right = solution("square_plus_backward")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4))
    ones = np.ones_like(x)
    np.testing.assert_array_equal(right(x, ones), 2 * x + 1)
    dy = rng.standard_normal(x.shape)
    assert not np.isclose(right(x, dy), 2 * x + 1).any()


def test_a_gradcheck_report_is_as_true_as_its_verdict():
    """Issue 45, exercise 9.3: ``if not report:`` fires on a mismatch."""

    def detached_square(a):  # x**2 outside the graph: analytic grad 1
        return cg.Tensor(a.data ** 2) + a

    x = np.array([0.3, -0.7, 1.1])
    bad = cg.gradcheck(detached_square, [x], raise_exception=False)
    assert bad.ok is False and not bad and bool(bad) is False
    good = cg.gradcheck(lambda a: a * a + a, [x], raise_exception=False)
    assert good.ok is True and good and bool(good) is True
    worse = cg.gradgradcheck(lambda a: cg.Tensor(a.data ** 3) + a * a, [x],
                             raise_exception=False)
    assert bool(worse) == worse.ok


def test_lesson_00_exercise_3_a_second_backward_raises_a_new_forward_adds(
        torch):
    """Issue 45, statement 1: the second ``y.backward(dy)`` raises, as
    torch's does; after a new forward the gradients add onto the old ones
    (``w.grad`` doubles)."""
    rng = np.random.default_rng(0)
    x = cg.Tensor(rng.standard_normal((1, 1, 5, 5)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((2, 1, 3, 3)), requires_grad=True)
    b = cg.Tensor(rng.standard_normal(2), requires_grad=True)
    y = F.conv2d(x, w, b, padding=1)
    dy = rng.standard_normal(y.shape)
    y.backward(dy)
    first = w.grad.copy()
    with pytest.raises(RuntimeError, match="backward through the graph a "
                                           "second time"):
        y.backward(dy)
    np.testing.assert_array_equal(w.grad, first)  # nothing added
    tx = torch.tensor(x.data, requires_grad=True)
    tw = torch.tensor(w.data, requires_grad=True)
    ty = torch.nn.functional.conv2d(tx, tw, torch.tensor(b.data), padding=1)
    ty.backward(torch.tensor(dy))
    with pytest.raises(RuntimeError, match="second time"):
        ty.backward(torch.tensor(dy))
    y = F.conv2d(x, w, b, padding=1)
    y.backward(dy)
    np.testing.assert_allclose(w.grad, 2 * first, rtol=1e-12)
    np.testing.assert_allclose(first, tw.grad.numpy(), rtol=1e-10)


def test_lesson_00_lists_every_lesson_ahead():
    """Issue 45, statement 7: the table of what the lessons show stopped at
    lesson 10; it names every lesson after 00, in order."""
    import json
    import re
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "notebooks"
    lessons = sorted(p.name[:2] for p in folder.glob("[0-9][0-9]-*.ipynb"))
    nb = json.loads((folder / "00-start-here.ipynb").read_text("utf-8"))
    [table] = ["".join(c["source"]) for c in nb["cells"]
               if "## The lessons ahead" in "".join(c["source"])]
    listed = re.findall(r"^\| (\d\d) ", table, re.M)
    assert listed == lessons[1:]


def test_plan_10_exercise_10_2_runs_two_different_products():
    """Issue 45, statement 2: plan 10's answer to 10.2 said both backends
    hand the product to the same BLAS. The case is 18,874,368
    multiply-adds, above the Numba backend's threshold (2²³), so the Numba
    backend runs its own forward and the NumPy backend the textbook one;
    below the threshold both run the textbook forward."""
    from pathlib import Path

    from convgrad import backend
    from convgrad.exercises import solution

    macs = solution("conv2d_macs")((8, 16, 32, 32), (16, 16, 3, 3), 1, 1)
    assert macs == 18_874_368
    numba = backend.get("numba")
    assert numba.load().settings.min_work == 2**23 < macs
    assert numba.forward("conv2d", macs) is not None
    assert backend.get("numpy").forward("conv2d", macs) is None
    assert numba.forward("conv2d", 2**23 - 1) is None
    plan = next((Path(__file__).resolve().parents[1] / "course" / "plans")
                .glob("10-*.md")).read_text("utf-8")
    answer = plan[plan.index("**10.2 (think)**"):]
    answer = " ".join(answer[:answer.index("\n- **")].split())
    assert "18,874,368" in answer and "2²³" in answer
    assert "do **not** run the same product" in answer


# --------------------------------------------------------------------------
# issue 45, the anchors' material: lesson 5's max-pool as im2col + argmax
# and its tie conventions, lesson 10's gather, lesson 9's 1x1 conv
# --------------------------------------------------------------------------


def _first(cols):
    """(N, C, K, L) columns -> one-hot on each column's first maximum."""
    return np.eye(cols.shape[2])[cols.argmax(2)].swapaxes(2, 3)


def _last(cols):
    k = cols.shape[2]
    return np.eye(k)[k - 1 - cols[:, :, ::-1].argmax(2)].swapaxes(2, 3)


def _split(cols):
    tied = cols == cols.max(2, keepdims=True)
    return tied / tied.sum(2, keepdims=True)


def _pool_by_fold(x, dy, k, s, p=0, pick=_first):
    """Lesson 5: max-pool as unfold + argmax on x padded with -inf, and
    its dx as fold of pick's dcol, cropped. Returns (y, dx, won): won
    counts the windows each pixel won."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    y = np.take_along_axis(cols, cols.argmax(2)[:, :, None], 2)[:, :, 0]
    weights = pick(cols).astype(x.dtype)

    def fold(a):
        out = F.fold(a.reshape(n, c * k * k, -1), (h + 2 * p, w + 2 * p), k,
                     stride=s).data
        return out[:, :, p:p + h, p:p + w]

    return y.reshape(dy.shape), fold(weights * dy.reshape(n, c, 1, -1)), fold(
        weights)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k, s, p", [(3, 2, 0), (3, 2, 1), (3, 1, 1), (2, 2, 0),
                                     (4, 2, 2)])
def test_lesson_5_max_pool_is_unfold_argmax_and_fold_of_a_one_hot_dcol(
    k, s, p, dtype, torch
):
    """The forward bit for bit always; the backward bit for bit where one
    or two dy meet at a pixel, to rounding where more do (fold adds tap by
    tap, the routing window by window); convgrad's routing bit for bit
    with torch's."""
    rng = np.random.default_rng(k * 100 + s * 10 + p)
    x = rng.integers(0, 4, (2, 3, 9, 9)).astype(dtype)  # ties everywhere
    x[..., 2, 2] = 9  # a pixel that wins several windows
    xt = cg.Tensor(x, requires_grad=True)
    y = F.max_pool2d(xt, k, stride=s, padding=p)
    dy = rng.standard_normal(y.shape).astype(dtype)
    y.backward(dy)
    y_fold, dx_fold, won = _pool_by_fold(x, dy, k, s, p)
    np.testing.assert_array_equal(y_fold, y.data)
    few = won <= 2
    np.testing.assert_array_equal(dx_fold[few], xt.grad[few])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(dx_fold, xt.grad, rtol=tol, atol=tol)
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.nn.functional.max_pool2d(tx, k, s, p)
    np.testing.assert_array_equal(ty.detach().numpy(), y.data)
    ty.backward(torch.tensor(dy))
    np.testing.assert_array_equal(tx.grad.numpy(), xt.grad)


def test_lesson_5_fold_and_the_routing_can_differ_in_the_last_bit():
    """Lesson 5's "three or four may round differently": they do, here."""
    differ = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x = rng.integers(0, 4, (2, 3, 9, 9)).astype(float)
        x[..., 2, 2] = 9.0  # wins four windows
        xt = cg.Tensor(x, requires_grad=True)
        y = F.max_pool2d(xt, 3, stride=2)
        dy = rng.standard_normal(y.shape)
        y.backward(dy)
        _, dx_fold, won = _pool_by_fold(x, dy, 3, 2)
        assert won.max() == 4
        differ += int((dx_fold[won >= 3] != xt.grad[won >= 3]).any())
    assert 0 < differ < 20


LESSON_5_X = np.array([[1, 3, 0, 2, 1],
                       [0, 2, 1, 0, 3],
                       [4, 1, 4, 1, 0],
                       [2, 0, 1, 2, 4],
                       [1, 4, 0, 3, 2]], dtype=float).reshape(1, 1, 5, 5)


def test_lesson_5_the_printed_winners_and_tie_placements(torch):
    """Lesson 5's checked cells: the winning taps, the windows each pixel
    won, and dx at the four 4s under first, last and split."""
    x = LESSON_5_X
    cols = F.unfold(x, 3, stride=2).data.reshape(1, 1, 9, 4)
    assert cols.argmax(2).ravel().tolist() == [6, 6, 0, 0]
    dy = np.array([[2.0, -1.0], [3.0, 5.0]]).reshape(1, 1, 2, 2)
    _, _, won = _pool_by_fold(x, dy, 3, 2)
    assert np.argwhere(won[0, 0]).tolist() == [[2, 0], [2, 2]]
    assert won[0, 0, 2, 0] == won[0, 0, 2, 2] == 2
    fours = x[0, 0] == 4
    assert np.argwhere(fours).tolist() == [[2, 0], [2, 2], [3, 4], [4, 1]]
    xt = cg.Tensor(x, requires_grad=True)
    F.max_pool2d(xt, 3, stride=2).backward(dy)
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.max_pool2d(tx, 3, 2).backward(torch.tensor(dy))
    want = {_first: [5.0, 4.0, 0.0, 0.0], _last: [0.0, 1.0, 5.0, 3.0],
            _split: [2.0, 3.5, 2.5, 1.0]}
    for pick, placed in want.items():
        _, dx, _ = _pool_by_fold(x, dy, 3, 2, pick=pick)
        assert dx[0, 0][fours].tolist() == placed
        assert dx.sum() == dy.sum()
        assert np.array_equal(dx, xt.grad) == (pick is _first)
        assert np.array_equal(dx, tx.grad.numpy()) == (pick is _first)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lesson_5_every_tie_convention_is_a_subgradient(seed):
    """max(v + u) >= max(v) + g.u for first, last and split on every tied
    window; dy sent to a pixel that did not win breaks it."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, (1, 2, 7, 7)).astype(float)
    cols = F.unfold(x, 3, stride=2).data.reshape(1, 2, 9, -1)
    u = rng.standard_normal((500, 9))
    tied = 0
    for c in range(2):
        for j in range(cols.shape[3]):
            v = cols[0, c, :, j]
            if (v == v.max()).sum() < 2:
                continue
            tied += 1
            for pick in (_first, _last, _split):
                g = pick(cols)[0, c, :, j]
                assert g.min() >= 0 and g.sum() == pytest.approx(1)
                assert (g[v < v.max()] == 0).all()
                assert (np.max(v + u, 1) >= v.max() + u @ g - 1e-12).all()
            bad = np.eye(9)[v.argmin()]
            assert not (np.max(v + u, 1) >= v.max() + u @ bad - 1e-12).all()
    assert tied >= 3


def _real_reads(input_size, oh, k, s, p):
    """Lesson 10: how many real dy entries each pixel's gather reads (the
    stuffed dy's ones under its k x k taps)."""
    op = adjoint.output_padding((input_size,) * 2, (oh, oh), k, stride=s,
                                   padding=p)
    stuffed = adjoint.zero_stuff(np.ones((1, 1, oh, oh)), s)
    q = k - 1 - p
    padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + op[0]), (q, q + op[1])))
    return F.conv2d(padded, np.ones((1, 1, k, k))).data[0, 0]


@pytest.mark.parametrize("size, k, s, p", [(7, 3, 2, 1), (8, 3, 2, 1),
                                           (9, 3, 3, 0), (7, 3, 1, 1),
                                           (8, 4, 2, 1), (10, 5, 3, 2)])
def test_lesson_10_the_gather_equals_the_scatter_and_reads_the_overlap_map(
    size, k, s, p, torch
):
    """dx as a conv2d of the stuffed dy (the gather) equals col2im of
    W^T dy (the scatter), backward() and torch; the real dy entries each
    pixel's gather reads are lesson 3's overlap map."""
    from convgrad import trace

    rng = np.random.default_rng(size + 10 * k + 100 * s + 1000 * p)
    x = rng.standard_normal((2, 3, size, size))
    w = rng.standard_normal((4, 3, k, k))
    xt = cg.Tensor(x, requires_grad=True)
    y = F.conv2d(xt, w, stride=s, padding=p)
    dy = rng.standard_normal(y.shape)
    y.backward(dy)
    n, o, oh, ow = y.shape
    dcol = np.einsum("or,nol->nrl", w.reshape(o, -1), dy.reshape(n, o, -1))
    scatter = F.fold(dcol, (size, size), k, stride=s, padding=p).data
    gather = adjoint.dx_by_conv2d(dy, w, (size, size), stride=s, padding=p)
    np.testing.assert_allclose(gather, scatter, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(gather, xt.grad, rtol=1e-10, atol=1e-10)
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.conv2d(tx, torch.tensor(w), stride=s,
                               padding=p).backward(torch.tensor(dy))
    np.testing.assert_allclose(gather, tx.grad.numpy(), rtol=1e-10,
                               atol=1e-10)
    real = _real_reads(size, oh, k, s, p)
    np.testing.assert_array_equal(
        real, trace.overlap_count((size, size), k, stride=s, padding=p))
    if (size, k, s, p) == (7, 3, 2, 1):  # lesson 10's printed numbers
        assert (9 * real.size, int(real.sum())) == (441, 100)
        assert real[1, 1] == 4 and sorted(set(real.ravel())) == [1, 2, 4]


@pytest.mark.parametrize("shape", [(2, 4, 3, 5), (1, 3, 6, 6), (3, 2, 1, 4)])
def test_lesson_9_a_1x1_conv_is_the_linear_layer_at_every_pixel(shape, torch):
    """F.conv2d with a 1x1 kernel equals F.linear on the (N*H*W, C) pixel
    rows, forward and all three gradients; dw and db sum over N*H*W."""
    rng = np.random.default_rng(sum(shape))
    n, c, h, w_ = shape
    x = rng.standard_normal(shape)
    w = rng.standard_normal((5, c, 1, 1))
    b = rng.standard_normal(5)
    dy = rng.standard_normal((n, 5, h, w_))

    def pixels(a):
        return a.transpose(0, 2, 3, 1).reshape(-1, a.shape[1])

    conv = [cg.Tensor(a, requires_grad=True) for a in (x, w, b)]
    y = F.conv2d(*conv)
    y.backward(dy)
    lin = [cg.Tensor(a, requires_grad=True) for a in (pixels(x), w[:, :, 0, 0],
                                                     b)]
    y_lin = F.linear(*lin)
    y_lin.backward(pixels(dy))
    np.testing.assert_allclose(pixels(y.data), y_lin.data, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(pixels(conv[0].grad), lin[0].grad, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(conv[1].grad[:, :, 0, 0], lin[1].grad,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conv[2].grad, lin[2].grad, rtol=1e-12)
    np.testing.assert_allclose(lin[1].grad, pixels(dy).T @ pixels(x),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        y.data, np.einsum("oc,nchw->nohw", w[:, :, 0, 0], x)
        + b[:, None, None], rtol=1e-12, atol=1e-12)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    torch.nn.functional.conv2d(tx, tw, tb).backward(torch.tensor(dy))
    for ours, theirs in [(conv[0], tx), (conv[1], tw), (conv[2], tb)]:
        np.testing.assert_allclose(ours.grad, theirs.grad.numpy(),
                                   rtol=1e-10, atol=1e-10)
