"""The conv oracle suites (test_conv.py, test_edges.py) once more, on the
Numba backend's fast path with its size threshold off.

The ops keep the textbook forwards for convs below the Numba backend's
``settings.min_work`` multiply-adds, which every oracle case is; here
``min_work = 0`` sends every case (and each conv of its gradient) down the
fast path, against torch, with the suites' own tolerances:
once through its direct GEMMs and once with Winograd taking every 3×3
stride-1 float32 case (kernels/winograd.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_conv import *  # noqa: F403  (the suites' tests, collected here again)
from test_edges import *  # noqa: F403

import convgrad as cg
from convgrad.geometry import conv2d_geometry, conv_transpose2d_geometry
from convgrad.kernels import SETTINGS, conv_fast, winograd
from convgrad.ops import conv as conv_ops

pytestmark = [pytest.mark.torch]


@pytest.fixture(autouse=True, params=["direct", "winograd"])
def fast_path_always(request, monkeypatch):
    """Every case down the fast path, twice: its direct GEMMs, and (for 3×3
    stride-1 float32 cases, whatever their size or dilation) Winograd."""
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    monkeypatch.setattr(conv_fast, "WINOGRAD", request.param == "winograd")
    monkeypatch.setattr(winograd, "MIN_OUT_WIDTH", 1)
    monkeypatch.setattr(winograd, "MAX_DILATION", 4)
    monkeypatch.setattr(conv_fast, "WINOGRAD_GRAD_MAX_DILATION", 4)
    with cg.use_backend("numba"):
        yield


def test_the_cases_here_run_the_fast_path():
    x = cg.Tensor(np.ones((1, 1, 3, 3)), requires_grad=True)
    w = cg.Tensor(np.ones((1, 1, 2, 2)), requires_grad=True)
    y = cg.F.conv2d(x, w)
    assert y.node.fn is conv_ops.Conv2d
    assert "col" not in vars(y.node.ctx) and "x" in vars(y.node.ctx)


# --------------------------------------------------------------------------
# the backend's forwards against the textbook's, called side by side
# --------------------------------------------------------------------------

CONV_RULE_CASES = [  # x shape, w shape, stride, padding, dilation, groups
    ((3, 4, 7, 6), (6, 4, 3, 3), 1, 1, 1, 1),
    ((2, 4, 8, 7), (6, 2, 3, 3), 2, 1, 1, 2),
    ((2, 4, 9, 9), (4, 1, 3, 3), 1, 2, 2, 4),
    ((2, 3, 6, 7), (4, 3, 2, 3), 1, "same", 1, 1),
    ((2, 3, 7, 8), (4, 3, 2, 3), (1, 2), (0, 2), 1, 1),
    ((2, 2, 10, 9), (4, 2, 3, 3), 1, 0, 3, 1),
]
TRANSPOSE_RULE_CASES = [  # x, w, stride, padding, output_padding, groups, dilation
    ((2, 4, 5, 6), (4, 3, 3, 3), 1, 1, 0, 1, 1),
    ((2, 4, 4, 3), (4, 2, 3, 3), 2, 1, 1, 2, 1),
    ((2, 6, 5, 5), (6, 1, 3, 3), 1, 2, 0, 3, 2),
    ((1, 2, 4, 4), (2, 2, 3, 2), (2, 1), 1, 0, 1, 2),
]


TEXTBOOK = {"conv2d": conv_ops.Conv2d, "conv_transpose2d": conv_ops.ConvTranspose2d,
            "conv2d_weight": conv_ops.ConvWeightGrad}


def _tol(dtype):
    if dtype == np.float32:
        return dict(rtol=2e-5, atol=2e-5)
    return dict(rtol=1e-11, atol=1e-11)


def _side_by_side(name, args, dtype, rng):
    """Forward and backward (random upstream gradient, every input needing a
    gradient) of op ``name``'s Function on the Numba backend (its forwards,
    and each conv of the gradient's) and on the NumPy backend (the
    textbook's), on the same inputs."""
    out = {}
    up = None
    rule = TEXTBOOK[name]
    for which in ("numba", "numpy"):
        ts = [cg.Tensor(a.astype(dtype), requires_grad=True)
              if isinstance(a, np.ndarray) else a for a in args]
        with cg.use_backend(which):
            y = rule.apply(*ts)
            assert y.node.fn is rule
            # the textbook conv2d keeps its columns; the fast one, x
            assert ("col" in vars(y.node.ctx)) is (
                which == "numpy" and rule is conv_ops.Conv2d)
            if up is None:
                up = rng.standard_normal(y.shape).astype(dtype)
            y.backward(up)
        out[which] = [y.data] + [t.grad for t in ts if isinstance(t, cg.Tensor)]
    for got, want in zip(out["numba"], out["numpy"], strict=True):
        assert got.dtype == want.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONV_RULE_CASES, ids=str)
def test_conv2d_rules_agree_forward_and_backward(case, dtype):
    xs, ws, stride, padding, dilation, groups = case
    rng = np.random.default_rng(len(str(case)))
    x, w = rng.standard_normal(xs) - 0.5, rng.standard_normal(ws)  # negatives
    b = rng.standard_normal(ws[0])
    geom = conv2d_geometry(xs, ws, b.shape, stride, padding, dilation, groups)
    _side_by_side("conv2d", (x, w, b, geom), dtype, rng)
    dy = rng.standard_normal((xs[0], ws[0], *geom.win.out))
    _side_by_side("conv2d_weight", (x, dy, geom), dtype, rng)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", TRANSPOSE_RULE_CASES, ids=str)
def test_conv_transpose2d_rules_agree_forward_and_backward(case, dtype):
    xs, ws, stride, padding, out_pad, groups, dilation = case
    rng = np.random.default_rng(len(str(case)))
    x, w = rng.standard_normal(xs) - 0.5, rng.standard_normal(ws)
    b = rng.standard_normal(ws[1] * groups)
    geom = conv_transpose2d_geometry(xs, ws, b.shape, stride, padding, out_pad,
                                     groups, dilation)
    _side_by_side("conv_transpose2d", (x, w, b, geom), dtype, rng)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rules_agree_on_second_derivatives(dtype):
    """Double backward with the backend's forwards (the rules' convs ask
    for them again) against the textbook forwards on the NumPy backend."""
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((2, 4, 6, 6)), rng.standard_normal((4, 2, 3, 3))
    up = rng.standard_normal((2, 4, 6, 6))
    got = {}
    for name in ("numba", "numpy"):
        with cg.use_backend(name):
            xt = cg.Tensor(x.astype(dtype), requires_grad=True)
            wt = cg.Tensor(w.astype(dtype), requires_grad=True)
            y = cg.F.conv2d(xt, wt, padding=1, groups=2)
            kinds = {y.node.fn}
            dx, dw = cg.grad((y * cg.Tensor(up.astype(dtype))).sum(), [xt, wt],
                             create_graph=True)
            kinds |= {dx.node.fn, dw.node.fn}
            z = (dx * dx).sum() + (dw * dw * dw).sum()
            got[name] = [t.data for t in cg.grad(z, [xt, wt])]
        assert kinds <= set(TEXTBOOK.values())
    for a, b in zip(got["numba"], got["numpy"], strict=True):
        # sums of products of sums: the error scales with the largest value
        tol = _tol(dtype)
        np.testing.assert_allclose(a, b, rtol=tol["rtol"],
                                   atol=tol["atol"] * np.abs(b).max())
