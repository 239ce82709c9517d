"""The backward pass of conv2d is a convolution: the identities of lesson 4
(``convgrad.adjoint``) against torch's autograd, on random geometries."""

from __future__ import annotations

import numpy as np
import pytest

from convgrad import F, adjoint

pytestmark = pytest.mark.torch


def _geometries(count: int, seed: int = 0):
    """Random (N, C_in, C_out, groups, K, stride, padding, dilation, H, W)
    whose kernel fits; pairs differ per axis, padding may exceed the
    kernel's reach (a negative "full" padding: the crop)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        g = int(rng.integers(1, 4))
        c_in, c_out = g * int(rng.integers(1, 3)), g * int(rng.integers(1, 3))
        k = tuple(int(v) for v in rng.integers(1, 4, size=2))
        s = tuple(int(v) for v in rng.integers(1, 4, size=2))
        p = tuple(int(v) for v in rng.integers(0, 4, size=2))
        d = tuple(int(v) for v in rng.integers(1, 3, size=2))
        hw = tuple(int(v) for v in rng.integers(1, 11, size=2))
        span = [d_ * (k_ - 1) + 1 for k_, d_ in zip(k, d, strict=True)]
        if any(h + 2 * q < sp for h, q, sp in zip(hw, p, span, strict=True)):
            continue
        out.append((int(rng.integers(1, 3)), c_in, c_out, g, k, s, p, d, hw))
    return out


# the lesson's four cases first, then random ones
LESSON = [
    (2, 2, 2, 1, (3, 3), (2, 2), (0, 0), (1, 1), (7, 7)),  # stride 2
    (2, 2, 2, 1, (3, 3), (1, 1), (1, 1), (1, 1), (6, 6)),  # padding 1
    (2, 2, 2, 1, (3, 3), (1, 1), (0, 0), (2, 2), (7, 7)),  # dilation 2
    (2, 4, 6, 2, (3, 3), (1, 1), (0, 0), (1, 1), (6, 6)),  # groups 2
    (1, 2, 2, 1, (2, 2), (1, 1), (3, 3), (1, 1), (4, 4)),  # padding > reach
]
CASES = LESSON + _geometries(60)


def _ids(case):
    n, ci, co, g, k, s, p, d, hw = case
    return f"n{n}c{ci}o{co}g{g}k{k}s{s}p{p}d{d}hw{hw}".replace(" ", "")


@pytest.fixture(scope="module")
def grads(torch):
    """torch's (x, w, dy, dx, dw) for every case, computed once."""
    out = {}
    for i, (n, ci, co, g, k, s, p, d, hw) in enumerate(CASES):
        rng = np.random.default_rng(i)
        x = rng.standard_normal((n, ci, *hw))
        w = rng.standard_normal((co, ci // g, *k))
        tx = torch.tensor(x, requires_grad=True)
        tw = torch.tensor(w, requires_grad=True)
        y = torch.nn.functional.conv2d(tx, tw, stride=s, padding=p,
                                       dilation=d, groups=g)
        dy = rng.standard_normal(tuple(y.shape))  # random, never all ones
        y.backward(torch.tensor(dy))
        out[i] = x, w, dy, tx.grad.numpy(), tw.grad.numpy()
    return out


@pytest.mark.parametrize("i", range(len(CASES)), ids=[_ids(c) for c in CASES])
def test_backward_is_a_convolution(i, grads):
    n, ci, co, g, k, s, p, d, hw = CASES[i]
    x, w, dy, dx, dw = grads[i]
    geo = dict(stride=s, padding=p, dilation=d, groups=g)
    # dx is the transposed convolution of dy, with the output_padding that
    # recovers x's size
    op = adjoint.output_padding(hw, dy.shape[2:], k, s, p, d)
    assert all(0 <= r < st for r, st in zip(op, s, strict=True))
    got = F.conv_transpose2d(dy, w, None, s, p, op, g, d).data
    np.testing.assert_allclose(got, dx, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(adjoint.dx_by_conv_transpose(dy, w, hw, **geo),
                               dx, rtol=1e-9, atol=1e-10)
    # ... and a plain conv2d of dy zero-stuffed, with the kernel flipped
    np.testing.assert_allclose(adjoint.dx_by_conv2d(dy, w, hw, **geo), dx,
                               rtol=1e-9, atol=1e-10)
    # dw is a correlation of x with dy: the stride becomes a dilation
    np.testing.assert_allclose(adjoint.dw_by_conv2d(x, dy, k, **geo), dw,
                               rtol=1e-9, atol=1e-10)


def test_zero_stuff_and_flip():
    dy = np.arange(1.0, 7.0).reshape(1, 1, 2, 3)
    z = adjoint.zero_stuff(dy, (2, 3))
    assert z.shape == (1, 1, 3, 7)
    assert np.array_equal(z[0, 0, ::2, ::3], dy[0, 0])
    assert z.sum() == dy.sum() and np.count_nonzero(z) == dy.size
    assert np.array_equal(adjoint.zero_stuff(dy, 1), dy)
    # groups=2: output channel o of group g becomes an input channel there
    w = np.arange(4 * 3 * 2 * 2.0).reshape(4, 3, 2, 2)  # C_out 4, C_in 6
    back = adjoint.flip_kernel(w, groups=2)
    assert back.shape == (6, 2, 2, 2)
    assert np.array_equal(back[4, 1], w[3, 1, ::-1, ::-1])  # group 1
    assert np.array_equal(back[0, 0], w[0, 0, ::-1, ::-1])


def test_stride_one_full_padding_is_the_textbook_flip():
    """The special case learners remember: stride 1, padding 0, so the
    "full" padding is K - 1 and no stuffing happens."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 1, 6, 6))
    w = rng.standard_normal((1, 1, 3, 3))
    dy = rng.standard_normal((1, 1, 4, 4))
    full = F.conv2d(dy, w[:, :, ::-1, ::-1].copy(), padding=2).data
    np.testing.assert_allclose(adjoint.dx_by_conv2d(dy, w, (6, 6)), full)
    assert full.shape == x.shape
