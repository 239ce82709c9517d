"""torch's semantics at the edges, asked of torch: empty batches, zero-size
dimensions, empty outputs, NaN and inf, and 0-d results.

Where torch returns, convgrad matches it (values and gradients); where torch
raises, convgrad raises a ValueError naming the argument.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check_op

import convgrad as cg
from convgrad import F

pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("each_backend")]


def _i64(*shape):
    return np.zeros(shape, np.int64)


# (name, our call, torch call, inputs): torch returns, and so do we
ACCEPTED = [
    ("unfold N=0", lambda x: F.unfold(x, 2), lambda t, x: t.unfold(x, 2),
     [np.ones((0, 2, 4, 4))]),
    ("fold N=0", lambda x: F.fold(x, (4, 4), 2), lambda t, x: t.fold(x, (4, 4), 2),
     [np.ones((0, 4, 9))]),
    ("conv2d N=0", lambda x, w: F.conv2d(x, w, stride=2),
     lambda t, x, w: t.conv2d(x, w, stride=2),
     [np.ones((0, 2, 5, 5)), np.ones((3, 2, 2, 2))]),
    ("conv2d N=0 empty plane padded", lambda x, w: F.conv2d(x, w, padding=1),
     lambda t, x, w: t.conv2d(x, w, padding=1),
     [np.ones((0, 1, 0, 4)), np.ones((2, 1, 1, 1))]),
    ("conv2d C_in=0", lambda x, w, b: F.conv2d(x, w, b),
     lambda t, x, w, b: t.conv2d(x, w, b),
     [np.ones((1, 0, 4, 4)), np.ones((2, 0, 2, 2)), np.ones(2)]),
    ("conv_transpose2d N=0", lambda x, w: F.conv_transpose2d(x, w, stride=2),
     lambda t, x, w: t.conv_transpose2d(x, w, stride=2),
     [np.ones((0, 1, 4, 4)), np.ones((1, 2, 2, 2))]),
    ("conv_transpose2d N=0 empty plane", lambda x, w: F.conv_transpose2d(x, w),
     lambda t, x, w: t.conv_transpose2d(x, w),
     [np.ones((0, 1, 0, 4)), np.ones((1, 2, 2, 2))]),
    ("max_pool2d N=0", lambda x: F.max_pool2d(x, 2), lambda t, x: t.max_pool2d(x, 2),
     [np.ones((0, 1, 4, 4))]),
    ("avg_pool2d N=0", lambda x: F.avg_pool2d(x, 2, padding=1),
     lambda t, x: t.avg_pool2d(x, 2, padding=1), [np.ones((0, 1, 4, 4))]),
    ("adaptive N=0", lambda x: F.adaptive_avg_pool2d(x, 3),
     lambda t, x: t.adaptive_avg_pool2d(x, 3), [np.ones((0, 1, 4, 4))]),
    ("max_unpool2d N=0", lambda x: F.max_unpool2d(x, _i64(0, 1, 2, 2), 2),
     lambda t, x: t.max_unpool2d(x, t_i64(0, 1, 2, 2), 2), [np.ones((0, 1, 2, 2))]),
    ("log_softmax (0, 3)", lambda x: F.log_softmax(x, -1),
     lambda t, x: t.log_softmax(x, -1), [np.ones((0, 3))]),
    ("log_softmax (2, 0)", lambda x: F.log_softmax(x, 0),
     lambda t, x: t.log_softmax(x, 0), [np.ones((2, 0))]),
    ("cross_entropy N=0 (NaN)", lambda x: F.cross_entropy(x, _i64(0)),
     lambda t, x: t.cross_entropy(x, t_i64(0)), [np.ones((0, 3))]),
    ("cross_entropy N=0 sum", lambda x: F.cross_entropy(x, _i64(0), reduction="sum"),
     lambda t, x: t.cross_entropy(x, t_i64(0), reduction="sum"), [np.ones((0, 3))]),
    ("mse_loss empty (NaN)", lambda a, b: F.mse_loss(a, b),
     lambda t, a, b: t.mse_loss(a, b), [np.ones(0), np.ones(0)]),
    ("linear N=0", lambda x, w: F.linear(x, w), lambda t, x, w: t.linear(x, w),
     [np.ones((0, 3)), np.ones((2, 3))]),
    ("mean of empty (NaN)", lambda x: x.mean(), lambda t, x: x.mean(),
     [np.ones((0, 2))]),
]

_TORCH = {}


def t_i64(*shape):
    return _TORCH["t"].zeros(shape, dtype=_TORCH["t"].int64)


@pytest.mark.parametrize("name, ours, theirs, inputs", ACCEPTED,
                         ids=[a[0] for a in ACCEPTED])
def test_where_torch_returns_we_match(name, ours, theirs, inputs, torch):
    _TORCH["t"] = torch
    tf = torch.nn.functional
    check_op(ours, lambda *a: theirs(tf, *a), inputs)


# empty outputs torch returns (its backward of them raises; ours gives zeros)
EMPTY_OUT = [
    ((1, 0, 4, 4), lambda x: F.adaptive_avg_pool2d(x, 3),  # no channels
     lambda t, x: t.adaptive_avg_pool2d(x, 3)),
    ((1, 1, 4, 4), lambda x: F.adaptive_avg_pool2d(x, 0),
     lambda t, x: t.adaptive_avg_pool2d(x, 0)),
    ((1, 1, 4, 4), lambda x: F.adaptive_avg_pool2d(x, (0, 2)),
     lambda t, x: t.adaptive_avg_pool2d(x, (0, 2))),
    # default output size 0: (1 - 1)*1 - 2*1 + 2
    ((1, 1, 1, 1),
     lambda x: F.max_unpool2d(x, _i64(1, 1, 1, 1), 2, stride=1, padding=1),
     lambda t, x: t.max_unpool2d(x, t_i64(1, 1, 1, 1), 2, stride=1, padding=1)),
    ((1, 1, 1, 1),
     lambda x: F.max_unpool2d(x, _i64(1, 1, 1, 1), 1, stride=2, output_size=(0, 1)),
     lambda t, x: t.max_unpool2d(x, t_i64(1, 1, 1, 1), 1, stride=2,
                                 output_size=(0, 1))),
]


@pytest.mark.parametrize("shape, ours, theirs", EMPTY_OUT)
def test_empty_outputs_torch_returns_we_return(shape, ours, theirs, torch):
    _TORCH["t"] = torch
    x = np.ones(shape)
    want = theirs(torch.nn.functional, torch.tensor(x))
    xt = cg.Tensor(x, requires_grad=True)
    y = ours(xt)
    assert y.shape == tuple(want.shape) and want.numel() == 0
    y.backward(np.zeros(y.shape))
    np.testing.assert_array_equal(xt.grad, np.zeros(shape))


# torch raises: we raise a ValueError that names the argument
REFUSED = [
    ("unfold C=0", lambda f, x: f.unfold(x(1, 0, 4, 4), 1), "input.shape[1]"),
    ("unfold H=0", lambda f, x: f.unfold(x(1, 1, 0, 4), 1), "input.shape[2]"),
    ("unfold N=0 W=0", lambda f, x: f.unfold(x(0, 1, 4, 0), 1), "input.shape[3]"),
    ("fold C=0", lambda f, x: f.fold(x(1, 0, 9), (4, 4), 2), "input.shape[1]"),
    ("fold L=0", lambda f, x: f.fold(x(1, 4, 0), (4, 4), 2), "input.shape[2]"),
    ("conv2d H=0", lambda f, x: f.conv2d(x(1, 1, 0, 4), x(2, 1, 1, 1), padding=1),
     "input.shape[2]"),
    ("conv2d C_out=0", lambda f, x: f.conv2d(x(1, 1, 4, 4), x(0, 1, 2, 2)),
     "weight.shape[0]"),
    ("conv2d K=0", lambda f, x: f.conv2d(x(1, 1, 4, 4), x(2, 1, 0, 1)), "weight"),
    ("conv_transpose2d C_in=0",
     lambda f, x: f.conv_transpose2d(x(1, 0, 4, 4), x(0, 2, 2, 2)), "weight.shape[0]"),
    ("conv_transpose2d C_out=0",
     lambda f, x: f.conv_transpose2d(x(1, 1, 4, 4), x(1, 0, 2, 2)), "weight.shape[1]"),
    ("conv_transpose2d K=0",
     lambda f, x: f.conv_transpose2d(x(1, 1, 4, 4), x(1, 1, 0, 2)), "weight.shape[2]"),
    ("conv_transpose2d H=0",
     lambda f, x: f.conv_transpose2d(x(1, 1, 0, 4), x(1, 2, 2, 2)), "input.shape[2]"),
    ("max_pool2d C=0", lambda f, x: f.max_pool2d(x(1, 0, 4, 4), 2), "input.shape[1]"),
    ("max_pool2d N=0 H=0", lambda f, x: f.max_pool2d(x(0, 1, 0, 4), 1),
     "input.shape[2]"),
    ("avg_pool2d W=0", lambda f, x: f.avg_pool2d(x(1, 1, 4, 0), 1), "input.shape[3]"),
    ("adaptive H=0", lambda f, x: f.adaptive_avg_pool2d(x(1, 1, 0, 4), 2),
     "input.shape[2]"),
    ("adaptive N=0 W=0", lambda f, x: f.adaptive_avg_pool2d(x(0, 1, 4, 0), 2),
     "input.shape[3]"),
]


@pytest.mark.parametrize("name, call, words", REFUSED, ids=[r[0] for r in REFUSED])
def test_where_torch_refuses_a_zero_size_we_raise_a_named_value_error(
    name, call, words, torch
):
    with pytest.raises(Exception):  # noqa: B017 (torch's own error types vary)
        call(torch.nn.functional, lambda *s: torch.ones(s))
    with pytest.raises(ValueError) as info:
        call(F, lambda *s: np.ones(s))
    assert words in str(info.value)


@pytest.mark.parametrize("c_h", [(0, 2), (1, 0)])
def test_unpool_refuses_an_empty_channel_or_plane_as_torch(c_h, torch):
    c, h = c_h
    with pytest.raises(RuntimeError):
        torch.nn.functional.max_unpool2d(
            torch.ones(1, c, h, 2), torch.zeros(1, c, h, 2, dtype=torch.long), 2
        )
    with pytest.raises(ValueError, match=r"input\.shape\["):
        F.max_unpool2d(np.ones((1, c, h, 2)), _i64(1, c, h, 2), 2)


# --------------------------------------------------------------------------
# NaN and inf
# --------------------------------------------------------------------------

NAN, INF = np.nan, np.inf


def test_relu_keeps_nan_and_passes_its_gradient_as_torch(torch):
    x = np.array([NAN, -1.0, 0.0, 2.0, -INF, INF])
    check_op(F.relu, torch.relu, [x])


@pytest.mark.parametrize("out", [(1, 2), (2, 3), 1])
@pytest.mark.parametrize("bad", [NAN, INF, -INF])
def test_adaptive_avg_pool_keeps_a_nan_or_inf_in_its_own_bins(out, bad, torch):
    x = np.arange(20.0).reshape(1, 1, 4, 5)
    x[0, 0, 0, 1] = bad
    y = check_op(
        lambda t: F.adaptive_avg_pool2d(t, out),
        lambda t: torch.nn.functional.adaptive_avg_pool2d(t, out),
        [x],
    )
    if out != 1:
        assert np.isfinite(y.data).any()  # not spread into every bin


def test_adaptive_avg_pool_backward_keeps_a_nan_gradient_in_its_bin(torch):
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    dy = np.array([[[[NAN, 1.0], [2.0, 3.0]]]])
    ours = cg.Tensor(x, requires_grad=True)
    F.adaptive_avg_pool2d(ours, 2).backward(dy)
    theirs = torch.tensor(x, requires_grad=True)
    torch.nn.functional.adaptive_avg_pool2d(theirs, 2).backward(torch.tensor(dy))
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())
    assert np.isnan(ours.grad).sum() == 4


def test_max_pool_nan_wins_and_its_index_is_torchs(torch):
    x = np.array([[[[1.0, NAN, 3.0, NAN, 5.0, 2.0], [0.0, 1.0, -INF, INF, 9.0, 8.0]]]])
    y, idx = F.max_pool2d(x, (2, 3), return_indices=True)
    ty, tidx = torch.nn.functional.max_pool2d(
        torch.tensor(x), (2, 3), return_indices=True
    )
    np.testing.assert_array_equal(y.data, ty.numpy())
    np.testing.assert_array_equal(idx, tidx.numpy())
    check_op(lambda t: F.max_pool2d(t, (2, 3)),
             lambda t: torch.nn.functional.max_pool2d(t, (2, 3)), [x])


# --------------------------------------------------------------------------
# .data is always an ndarray
# --------------------------------------------------------------------------

ZERO_D = [
    lambda a: a * 3.0, lambda a: -a, lambda a: a**2, lambda a: a / a, lambda a: a.exp(),
    lambda a: a.log(), lambda a: a.tanh(), lambda a: a.sigmoid(), lambda a: F.relu(a),
    lambda a: a.sum(), lambda a: a.mean(), lambda a: a + a, lambda a: a - 1.0,
]


@pytest.mark.parametrize("i", range(len(ZERO_D)))
def test_a_0d_result_is_a_0d_ndarray_and_so_is_its_gradient(i):
    a = cg.Tensor(2.0, requires_grad=True)
    y = ZERO_D[i](a)
    assert type(y.data) is np.ndarray and y.data.shape == ()
    y.backward()
    assert type(a.grad) is np.ndarray and a.grad.shape == ()


def test_losses_and_dot_products_give_0d_ndarrays():
    v = cg.Tensor([1.0, 2.0])
    for y in (v @ v, F.mse_loss(v, v), F.cross_entropy(np.ones((2, 3)), [0, 1]),
              v.sum(), (v * v).mean()):
        assert type(y.data) is np.ndarray and y.data.shape == ()
