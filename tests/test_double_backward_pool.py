"""Second derivatives of the pooling ops and the losses (issue 17), against
torch's double backward, on both backends.

Each case takes the first derivative with ``create_graph=True`` (``dx`` for
a random upstream ``dy``, never all ones), then differentiates
``s = sum(v * dx)`` again, with respect to the input ``x`` and to ``dy``;
torch does the same with ``torch.autograd.grad(..., create_graph=True)``
twice. For a linear op (every pool) ``ds/dx`` is 0 and ``ds/ddy`` is the
op applied to ``v``: max pooling's route comes back as a gather at the
argmax, average pooling's spread as the average pooling.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from oracle import _torch, tol

import convgrad as cg
from convgrad import F, exercises

pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("each_backend")]


def _data(t, shape) -> np.ndarray:
    """Our gradient as an array: None (no path) is torch's zeros."""
    return np.zeros(shape) if t is None else t.data


def check_double(our_fn, torch_fn, inputs, *, seed=0, dtype=np.float64):
    """Compare ``dx``, ``ds/dx`` and ``ds/ddy`` with torch, for every input.

    ``our_fn(*tensors)`` and ``torch_fn(*tensors)`` return one output.
    Returns ours, for checks of the op's own rule.
    """
    torch = _torch()
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(a, dtype=dtype) for a in inputs]
    xs = [cg.Tensor(a, requires_grad=True) for a in arrays]
    txs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = our_fn(*xs), torch_fn(*txs)
    dy_data = rng.standard_normal(y.shape).astype(dtype)
    vs = [rng.standard_normal(a.shape).astype(dtype) for a in arrays]
    dy, tdy = cg.Tensor(dy_data, requires_grad=True), torch.tensor(dy_data)
    tdy.requires_grad_(True)

    dxs = cg.grad(y, xs, dy, create_graph=True, allow_unused=True)
    tdxs = torch.autograd.grad(
        ty, txs, tdy, create_graph=True, allow_unused=True, materialize_grads=True
    )
    for i, (dx, tdx) in enumerate(zip(dxs, tdxs, strict=True)):
        np.testing.assert_allclose(
            _data(dx, arrays[i].shape), tdx.detach().numpy(), **tol(dtype),
            err_msg=f"first derivative of input {i}",
        )
    s = sum((dx * v).sum() for dx, v in zip(dxs, vs, strict=True) if dx is not None)
    ts = sum((d * torch.tensor(v)).sum() for d, v in zip(tdxs, vs, strict=True))
    second = cg.grad(s, [*xs, dy], allow_unused=True)
    tsecond = torch.autograd.grad(
        ts, [*txs, tdy], allow_unused=True, materialize_grads=True
    )
    names = [f"input {i}" for i in range(len(xs))] + ["dy"]
    for name, g, tg in zip(names, second, tsecond, strict=True):
        np.testing.assert_allclose(
            _data(g, tuple(tg.shape)), tg.numpy(), **tol(dtype),
            err_msg=f"d sum(v * dx) / d {name}",
        )
    return SimpleNamespace(y=y, dy=dy, v=vs, dx=dxs, second=second)


def _pair(rng, low, high):
    return (int(rng.integers(low, high + 1)), int(rng.integers(low, high + 1)))


def _size(rng, k, p, d):
    """An input length that holds at least one window."""
    need = max(d * (k - 1) + 1 - 2 * p, 1)
    return need + int(rng.integers(0, 5))


def _values(rng, shape, kind):
    if kind == "ties":  # small integers: many equal values per window
        return rng.integers(-2, 3, shape).astype(np.float64)
    if kind == "negative":  # padding must never win (max) or vanish (avg)
        return -np.abs(rng.standard_normal(shape)) - 0.5
    return rng.standard_normal(shape)


KINDS = ["normal", "negative", "ties"]


def _max_geometry(seed):
    rng = np.random.default_rng(seed)
    k, s, d = _pair(rng, 1, 4), _pair(rng, 1, 3), _pair(rng, 1, 2)
    p = (int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1)))
    shape = (2, 2, _size(rng, k[0], p[0], d[0]), _size(rng, k[1], p[1], d[1]))
    kw = {"kernel_size": k, "stride": s, "padding": p, "dilation": d,
          "ceil_mode": bool(rng.integers(2))}
    return shape, kw, _values(rng, shape, KINDS[seed % 3])


def _avg_geometry(seed):
    rng = np.random.default_rng(1000 + seed)
    k, s = _pair(rng, 1, 4), _pair(rng, 1, 3)
    p = (int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1)))
    shape = (2, 2, _size(rng, k[0], p[0], 1), _size(rng, k[1], p[1], 1))
    divisor = [None, None, 1, 3][int(rng.integers(4))]
    kw = {"kernel_size": k, "stride": s, "padding": p,
          "ceil_mode": bool(rng.integers(2)),
          "count_include_pad": bool(rng.integers(2)), "divisor_override": divisor}
    return shape, kw, _values(rng, shape, KINDS[seed % 3])


# --------------------------------------------------------------------------
# max_pool2d: the route and the gather
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(24))
def test_max_pool_double_backward_is_the_gather(seed):
    torch = _torch()
    _, kw, x = _max_geometry(seed)
    out = check_double(
        lambda t: F.max_pool2d(t, **kw),
        lambda t: torch.nn.functional.max_pool2d(t, **kw),
        [x],
        seed=seed,
    )
    (gx, gdy) = out.second
    assert gx is None or not np.any(gx.data), "the route's d/dx is 0"
    _, idx = F.max_pool2d(x, **kw, return_indices=True)
    n, c = idx.shape[:2]
    gathered = np.take_along_axis(
        out.v[0].reshape(n, c, -1), idx.reshape(n, c, -1), axis=2
    )
    np.testing.assert_array_equal(gdy.data, gathered.reshape(idx.shape))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_double_backward_dtypes(dtype):
    torch = _torch()
    kw = {"kernel_size": 3, "stride": 2, "padding": 1}
    x = _values(np.random.default_rng(5), (2, 3, 7, 6), "negative")
    out = check_double(
        lambda t: F.max_pool2d(t, **kw),
        lambda t: torch.nn.functional.max_pool2d(t, **kw),
        [x],
        dtype=dtype,
    )
    assert out.dx[0].dtype == dtype and out.second[1].dtype == dtype


def test_route_and_gather_are_closed_to_third_order():
    """d/dv of the gather (the double backward) is the route again."""
    torch = _torch()
    rng = np.random.default_rng(3)
    kw = {"kernel_size": 3, "stride": 1, "padding": 1}  # overlapping windows
    x = _values(rng, (1, 2, 5, 5), "ties")
    dy0 = rng.standard_normal((1, 2, 5, 5))
    v0, u0 = rng.standard_normal(x.shape), rng.standard_normal((1, 2, 5, 5))

    xt, dy, v = (cg.Tensor(a, requires_grad=True) for a in (x, dy0, v0))
    (dx,) = cg.grad(F.max_pool2d(xt, **kw), [xt], dy, create_graph=True)
    (gdy,) = cg.grad((dx * v).sum(), [dy], create_graph=True)
    (gv,) = cg.grad((gdy * u0).sum(), [v])

    txs = [torch.tensor(a, requires_grad=True) for a in (x, dy0, v0)]
    (tdx,) = torch.autograd.grad(
        torch.nn.functional.max_pool2d(txs[0], **kw), txs[0], txs[1],
        create_graph=True,
    )
    (tgdy,) = torch.autograd.grad((tdx * txs[2]).sum(), txs[1], create_graph=True)
    (tgv,) = torch.autograd.grad((tgdy * torch.tensor(u0)).sum(), txs[2])
    np.testing.assert_allclose(gv.data, tgv.numpy(), **tol(np.float64))
    # overlapping windows picked some pixel twice: the route added, not wrote
    _, idx = F.max_pool2d(x, **kw, return_indices=True)
    assert len(np.unique(idx)) < idx.size


@pytest.mark.parametrize("seed", range(6))
def test_max_pool_then_unpool_double_backward(seed):
    """return_indices feeds max_unpool2d; the chain is differentiated twice."""
    torch = _torch()
    shape, kw, x = _max_geometry(100 + seed)
    kw = {**kw, "dilation": 1, "ceil_mode": False}
    tf = torch.nn.functional

    def ours(t):
        y, idx = F.max_pool2d(t, **kw, return_indices=True)
        return F.max_unpool2d(
            y * y, idx, kw["kernel_size"], kw["stride"], kw["padding"],
            output_size=shape[2:],
        )

    def theirs(t):
        y, idx = tf.max_pool2d(t, **kw, return_indices=True)
        return tf.max_unpool2d(
            y * y, idx, kw["kernel_size"], kw["stride"], kw["padding"],
            output_size=shape[2:],
        )

    rng = np.random.default_rng(seed)
    x = rng.permutation(np.arange(x.size, dtype=np.float64)).reshape(x.shape) - 9
    # distinct values: overlapping windows that share a pixel write one value
    check_double(ours, theirs, [x], seed=seed)


@pytest.mark.parametrize("stride", [2, 1])
def test_max_unpool_double_backward(stride):
    """The unpool's backward gathers at the indices; its own vjp routes.
    With stride 1 the windows overlap and indices repeat."""
    torch = _torch()
    rng = np.random.default_rng(stride)
    x = rng.standard_normal((2, 2, 6, 6))
    tf = torch.nn.functional
    _, idx = tf.max_pool2d(torch.tensor(x), 2, stride, return_indices=True)
    pooled = rng.standard_normal(tuple(idx.shape))
    if stride == 1:  # repeated indices need equal values (a defined forward)
        pooled = x.reshape(2, 2, -1)[
            np.arange(2)[:, None, None], np.arange(2)[None, :, None],
            idx.numpy().reshape(2, 2, -1),
        ].reshape(pooled.shape)
    check_double(
        lambda t: F.max_unpool2d(t * t, idx.numpy(), 2, stride, output_size=(6, 6)),
        lambda t: tf.max_unpool2d(t * t, idx, 2, stride, output_size=(6, 6)),
        [pooled],
    )


# --------------------------------------------------------------------------
# average pooling: the spread and the pooling
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(24))
def test_avg_pool_double_backward_is_the_pooling(seed):
    torch = _torch()
    _, kw, x = _avg_geometry(seed)
    out = check_double(
        lambda t: F.avg_pool2d(t, **kw),
        lambda t: torch.nn.functional.avg_pool2d(t, **kw),
        [x],
        seed=seed,
    )
    gx, gdy = out.second
    assert gx is None or not np.any(gx.data)
    np.testing.assert_allclose(
        gdy.data, F.avg_pool2d(out.v[0], **kw).data, **tol(np.float64)
    )


@pytest.mark.parametrize("size", [1, 2, (3, 2), (None, 4), 5])
def test_adaptive_avg_pool_double_backward(size):
    torch = _torch()
    x = np.random.default_rng(7).standard_normal((2, 3, 7, 5))
    if isinstance(size, tuple) and None in size:
        theirs = (7, size[1])
    else:
        theirs = size
    check_double(
        lambda t: F.adaptive_avg_pool2d(t * t, size),
        lambda t: torch.nn.functional.adaptive_avg_pool2d(t * t, theirs),
        [x],
    )


def test_pool_layers_double_backward():
    """The nn layers use the same Functions: a pool stack, twice."""
    torch = _torch()
    x = np.random.default_rng(8).standard_normal((1, 2, 9, 9))
    net = cg.nn.Sequential(
        cg.nn.MaxPool2d(3, 1, 1), cg.nn.AvgPool2d(2, 1), cg.nn.AdaptiveAvgPool2d(3)
    )
    tnn = torch.nn
    tnet = tnn.Sequential(
        tnn.MaxPool2d(3, 1, 1), tnn.AvgPool2d(2, 1), tnn.AdaptiveAvgPool2d(3)
    )
    check_double(lambda t: net(t).tanh(), lambda t: tnet(t).tanh(), [x])


# --------------------------------------------------------------------------
# losses and the layers around them
# --------------------------------------------------------------------------


@pytest.mark.parametrize("shape, dim", [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -1)])
def test_log_softmax_double_backward(shape, dim):
    torch = _torch()
    x = 3 * np.random.default_rng(9).standard_normal(shape)
    out = check_double(
        lambda t: F.log_softmax(t, dim),
        lambda t: torch.nn.functional.log_softmax(t, dim),
        [x],
    )
    assert np.any(out.second[0].data), "log_softmax is curved"


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_double_backward(reduction, dtype):
    torch = _torch()
    rng = np.random.default_rng(10)
    logits, target = 2 * rng.standard_normal((4, 5)), rng.integers(0, 5, 4)
    check_double(
        lambda t: F.cross_entropy(t, target, reduction=reduction),
        lambda t: torch.nn.functional.cross_entropy(
            t, torch.tensor(target), reduction=reduction
        ),
        [logits],
        dtype=dtype,
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_double_backward(reduction):
    torch = _torch()
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    out = check_double(
        lambda s, t: F.mse_loss(s, t, reduction=reduction),
        lambda s, t: torch.nn.functional.mse_loss(s, t, reduction=reduction),
        [a, b],
    )
    # d(dx)/dx = 2/N: the curvature of a square, the same everywhere
    ga, gb, _ = out.second
    scale = 2.0 / (a.size if reduction == "mean" else 1)
    dy = out.dy.data if reduction == "none" else out.dy.data[()]
    np.testing.assert_allclose(ga.data, scale * dy * (out.v[0] - out.v[1]))
    np.testing.assert_allclose(gb.data, -ga.data)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_double_backward(bias):
    torch = _torch()
    rng = np.random.default_rng(12)
    inputs = [rng.standard_normal((4, 3)), rng.standard_normal((2, 3))]
    if bias:
        inputs.append(rng.standard_normal(2))
    check_double(F.linear, torch.nn.functional.linear, inputs)


def test_dropout_double_backward_keeps_the_mask():
    """The mask is saved state: d(dx)/d(dy) applies it to v, d/dx is 0."""
    rng = np.random.default_rng(13)
    x = cg.Tensor(rng.standard_normal((4, 6)) + 3, requires_grad=True)
    y = F.dropout(x, 0.5, generator=1)
    dy = cg.Tensor(rng.standard_normal(y.shape), requires_grad=True)
    (dx,) = cg.grad(y, [x], dy, create_graph=True)
    v = rng.standard_normal(x.shape)
    gx, gdy = cg.grad((dx * v).sum(), [x, dy], allow_unused=True)
    kept = y.data != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(gdy.data, np.where(kept, 2 * v, 0))
    assert gx is None or not np.any(gx.data)


def test_tiny_cnn_hessian_vector_product():
    """conv -> relu -> max pool -> linear -> cross-entropy: H·u for the
    weights, as torch computes it (the lesson's check, against torch)."""
    torch = _torch()
    rng = np.random.default_rng(14)
    x, target = rng.standard_normal((3, 1, 6, 6)), rng.integers(0, 4, 3)
    w0, lw0 = rng.standard_normal((2, 1, 3, 3)), rng.standard_normal((4, 8))
    uw, ulw = rng.standard_normal(w0.shape), rng.standard_normal(lw0.shape)

    def hvp(lib, grad, fn, tensor):
        w, lw = tensor(w0), tensor(lw0)
        h = fn.max_pool2d(fn.relu(fn.conv2d(tensor(x, False), w)), 2)
        loss = fn.cross_entropy(fn.linear(h.reshape(3, 8), lw), lib(target))
        gw, glw = grad(loss, [w, lw], create_graph=True)
        dot = (gw * tensor(uw, False)).sum() + (glw * tensor(ulw, False)).sum()
        return grad(dot, [w, lw])

    ours = hvp(np.asarray, lambda o, i, **k: cg.grad(o, i, **k), F,
               lambda a, g=True: cg.Tensor(a, requires_grad=g))
    theirs = hvp(torch.tensor,
                 lambda o, i, **k: torch.autograd.grad(o, i, **k),
                 torch.nn.functional,
                 lambda a, g=True: torch.tensor(a, requires_grad=g))
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(o.data, t.numpy(), **tol(np.float64))


# --------------------------------------------------------------------------
# against float64 finite differences of the first derivative (no torch);
# distinct values, so no argmax flips within eps
# --------------------------------------------------------------------------

FD_CASES = [
    # id, fn, input shapes
    ("max_pool ceil pad dil",
     lambda x: F.max_pool2d(x * x, 2, 2, 1, 2, ceil_mode=True), [(1, 2, 6, 5)]),
    ("max_pool overlap", lambda x: F.max_pool2d(x, 3, 1, 1).tanh(), [(1, 2, 5, 5)]),
    ("max_unpool", lambda x: F.max_unpool2d(
        x * x, np.array([[[[0, 3], [10, 15]]]]), 2), [(1, 1, 2, 2)]),
    ("avg_pool exclude pad", lambda x: F.avg_pool2d(
        x * x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(1, 2, 6, 5)]),
    ("avg_pool divisor", lambda x: F.avg_pool2d(
        x * x, 2, 1, 1, divisor_override=3), [(1, 1, 4, 5)]),
    ("adaptive", lambda x: F.adaptive_avg_pool2d(x * x, (2, 3)), [(1, 2, 5, 7)]),
    ("log_softmax", lambda x: F.log_softmax(x, 1), [(3, 4)]),
    ("cross_entropy", lambda x: F.cross_entropy(x, [1, 0, 3]), [(3, 4)]),
    ("cross_entropy none",
     lambda x: F.cross_entropy(x, [2, 2, 0], reduction="none"), [(3, 4)]),
    ("mse", F.mse_loss, [(3, 4), (3, 4)]),
    ("linear", F.linear, [(4, 3), (2, 3), (2,)]),
]


@pytest.mark.parametrize(
    "fn, shapes", [c[1:] for c in FD_CASES], ids=[c[0] for c in FD_CASES]
)
def test_second_derivative_against_finite_differences(fn, shapes):
    rng = np.random.default_rng(15)
    inputs = [rng.standard_normal(s) for s in shapes]
    report = cg.gradgradcheck(fn, inputs)
    assert report.ok, str(report)


# --------------------------------------------------------------------------
# lesson 11's exercise 11.1 (exercises/lessons/l11a_conv_double_backward.py)
# --------------------------------------------------------------------------


def _cdb_autodiff(w, dy, v, stride=1, padding=0):
    """A right answer in the other style: cg.grad, twice."""
    wt, dyt = cg.Tensor(w, requires_grad=True), cg.Tensor(dy, requires_grad=True)
    x = cg.Tensor(np.zeros(v.shape), requires_grad=True)
    y = F.conv2d(x, wt, stride=stride, padding=padding)
    (dx,) = cg.grad(y, x, dyt, create_graph=True)
    ddy, dw = cg.grad((dx * v).sum(), [dyt, wt])
    return ddy.data, dw.data


def _cdb_wrong(flip=False, step=None, images=None):
    ref = exercises.solution("conv_double_backward")

    def answer(w, dy, v, stride=1, padding=0):
        wk = w[..., ::-1, ::-1] if flip else w
        ddy, dw = ref(wk, dy, v, stride if step is None else step, padding)
        if images is not None:
            dw = ref(w, dy[:images], v[:images], stride, padding)[1]
        return ddy, dw

    return answer


def test_exercise_4_4_passes_autodiff_and_names_the_mistakes():
    check = exercises.check
    assert check("conv_double_backward", _cdb_autodiff, quiet=True).passed
    for wrong, code in [(_cdb_wrong(flip=True), "kernel-flipped"),
                        (_cdb_wrong(step=1), "stride-ignored"),
                        (_cdb_wrong(images=1), "missing-batch-sum")]:
        result = check("conv_double_backward", wrong, quiet=True)
        assert not result.passed and result.diagnosis == code, result.message


# --------------------------------------------------------------------------
# issue 43: a second grad through a weight-free op is zeros, as torch's
# --------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["relu", "max_pool2d", "avg_pool2d"])
def test_a_second_grad_through_a_weight_free_op_is_zeros_as_torch(op):
    """The first derivative of relu, max_pool2d or avg_pool2d depends on x
    only through where its values go: torch's has requires_grad=True all
    the same, and a second ``grad`` of it gives zeros. Ours used to have
    requires_grad=False there, and the second ``cg.grad`` raised
    "outputs[0] does not require grad"."""
    torch = _torch()
    rng = np.random.default_rng(43)
    xa = rng.standard_normal((2, 3, 6, 6))
    dya = rng.standard_normal((2, 3, 6, 6) if op == "relu" else (2, 3, 3, 3))
    va = rng.standard_normal(xa.shape)
    ours = {"relu": F.relu, "max_pool2d": lambda t: F.max_pool2d(t, 2),
            "avg_pool2d": lambda t: F.avg_pool2d(t, 2)}[op]
    theirs = {"relu": torch.relu,
              "max_pool2d": lambda t: torch.nn.functional.max_pool2d(t, 2),
              "avg_pool2d": lambda t: torch.nn.functional.avg_pool2d(t, 2)}[op]
    x = cg.Tensor(xa, requires_grad=True)
    (dx,) = cg.grad(ours(x), x, cg.Tensor(dya), create_graph=True)
    tx = torch.tensor(xa, requires_grad=True)
    (tdx,) = torch.autograd.grad(theirs(tx), tx, torch.tensor(dya), create_graph=True)
    assert dx.requires_grad is tdx.requires_grad is True
    np.testing.assert_allclose(dx.data, tdx.detach().numpy(), **tol(np.float64))
    (d2x,) = cg.grad((dx * cg.Tensor(va)).sum(), x)
    (td2x,) = torch.autograd.grad((tdx * torch.tensor(va)).sum(), tx)
    np.testing.assert_array_equal(td2x.numpy(), np.zeros(xa.shape))
    np.testing.assert_array_equal(d2x.data, td2x.numpy())
    # and through backward(create_graph=True): x.grad has a graph too
    x.grad = None
    ours(x).backward(dya, create_graph=True)
    assert x.grad.requires_grad
    np.testing.assert_allclose(x.grad.data, tdx.detach().numpy(), **tol(np.float64))
