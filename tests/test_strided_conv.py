"""The strided conv2d's channels-last direct path (kernels/conv_fast.py:
``im2row_cl``, ``row2im_cl``, ``to_cl``, ``from_cl``): its kernels against
the pixel-major ones they replace, by definition, and the op against torch
with a random upstream gradient.

Small shapes: the kernels also run with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F
from convgrad.kernels import SETTINGS, conv_fast

# x shape, weight shape, stride, padding, dilation, groups
GEOMS = [
    ((2, 4, 8, 8), (6, 4, 3, 3), (2, 2), (1, 1), (1, 1), 1),
    ((2, 4, 7, 9), (6, 4, 3, 3), (2, 2), (0, 0), (1, 1), 1),
    ((3, 6, 9, 7), (6, 2, 3, 3), (2, 2), (1, 1), (1, 1), 3),
    ((1, 3, 10, 11), (4, 3, 3, 2), (2, 3), (1, 0), (2, 1), 1),
    ((2, 2, 6, 6), (2, 2, 1, 1), (2, 2), (0, 0), (1, 1), 1),
]


def _window(xs, ws, stride, padding, dilation):
    kh, kw = ws[2:]
    args = (kh, kw, *stride, *padding, *dilation)
    oh = (xs[2] + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xs[3] + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    return args, oh, ow


def _taps_last_cols(rows, cg_, kh, kw):
    """Pixel-major rows' columns ``(c, ki, kj)`` reordered ``(ki, kj, c)``."""
    g, bp, _ = rows.shape
    t = rows.reshape(g, bp, cg_, kh, kw).transpose(0, 1, 3, 4, 2)
    return np.ascontiguousarray(t).reshape(g, bp, -1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", GEOMS, ids=str)
def test_channels_last_rows_are_the_pixel_major_rows_reordered(
    xs, ws, stride, padding, dilation, groups, dtype
):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(dtype)
    args, oh, ow = _window(xs, ws, stride, padding, dilation)
    n, c = xs[:2]
    kh, kw = ws[2:]
    k = c // groups * kh * kw
    want = np.full((groups, n * oh * ow, k), np.nan, dtype)
    conv_fast.im2row(x, 0, *args, oh, ow, want)
    xc = np.full((n, *xs[2:], c), np.nan, dtype)
    conv_fast.to_cl(x, 0, xc)
    np.testing.assert_array_equal(xc, x.transpose(0, 2, 3, 1))
    got = np.full_like(want, np.nan)
    conv_fast.im2row_cl(xc, *args, oh, ow, got)
    np.testing.assert_array_equal(got, _taps_last_cols(want, c // groups, kh, kw))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", GEOMS, ids=str)
def test_channels_last_scatter_is_row2im_bit_for_bit(
    xs, ws, stride, padding, dilation, groups, dtype
):
    """Each pixel receives its terms in the same order: the same sums."""
    rng = np.random.default_rng(1)
    args, oh, ow = _window(xs, ws, stride, padding, dilation)
    n, c = xs[:2]
    kh, kw = ws[2:]
    shape = (groups, n * oh * ow, c // groups * kh * kw)
    rows = rng.standard_normal(shape).astype(dtype)
    want = np.zeros(xs, dtype)
    conv_fast.row2im(rows, 0, *args, oh, ow, want)
    xc = np.zeros((n, *xs[2:], c), dtype)
    conv_fast.row2im_cl(_taps_last_cols(rows, c // groups, kh, kw), *args, oh, ow, xc)
    got = np.full(xs, np.nan, dtype)
    conv_fast.from_cl(xc, 0, got)
    np.testing.assert_array_equal(got, want)


def test_the_block_copies_take_images_from_an_offset():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 5, 6))
    xc = np.empty((2, 5, 6, 3))
    conv_fast.to_cl(x, 1, xc)
    np.testing.assert_array_equal(xc, x[1:3].transpose(0, 2, 3, 1))
    back = np.zeros_like(x)
    conv_fast.from_cl(xc, 2, back)
    np.testing.assert_array_equal(back[2:4], x[1:3])
    assert not back[:2].any()


def test_only_strided_float32_windows_of_wide_groups_take_the_channels_last_path(
    monkeypatch,
):
    f32 = np.float32
    assert conv_fast._cl((3, 3, 2, 2, 1, 1, 1, 1), 16, f32)
    assert conv_fast._cl((3, 3, 1, 2, 1, 1, 1, 1), 32, f32)
    assert not conv_fast._cl((3, 3, 1, 1, 1, 1, 2, 2), 16, f32)  # stride 1
    assert not conv_fast._cl((3, 3, 2, 2, 1, 1, 1, 1), 8, f32)  # narrow groups
    assert not conv_fast._cl((3, 3, 2, 2, 1, 1, 1, 1), 16, np.float64)
    monkeypatch.setattr(conv_fast, "CHANNELS_LAST", False)
    assert not conv_fast._cl((3, 3, 2, 2, 1, 1, 1, 1), 16, f32)


@pytest.fixture
def any_channels(monkeypatch):
    """The path for every group width and dtype, as the small cases need."""
    monkeypatch.setattr(conv_fast, "CL_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_fast, "CL_DTYPES", (np.dtype(np.float32),
                                                 np.dtype(np.float64)))


# the op, against torch: x shape, w shape, conv kwargs
OP_CASES = [
    ((3, 4, 8, 8), (6, 4, 3, 3), dict(stride=2, padding=1)),
    ((3, 4, 9, 9), (6, 4, 3, 3), dict(stride=2, padding=1)),
    ((2, 4, 8, 7), (6, 4, 3, 3), dict(stride=2, padding=0)),
    ((2, 4, 11, 10), (6, 4, 3, 3), dict(stride=2, padding=0)),
    ((2, 8, 9, 8), (4, 2, 3, 3), dict(stride=2, padding=1, groups=4)),
    ((2, 3, 10, 9), (5, 3, 2, 3), dict(stride=(2, 3), padding=(1, 0), dilation=(1, 2))),
]


@pytest.mark.torch
def test_the_medium_layers_strided_conv_takes_the_path_and_matches_torch(monkeypatch):
    """As run: 16 input channels in float32, no settings changed."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    seen = []
    real = conv_fast._conv2d_backward_cl
    monkeypatch.setattr(conv_fast, "_conv2d_backward_cl",
                        lambda *a: seen.append(1) or real(*a))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 16, 9, 10), dtype=np.float32)
    w = rng.standard_normal((8, 16, 3, 3), dtype=np.float32)
    tx, tw = (torch.tensor(a, requires_grad=True) for a in (x, w))
    ty = torch.nn.functional.conv2d(tx, tw, stride=2, padding=1)
    dy = rng.standard_normal(tuple(ty.shape), dtype=np.float32)
    ty.backward(torch.from_numpy(dy))
    with cg.use_backend("numba"):
        cx, cw = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
        y = F.conv2d(cx, cw, stride=2, padding=1)
        y.backward(dy)
    assert seen == [1]  # dx and dw in one pass (the dx forward, sharing dy)
    for got, want in ((y.data, ty), (cx.grad, tx.grad), (cw.grad, tw.grad)):
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-4, atol=1e-4)


@pytest.fixture
def fast_path(monkeypatch, any_channels):
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    calls = []
    for name in ("_conv2d_forward_cl", "_conv2d_backward_cl"):
        real = getattr(conv_fast, name)

        def spy(*a, _real=real, _name=name, **kw):
            calls.append(_name)
            return _real(*a, **kw)

        monkeypatch.setattr(conv_fast, name, spy)
    with cg.use_backend("numba"):
        yield calls


@pytest.mark.torch
@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, ws, kw", OP_CASES, ids=str)
def test_strided_conv2d_matches_torch(fast_path, xs, ws, kw, dtype, contiguous):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype)
    if not contiguous:  # the same values, in arrays with other strides
        x = np.asfortranarray(x)
        w = np.ascontiguousarray(w.transpose(2, 3, 0, 1)).transpose(2, 3, 0, 1)
    tx, tw, tb = (torch.tensor(np.ascontiguousarray(a), requires_grad=True)
                  for a in (x, w, b))
    ty = torch.nn.functional.conv2d(tx, tw, tb, **kw)
    dy = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    ty.backward(torch.from_numpy(dy))
    cx, cw, cb = (cg.Tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.conv2d(cx, cw, cb, **kw)
    y.backward(dy)
    # forward; dx and dw in one pass (the transposed conv's forward, told
    # that dw of the same dy follows: conv2d's fused backward)
    assert fast_path == ["_conv2d_forward_cl", "_conv2d_backward_cl"]
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10,
                                                                     atol=1e-10)
    for got, want, what in ((y.data, ty, "y"), (cx.grad, tx.grad, "dx"),
                            (cw.grad, tw.grad, "dw"), (cb.grad, tb.grad, "db")):
        assert got.dtype == np.dtype(dtype), what
        np.testing.assert_allclose(got, want.detach().numpy(), err_msg=what, **tol)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, ws, kw", OP_CASES, ids=str)
def test_strided_conv_transpose2d_matches_torch(fast_path, xs, ws, kw, dtype):
    """The transposed conv's forward is conv2d's dx pass: channels-last too
    (issue 43), with its bias added after, and its own gradients."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    c_in, c_out = ws[0], ws[1] * kw.get("groups", 1)
    x = rng.standard_normal((xs[0], c_in, 4, 5)).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(c_out).astype(dtype)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.conv_transpose2d(tx, tw, tb, **kw)
    dy = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    ty.backward(torch.from_numpy(dy))
    cx, cw, cb = (cg.Tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.conv_transpose2d(cx, cw, cb, **kw)
    y.backward(dy)
    # forward; dx (conv2d's forward); dw (conv2d's dw pass): a strided
    # transposed conv's gradient shares no transform, so it runs them apart
    assert fast_path == ["_conv2d_backward_cl", "_conv2d_forward_cl",
                         "_conv2d_backward_cl"]
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10,
                                                                     atol=1e-10)
    for got, want, what in ((y.data, ty, "y"), (cx.grad, tx.grad, "dx"),
                            (cw.grad, tw.grad, "dw"), (cb.grad, tb.grad, "db")):
        np.testing.assert_allclose(got, want.detach().numpy(), err_msg=what, **tol)


@pytest.mark.parametrize("need", [(True, False), (False, True), (True, True)])
def test_strided_backward_computes_what_is_asked_like_the_pixel_major_path(
    monkeypatch, any_channels, need
):
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((5, 4, 9, 8)), rng.standard_normal((6, 2, 3, 3))
    args = (3, 3, 2, 2, 1, 1, 1, 1)
    dy = rng.standard_normal((5, 6, 5, 4))
    got = conv_fast.conv2d_backward(x, w, dy, args, 2, *need)
    y = conv_fast.conv2d_forward(x, w, args, 2, (5, 4))
    monkeypatch.setattr(conv_fast, "CHANNELS_LAST", False)
    want = conv_fast.conv2d_backward(x, w, dy, args, 2, *need)
    np.testing.assert_allclose(y, conv_fast.conv2d_forward(x, w, args, 2, (5, 4)),
                               rtol=1e-12)
    for a, b_ in zip(got, want, strict=True):
        assert (a is None) == (b_ is None)
        if a is not None:
            np.testing.assert_allclose(a, b_, rtol=1e-12, atol=1e-12)
    # a block size of one image, so several blocks and offsets are used
    monkeypatch.setattr(conv_fast, "CHANNELS_LAST", True)
    monkeypatch.setattr(conv_fast, "BLOCK_BYTES", 1)
    for a, b_ in zip(conv_fast.conv2d_backward(x, w, dy, args, 2, *need),
                     want, strict=True):
        if a is not None:
            np.testing.assert_allclose(a, b_, rtol=1e-12, atol=1e-12)
