"""A differential fuzz suite against torch: random geometries, valid and
invalid, empty and non-finite, on both backends.

The rule: if torch raises, convgrad raises a ValueError or TypeError; if
torch returns, convgrad matches it in values, indices and gradients. The
only exceptions are convgrad's documented stricter rules (below), where
torch returns something it should not (a -inf window and an index into
the padding). Deterministic (derandomized) and bounded in examples.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from oracle import tol

import convgrad as cg
from convgrad import F

pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("each_backend")]

FUZZ = settings(
    # no shrinking: a failure is reported as found, and the time stays bounded
    max_examples=60, deadline=None, derandomize=True, database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# where torch returns but convgrad refuses, on purpose (see geometry.py)
STRICTER = ("every pooling window must see at least one input pixel",)
# on an empty batch torch skips some argument checks it makes otherwise;
# convgrad checks arguments the same whatever the batch size
STRICTER_ON_EMPTY_BATCH = (
    "output_padding must be smaller",
    "conv_transpose2d output would be empty",
)

size = st.integers(0, 6)
small = st.integers(1, 3)


def _x(draw, shape, dtype):
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.standard_normal(shape).astype(dtype)
    if x.size and draw(st.booleans()):  # non-finite values, sometimes
        flat = x.reshape(-1)
        for _ in range(draw(st.integers(1, 3))):
            flat[rng.integers(flat.size)] = draw(st.sampled_from([np.nan, np.inf,
                                                                  -np.inf]))
    return x


def _int_or_pair(draw, lo, hi):
    if draw(st.booleans()):
        return draw(st.integers(lo, hi))
    return (draw(st.integers(lo, hi)), draw(st.integers(lo, hi)))


def differential(torch, ours, theirs, arrays, seed=0, outputs=1):
    """Run both; apply the rule. ``outputs=2``: (values, indices)."""
    t_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    try:
        want = theirs(*t_in)
    except Exception:  # torch refuses: so must we, with a named error
        with pytest.raises((ValueError, TypeError)):
            ours(*[cg.Tensor(a) for a in arrays])
        return
    c_in = [cg.Tensor(a, requires_grad=True) for a in arrays]
    try:
        got = ours(*c_in)
    except ValueError as err:
        rules = STRICTER
        if arrays[0].ndim and arrays[0].shape[0] == 0:
            rules += STRICTER_ON_EMPTY_BATCH
        assert any(rule in str(err) for rule in rules), str(err)
        return
    if outputs == 2:
        (got, got_idx), (want, want_idx) = got, want
        np.testing.assert_array_equal(got_idx, want_idx.numpy(), err_msg="indices")
    assert got.shape == tuple(want.shape)
    assert got.dtype == arrays[0].dtype
    np.testing.assert_allclose(got.data, want.detach().numpy(), **tol(got.dtype),
                               err_msg="forward")
    dy = np.random.default_rng(seed).standard_normal(got.shape).astype(got.dtype)
    try:
        want.backward(torch.tensor(dy))
    except RuntimeError:  # torch's backward refuses some empty outputs
        return
    got.backward(dy)
    for i, (c, t) in enumerate(zip(c_in, t_in, strict=True)):
        if t.grad is not None:
            np.testing.assert_allclose(c.grad, t.grad.numpy(), **tol(got.dtype),
                                       err_msg=f"grad {i}")


dtypes = st.sampled_from([np.float32, np.float64])


@FUZZ
@given(data=st.data())
def test_conv2d(data, torch):
    d = data.draw
    g = d(small)
    n, cin, cout = d(st.integers(0, 2)), g * d(st.integers(0, 2)), g * d(small)
    cin_w = d(st.sampled_from([cin // g, cin // g + 1])) if cin else 0
    k = (d(st.integers(0, 4)), d(st.integers(1, 4)))
    shape = (n, cin, d(size), d(size))
    kw = {"stride": _int_or_pair(d, 0, 3), "dilation": _int_or_pair(d, 1, 3),
          "groups": g,
          "padding": d(st.one_of(st.integers(-1, 3), st.sampled_from(["same",
                                                                     "valid"])))}
    dt = d(dtypes)
    x, w, b = _x(d, shape, dt), _x(d, (cout, cin_w, *k), dt), _x(d, (cout,), dt)
    differential(torch, lambda x, w, b: F.conv2d(x, w, b, **kw),
                 lambda x, w, b: torch.nn.functional.conv2d(x, w, b, **kw),
                 [x, w, b])


@FUZZ
@given(data=st.data())
def test_conv_transpose2d(data, torch):
    d = data.draw
    g = d(small)
    n, cin, cout = d(st.integers(0, 2)), g * d(st.integers(0, 2)), d(st.integers(0, 2))
    stride, dilation = _int_or_pair(d, 1, 3), _int_or_pair(d, 1, 3)
    kw = {"stride": stride, "dilation": dilation, "groups": g,
          "padding": _int_or_pair(d, 0, 2), "output_padding": _int_or_pair(d, 0, 2)}
    k = (d(st.integers(0, 3)), d(st.integers(1, 3)))
    dt = d(dtypes)
    x = _x(d, (n, cin, d(size), d(size)), dt)
    w = _x(d, (cin, cout, *k), dt)
    differential(torch, lambda x, w: F.conv_transpose2d(x, w, **kw),
                 lambda x, w: torch.nn.functional.conv_transpose2d(x, w, **kw),
                 [x, w])


@FUZZ
@given(data=st.data())
def test_unfold(data, torch):
    d = data.draw
    kw = {"kernel_size": _int_or_pair(d, 0, 4), "dilation": _int_or_pair(d, 1, 3),
          "padding": _int_or_pair(d, 0, 2), "stride": _int_or_pair(d, 0, 3)}
    x = _x(d, (d(st.integers(0, 2)), d(st.integers(0, 2)), d(size), d(size)),
           d(dtypes))
    differential(torch, lambda x: F.unfold(x, **kw),
                 lambda x: torch.nn.functional.unfold(x, **kw), [x])


@FUZZ
@given(data=st.data())
def test_max_pool2d_with_indices(data, torch):
    d = data.draw
    kw = {"kernel_size": _int_or_pair(d, 1, 4), "stride": _int_or_pair(d, 1, 3),
          "padding": _int_or_pair(d, 0, 2), "dilation": _int_or_pair(d, 1, 3),
          "ceil_mode": d(st.booleans()), "return_indices": True}
    x = _x(d, (d(st.integers(0, 2)), d(st.integers(0, 2)), d(size), d(size)),
           d(dtypes))
    differential(torch, lambda x: F.max_pool2d(x, **kw),
                 lambda x: torch.nn.functional.max_pool2d(x, **kw), [x], outputs=2)


@FUZZ
@given(data=st.data())
def test_avg_pool2d(data, torch):
    d = data.draw
    kw = {"kernel_size": _int_or_pair(d, 1, 4), "stride": _int_or_pair(d, 1, 3),
          "padding": _int_or_pair(d, 0, 2), "ceil_mode": d(st.booleans()),
          "count_include_pad": d(st.booleans()),
          "divisor_override": d(st.sampled_from([None, 1, 3]))}
    x = _x(d, (d(st.integers(0, 2)), d(st.integers(0, 2)), d(size), d(size)),
           d(dtypes))
    differential(torch, lambda x: F.avg_pool2d(x, **kw),
                 lambda x: torch.nn.functional.avg_pool2d(x, **kw), [x])


@FUZZ
@given(data=st.data())
def test_adaptive_avg_pool2d(data, torch):
    d = data.draw
    out = d(st.one_of(st.integers(0, 5), st.tuples(st.integers(0, 5),
                                                    st.integers(1, 5))))
    # H, W from 1: torch's global average of an empty plane is NaN while
    # any other output size refuses it; convgrad refuses both
    x = _x(d, (d(st.integers(0, 2)), d(st.integers(0, 2)), d(st.integers(1, 7)),
               d(st.integers(1, 7))), d(dtypes))
    differential(torch, lambda x: F.adaptive_avg_pool2d(x, out),
                 lambda x: torch.nn.functional.adaptive_avg_pool2d(x, out), [x])


@FUZZ
@given(data=st.data())
def test_relu_log_softmax_and_losses(data, torch):
    d = data.draw
    dt = d(dtypes)
    shape = (d(st.integers(0, 3)), d(st.integers(0, 4)))
    x = _x(d, shape, dt)
    differential(torch, F.relu, torch.relu, [x])
    dim = d(st.sampled_from([0, 1, -1]))
    differential(torch, lambda a: F.log_softmax(a, dim),
                 lambda a: torch.log_softmax(a, dim), [x])
    differential(torch, lambda a, b: F.mse_loss(a, b),
                 lambda a, b: torch.nn.functional.mse_loss(a, b),
                 [x, _x(d, shape, dt)])
