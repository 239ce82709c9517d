"""The numbers the lessons and plans state, computed with convgrad's own
ops and cross-checked with torch, on both backends (issue 28).

Each test names the lesson or plan whose sentence it backs; if one of
them fails, the sentence is wrong, not only the code."""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, geometry

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
