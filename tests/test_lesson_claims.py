"""The numbers the lessons and plans state, computed with convgrad's own
ops and cross-checked with torch, on both backends (issue 28).

Each test names the lesson or plan whose sentence it backs; if one of
them fails, the sentence is wrong, not only the code."""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F

pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("each_backend")]


def _round_trip_counts(size, kernel_size, stride, padding):
    """``fold(unfold(ones))``: how many windows copy each pixel."""
    ones = np.ones((1, 1, size, size))
    kw = dict(kernel_size=kernel_size, stride=stride, padding=padding)
    return F.fold(F.unfold(ones, **kw), (size, size), **kw).data[0, 0]


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


# --------------------------------------------------------------------------
# plan 12, exercises 12.2 and 12.3: batch norm in training mode
# --------------------------------------------------------------------------


def test_one_number_per_channel_gets_no_gradient_and_torch_refuses_it(torch):
    """12.2: with N = H = W = 1, x̂ = 0 and dx = 0 whatever dy is; torch
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
    """12.3: the batch's mean removes the conv's bias, so its gradient is
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
