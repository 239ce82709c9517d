"""F.batch_norm and nn.BatchNorm2d against torch (issue 28): eval and
train, the running statistics (momentum, the unbiased variance,
``momentum=None``, ``num_batches_tracked``), ``affine=False``,
``track_running_stats=False``, buffers in ``state_dict``, gradients with
random upstream gradients and finite differences, and the errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from oracle import check_op, tol

import convgrad as cg
from convgrad import F, nn

pytestmark = pytest.mark.usefixtures("each_backend")

SHAPES = [(6, 3), (4, 3, 5), (3, 3, 4, 2)]


def _stats(rng, c, dtype):
    return (rng.standard_normal(c).astype(dtype),
            rng.uniform(0.5, 2.0, c).astype(dtype))  # fmt: skip


# --------------------------------------------------------------------------
# F.batch_norm
# --------------------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch_and_updates_running_stats(
    shape, training, dtype, rng, torch
):
    c = shape[1]
    rm, rv = _stats(rng, c, dtype)
    m0, v0 = rm.copy(), rv.copy()
    trm, trv = torch.tensor(rm), torch.tensor(rv)
    kw = dict(training=training, momentum=0.3, eps=1e-4)
    inputs = [rng.standard_normal(shape), rng.standard_normal(c),
              rng.standard_normal(c)]  # fmt: skip
    check_op(
        lambda x, w, b: F.batch_norm(x, rm, rv, w, b, **kw),
        lambda x, w, b: torch.nn.functional.batch_norm(x, trm, trv, w, b, **kw),
        inputs,
        dtype=dtype,
    )
    # both updated in place the same way (or, in eval, not at all)
    np.testing.assert_allclose(rm, trm.numpy(), **tol(dtype))
    np.testing.assert_allclose(rv, trv.numpy(), **tol(dtype))
    x = inputs[0].astype(dtype)
    axes = (0, *range(2, x.ndim))
    if training:  # by hand: momentum, and the *unbiased* variance
        want_mean = 0.7 * m0 + 0.3 * x.mean(axis=axes)
        want_var = 0.7 * v0 + 0.3 * x.var(axis=axes, ddof=1)
        np.testing.assert_allclose(rm, want_mean, **tol(dtype))
        np.testing.assert_allclose(rv, want_var, **tol(dtype))


def test_batch_norm_statistics_are_batch_ones_in_training(rng):
    x = rng.standard_normal((5, 2, 3, 3)) * 4 + 3
    y = F.batch_norm(x, None, None, training=True).data
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(0, 2, 3)), 1, rtol=1e-4)


def test_batch_norm_running_stats_as_tensors_are_updated_in_place(rng):
    x = rng.standard_normal((4, 2, 3))
    rm, rv = cg.Tensor(np.zeros(2)), cg.Tensor(np.ones(2))
    before = rm.data
    F.batch_norm(x, rm, rv, training=True)
    assert rm.data is before  # the same array, changed in place
    np.testing.assert_allclose(rm.data, 0.1 * x.mean(axis=(0, 2)))


def test_batch_norm_gradcheck_in_float64(rng):
    x, w, b = (rng.standard_normal(s) for s in ((3, 2, 3, 2), (2,), (2,)))
    fn = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True) ** 3  # noqa: E731
    assert cg.gradcheck(fn, [x, w, b]).ok
    rm, rv = _stats(rng, 2, np.float64)
    ev = lambda x, w, b: F.batch_norm(x, rm, rv, w, b) ** 3  # noqa: E731
    assert cg.gradcheck(ev, [x, w, b]).ok


def test_batch_norm_input_gradient_is_centred_and_orthogonal_to_x_hat(rng):
    """The rule's two correction terms: dx sums to 0 over each channel and
    (as eps -> 0) is orthogonal to x̂: shifting or scaling a channel
    changes nothing."""
    x = cg.Tensor(rng.standard_normal((4, 3, 2, 2)), requires_grad=True)
    y = F.batch_norm(x, None, None, training=True, eps=1e-12)
    y.backward(rng.standard_normal(y.shape))
    np.testing.assert_allclose(x.grad.sum(axis=(0, 2, 3)), 0, atol=1e-12)
    np.testing.assert_allclose((x.grad * y.data).sum(axis=(0, 2, 3)), 0, atol=1e-10)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: F.batch_norm(np.zeros(3), np.zeros(3), np.ones(3)),
         ValueError, ["input", "2 dimensions"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), np.zeros(4), np.ones(4)),
         ValueError, ["running_mean", "(3,)", "input.shape[1]=3"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), np.zeros(3), None),
         ValueError, ["running_mean and running_var", "both"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), None, None),
         ValueError, ["evaluation mode", "running_mean"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), None, None, np.ones(2),
                              training=True),
         ValueError, ["weight", "(3,)"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), None, None, None, np.ones(4),
                              training=True),
         ValueError, ["bias", "(3,)"]),
        (lambda: F.batch_norm(np.zeros((1, 3, 1, 1)), None, None,
                              training=True),
         ValueError, ["more than 1 value per channel"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), None, None, training=1),
         TypeError, ["training", "bool"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), None, None, training=True,
                              momentum=None),
         TypeError, ["momentum", "float"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), None, None, training=True,
                              eps=0.0),
         ValueError, ["eps", "positive"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), [0.0] * 3, [1.0] * 3,
                              training=True),
         TypeError, ["running_mean", "in place"]),
        (lambda: F.batch_norm(np.zeros((2, 3)), None, None,
                              np.ones(3, dtype=np.float32), training=True),
         TypeError, ["weight", "dtype"]),
    ],
)
def test_batch_norm_bad_input_is_named(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value), (word, str(info.value))


# --------------------------------------------------------------------------
# nn.BatchNorm2d
# --------------------------------------------------------------------------

MODULE_OPTIONS = [
    {},
    {"momentum": None},
    {"momentum": 0.25, "eps": 1e-3},
    {"affine": False},
    {"bias": False},
    {"track_running_stats": False},
    {"affine": False, "track_running_stats": False, "momentum": None},
]


def _same_state(ours, theirs, dtype=np.float32):
    sd, tsd = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(tsd)
    for k in sd:
        want = tsd[k].numpy()
        assert sd[k].dtype == want.dtype, k
        np.testing.assert_allclose(sd[k], want, **tol(dtype), err_msg=k)


@pytest.mark.torch
@pytest.mark.parametrize("options", MODULE_OPTIONS, ids=str)
def test_batchnorm2d_trains_and_evaluates_as_torch(options, rng, torch):
    ours, theirs = nn.BatchNorm2d(3, **options), torch.nn.BatchNorm2d(3, **options)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [
        n for n, _ in theirs.named_parameters()
    ]
    assert [n for n, _ in ours.named_buffers()] == [
        n for n, _ in theirs.named_buffers()
    ]
    _same_state(ours, theirs)
    for step in range(3):  # a few batches: the running averages move
        x = (rng.standard_normal((4, 3, 5, 4)) * (step + 1) + step).astype(
            np.float32
        )
        xt = cg.Tensor(x, requires_grad=True)
        txt = torch.tensor(x, requires_grad=True)
        y, ty = ours(xt), theirs(txt)
        np.testing.assert_allclose(y.data, ty.detach().numpy(), **tol(np.float32))
        dy = rng.standard_normal(y.shape).astype(np.float32)
        y.backward(dy)
        ty.backward(torch.tensor(dy))
        np.testing.assert_allclose(xt.grad, txt.grad.numpy(), **tol(np.float32))
        for (name, p), tp in zip(ours.named_parameters(), theirs.parameters(),
                                 strict=True):  # fmt: skip
            np.testing.assert_allclose(
                p.grad, tp.grad.numpy(), **tol(np.float32), err_msg=name
            )
        _same_state(ours, theirs)
    ours.eval()
    theirs.eval()
    assert not ours.training
    x = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(
        ours(x).data, theirs(torch.tensor(x)).detach().numpy(), **tol(np.float32)
    )
    _same_state(ours, theirs)  # eval changes no statistic


def test_batchnorm2d_momentum_none_is_the_cumulative_average(rng):
    bn = nn.BatchNorm2d(2, momentum=None, dtype=np.float64)
    batches = [rng.standard_normal((3, 2, 2, 2)) + i for i in range(4)]
    for x in batches:
        bn(x)
    assert int(bn.num_batches_tracked.data) == 4
    means = np.mean([x.mean(axis=(0, 2, 3)) for x in batches], axis=0)
    np.testing.assert_allclose(bn.running_mean.data, means, rtol=1e-12)
    var = np.mean([x.var(axis=(0, 2, 3), ddof=1) for x in batches], axis=0)
    np.testing.assert_allclose(bn.running_var.data, var, rtol=1e-12)


def test_batchnorm2d_buffers_are_state_not_parameters(rng):
    model = nn.Sequential(nn.Conv2d(1, 2, 3, generator=0), nn.BatchNorm2d(2))
    assert [n for n, _ in model.named_parameters()] == [
        "0.weight", "0.bias", "1.weight", "1.bias"
    ]
    assert list(model.state_dict()) == [
        "0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
        "1.running_var", "1.num_batches_tracked",
    ]
    model(rng.standard_normal((2, 1, 5, 5)).astype(np.float32))
    saved = model.state_dict()
    assert int(saved["1.num_batches_tracked"]) == 1
    fresh = nn.Sequential(nn.Conv2d(1, 2, 3, generator=1), nn.BatchNorm2d(2))
    fresh.load_state_dict(saved)
    for k, v in fresh.state_dict().items():
        np.testing.assert_array_equal(v, saved[k], err_msg=k)
    assert fresh[1].num_batches_tracked.dtype == np.int64
    model.eval()
    fresh.eval()
    x = rng.standard_normal((1, 1, 5, 5)).astype(np.float32)
    np.testing.assert_array_equal(model(x).data, fresh(x).data)
    with pytest.raises(ValueError, match="missing keys.*running_var"):
        fresh.load_state_dict({k: v for k, v in saved.items() if "var" not in k})


def test_batchnorm2d_eval_without_running_stats_uses_the_batch(rng):
    bn = nn.BatchNorm2d(2, track_running_stats=False, dtype=np.float64).eval()
    x = rng.standard_normal((3, 2, 2, 2))
    np.testing.assert_allclose(
        bn(x).data, F.batch_norm(x, None, None, training=True).data
    )
    assert bn.running_mean is None and bn.num_batches_tracked is None


def test_batchnorm2d_reset_and_buffer_assignment():
    bn = nn.BatchNorm2d(2)
    bn(np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2))
    bn.reset_running_stats()
    np.testing.assert_array_equal(bn.running_mean.data, 0)
    np.testing.assert_array_equal(bn.running_var.data, 1)
    assert int(bn.num_batches_tracked.data) == 0
    with pytest.raises(TypeError, match="buffer 'running_mean'"):
        bn.running_mean = np.zeros(2)
    bn.running_mean = cg.Tensor(np.full(2, 5.0))  # a Tensor replaces it
    assert bn.state_dict()["running_mean"].tolist() == [5.0, 5.0]


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: nn.BatchNorm2d(3)(np.zeros((3, 4, 4))), ValueError,
         ["expected 4D input (got 3D input)", "(N, C, H, W)"]),
        (lambda: nn.BatchNorm2d(3)(np.zeros((2, 3, 2, 2, 2))), ValueError,
         ["expected 4D input (got 5D input)"]),
        (lambda: nn.BatchNorm2d(3)(np.zeros((2, 4, 2, 2))), ValueError,
         ["num_features=3", "input.shape[1]"]),
        (lambda: nn.BatchNorm2d(3)(np.zeros((1, 3, 1, 1), np.float32)),
         ValueError,
         ["more than 1 value per channel"]),
        (lambda: nn.BatchNorm2d(0), ValueError, ["num_features", "at least 1"]),
        (lambda: nn.BatchNorm2d(2.0), TypeError, ["num_features", "int"]),
        (lambda: nn.BatchNorm2d(2, momentum="0.1"), TypeError, ["momentum"]),
        (lambda: nn.BatchNorm2d(2, affine=1), TypeError, ["affine", "bool"]),
    ],
)
def test_batchnorm2d_bad_input_is_named(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value), (word, str(info.value))


# --------------------------------------------------------------------------
# lesson 12: the hand-written backward (the exercise's reference and the
# view's trace) against torch's autograd, with a random upstream gradient
# --------------------------------------------------------------------------


def _torch_bn_grads(torch, x, gamma, beta, dy, eps=1e-5):
    tx = torch.tensor(x, requires_grad=True)
    tg = torch.tensor(gamma, requires_grad=True)
    tb = torch.tensor(beta, requires_grad=True)
    torch.nn.functional.batch_norm(tx, None, None, tg, tb, training=True,
                                   eps=eps).backward(torch.tensor(dy))
    return tx.grad.numpy(), tg.grad.numpy(), tb.grad.numpy()


LESSON_12_SHAPES = [(2, 1, 3, 3), (3, 2, 2, 4), (1, 2, 3, 4), (4, 3, 1, 1)]


@pytest.mark.torch
@pytest.mark.parametrize("shape", LESSON_12_SHAPES, ids=str)
def test_the_lesson_12_reference_is_torchs_training_backward(shape, rng, torch):
    from convgrad.exercises import solution
    from convgrad.exercises.lessons.l12a_batch_norm_backward import normalised

    x = rng.normal(0.3, 1.7, shape)
    gamma, beta = rng.uniform(0.5, 2, shape[1]), rng.standard_normal(shape[1])
    dy = rng.standard_normal(shape)  # random, signed: never all ones
    x_hat, sigma = normalised(x)
    ours = solution("batch_norm_backward")(dy, x_hat, gamma, sigma)
    theirs = _torch_bn_grads(torch, x, gamma, beta, dy)
    for a, b, name in zip(ours, theirs, ("dx", "dgamma", "dbeta"), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=name)
    # and convgrad's own op agrees, on this backend
    cx = cg.Tensor(x, requires_grad=True)
    cgm = cg.Tensor(gamma, requires_grad=True)
    F.batch_norm(cx, None, None, cgm, beta, training=True).backward(dy)
    np.testing.assert_allclose(cx.grad, theirs[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cgm.grad, theirs[1], rtol=1e-10, atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("shape", LESSON_12_SHAPES, ids=str)
def test_the_batch_norm_trace_replays_torchs_gradients(shape, rng, torch):
    from convgrad import trace
    from convgrad.viz.norm_views import normalise

    x = rng.normal(-0.2, 1.3, shape)
    gamma, beta = rng.uniform(0.5, 2, shape[1]), rng.standard_normal(shape[1])
    dy = rng.standard_normal(shape)
    x_hat, sigma = normalise(x, 1e-5)
    t = trace.batch_norm_backward(dy, x_hat, gamma, sigma)
    events = list(t)
    m = shape[0] * shape[2] * shape[3]
    assert len(events) == 3 * m * shape[1]  # dβ, dγ, dx at every position
    # each channel's dx comes only after both of its sums are complete
    for c in range(shape[1]):
        terms = [e.term for e in events if e.src[1] == c]
        assert terms == ["dbeta", "dgamma"] * m + ["dx"] * m
    got = trace.batch_norm_parts(trace.replay(t), shape)
    for a, b in zip(got, _torch_bn_grads(torch, x, gamma, beta, dy), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call, words", [
    (lambda: _bn_trace(x_hat=np.zeros((2, 1, 3, 2))), "x_hat must have dy's"),
    (lambda: _bn_trace(gamma=np.ones(2)), "gamma must have shape (C,)"),
    (lambda: _bn_trace(sigma=np.zeros(1)), "sigma must be positive"),
    (lambda: _bn_trace(dy=np.ones((2, 3, 3))), "dy"),
    (lambda: _bn_trace(dy=np.ones((0, 1, 3, 3)), x_hat=np.ones((0, 1, 3, 3))),
     "dy must have at least one position per channel"),
])
def test_the_batch_norm_trace_names_bad_input(call, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        call()


def _bn_trace(**changes):
    from convgrad import trace

    args = dict(dy=np.ones((2, 1, 3, 3)), x_hat=np.zeros((2, 1, 3, 3)),
                gamma=np.ones(1), sigma=np.ones(1))
    return trace.batch_norm_backward(**{**args, **changes})


@pytest.mark.torch
@pytest.mark.parametrize("training", [True, False])
def test_an_empty_batch_gives_empty_results_and_keeps_the_running_stats(
    training, torch
):
    # torch: an empty output and dx, zero dγ and dβ, the running mean and
    # variance untouched, no warning. Before the fix convgrad warned "Mean
    # of empty slice" and wrote NaN into both running statistics.
    import warnings

    rm0, rv0 = np.array([0.5, -1, 2], np.float32), np.array([1, 2, 3], np.float32)
    results = {}
    for lib in ("torch", "convgrad"):
        rm, rv = rm0.copy(), rv0.copy()
        x0, w0 = np.zeros((0, 3, 4, 4), np.float32), np.array([1, 2, 3], np.float32)
        if lib == "torch":
            tm, tv = torch.from_numpy(rm), torch.from_numpy(rv)
            x, w, b = (torch.from_numpy(a).requires_grad_() for a in (x0, w0, w0 * 0))
            y = torch.nn.functional.batch_norm(x, tm, tv, w, b, training=training)
        else:
            x, w, b = (cg.from_numpy(a).requires_grad_() for a in (x0, w0, w0 * 0))
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                y = F.batch_norm(x, rm, rv, w, b, training=training)
                y.sum().backward()
        if lib == "torch":
            y.sum().backward()
        results[lib] = [a.detach().numpy() if lib == "torch" else
                        a.numpy() if isinstance(a, cg.Tensor) else np.asarray(a)
                        for a in (y, x.grad, w.grad, b.grad)] + [rm, rv]
    for got, want in zip(results["convgrad"], results["torch"], strict=True):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(results["convgrad"][4], rm0)
    np.testing.assert_array_equal(results["convgrad"][5], rv0)
