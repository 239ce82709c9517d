"""Double backward (issue 17): gradients of gradients through conv2d,
conv_transpose2d, unfold, fold and the tensor ops, against torch's
``autograd.grad(..., create_graph=True)`` twice and against central
differences of the first derivative (``gradgradcheck``), on both backends;
and the semantics of ``cg.grad`` and ``backward(create_graph=True)``."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import tol

import convgrad as cg
from convgrad import F

BACKENDS = ["numba", "numpy"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    with cg.use_backend(request.param):
        yield request.param


# --------------------------------------------------------------------------
# the one helper: first and second derivatives against torch
# --------------------------------------------------------------------------


def check_double(our_fn, torch_fn, inputs, *, dtype=np.float64, seed=0):
    """Compare ``g = ∂⟨u, f⟩/∂inputs`` (built with create_graph) and the
    gradient of ``Σ ⟨vᵢ, gᵢ⟩`` with respect to every input and to ``u``
    with torch's. ``u`` and the ``v`` are random, never all ones."""
    import torch

    rng = np.random.default_rng(seed)
    arrays = [np.asarray(a, dtype=dtype) for a in inputs]
    ours = [cg.Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = our_fn(*ours), torch_fn(*theirs)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), **tol(dtype))
    u = rng.standard_normal(y.shape).astype(dtype)
    tu = torch.tensor(u, requires_grad=True)
    u = cg.Tensor(u, requires_grad=True)
    gs = cg.grad(y, ours, u, create_graph=True, allow_unused=True)
    tgs = torch.autograd.grad(ty, theirs, tu, create_graph=True, allow_unused=True)
    vs = [rng.standard_normal(a.shape).astype(dtype) for a in arrays]
    for i, (g, tg) in enumerate(zip(gs, tgs, strict=True)):
        assert g is None or g.dtype == np.dtype(dtype)
        np.testing.assert_allclose(
            _values(g, arrays[i]),
            _values(tg, arrays[i]),
            **tol(dtype),
            err_msg=f"first, input {i}",
        )
    wrt, twrt = [*ours, u], [*theirs, tu]
    terms = [(g * v).sum() for g, v in zip(gs, vs, strict=True) if g is not None]
    tterms = [
        (g * torch.tensor(v)).sum()
        for g, v in zip(tgs, vs, strict=True)
        if g is not None
    ]
    s, ts = sum(terms), sum(tterms)
    second = [None] * len(wrt)
    if isinstance(s, cg.Tensor) and s.requires_grad:
        second = cg.grad(s, wrt, allow_unused=True)
    tsecond = [None] * len(wrt)
    if isinstance(ts, torch.Tensor) and ts.requires_grad:
        tsecond = torch.autograd.grad(ts, twrt, allow_unused=True)
    names = [f"input {i}" for i in range(len(ours))] + ["u"]
    for name, t, g, tg in zip(names, wrt, second, tsecond, strict=True):
        np.testing.assert_allclose(
            _values(g, t.data),
            _values(tg, t.data),
            **tol(dtype),
            err_msg=f"second derivative, {name}",
        )
    return second


def _values(g, like):
    """A gradient's values (ours or torch's); None, as unused, is zeros."""
    if g is None:
        return np.zeros(np.shape(like))
    return g.data if isinstance(g, cg.Tensor) else g.detach().numpy()


# --------------------------------------------------------------------------
# random geometries
# --------------------------------------------------------------------------


def _conv_cases(count, seed):
    """(x shape, w shape, kwargs) of conv2d whose kernel fits; pairs differ
    per axis, padding may pass the kernel's reach, and some are 'same'."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        g = int(rng.integers(1, 4))
        ci, co = g * int(rng.integers(1, 3)), g * int(rng.integers(1, 3))
        k = tuple(int(v) for v in rng.integers(1, 4, size=2))
        d = tuple(int(v) for v in rng.integers(1, 3, size=2))
        hw = tuple(int(v) for v in rng.integers(2, 8, size=2))
        if rng.random() < 0.25:
            s, p = (1, 1), "same"
        else:
            s = tuple(int(v) for v in rng.integers(1, 4, size=2))
            p = tuple(int(v) for v in rng.integers(0, 3, size=2))
        pads = (0, 0) if p == "same" else p
        span = [dd * (kk - 1) + 1 for kk, dd in zip(k, d, strict=True)]
        if p != "same" and any(
            h + 2 * q < sp for h, q, sp in zip(hw, pads, span, strict=True)
        ):
            continue
        kw = {"stride": s, "padding": p, "dilation": d, "groups": g}
        out.append(((int(rng.integers(1, 3)), ci, *hw), (co, ci // g, *k), kw))
    return out


CONV_CASES = [
    ((2, 2, 5, 5), (3, 2, 2, 2), {"padding": "same"}),  # even kernel
    ((1, 2, 6, 5), (2, 2, 4, 3), {"padding": "same", "dilation": (1, 2)}),
    ((2, 4, 7, 6), (6, 2, 3, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ((1, 2, 4, 4), (2, 2, 2, 2), {"padding": 3}),  # padding past the reach
    *_conv_cases(16, seed=17),
]


def _transpose_cases(count, seed):
    """(x shape, w shape, kwargs) of conv_transpose2d, output_padding up to
    max(stride, dilation) - 1 (so past the stride when dilation is larger)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        g = int(rng.integers(1, 3))
        ci, co = g * int(rng.integers(1, 3)), g * int(rng.integers(1, 3))
        k = tuple(int(v) for v in rng.integers(1, 4, size=2))
        s = tuple(int(v) for v in rng.integers(1, 4, size=2))
        d = tuple(int(v) for v in rng.integers(1, 3, size=2))
        p = tuple(int(v) for v in rng.integers(0, 3, size=2))
        op = tuple(
            int(rng.integers(0, max(ss, dd))) for ss, dd in zip(s, d, strict=True)
        )
        hw = tuple(int(v) for v in rng.integers(1, 6, size=2))
        sizes = [
            (h - 1) * ss - 2 * pp + dd * (kk - 1) + oo + 1
            for h, ss, pp, dd, kk, oo in zip(hw, s, p, d, k, op, strict=True)
        ]
        if min(sizes) < 1:
            continue
        kw = {
            "stride": s,
            "padding": p,
            "output_padding": op,
            "groups": g,
            "dilation": d,
        }
        out.append(((int(rng.integers(1, 3)), ci, *hw), (ci, co // g, *k), kw))
    return out


TRANSPOSE_CASES = [
    ((2, 4, 3, 4), (4, 1, 3, 3), {"stride": 2, "output_padding": 1, "groups": 2}),
    ((1, 2, 3, 3), (2, 2, 3, 3), {"output_padding": 1, "dilation": 2}),
    *_transpose_cases(14, seed=71),
]


def _ids(case):
    xs, ws, kw = case
    return f"x{xs}w{ws}" + ",".join(f"{k}={v}" for k, v in kw.items())


# --------------------------------------------------------------------------
# against torch
# --------------------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", CONV_CASES, ids=[_ids(c) for c in CONV_CASES])
def test_conv2d_double_backward_matches_torch(case, bias, backend, torch):
    xs, ws, kw = case
    rng = np.random.default_rng(len(str(case)))
    inputs = [rng.standard_normal(xs), rng.standard_normal(ws)]
    if bias:
        inputs.append(rng.standard_normal(ws[0]))
    second = check_double(
        lambda *a: F.conv2d(*a, **kw),
        lambda *a: torch.nn.functional.conv2d(*a, **kw),
        inputs,
        seed=len(xs),
    )
    # conv2d is bilinear: d²/dx² is 0, the mixed one is not
    assert second[0] is not None and np.abs(second[0].data).max() > 0


@pytest.mark.torch
@pytest.mark.parametrize(
    "case", TRANSPOSE_CASES, ids=[_ids(c) for c in TRANSPOSE_CASES]
)
def test_conv_transpose2d_double_backward_matches_torch(case, backend, torch):
    xs, ws, kw = case
    rng = np.random.default_rng(len(str(case)))
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    b = rng.standard_normal(ws[1] * kw.get("groups", 1))
    check_double(
        lambda *a: F.conv_transpose2d(*a, **kw),
        lambda *a: torch.nn.functional.conv_transpose2d(*a, **kw),
        [x, w, b],
    )


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv_fast_path_double_backward_matches_torch(dtype, backend, torch):
    """Big enough for the Numba backend's fast pipeline (ctx.fast), in
    both dtypes; a triple derivative too, since the rules are closed."""
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((4, 16, 24, 24)), rng.standard_normal((16, 16, 3, 3))
    check_double(
        lambda x, w: F.conv2d(x, w, padding=1),
        lambda x, w: torch.nn.functional.conv2d(x, w, padding=1),
        [x, w],
        dtype=dtype,
    )
    check_double(
        lambda x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1),
        lambda x, w: torch.nn.functional.conv_transpose2d(
            x, w, stride=2, output_padding=1
        ),
        [x, w],
        dtype=dtype,
    )


@pytest.mark.torch
def test_conv2d_third_derivative_matches_torch(backend, torch):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 2, 6, 5)), rng.standard_normal((4, 1, 2, 3))
    kw = {"padding": "same", "groups": 2}
    cx, cw = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
    tx, tw = (torch.tensor(a, requires_grad=True) for a in (x, w))

    def third(f, xx, ww, grad):
        y = f(xx, ww, **kw)
        (dx,) = grad((y * y).sum(), [xx], create_graph=True)  # not linear
        (dw,) = grad((dx * dx).sum(), [ww], create_graph=True)
        return grad((dw * dw * dw).sum(), [xx, ww])

    ours = third(F.conv2d, cx, cw, cg.grad)
    theirs = third(torch.nn.functional.conv2d, tx, tw, torch.autograd.grad)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.data, b.numpy(), rtol=1e-9, atol=1e-9)


GRADIENT_CASES = [CONV_CASES[i] for i in (0, 1, 2, 3, 6, 9, 12)]


@pytest.mark.torch
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=[_ids(c) for c in GRADIENT_CASES])
def test_conv2d_gradients_as_functions_match_torch(case, backend, torch):
    """conv2d's ``dx(w, dy)`` and ``dw(x, dy)`` are functions of their own
    (ConvTranspose2d, ConvWeightGrad): their first derivatives are the
    vjp rules, their second the ndarray rules of what those build."""
    xs, ws, kw = case
    rng = np.random.default_rng(len(str(case)))
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    y_shape = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), **kw).shape
    dy = rng.standard_normal(tuple(y_shape))

    def ours(which):
        def fn(x, w, dy):
            return cg.grad(F.conv2d(x, w, **kw), [x, w], dy, create_graph=True)[which]

        return fn

    def theirs(which):
        def fn(x, w, dy):
            y = torch.nn.functional.conv2d(x, w, **kw)
            return torch.autograd.grad(y, [x, w], dy, create_graph=True)[which]

        return fn

    for which in (0, 1):  # dx, then dw
        check_double(ours(which), theirs(which), [x, w, dy], seed=which)


def _no_output_padding(case):
    xs, ws, kw = case
    return xs, ws, {**kw, "output_padding": 0}


# torch 2.13 cannot differentiate its own conv_transpose2d gradients again
# with output_padding ("output_padding is not supported for non-transposed
# convolutions"): against torch without it, against finite differences with
OP0_CASES = [_no_output_padding(c) for c in TRANSPOSE_CASES[:6]]


@pytest.mark.torch
@pytest.mark.parametrize("case", OP0_CASES, ids=[_ids(c) for c in OP0_CASES])
def test_conv_transpose2d_gradients_as_functions_match_torch(case, backend, torch):
    xs, ws, kw = case
    rng = np.random.default_rng(len(str(case)))
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    f = torch.nn.functional.conv_transpose2d
    dy = rng.standard_normal(tuple(f(torch.tensor(x), torch.tensor(w), **kw).shape))
    for which in (0, 1):
        check_double(
            lambda x, w, dy, i=which: cg.grad(
                F.conv_transpose2d(x, w, **kw), [x, w], dy, create_graph=True
            )[i],
            lambda x, w, dy, i=which: torch.autograd.grad(
                f(x, w, **kw), [x, w], dy, create_graph=True
            )[i],
            [x, w, dy],
            seed=which,
        )


OP_CASES = [TRANSPOSE_CASES[i] for i in (0, 1, 3)]


@pytest.mark.parametrize("case", OP_CASES, ids=[_ids(c) for c in OP_CASES])
def test_conv_transpose2d_gradients_with_output_padding_gradgradcheck(case, backend):
    xs, ws, kw = case
    assert kw["output_padding"] != 0
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    dy = rng.standard_normal(F.conv_transpose2d(x, w, **kw).shape)
    for which in (0, 1):
        cg.gradgradcheck(
            lambda x, w, dy, i=which: cg.grad(
                F.conv_transpose2d(x, w, **kw), [x, w], dy, create_graph=True
            )[i],
            [x, w, dy],
        )


FOLD_CASES = [
    # x shape, kernel_size, dilation, padding, stride
    ((2, 3, 6, 5), (2, 3), 1, 0, 1),
    ((1, 2, 7, 7), 3, 2, 1, 2),
    ((2, 1, 5, 6), (3, 2), (1, 2), (2, 1), (2, 3)),
]


@pytest.mark.torch
@pytest.mark.parametrize("xs, k, d, p, s", FOLD_CASES)
def test_unfold_fold_double_backward_match_torch(xs, k, d, p, s, backend, torch):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(xs)
    check_double(
        lambda x: F.unfold(x, k, d, p, s) * F.unfold(x, k, d, p, s),
        lambda x: torch.nn.functional.unfold(x, k, d, p, s) ** 2,
        [x],
    )
    col = torch.nn.functional.unfold(torch.tensor(x), k, d, p, s).numpy()
    hw = xs[2:]
    check_double(
        lambda c: F.fold(c, hw, k, d, p, s) ** 3,
        lambda c: torch.nn.functional.fold(c, hw, k, d, p, s) ** 3,
        [col],
    )


def test_fold_backward_is_unfold_and_back(backend):
    """The lesson's claim, made by autodiff: differentiating fold gives
    unfold, and differentiating that gives fold again."""
    rng = np.random.default_rng(0)
    col = cg.Tensor(rng.standard_normal((1, 2 * 4, 25)), requires_grad=True)
    u = cg.Tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
    y = F.fold(col, (4, 4), 2, padding=1)
    (dcol,) = cg.grad(y, col, u, create_graph=True)
    assert dcol.grad_fn == "Unfold"
    np.testing.assert_array_equal(dcol.data, F.unfold(u, 2, padding=1).data)
    v = cg.Tensor(rng.standard_normal(dcol.shape), requires_grad=True)
    (du,) = cg.grad(dcol, u, v, create_graph=True)
    assert du.grad_fn == "Fold"
    np.testing.assert_array_equal(du.data, F.fold(v, (4, 4), 2, padding=1).data)


def test_conv2d_backward_is_conv_transpose2d(backend):
    rng = np.random.default_rng(0)
    x = cg.Tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((3, 2, 3, 3)), requires_grad=True)
    (dx, dw) = cg.grad(F.conv2d(x, w, stride=2).sum(), [x, w], create_graph=True)
    assert dx.grad_fn == "ConvTranspose2d" and dw.grad_fn == "ConvWeightGrad"


class pos(tuple):  # noqa: N801 (reads as a shape in the table)
    """A shape whose entries are drawn away from 0 (log, division)."""

    def __new__(cls, *shape):
        return super().__new__(cls, shape)


# name, our fn, torch fn, input shapes, positive inputs
TENSOR_OPS = [
    ("add", lambda a, b: (a + b) * a, lambda a, b: (a + b) * a, [(3, 4), (4,)]),
    ("sub", lambda a, b: (a - b) * b, lambda a, b: (a - b) * b, [(3, 1), (3, 4)]),
    ("mul", lambda a, b: a * b * a, lambda a, b: a * b * a, [(2, 3), (2, 3)]),
    ("div", lambda a, b: a / b, lambda a, b: a / b, [(2, 3), pos(2, 3)]),
    (
        "rdiv",
        lambda a: 2.0 / a,
        lambda a: 2.0 / a,
        [
            pos(
                4,
            )
        ],
    ),
    ("neg", lambda a: -(a * a), lambda a: -(a * a), [(5,)]),
    ("pow", lambda a: a**3, lambda a: a**3, [(2, 3)]),
    ("pow_frac", lambda a: a**2.5, lambda a: a**2.5, [pos(2, 3)]),
    ("matmul", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4, 2)]),
    ("matmul_batched", lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (4, 5)]),
    ("matmul_vec_mat", lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (2, 4, 3)]),
    ("matmul_mat_vec", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4,)]),
    ("matmul_vec_vec", lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (4,)]),
    (
        "reshape",
        lambda a: a.reshape(3, 4) * a.reshape(3, 4),
        lambda a: a.reshape(3, 4) * a.reshape(3, 4),
        [(2, 6)],
    ),
    (
        "transpose",
        lambda a: a.transpose(2, 0, 1) * a.transpose(2, 0, 1),
        lambda a: a.permute(2, 0, 1) * a.permute(2, 0, 1),
        [(2, 3, 4)],
    ),
    ("T", lambda a, b: a.T @ b, lambda a, b: a.T @ b, [(3, 2), (3, 4)]),
    ("relu", lambda a: F.relu(a) * a, lambda a: a.relu() * a, [(3, 5)]),
    ("tanh", lambda a: a.tanh(), lambda a: a.tanh(), [(3, 4)]),
    ("sigmoid", lambda a: a.sigmoid(), lambda a: a.sigmoid(), [(3, 4)]),
    ("exp", lambda a: a.exp(), lambda a: a.exp(), [(3, 4)]),
    ("log", lambda a: a.log(), lambda a: a.log(), [pos(3, 4)]),
    (
        "sum",
        lambda a: a.sum(axis=1) ** 2,
        lambda a: a.sum(dim=1) ** 2,
        [(3, 4, 2)],
    ),
    (
        "sum_keepdims",
        lambda a: a.sum(axis=(0, 2), keepdims=True) * a,
        lambda a: a.sum(dim=(0, 2), keepdim=True) * a,
        [(3, 4, 2)],
    ),
    ("sum_all", lambda a: a.sum() * a, lambda a: a.sum() * a, [(3, 2)]),
    ("mean", lambda a: a.mean(axis=0) ** 3, lambda a: a.mean(dim=0) ** 3, [(4, 3)]),
    (
        "mean_keepdims",
        lambda a: a.mean(axis=-1, keepdims=True) * a,
        lambda a: a.mean(dim=-1, keepdim=True) * a,
        [(4, 3)],
    ),
    ("flatten", lambda a: a.flatten(1) ** 2, lambda a: a.flatten(1) ** 2, [(2, 3, 2)]),
]


def _arrays(shapes, rng):
    return [
        rng.uniform(0.5, 2.0, s) if isinstance(s, pos) else rng.standard_normal(s)
        for s in shapes
    ]


@pytest.mark.torch
@pytest.mark.parametrize(
    "name, ours, theirs, shapes", TENSOR_OPS, ids=[c[0] for c in TENSOR_OPS]
)
def test_tensor_op_double_backward_matches_torch(name, ours, theirs, shapes, torch):
    rng = np.random.default_rng(len(name))
    check_double(ours, theirs, _arrays(shapes, rng), seed=len(name))


def test_a_float32_input_of_a_float64_result_gets_float32_gradients():
    x = cg.Tensor(np.array([1.0, -2.0, 0.5], dtype=np.float32), requires_grad=True)
    c = np.array([0.5, 2.0, -1.0])  # float64: the product is float64
    y = (x * c * x).sum()
    assert y.dtype == np.float64
    (g,) = cg.grad(y, x, create_graph=True)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.data, 2 * c * x.data, rtol=1e-6)
    (h,) = cg.grad((g * g).sum(), x)
    assert h.dtype == np.float32
    np.testing.assert_allclose(h.data, 8 * c * c * x.data, rtol=1e-6)


def test_relu_second_derivative_is_zero():
    x = cg.Tensor(np.array([-1.5, -0.2, 0.3, 2.0]), requires_grad=True)
    u = cg.Tensor(np.array([0.5, -1.0, 2.0, 3.0]), requires_grad=True)
    (g,) = cg.grad(F.relu(x), x, u, create_graph=True)
    np.testing.assert_array_equal(g.data, [0.0, 0.0, 2.0, 3.0])
    d2x, du = cg.grad((g * g).sum(), [x, u], allow_unused=True)
    # the mask only chose the places: zeros for x, as torch's (issue 43)
    np.testing.assert_array_equal(d2x.data, np.zeros(4))
    np.testing.assert_array_equal(du.data, [0.0, 0.0, 4.0, 6.0])


# --------------------------------------------------------------------------
# against finite differences of the first derivative, both backends
# --------------------------------------------------------------------------

GRADGRAD = [
    (
        "conv2d",
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1),
        [(2, 2, 5, 4), (3, 2, 2, 3), (3,)],
    ),
    (
        "conv2d_same_groups",
        lambda x, w: F.conv2d(x, w, padding="same", groups=2),
        [(1, 4, 4, 5), (2, 2, 2, 2)],
    ),
    (
        "conv2d_squared",
        lambda x, w: F.conv2d(x, w, dilation=2) ** 2,
        [(1, 1, 6, 6), (2, 1, 2, 2)],
    ),
    (
        "conv_transpose2d",
        lambda x, w, b: F.conv_transpose2d(
            x, w, b, stride=2, padding=1, output_padding=1
        ),
        [(1, 2, 3, 3), (2, 2, 3, 2), (2,)],
    ),
    ("unfold", lambda x: F.unfold(x, 2, padding=1, stride=2) ** 2, [(1, 2, 4, 3)]),
    ("fold", lambda c: F.fold(c, (4, 4), 3, padding=1) ** 2, [(1, 9, 16)]),
    ("tanh_matmul", lambda a, b: (a @ b).tanh(), [(2, 3), (3, 2)]),
    ("sigmoid_div", lambda a, b: a.sigmoid() / (b * b + 1.0), [(3,), (3,)]),
    ("exp_mean", lambda a: a.exp().mean(axis=0), [(3, 2)]),
]


@pytest.mark.parametrize("name, fn, shapes", GRADGRAD, ids=[c[0] for c in GRADGRAD])
def test_gradgradcheck(name, fn, shapes, backend):
    rng = np.random.default_rng(len(name))
    report = cg.gradgradcheck(fn, [rng.standard_normal(s) for s in shapes])
    assert report.ok and report.check == "gradgradcheck"


def test_gradgradcheck_catches_a_wrong_vjp(monkeypatch):
    """A vjp that disagrees with backward's derivative fails, and the report
    names the input, the element and both values."""
    real = cg.ops.basic.Tanh.vjp

    def wrong(ctx, inputs, dy):
        return real(ctx, inputs, dy) * 1.01

    monkeypatch.setattr(cg.ops.basic.Tanh, "vjp", staticmethod(wrong))
    x = np.array([0.3, -0.7, 1.1])
    report = cg.gradgradcheck(lambda a: a.tanh(), [x], raise_exception=False)
    assert not report.ok
    assert "gradgradcheck MISMATCH" in str(report) and "analytic" in str(report)
    with pytest.raises(AssertionError, match="gradgradcheck MISMATCH"):
        cg.gradgradcheck(lambda a: a.tanh(), [x])


# --------------------------------------------------------------------------
# cg.grad and backward(create_graph=True): torch's semantics
# --------------------------------------------------------------------------


def _xw():
    rng = np.random.default_rng(2)
    x = cg.Tensor(rng.standard_normal((1, 1, 4, 4)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((2, 1, 2, 2)), requires_grad=True)
    return x, w


def test_grad_returns_a_tuple_and_touches_no_grad():
    x, w = _xw()
    y = F.conv2d(x, w).sum()
    out = cg.grad(y, x, retain_graph=True)  # y.backward() follows
    assert isinstance(out, tuple) and len(out) == 1
    assert isinstance(out[0], cg.Tensor) and not out[0].requires_grad
    assert out[0].grad_fn is None  # create_graph=False: a constant
    assert x.grad is None and w.grad is None  # nothing accumulated
    y.backward()
    np.testing.assert_allclose(out[0].data, x.grad)
    assert isinstance(x.grad, np.ndarray)  # first order: still an ndarray


def test_grad_allow_unused():
    x, w = _xw()
    z = cg.Tensor(np.ones(3), requires_grad=True)
    y = F.conv2d(x, w).sum()
    with pytest.raises(RuntimeError, match=r"inputs\[1\] was not used.*allow_unused"):
        cg.grad(y, [x, z], retain_graph=True)
    gx, gz = cg.grad(y, [x, z], allow_unused=True)
    assert gz is None and gx.shape == x.shape


def test_grad_of_an_intermediate_and_of_several_outputs():
    x = cg.Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    h = x * x
    y1, y2 = (h * 3.0).sum(), h.sum()
    (gh,) = cg.grad([y1, y2], h)  # summed over the outputs
    np.testing.assert_array_equal(gh.data, [4.0, 4.0, 4.0])
    u = np.array([1.0, -2.0, 0.5])
    gx, gx2 = cg.grad([h], [x, x], grad_outputs=[u])
    np.testing.assert_array_equal(gx.data, 2 * x.data * u)
    np.testing.assert_array_equal(gx2.data, gx.data)
    (gy,) = cg.grad(y1, y1)
    assert gy.item() == 1.0


def test_create_graph_requires_grad_only_where_it_depends_on_a_leaf():
    x = cg.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    (g_lin,) = cg.grad((x * 3.0).sum(), x, create_graph=True)
    assert not g_lin.requires_grad  # 3, whatever x is
    (g_sq,) = cg.grad((x * x).sum(), x, create_graph=True)
    assert g_sq.requires_grad and g_sq.grad_fn is not None


def test_create_graph_builds_a_graph_inside_no_grad():
    x = cg.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = (x * x * x).sum()
    with cg.no_grad():
        (g,) = cg.grad(y, x, create_graph=True)
        assert not cg.is_grad_enabled()  # restored after the walk
    (h,) = cg.grad(g.sum(), x)
    np.testing.assert_allclose(h.data, 6 * x.data)


def test_backward_create_graph_leaves_a_tensor_grad_with_a_graph():
    x = cg.Tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    (x * x * x).sum().backward(create_graph=True)
    assert isinstance(x.grad, cg.Tensor) and x.grad.requires_grad
    np.testing.assert_allclose(x.grad.data, 3 * x.data**2)
    g = x.grad
    x.grad = None
    g.sum().backward()  # first order through the gradient's graph
    assert isinstance(x.grad, np.ndarray)
    np.testing.assert_allclose(x.grad, 6 * x.data)


def test_backward_accumulates_across_orders():
    x = cg.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    (x * x).sum().backward()
    (x * x).sum().backward(create_graph=True)  # ndarray + Tensor: a Tensor
    assert isinstance(x.grad, cg.Tensor) and x.grad.requires_grad
    np.testing.assert_allclose(x.grad.data, 4 * x.data)
    (x * x).sum().backward()  # first order onto a Tensor .grad: adds
    np.testing.assert_allclose(x.grad.data, 6 * x.data)


def test_a_tensor_gradient_carries_its_graph():
    x = cg.Tensor(np.array([1.0, -2.0]), requires_grad=True)
    u = cg.Tensor(np.array([0.5, 3.0]), requires_grad=True)
    (x * x).backward(gradient=u, create_graph=True)
    (du,) = cg.grad(x.grad.sum(), u)  # x.grad = 2 x u
    np.testing.assert_allclose(du.data, 2 * x.data)


class _NoVjp(cg.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, dy):
        return dy * 2


def test_a_function_without_vjp_raises_under_create_graph():
    x = cg.Tensor(np.ones(2), requires_grad=True)
    y = _NoVjp.apply(x).sum()
    (g,) = cg.grad(y, x)  # first order is fine
    np.testing.assert_array_equal(g.data, [2.0, 2.0])
    with pytest.raises(RuntimeError, match="double backward through _NoVjp"):
        cg.grad(y, x, create_graph=True)
    with pytest.raises(RuntimeError, match="double backward through _NoVjp"):
        y.backward(create_graph=True)
    assert cg.is_grad_enabled()


def test_modified_input_is_caught_under_create_graph():
    x = cg.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    w = cg.Tensor(np.array([3.0, 4.0]), requires_grad=True)
    y = (x * w).sum()
    w.data *= 2
    with pytest.raises(RuntimeError, match="modified in place"):
        cg.grad(y, x, create_graph=True)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda x, y: cg.grad(np.ones(2), x), TypeError, "outputs must be a Tensor"),
        (lambda x, y: cg.grad(y, [x, 3]), TypeError, r"inputs\[1\] must be a Tensor"),
        (lambda x, y: cg.grad(y, []), ValueError, "inputs must not be empty"),
        (lambda x, y: cg.grad(y * x, x), ValueError, r"grad_outputs\[0\] must be"),
        (lambda x, y: cg.grad(y, x, [None, None]), ValueError, "one entry per output"),
        (lambda x, y: cg.grad(x, x, np.ones(3)), ValueError, r"shape \(2,\)"),
        (lambda x, y: cg.grad(y, x, create_graph="yes"), TypeError, "create_graph"),
        (lambda x, y: cg.grad(y, x, allow_unused=1), TypeError, "allow_unused"),
        (lambda x, y: cg.grad(y, x, retain_graph="no"), TypeError, "retain_graph"),
        (
            lambda x, y: cg.grad(y, cg.Tensor([1.0])),
            RuntimeError,
            r"inputs\[0\] does not require grad",
        ),
        (
            lambda x, y: cg.grad(cg.Tensor(1.0), x),
            RuntimeError,
            r"outputs\[0\] does not require grad",
        ),
        (lambda x, y: y.backward(create_graph=None), TypeError, "create_graph"),
        (
            lambda x, y: x.backward(cg.Tensor(np.ones(3))),
            ValueError,
            r"gradient must have the output's shape",
        ),
    ],
)
def test_grad_errors_name_the_parameter(call, error, match):
    x = cg.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(error, match=match):
        call(x, y)


# --------------------------------------------------------------------------
# what double backward is for: Hessian-vector products, gradient penalties
# --------------------------------------------------------------------------


def _tiny_cnn(x, w1, w2):
    h = F.conv2d(x, w1, padding=1).tanh()
    return (F.conv2d(h, w2, stride=2) ** 2).mean()


def test_hessian_vector_product_matches_finite_differences(backend):
    rng = np.random.default_rng(8)
    x = cg.Tensor(rng.standard_normal((2, 1, 6, 6)))
    w1 = cg.Tensor(rng.standard_normal((3, 1, 3, 3)) * 0.5, requires_grad=True)
    w2 = cg.Tensor(rng.standard_normal((2, 3, 2, 2)) * 0.5, requires_grad=True)
    v1, v2 = rng.standard_normal(w1.shape), rng.standard_normal(w2.shape)
    g1, g2 = cg.grad(_tiny_cnn(x, w1, w2), [w1, w2], create_graph=True)
    hv = cg.grad((g1 * v1).sum() + (g2 * v2).sum(), [w1, w2])
    eps = 1e-6

    def grads_at(t):
        a = cg.Tensor(w1.data + t * v1, requires_grad=True)
        b = cg.Tensor(w2.data + t * v2, requires_grad=True)
        return [g.data for g in cg.grad(_tiny_cnn(x, a, b), [a, b])]

    plus, minus = grads_at(eps), grads_at(-eps)
    for got, p, m in zip(hv, plus, minus, strict=True):
        np.testing.assert_allclose(got.data, (p - m) / (2 * eps), rtol=1e-5, atol=1e-7)


@pytest.mark.torch
def test_gradient_penalty_first_order_backward_matches_torch(backend, torch):
    """``L + ‖∂L/∂x‖²``, then a plain backward(): first order through the
    gradient's graph (ConvWeightGrad's and ConvTranspose2d's ndarray
    rules)."""
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((2, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    b = rng.standard_normal(3)

    def penalised(f, grad, xx, ww, bb):
        y = f(xx, ww, bb, stride=2, padding=1).tanh()
        loss = (y * y).sum()
        (dx,) = grad(loss, [xx], create_graph=True)
        return loss + (dx * dx).sum()

    ours = [cg.Tensor(a, requires_grad=True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    penalised(F.conv2d, cg.grad, *ours).backward()
    penalised(torch.nn.functional.conv2d, torch.autograd.grad, *theirs).backward()
    for o, t in zip(ours, theirs, strict=True):
        assert isinstance(o.grad, np.ndarray)
        np.testing.assert_allclose(o.grad, t.grad.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "xs, ws", [((2, 0, 4, 4), (3, 0, 3, 3)), ((0, 2, 4, 4), (3, 2, 3, 3))]
)
def test_conv2d_double_backward_of_empty_inputs(xs, ws, backend):
    """No input channels, or an empty batch: every gradient of every order
    is an array of zeros of the input's shape, as in first order."""
    x = cg.Tensor(np.zeros(xs), requires_grad=True)
    w = cg.Tensor(np.ones(ws), requires_grad=True)
    b = cg.Tensor(np.ones(ws[0]), requires_grad=True)
    y = F.conv2d(x, w, b, padding=1)
    u = cg.Tensor(np.ones(y.shape), requires_grad=True)
    gs = cg.grad(y, [x, w, b], u, create_graph=True)
    first = cg.grad(y, [x, w, b], u.data)
    for g, f, t in zip(gs, first, (x, w, b), strict=True):
        assert g.shape == t.shape
        np.testing.assert_array_equal(g.data, f.data)
    s = sum((g * g).sum() for g in gs)
    if s.requires_grad:
        hs = cg.grad(s, [x, w, u], allow_unused=True)
        for h, t in zip(hs, (x, w, u), strict=True):
            assert h is None or (h.shape == t.shape and not h.data.any())


# --------------------------------------------------------------------------
# batch norm and pixel shuffle (issue 28)
# --------------------------------------------------------------------------

_RM, _RV = np.array([0.3, -0.2, 0.1]), np.array([0.5, 1.5, 2.0])


def _running(x, f):
    """Fixed running statistics of ``x``'s dtype, for ``F`` or torch's."""
    if f is F:
        return _RM.astype(x.dtype), _RV.astype(x.dtype)
    import torch

    return torch.tensor(_RM, dtype=x.dtype), torch.tensor(_RV, dtype=x.dtype)

NORM_SHAPE_CASES = [
    ("bn train (N, C, H, W)", "batch_norm",
     lambda x, w, b, f: f.batch_norm(x, None, None, w, b, training=True),
     [(3, 3, 4, 2), (3,), (3,)]),
    ("bn train (N, C)", "batch_norm",
     lambda x, w, b, f: f.batch_norm(x, None, None, w, b, True, eps=1e-3),
     [(5, 3), (3,), (3,)]),
    ("bn train (N, C, L) no affine", "batch_norm",
     lambda x, f: f.batch_norm(x, None, None, training=True), [(4, 3, 3)]),
    ("bn train, squared", "batch_norm",
     lambda x, w, f: f.batch_norm(x, None, None, w, training=True) ** 2,
     [(2, 3, 3, 3), (3,)]),
    ("bn eval", "batch_norm",
     lambda x, w, b, f: f.batch_norm(x, *_running(x, f), w, b) ** 2,
     [(2, 3, 2, 2), (3,), (3,)]),
    ("pixel_shuffle", "pixel_shuffle",
     lambda x, f: f.pixel_shuffle(x, 2) ** 2, [(2, 8, 2, 3)]),
    ("pixel_unshuffle", "pixel_unshuffle",
     lambda x, f: f.pixel_unshuffle(x, 2) ** 2, [(3, 2, 4, 6)]),
]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name, op, fn, shapes", NORM_SHAPE_CASES, ids=[c[0] for c in NORM_SHAPE_CASES]
)
def test_norm_and_shuffle_double_backward_match_torch(
    name, op, fn, shapes, dtype, backend, torch
):
    rng = np.random.default_rng(len(name))
    inputs = [rng.standard_normal(s) for s in shapes]
    second = check_double(
        lambda *a: fn(*a, F),
        lambda *a: fn(*a, torch.nn.functional),
        inputs,
        dtype=dtype,
    )
    if op == "batch_norm" and "eval" not in name:  # the rule is not linear
        assert any(g is not None and np.any(g.data) for g in second[:1])


@pytest.mark.parametrize(
    "name, op, fn, shapes", NORM_SHAPE_CASES, ids=[c[0] for c in NORM_SHAPE_CASES]
)
def test_norm_and_shuffle_gradgradcheck(name, op, fn, shapes, backend):
    rng = np.random.default_rng(len(name) + 1)
    report = cg.gradgradcheck(
        lambda *a: fn(*a, F), [rng.standard_normal(s) for s in shapes]
    )
    assert report.ok and report.check == "gradgradcheck"


def test_batch_norm_vjp_is_the_backward_rule(backend):
    """The Tensor-op rule (vjp, used under create_graph) and the ndarray
    rule (backward) give the same first derivatives."""
    rng = np.random.default_rng(5)
    x, w, b = (cg.Tensor(rng.standard_normal(s), requires_grad=True)
               for s in ((3, 2, 4, 3), (2,), (2,)))
    u = rng.standard_normal((3, 2, 4, 3))
    y = F.batch_norm(x, None, None, w, b, training=True)
    plain = cg.grad(y, [x, w, b], u)
    y = F.batch_norm(x, None, None, w, b, training=True)
    graph = cg.grad(y, [x, w, b], cg.Tensor(u), create_graph=True)
    for p, g in zip(plain, graph, strict=True):
        np.testing.assert_allclose(p.data, g.data, rtol=1e-12, atol=1e-12)
    # dx of a batch norm sums to 0 over each channel's N, H, W
    np.testing.assert_allclose(plain[0].data.sum(axis=(0, 2, 3)), 0, atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("training", [True, False])
def test_batchnorm2d_gradient_penalty_matches_torch(training, backend, torch):
    """``L + ‖∂L/∂x‖²`` through a conv and an ``nn.BatchNorm2d`` (after a
    batch that moved its running statistics), then ``backward()``: the
    module's weight and bias, and the input, get torch's gradients."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 2, 4, 4))
    w = rng.standard_normal((3, 2, 3, 3))
    warm = rng.standard_normal((3, 2, 4, 4)) * 2 + 1

    def penalised(f, grad, bn, xx, ww):
        y = bn(f.conv2d(xx, ww, padding=1)).tanh()
        loss = (y * y).sum()
        (dx,) = grad(loss, [xx], create_graph=True)
        return loss + (dx * dx).sum()

    bn = cg.nn.BatchNorm2d(3, dtype=np.float64)
    tbn = torch.nn.BatchNorm2d(3, dtype=torch.float64)
    bn(F.conv2d(warm, w, padding=1))
    with torch.no_grad():
        tbn(torch.nn.functional.conv2d(torch.tensor(warm), torch.tensor(w),
                                       padding=1))  # fmt: skip
    bn.train(training)
    tbn.train(training)
    ours = [cg.Tensor(a, requires_grad=True) for a in (x, w)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w)]
    penalised(F, cg.grad, bn, *ours).backward()
    penalised(torch.nn.functional, torch.autograd.grad, tbn, *theirs).backward()
    pairs = [*zip(ours, theirs, strict=True),
             (bn.weight, tbn.weight), (bn.bias, tbn.bias)]  # fmt: skip
    for o, t in pairs:
        np.testing.assert_allclose(o.grad, t.grad.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(bn.running_var.data, tbn.running_var.numpy())


def test_bias_and_linear_weight_gradients_as_ops(backend):
    """A conv's ``db`` (``BiasGrad``) and linear's ``dw``
    (``LinearWeightGrad``) are ops of their own, one wrapper each at first
    order (issue 43): differentiated twice, each agrees with torch's
    ``Σ dy`` over (0, 2, 3) and ``dyᵀ · x``; and lesson 9's CNN, with
    create_graph, records them in its gradients' graphs."""
    from convgrad.ops.conv import BiasGrad
    from convgrad.ops.loss import LinearWeightGrad

    rng = np.random.default_rng(11)
    check_double(BiasGrad.apply, lambda dy: dy.sum(dim=(0, 2, 3)),
                 [rng.standard_normal((2, 3, 4, 5))])
    second = check_double(LinearWeightGrad.apply, lambda dy, x: dy.T @ x,
                          [rng.standard_normal((5, 3)), rng.standard_normal((5, 4))])
    assert all(s is not None for s in second)  # bilinear: both inputs and u
    x = rng.standard_normal((2, 1, 8, 8))
    from convgrad.training import digits_cnn

    model = digits_cnn(generator=0, dtype=np.float64)
    loss = F.cross_entropy(model(x), np.array([3, 7]))
    conv_b, lin_w = model[0].bias, model[7].weight
    db, dw = cg.grad(loss, [conv_b, lin_w], create_graph=True)
    assert (db.grad_fn, dw.grad_fn) == ("BiasGrad", "LinearWeightGrad")
