"""unfold, fold, conv2d and conv_transpose2d against torch and finite
differences, plus the adjoint identity of im2col and col2im."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check_op

import convgrad as cg
from convgrad import F

pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("each_backend")]
DTYPES = [np.float32, np.float64]

CONV_CASES = [
    # x shape, w shape, kwargs
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), {"stride": 2, "padding": 1}),
    ((1, 2, 9, 8), (3, 2, 2, 3), {"stride": (3, 2), "padding": (0, 2)}),
    ((2, 4, 8, 7), (6, 2, 3, 3), {"groups": 2, "dilation": 2, "padding": 2}),
    ((2, 4, 6, 6), (4, 1, 3, 3), {"groups": 4, "padding": 1}),  # depthwise
    ((1, 2, 7, 7), (3, 2, 2, 2), {"stride": 3}),  # stride > kernel
    ((2, 2, 6, 5), (3, 2, 4, 2), {"padding": "same"}),  # even kernel
    ((2, 2, 6, 5), (3, 2, 3, 3), {"padding": "same", "dilation": (2, 1)}),
    ((2, 2, 6, 5), (3, 2, 3, 3), {"padding": "valid"}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs, ws, kw", CONV_CASES)
def test_conv2d_matches_torch(xs, ws, kw, dtype, rng, torch):
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    b = rng.standard_normal(ws[0])
    check_op(
        lambda x, w, b: F.conv2d(x, w, b, **kw),
        lambda x, w, b: torch.nn.functional.conv2d(x, w, b, **kw),
        [x, w, b],
        dtype=dtype,
    )


def test_conv2d_negative_inputs_with_padding(rng, torch):
    # padding is zero for a conv: with all-negative inputs the border
    # outputs differ from the interior ones, and the gradients must agree
    x = -np.abs(rng.standard_normal((1, 1, 5, 5))) - 1
    w = rng.standard_normal((2, 1, 3, 3))
    check_op(
        lambda x, w: F.conv2d(x, w, padding=2, stride=2),
        lambda x, w: torch.nn.functional.conv2d(x, w, padding=2, stride=2),
        [x, w],
    )


TRANSPOSE_CASES = [
    ((2, 3, 4, 5), (3, 2, 3, 3), {}),
    ((2, 3, 4, 5), (3, 2, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 3, 3), (4, 3, 3, 2), {"stride": (2, 3), "groups": 2}),
    ((1, 2, 4, 3), (2, 2, 3, 3), {"stride": 2, "dilation": 3, "output_padding": 2}),
    ((2, 2, 3, 3), (2, 1, 4, 4), {"stride": 2, "padding": (1, 2)}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs, ws, kw", TRANSPOSE_CASES)
def test_conv_transpose2d_matches_torch(xs, ws, kw, dtype, rng, torch):
    g = kw.get("groups", 1)
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    b = rng.standard_normal(ws[1] * g)
    check_op(
        lambda x, w, b: F.conv_transpose2d(x, w, b, **kw),
        lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, **kw),
        [x, w, b],
        dtype=dtype,
    )


UNFOLD_CASES = [
    ((2, 3, 6, 5), {"kernel_size": 3}),
    ((1, 2, 7, 7), {"kernel_size": (2, 3), "stride": 2, "padding": 1}),
    ((2, 1, 8, 6), {"kernel_size": 2, "dilation": (2, 3), "padding": (1, 0)}),
    ((1, 1, 7, 7), {"kernel_size": 2, "stride": 3}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs, kw", UNFOLD_CASES)
def test_unfold_and_fold_match_torch(xs, kw, dtype, rng, torch):
    x = rng.standard_normal(xs)
    check_op(
        lambda x: F.unfold(x, **kw),
        lambda x: torch.nn.functional.unfold(x, **kw),
        [x],
        dtype=dtype,
    )
    col = torch.nn.functional.unfold(torch.tensor(x), **kw).numpy()
    check_op(
        lambda c: F.fold(c, xs[2:], **kw),
        lambda c: torch.nn.functional.fold(c, xs[2:], **kw),
        [rng.standard_normal(col.shape)],
        dtype=dtype,
    )


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (
            lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
            [(1, 2, 5, 4), (2, 2, 3, 3), (2,)],
        ),
        (
            lambda x, w: F.conv2d(x, w, dilation=2, groups=2, padding="same"),
            [(1, 2, 5, 5), (4, 1, 2, 3)],
        ),
        (
            lambda x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1),
            [(1, 2, 3, 3), (2, 1, 3, 3)],
        ),
        (lambda x: F.unfold(x, 2, dilation=2, padding=1, stride=2), [(1, 1, 5, 4)]),
        (lambda c: F.fold(c, (4, 4), 2, stride=1), [(1, 4, 9)]),
    ],
)
def test_gradcheck_conv_ops(fn, shapes, rng):
    inputs = [rng.standard_normal(s) for s in shapes]
    assert cg.gradcheck(fn, inputs).ok


window_args = st.fixed_dictionaries(
    {
        "kernel_size": st.tuples(st.integers(1, 3), st.integers(1, 3)),
        "stride": st.tuples(st.integers(1, 3), st.integers(1, 3)),
        "padding": st.tuples(st.integers(0, 2), st.integers(0, 2)),
        "dilation": st.tuples(st.integers(1, 2), st.integers(1, 2)),
    }
)


def _fits(hw, a):
    return all(
        d * (k - 1) + 1 <= s + 2 * p
        for s, k, p, d in zip(
            hw, a["kernel_size"], a["padding"], a["dilation"], strict=True
        )
    )


@settings(max_examples=40, deadline=None)
@given(
    hw=st.tuples(st.integers(3, 8), st.integers(3, 8)),
    args=window_args,
    seed=st.integers(0, 2**16),
)
def test_adjoint_identity(hw, args, seed):
    """<im2col(x), r> == <x, col2im(r)> for any stride, padding, dilation."""
    if not _fits(hw, args):
        return
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, *hw))
    col = F.unfold(x, **args).data
    r = rng.standard_normal(col.shape)
    back = F.fold(r, hw, **args).data
    assert np.isclose(np.vdot(col, r), np.vdot(x, back), rtol=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    hw=st.tuples(st.integers(3, 8), st.integers(3, 8)),
    args=window_args,
    groups=st.sampled_from([1, 2]),
    cout_per_group=st.integers(1, 2),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_conv2d_property_against_torch(hw, args, groups, cout_per_group, bias, seed):
    if not _fits(hw, args):
        return
    import torch

    rng = np.random.default_rng(seed)
    c_in, c_out = 2 * groups, cout_per_group * groups
    x = rng.standard_normal((2, c_in, *hw))
    w = rng.standard_normal((c_out, c_in // groups, *args["kernel_size"]))
    b = rng.standard_normal(c_out) if bias else None
    kw = {k: v for k, v in args.items() if k != "kernel_size"}
    check_op(
        lambda x, w, b: F.conv2d(x, w, b, groups=groups, **kw),
        lambda x, w, b: torch.nn.functional.conv2d(x, w, b, groups=groups, **kw),
        [x, w, b],
        seed=seed,
    )


@settings(max_examples=40, deadline=None)
@given(
    hw=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    args=window_args,
    groups=st.sampled_from([1, 2]),
    op=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    seed=st.integers(0, 2**16),
)
def test_conv_transpose2d_property_against_torch(hw, args, groups, op, seed):
    import torch

    s, d, p, k = args["stride"], args["dilation"], args["padding"], args["kernel_size"]
    op = tuple(min(o, max(si, di) - 1) for o, si, di in zip(op, s, d, strict=True))
    out = [
        (h - 1) * si - 2 * pi + di * (ki - 1) + oi + 1
        for h, si, pi, di, ki, oi in zip(hw, s, p, d, k, op, strict=True)
    ]
    if min(out) < 1:
        return
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2 * groups, *hw))
    w = rng.standard_normal((2 * groups, 2, *k))
    b = rng.standard_normal(2 * groups)
    kw = {"stride": s, "padding": p, "dilation": d, "output_padding": op}
    check_op(
        lambda x, w, b: F.conv_transpose2d(x, w, b, groups=groups, **kw),
        lambda x, w, b: torch.nn.functional.conv_transpose2d(
            x, w, b, groups=groups, **kw
        ),
        [x, w, b],
        seed=seed,
    )


def test_col2im_adds_overlaps_rather_than_inverting():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    back = F.fold(F.unfold(x, 3), (4, 4), 3).data
    # the centre pixels are seen by 4 windows, the corners by 1
    counts = F.fold(F.unfold(np.ones_like(x), 3), (4, 4), 3).data
    np.testing.assert_array_equal(
        counts[0, 0], [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]]
    )
    np.testing.assert_allclose(back, x * counts)


@settings(max_examples=40, deadline=None)
@given(
    hw=st.tuples(st.integers(3, 8), st.integers(3, 8)),
    args=window_args,
    seed=st.integers(0, 2**16),
)
def test_unfold_and_fold_property_against_torch(hw, args, seed):
    if not _fits(hw, args):
        return
    import torch

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2, *hw))
    tf = torch.nn.functional
    check_op(lambda x: F.unfold(x, **args), lambda x: tf.unfold(x, **args), [x])
    col = tf.unfold(torch.tensor(x), **args).numpy()
    check_op(
        lambda c: F.fold(c, hw, **args),
        lambda c: tf.fold(c, hw, **args),
        [rng.standard_normal(col.shape)],
        seed=seed,
    )


# --------------------------------------------------------------------------
# unbatched input: (C, H, W) for the convs and unfold, (C*KH*KW, L) for fold
# --------------------------------------------------------------------------

UNBATCHED_CONV_CASES = [
    *[(xs[1:], ws, kw) for xs, ws, kw in CONV_CASES[:4]],
    # big enough for the Numba backend's fast path (Winograd in float32)
    ((16, 48, 48), (32, 16, 3, 3), {"padding": 1}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs, ws, kw", UNBATCHED_CONV_CASES)
def test_unbatched_conv2d_matches_torch(xs, ws, kw, dtype, rng, torch):
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    b = rng.standard_normal(ws[0])
    y = check_op(
        lambda x, w, b: F.conv2d(x, w, b, **kw),
        lambda x, w, b: torch.nn.functional.conv2d(x, w, b, **kw),
        [x, w, b],
        dtype=dtype,
    )
    assert y.ndim == 3
    batched = F.conv2d(x[None].astype(dtype), w.astype(dtype), b.astype(dtype), **kw)
    np.testing.assert_array_equal(y.data, batched.data[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs, ws, kw", TRANSPOSE_CASES[:3])
def test_unbatched_conv_transpose2d_matches_torch(xs, ws, kw, dtype, rng, torch):
    g = kw.get("groups", 1)
    check_op(
        lambda x, w, b: F.conv_transpose2d(x, w, b, **kw),
        lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, **kw),
        [rng.standard_normal(xs[1:]), rng.standard_normal(ws),
         rng.standard_normal(ws[1] * g)],
        dtype=dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs, kw", UNFOLD_CASES)
def test_unbatched_unfold_and_fold_match_torch(xs, kw, dtype, rng, torch):
    x = rng.standard_normal(xs[1:])
    col = check_op(
        lambda x: F.unfold(x, **kw),
        lambda x: torch.nn.functional.unfold(x, **kw),
        [x],
        dtype=dtype,
    )
    assert col.ndim == 2  # (C*KH*KW, L), as torch gives
    y = check_op(
        lambda c: F.fold(c, xs[2:], **kw),
        lambda c: torch.nn.functional.fold(c, xs[2:], **kw),
        [rng.standard_normal(col.shape)],
        dtype=dtype,
    )
    assert y.shape == xs[1:]


def test_unbatched_conv2d_double_backward_matches_torch(rng, torch):
    x = rng.standard_normal((2, 6, 5))
    w = rng.standard_normal((3, 2, 3, 3))
    u = rng.standard_normal((3, 4, 3))
    ours = [cg.Tensor(a, requires_grad=True) for a in (x, w)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w)]
    (gx,) = cg.grad(F.conv2d(*ours), ours[0], u, create_graph=True)
    (tgx,) = torch.autograd.grad(
        torch.nn.functional.conv2d(*theirs), theirs[0], torch.tensor(u),
        create_graph=True,
    )
    v = rng.standard_normal(x.shape)
    (gw,) = cg.grad(gx, ours[1], v)
    (tgw,) = torch.autograd.grad(tgx, theirs[1], torch.tensor(v))
    np.testing.assert_allclose(gx.data, tgx.detach().numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(gw.data, tgw.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(
    "call",
    [
        lambda: F.conv2d(np.zeros((2, 3)), np.zeros((1, 1, 1, 1))),
        lambda: F.conv_transpose2d(np.zeros((1, 2, 2, 3, 3)), np.zeros((2, 1, 1, 1))),
        lambda: F.unfold(np.zeros(5), 1),
    ],
)
def test_other_ranks_name_both_accepted_layouts(call):
    with pytest.raises(ValueError, match=r"input must be 3-D \(unbatched: .*\) or 4-D"):
        call()


def test_an_unbatched_input_error_says_it_ran_as_a_batch_of_one():
    with pytest.raises(ValueError, match=r"in_channels.*unbatched input of shape "
                       r"\(3, 5, 5\) runs as a batch of one, of shape \(1, 3, 5, 5\)"):
        F.conv2d(np.zeros((3, 5, 5)), np.zeros((2, 4, 3, 3)))
