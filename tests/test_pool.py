"""max_pool2d, max_unpool2d, avg_pool2d and adaptive_avg_pool2d against
torch, finite differences and their own routing rules, on both backends."""

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


def _ties(rng, shape):
    """Integer values from a small range: many equal values in a window."""
    return rng.integers(-2, 3, shape).astype(np.float64)


def _mostly_negative(rng, shape):
    """Every real pixel negative: a pool that pads with 0 would pick 0."""
    return -np.abs(rng.standard_normal(shape)) - 0.5


def _with_nans(rng, shape):
    x = rng.standard_normal(shape)
    x[rng.random(shape) < 0.15] = np.nan
    return x


def _all_equal(rng, shape):
    return np.full(shape, 1.5)


def _minus_inf(rng, shape):
    """All -inf: the index must still point at a real pixel, as torch's."""
    return np.full(shape, -np.inf)


# --------------------------------------------------------------------------
# max_pool2d
# --------------------------------------------------------------------------

MAXPOOL_CASES = [
    # id, x shape, kwargs, input maker
    ("k2", (2, 3, 6, 4), {"kernel_size": 2}, None),
    ("k3s2 overlap", (2, 3, 9, 7), {"kernel_size": 3, "stride": 2}, None),
    ("stride=[] is kernel_size", (1, 2, 6, 5), {"kernel_size": 2, "stride": []}, None),
    ("non-square", (1, 2, 9, 8), {"kernel_size": (3, 2), "stride": (2, 3)}, None),
    ("stride > kernel", (2, 2, 8, 7), {"kernel_size": 2, "stride": 3}, None),
    (
        "-inf padding",
        (2, 2, 7, 6),
        {"kernel_size": 3, "stride": 2, "padding": 1},
        _mostly_negative,
    ),
    (
        "-inf padding, non-square",
        (1, 3, 5, 8),
        {"kernel_size": (2, 4), "stride": (1, 3), "padding": (1, 2)},
        _mostly_negative,
    ),
    ("ties", (2, 3, 8, 8), {"kernel_size": 3, "stride": 2, "padding": 1}, _ties),
    ("ties k2", (2, 3, 6, 6), {"kernel_size": 2}, _ties),
    (
        "all equal",
        (1, 2, 7, 7),
        {"kernel_size": 3, "stride": 2, "padding": 1},
        _all_equal,
    ),
    (
        "all -inf",
        (1, 2, 5, 5),
        {"kernel_size": 3, "stride": 2, "padding": 1},
        _minus_inf,
    ),
    ("NaN", (2, 2, 8, 7), {"kernel_size": 3, "stride": 2, "padding": 1}, _with_nans),
    ("NaN k2", (2, 2, 6, 6), {"kernel_size": 2}, _with_nans),
    ("dilation", (2, 2, 9, 8), {"kernel_size": 3, "dilation": 2, "padding": 1}, None),
    (
        "dilation non-square",
        (1, 2, 8, 9),
        {"kernel_size": (2, 3), "stride": 2, "dilation": (3, 2), "padding": (1, 1)},
        _ties,
    ),
    (
        "ceil overhang",
        (1, 2, 8, 7),
        {"kernel_size": 3, "stride": 2, "ceil_mode": True},
        None,
    ),
    (
        "ceil, last window would start in the right padding",
        (1, 2, 5, 5),
        {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True},
        _mostly_negative,
    ),
    (
        "ceil, window larger than the input",
        (1, 2, 1, 3),
        {"kernel_size": 2, "stride": 2, "ceil_mode": True},
        None,
    ),
    (
        "ceil + dilation + padding",
        (2, 1, 7, 8),
        {"kernel_size": 3, "stride": 3, "dilation": 2, "padding": 1, "ceil_mode": True},
        _ties,
    ),
]


def _make(maker, rng, shape):
    return rng.standard_normal(shape) if maker is None else maker(rng, shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, kw, maker",
    [c[1:] for c in MAXPOOL_CASES],
    ids=[c[0] for c in MAXPOOL_CASES],
)
def test_max_pool2d_matches_torch(shape, kw, maker, dtype, rng, torch):
    x = _make(maker, rng, shape)
    check_op(
        lambda x: F.max_pool2d(x, **kw),
        lambda x: torch.nn.functional.max_pool2d(x, **kw),
        [x],
        dtype=dtype,
    )
    y, idx = F.max_pool2d(x.astype(dtype), return_indices=True, **kw)
    ty, tidx = torch.nn.functional.max_pool2d(
        torch.tensor(x.astype(dtype)), return_indices=True, **kw
    )
    assert idx.dtype == np.int64
    np.testing.assert_array_equal(idx, tidx.numpy())
    np.testing.assert_array_equal(y.data, ty.numpy())  # a max is exact


def test_max_pool2d_indices_are_the_saved_routing(rng):
    x = cg.Tensor(rng.standard_normal((1, 2, 6, 6)), requires_grad=True)
    y, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    ctx = y.node.ctx
    np.testing.assert_array_equal(ctx.argmax, idx)
    assert ctx.x_shape == x.shape and ctx.win.k == (3, 3)
    idx[...] = 0  # the caller owns its copy; the routing is untouched
    assert ctx.argmax.any()


def test_overlapping_windows_add_routed_gradients(rng):
    # k3 s2 on 5x5: the four windows all contain pixel (2, 2); make it the
    # maximum of each, so each routes its dy there and they must add up
    x = rng.uniform(-1, 0, (1, 1, 5, 5))
    x[0, 0, 2, 2] = 10.0
    xt = cg.Tensor(x, requires_grad=True)
    y, idx = F.max_pool2d(xt, 3, stride=2, return_indices=True)
    assert y.shape == (1, 1, 2, 2)
    np.testing.assert_array_equal(idx, np.full((1, 1, 2, 2), 2 * 5 + 2))
    dy = rng.standard_normal(y.shape)
    y.backward(dy)
    expected = np.zeros_like(x)
    expected[0, 0, 2, 2] = dy.sum()
    np.testing.assert_allclose(xt.grad, expected, rtol=1e-12)
    # and the accumulation across backward calls adds as well
    F.max_pool2d(xt, 3, stride=2).backward(dy)
    np.testing.assert_allclose(xt.grad[0, 0, 2, 2], 2 * dy.sum(), rtol=1e-12)


def test_max_pool2d_tie_goes_to_the_first_maximum_and_nan_wins():
    x = np.array([[[[1.0, 3.0, 3.0, np.nan], [3.0, 2.0, np.nan, 9.0]]]])
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(idx, [[[[1, 6]]]])  # first 3; the last NaN
    assert y.data[0, 0, 0, 0] == 3.0 and np.isnan(y.data[0, 0, 0, 1])


# --------------------------------------------------------------------------
# avg_pool2d
# --------------------------------------------------------------------------

AVGPOOL_CASES = [
    ("k2", (2, 3, 6, 4), {"kernel_size": 2}),
    ("k3s2 overlap", (2, 3, 9, 7), {"kernel_size": 3, "stride": 2}),
    ("non-square", (1, 2, 9, 8), {"kernel_size": (3, 2), "stride": (2, 3)}),
    ("stride > kernel", (2, 2, 8, 7), {"kernel_size": 2, "stride": 3}),
    ("pad, counted", (2, 2, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1}),
    (
        "pad, not counted",
        (2, 2, 7, 6),
        {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    ),
    (
        "pad non-square, not counted",
        (1, 3, 5, 8),
        {
            "kernel_size": (2, 4),
            "stride": (1, 3),
            "padding": (1, 2),
            "count_include_pad": False,
        },
    ),
    ("ceil", (1, 2, 8, 7), {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
    (
        "ceil + pad, counted (window cut at the padding's edge)",
        (2, 2, 6, 7),
        {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    ),
    (
        "ceil + pad, not counted",
        (2, 2, 6, 7),
        {
            "kernel_size": 3,
            "stride": 2,
            "padding": 1,
            "ceil_mode": True,
            "count_include_pad": False,
        },
    ),
    (
        "ceil, last window would start in the right padding",
        (1, 2, 5, 5),
        {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True},
    ),
    (
        "divisor_override",
        (2, 2, 7, 6),
        {"kernel_size": 3, "stride": 2, "padding": 1, "divisor_override": 5},
    ),
    (
        "divisor_override, ceil, no pad count",
        (1, 2, 6, 7),
        {
            "kernel_size": (2, 3),
            "stride": 2,
            "padding": (1, 1),
            "ceil_mode": True,
            "count_include_pad": False,
            "divisor_override": 2,
        },
    ),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, kw", [c[1:] for c in AVGPOOL_CASES], ids=[c[0] for c in AVGPOOL_CASES]
)
def test_avg_pool2d_matches_torch(shape, kw, dtype, rng, torch):
    check_op(
        lambda x: F.avg_pool2d(x, **kw),
        lambda x: torch.nn.functional.avg_pool2d(x, **kw),
        [rng.standard_normal(shape)],
        dtype=dtype,
    )


# --------------------------------------------------------------------------
# max_unpool2d
# --------------------------------------------------------------------------

UNPOOL_CASES = [
    # id, x shape, pool kwargs, output_size, input maker
    ("k2", (2, 3, 6, 4), {"kernel_size": 2}, None, None),
    ("k2, odd input back to size", (2, 3, 7, 5), {"kernel_size": 2}, (7, 5), None),
    (
        "k3s2 (repeated indices)",
        (2, 2, 9, 7),
        {"kernel_size": 3, "stride": 2},
        None,
        _ties,
    ),
    (
        "k3s2 pad, N C H W size",
        (1, 2, 8, 7),
        {"kernel_size": 3, "stride": 2, "padding": 1},
        (1, 2, 8, 7),
        None,
    ),
    (
        "non-square stride > kernel",
        (1, 2, 9, 8),
        {"kernel_size": (2, 3), "stride": (3, 4)},
        (9, 8),
        None,
    ),
    ("ties", (2, 2, 6, 6), {"kernel_size": 2}, None, _ties),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, kw, output_size, maker",
    [c[1:] for c in UNPOOL_CASES],
    ids=[c[0] for c in UNPOOL_CASES],
)
def test_max_unpool2d_matches_torch(shape, kw, output_size, maker, dtype, rng, torch):
    x = _make(maker, rng, shape)
    pooled, idx = torch.nn.functional.max_pool2d(
        torch.tensor(x), return_indices=True, **kw
    )
    pooled = pooled.numpy()
    args = (kw["kernel_size"], kw.get("stride"), kw.get("padding", 0), output_size)
    y = check_op(
        lambda p: F.max_unpool2d(p, idx.numpy(), *args),
        lambda p: torch.nn.functional.max_unpool2d(p, idx, *args),
        [pooled],
        dtype=dtype,
    )
    # every pixel no index names is zero
    n, c = y.shape[:2]
    named = np.zeros(y.shape, dtype=bool).reshape(n, c, -1)
    np.put_along_axis(named, idx.numpy().reshape(n, c, -1), True, axis=2)
    assert not y.data[~named.reshape(y.shape)].any()


@pytest.mark.parametrize("dtype", DTYPES)
def test_pool_then_unpool_chain_matches_torch(dtype, rng, torch):
    # gradients flow back through both routings, ties included
    def ours(x):
        return F.max_unpool2d(
            *F.max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1, output_size=(7, 6)
        )

    def theirs(x):
        tf = torch.nn.functional
        return tf.max_unpool2d(
            *tf.max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1, output_size=(7, 6)
        )

    check_op(ours, theirs, [_ties(rng, (2, 2, 7, 6))], dtype=dtype)


# --------------------------------------------------------------------------
# adaptive_avg_pool2d
# --------------------------------------------------------------------------

ADAPTIVE_CASES = [
    ((2, 3, 7, 5), 1),  # global average
    ((2, 3, 7, 5), (1, 1)),
    ((2, 3, 8, 6), (4, 3)),  # divides: a plain avg pool
    ((2, 2, 7, 5), (3, 2)),  # uneven, overlapping bins
    ((1, 2, 7, 5), (4, None)),  # None keeps the width
    ((1, 2, 3, 4), (5, 7)),  # larger than the input
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, output_size", ADAPTIVE_CASES)
def test_adaptive_avg_pool2d_matches_torch(shape, output_size, dtype, rng, torch):
    check_op(
        lambda x: F.adaptive_avg_pool2d(x, output_size),
        lambda x: torch.nn.functional.adaptive_avg_pool2d(x, output_size),
        [rng.standard_normal(shape)],
        dtype=dtype,
    )


def test_global_average_is_the_mean(rng):
    x = rng.standard_normal((2, 3, 5, 4))
    y = F.adaptive_avg_pool2d(x, 1)
    np.testing.assert_allclose(y.data, x.mean(axis=(2, 3), keepdims=True))


def test_adaptive_pool_equals_avg_pool_when_the_size_divides(rng):
    x = rng.standard_normal((2, 2, 8, 6))
    np.testing.assert_allclose(
        F.adaptive_avg_pool2d(x, (4, 2)).data, F.avg_pool2d(x, (2, 3)).data
    )


# --------------------------------------------------------------------------
# properties: random valid (and invalid) configurations against torch
# --------------------------------------------------------------------------


@st.composite
def pool_configs(draw, dilation: bool):
    hw = draw(st.tuples(st.integers(1, 9), st.integers(1, 9)))
    k = draw(st.tuples(st.integers(1, 4), st.integers(1, 4)))
    s = draw(st.none() | st.tuples(st.integers(1, 4), st.integers(1, 4)))
    # up to one more than half the kernel: torch's padding rule gets tested too
    p = draw(st.tuples(st.integers(0, k[0] // 2 + 1), st.integers(0, k[1] // 2 + 1)))
    kw = {"kernel_size": k, "stride": s, "padding": p, "ceil_mode": draw(st.booleans())}
    if dilation:
        kw["dilation"] = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    return hw, kw


def _torch_or_error(fn):
    try:
        return fn()
    except (RuntimeError, ValueError):
        return None


@settings(max_examples=40, deadline=None)
@given(
    config=pool_configs(dilation=True), ties=st.booleans(), seed=st.integers(0, 2**16)
)
def test_max_pool2d_property_against_torch(config, ties, seed, torch):
    hw, kw = config
    rng = np.random.default_rng(seed)
    x = _ties(rng, (2, 2, *hw)) if ties else rng.standard_normal((2, 2, *hw))
    tf = torch.nn.functional
    theirs = _torch_or_error(lambda: tf.max_pool2d(torch.tensor(x), **kw))
    if theirs is None or torch.isinf(theirs).any():
        # torch refuses, or returns -inf for a window that sees only padding
        # (which we refuse: its index would point outside the input)
        with pytest.raises(ValueError, match="kernel|window|padding"):
            F.max_pool2d(x, **kw)
        return
    check_op(
        lambda x: F.max_pool2d(x, **kw),
        lambda x: tf.max_pool2d(x, **kw),
        [x],
        seed=seed,
    )
    _, idx = F.max_pool2d(x, return_indices=True, **kw)
    _, tidx = tf.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(idx, tidx.numpy())


@settings(max_examples=40, deadline=None)
@given(
    config=pool_configs(dilation=False),
    count_include_pad=st.booleans(),
    divisor_override=st.none() | st.integers(1, 5),
    seed=st.integers(0, 2**16),
)
def test_avg_pool2d_property_against_torch(
    config, count_include_pad, divisor_override, seed, torch
):
    hw, kw = config
    kw = {
        **kw,
        "count_include_pad": count_include_pad,
        "divisor_override": divisor_override,
    }
    x = np.random.default_rng(seed).standard_normal((2, 2, *hw))
    tf = torch.nn.functional
    if _torch_or_error(lambda: tf.avg_pool2d(torch.tensor(x), **kw)) is None:
        with pytest.raises(ValueError, match="kernel|padding"):
            F.avg_pool2d(x, **kw)
        return
    check_op(
        lambda x: F.avg_pool2d(x, **kw),
        lambda x: tf.avg_pool2d(x, **kw),
        [x],
        seed=seed,
    )


@settings(max_examples=40, deadline=None)
@given(
    config=pool_configs(dilation=False),
    give_size=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_max_unpool2d_property_against_torch(config, give_size, seed, torch):
    hw, kw = config
    x = _ties(np.random.default_rng(seed), (2, 2, *hw))
    tf = torch.nn.functional
    pooled = _torch_or_error(
        lambda: tf.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    )
    if pooled is None:
        return  # max_pool2d's own rules are the test above
    y, idx = pooled
    args = (kw["kernel_size"], kw["stride"], kw["padding"], hw if give_size else None)
    theirs = _torch_or_error(lambda: tf.max_unpool2d(y, idx, *args))
    if theirs is None:
        # e.g. ceil_mode made the input too long for the default output size
        with pytest.raises(ValueError, match="output_size|indices|padding"):
            F.max_unpool2d(y.numpy(), idx.numpy(), *args)
        return
    if theirs.numel() == 0:  # an empty plane, as torch returns it
        assert F.max_unpool2d(y.numpy(), idx.numpy(), *args).shape == theirs.shape
        return
    check_op(
        lambda p: F.max_unpool2d(p, idx.numpy(), *args),
        lambda p: tf.max_unpool2d(p, idx, *args),
        [y.numpy()],
        seed=seed,
    )


@settings(max_examples=40, deadline=None)
@given(
    hw=st.tuples(st.integers(1, 9), st.integers(1, 9)),
    out=st.tuples(st.integers(1, 10) | st.none(), st.integers(1, 10) | st.none()),
    seed=st.integers(0, 2**16),
)
def test_adaptive_avg_pool2d_property_against_torch(hw, out, seed, torch):
    x = np.random.default_rng(seed).standard_normal((2, 2, *hw))
    check_op(
        lambda x: F.adaptive_avg_pool2d(x, out),
        lambda x: torch.nn.functional.adaptive_avg_pool2d(x, out),
        [x],
        seed=seed,
    )


# --------------------------------------------------------------------------
# finite differences, float64
# --------------------------------------------------------------------------


def _distinct(rng, shape, spacing=0.25):
    """Values at least ``spacing`` apart: no near-ties for eps to cross."""
    size = int(np.prod(shape))
    return (rng.permutation(size) - size / 2).reshape(shape) * spacing


UNPOOL_IDX = np.array(
    [[[[0, 3, 4], [10, 12, 14], [20, 16, 24]], [[6, 2, 9], [5, 7, 19], [15, 21, 23]]]]
)


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda x: F.max_pool2d(x, 3, 2, 1), (1, 2, 6, 5)),
        (
            lambda x: F.max_pool2d(
                x, (2, 3), 2, (1, 1), dilation=(2, 1), ceil_mode=True
            ),
            (1, 2, 7, 6),
        ),
        (lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), (1, 2, 6, 5)),
        (lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), (1, 2, 6, 5)),
        (lambda x: F.avg_pool2d(x, (2, 3), 2, divisor_override=4), (1, 2, 6, 7)),
        (lambda x: F.max_unpool2d(x, UNPOOL_IDX, 2, output_size=(5, 5)), (1, 2, 3, 3)),
        (lambda x: F.adaptive_avg_pool2d(x, (3, 2)), (1, 2, 7, 5)),
        (lambda x: F.adaptive_avg_pool2d(x, 1), (2, 2, 4, 3)),
    ],
)
def test_gradcheck_pool_ops(fn, shape, rng):
    assert cg.gradcheck(fn, [_distinct(rng, shape)]).ok


# --------------------------------------------------------------------------
# bad input: a ValueError or TypeError that names the parameter
# --------------------------------------------------------------------------

x4 = np.zeros((2, 3, 6, 6))
p4 = np.zeros((2, 3, 3, 3))
i4 = np.zeros((2, 3, 3, 3), dtype=np.int64)

BAD = [
    # (call, exception, words the message must contain)
    (lambda: F.max_pool2d(np.zeros((6, 6)), 2), ValueError, ["input", "4-D"]),
    (lambda: F.max_pool2d(x4, 0), ValueError, ["kernel_size", "at least 1"]),
    (lambda: F.max_pool2d(x4, (2,)), TypeError, ["kernel_size", "(2,)"]),
    (lambda: F.max_pool2d(x4, 2.5), TypeError, ["kernel_size", "2.5"]),
    (lambda: F.max_pool2d(x4, 2, stride=0), ValueError, ["stride", "at least 1"]),
    (lambda: F.max_pool2d(x4, 3, padding=2), ValueError, ["padding=2", "half"]),
    (lambda: F.max_pool2d(x4, 3, padding=-1), ValueError, ["padding", "at least 0"]),
    (lambda: F.max_pool2d(x4, 2, dilation=0), ValueError, ["dilation", "at least 1"]),
    (lambda: F.max_pool2d(x4, 7), ValueError, ["kernel_size=7", "does not fit"]),
    (
        lambda: F.max_pool2d(x4, 3, dilation=3),
        ValueError,
        ["dilation=3", "does not fit"],
    ),
    (lambda: F.max_pool2d(x4, 2, ceil_mode=1), TypeError, ["ceil_mode", "bool"]),
    (
        lambda: F.max_pool2d(x4, 2, return_indices="yes"),
        TypeError,
        ["return_indices", "'yes'"],
    ),
    (
        lambda: F.max_pool2d(np.zeros((1, 1, 1, 1)), 2, padding=1, dilation=2),
        ValueError,
        ["every pooling window", "dilation=2", "padding=1"],
    ),
    (lambda: F.avg_pool2d(x4, 3, padding=2), ValueError, ["padding=2", "half"]),
    (
        lambda: F.avg_pool2d(x4, 2, divisor_override=0),
        ValueError,
        ["divisor_override", "0", "positive"],
    ),
    (
        lambda: F.avg_pool2d(x4, 2, divisor_override=-3),
        ValueError,
        ["divisor_override", "-3", "positive"],
    ),
    (
        lambda: F.avg_pool2d(x4, 2, divisor_override=2.0),
        TypeError,
        ["divisor_override", "2.0"],
    ),
    (
        lambda: F.avg_pool2d(x4, 2, divisor_override=True),
        TypeError,
        ["divisor_override", "True"],
    ),
    (
        lambda: F.avg_pool2d(x4, 2, count_include_pad=None),
        TypeError,
        ["count_include_pad", "bool"],
    ),
    (lambda: F.avg_pool2d(x4, 2, ceil_mode="no"), TypeError, ["ceil_mode", "bool"]),
    (lambda: F.avg_pool2d(np.zeros((6, 6)), 2), ValueError, ["input", "4-D"]),
    (
        lambda: F.max_unpool2d(np.zeros((3, 3)), i4[0, 0], 2),
        ValueError,
        ["input", "4-D"],
    ),
    (
        lambda: F.max_unpool2d(p4, i4.astype(np.float64), 2),
        TypeError,
        ["indices", "integer", "float64"],
    ),
    (lambda: F.max_unpool2d(p4, cg.Tensor(i4), 2), TypeError, ["indices", "integer"]),
    (
        lambda: F.max_unpool2d(p4, i4[:, :, :2], 2),
        ValueError,
        ["indices", "shape", "(2, 3, 3, 3)"],
    ),
    (lambda: F.max_unpool2d(p4, i4 + 36, 2), ValueError, ["indices", "[0, 36)", "36"]),
    (lambda: F.max_unpool2d(p4, i4 - 1, 2), ValueError, ["indices", "[0, 36)", "-1"]),
    (
        lambda: F.max_unpool2d(p4, i4 + 30, 2, output_size=(5, 6)),
        ValueError,
        ["indices", "[0, 30)"],
    ),
    (
        lambda: F.max_unpool2d(p4, i4, 2, output_size=(8, 6)),
        ValueError,
        ["output_size", "(8, 6)", "between 4 and 8"],
    ),
    (
        lambda: F.max_unpool2d(p4, i4, 2, output_size=(6, 4)),
        ValueError,
        ["output_size", "between 4 and 8"],
    ),
    (
        lambda: F.max_unpool2d(p4, i4, 2, output_size=(1, 6, 6)),
        TypeError,
        ["output_size", "2", "4"],
    ),
    (lambda: F.max_unpool2d(p4, i4, 2, output_size=6), TypeError, ["output_size"]),
    (lambda: F.max_unpool2d(p4, i4, 0), ValueError, ["kernel_size", "at least 1"]),
    (lambda: F.max_unpool2d(p4, i4, 2, stride=0), ValueError, ["stride"]),
    (
        lambda: F.max_unpool2d(
            np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1, 1), int), 1, padding=1
        ),
        ValueError,
        ["padding=1", "negative"],
    ),
    (lambda: F.adaptive_avg_pool2d(x4, -1), ValueError, ["output_size", "at least 0"]),
    (lambda: F.adaptive_avg_pool2d(x4, (2, 2, 2)), TypeError, ["output_size"]),
    (lambda: F.adaptive_avg_pool2d(x4, (2, 1.5)), TypeError, ["output_size", "1.5"]),
    (
        lambda: F.adaptive_avg_pool2d(np.zeros((6, 6)), 2),
        ValueError,
        ["input", "4-D"],
    ),
]


@pytest.mark.parametrize("call, exc, words", BAD)
def test_bad_pool_input_is_refused_with_a_clear_message(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    assert type(info.value) is exc  # not an IndexError or a subclass surprise
    for word in words:
        assert word in str(info.value), f"{word!r} not in: {info.value}"


# --------------------------------------------------------------------------
# unbatched input: (C, H, W), as torch accepts
# --------------------------------------------------------------------------

UNBATCHED_MAXPOOL = MAXPOOL_CASES[:6]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, kw, maker",
    [c[1:] for c in UNBATCHED_MAXPOOL],
    ids=[c[0] for c in UNBATCHED_MAXPOOL],
)
def test_unbatched_max_pool2d_matches_torch(shape, kw, maker, dtype, rng, torch):
    x = _make(maker, rng, shape)[0]
    check_op(
        lambda x: F.max_pool2d(x, **kw),
        lambda x: torch.nn.functional.max_pool2d(x, **kw),
        [x],
        dtype=dtype,
    )
    y, idx = F.max_pool2d(x.astype(dtype), return_indices=True, **kw)
    ty, tidx = torch.nn.functional.max_pool2d(
        torch.tensor(x.astype(dtype)), return_indices=True, **kw
    )
    assert y.shape == tuple(ty.shape) and idx.shape == tuple(tidx.shape)
    np.testing.assert_array_equal(idx, tidx.numpy())
    np.testing.assert_array_equal(y.data, ty.numpy())
    # the indices go back into an unbatched max_unpool2d, as in torch
    k, s, p = kw["kernel_size"], kw.get("stride"), kw.get("padding", 0)
    if s != [] and kw.get("dilation", 1) == 1 and not kw.get("ceil_mode"):
        check_op(
            lambda y: F.max_unpool2d(y, idx, k, s, p, output_size=x.shape[1:]),
            lambda y: torch.nn.functional.max_unpool2d(
                y, tidx, k, s, p, output_size=x.shape[1:]
            ),
            [rng.standard_normal(y.shape)],
            dtype=dtype,
        )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, kw",
    [
        ((3, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1}),
        ((2, 5, 5), {"kernel_size": 2, "ceil_mode": True,
                     "count_include_pad": False}),
    ],
)
def test_unbatched_avg_pool2d_matches_torch(shape, kw, dtype, rng, torch):
    check_op(
        lambda x: F.avg_pool2d(x, **kw),
        lambda x: torch.nn.functional.avg_pool2d(x, **kw),
        [rng.standard_normal(shape)],
        dtype=dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, output_size", [((3, 7, 5), (3, 2)), ((2, 4, 4), 1)])
def test_unbatched_adaptive_avg_pool2d_matches_torch(
    shape, output_size, dtype, rng, torch
):
    check_op(
        lambda x: F.adaptive_avg_pool2d(x, output_size),
        lambda x: torch.nn.functional.adaptive_avg_pool2d(x, output_size),
        [rng.standard_normal(shape)],
        dtype=dtype,
    )


def test_unbatched_pooling_double_backward(rng):
    x = cg.Tensor(rng.standard_normal((2, 6, 6)), requires_grad=True)
    u = rng.standard_normal((2, 3, 3))
    (gx,) = cg.grad(F.avg_pool2d(x * x, 2), x, u, create_graph=True)
    v = rng.standard_normal(x.shape)
    (ggx,) = cg.grad(gx, x, v)
    # d/dx <2x * spread(u)/4, v> = 2 * spread(u)/4 * v
    spread = np.repeat(np.repeat(u, 2, axis=1), 2, axis=2) / 4
    np.testing.assert_allclose(ggx.data, 2 * spread * v, rtol=1e-12)
