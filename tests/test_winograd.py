"""Winograd's F(2×2, 3×3) on the fast path (kernels/winograd.py).

The Numba backend runs 3×3 stride-1 float32 convolutions (conv2d, its
gradients, conv_transpose2d and its gradients) through Winograd's transforms
once they are big enough. Here every call takes that path (``min_work = 0``)
and is checked against torch and against the direct fast path, for random
geometries: padding 0-4 (past the kernel), dilation 1-3 (its phases), groups,
odd and tiny planes, one image or several per block, bands of tile rows,
threads; plus the adjoint identities of each transform pair, with the unused
slots the layout leaves. Small shapes: these also run with
``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F
from convgrad.kernels import SETTINGS, conv_fast, winograd

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def winograd_always(monkeypatch):
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    monkeypatch.setattr(conv_fast, "WINOGRAD", True)
    monkeypatch.setattr(winograd, "MAX_DILATION", 3)  # the phases too
    monkeypatch.setattr(conv_fast, "WINOGRAD_GRAD_MAX_DILATION", 3)  # dx, dw too
    monkeypatch.setattr(winograd, "MIN_OUT_WIDTH", 1)  # and the narrowest planes
    with cg.use_backend("numba"):
        yield


def _geometries(count, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        g = int(rng.choice([1, 1, 2, 3]))
        ci, co = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
        d = int(rng.choice([1, 1, 2, 3]))
        p = int(rng.integers(0, 5))
        h, w = (int(v) for v in rng.integers(1, 12, size=2))
        n = int(rng.integers(1, 4))
        if h + 2 * p - 2 * d < 1 or w + 2 * p - 2 * d < 1:
            continue
        out.append((n, ci, co, h, w, p, d, g))
    return out


def _torch_conv2d(x, w, dy, p, d, g):
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.conv2d(xt, wt, padding=p, dilation=d, groups=g)
    y.backward(torch.tensor(dy, dtype=torch.float64))
    return y.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()


def _close(got, want, what):
    # float32 against a float64 oracle: relative to the result's scale
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-5 * scale, err_msg=what)


@pytest.mark.torch
@pytest.mark.parametrize("geom", _geometries(40, seed=16), ids=str)
def test_conv2d_matches_torch(geom):
    n, ci, co, h, w, p, d, g = geom
    rng = np.random.default_rng(sum(geom))
    x = rng.standard_normal((n, ci, h, w)).astype(np.float32)
    wt = rng.standard_normal((co, ci // g, 3, 3)).astype(np.float32)
    xs, ws = cg.Tensor(x, requires_grad=True), cg.Tensor(wt, requires_grad=True)
    y = F.conv2d(xs, ws, padding=p, dilation=d, groups=g)
    dy = rng.standard_normal(y.shape).astype(np.float32)  # random, never ones
    y.backward(dy)
    want = _torch_conv2d(x, wt, dy, p, d, g)
    for got, ref, what in zip((y.data, xs.grad, ws.grad), want, ("y", "dx", "dw"),
                              strict=True):
        assert got.dtype == np.float32, what
        _close(got, ref, what)


def _transposed_geometries(count, seed):
    """As :func:`_geometries`, for conv_transpose2d: an output of at least
    one pixel, and output_padding < dilation (stride 1)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        g = int(rng.choice([1, 1, 2, 3]))
        ci, co = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
        d = int(rng.choice([1, 1, 2, 3]))
        p, op = int(rng.integers(0, 4)), int(rng.integers(0, d))
        h, w = (int(v) for v in rng.integers(1, 10, size=2))
        if min(h, w) + 2 * d - 2 * p + op < 1:
            continue
        out.append((int(rng.integers(1, 4)), ci, co, h, w, p, d, g, op))
    return out


@pytest.mark.torch
@pytest.mark.parametrize("geom", _transposed_geometries(20, seed=61), ids=str)
def test_conv_transpose2d_matches_torch(geom):
    n, ci, co, h, w, p, d, g, op = geom
    rng = np.random.default_rng(sum(geom) + 1)
    x = rng.standard_normal((n, ci, h, w)).astype(np.float32)
    wt = rng.standard_normal((ci, co // g, 3, 3)).astype(np.float32)
    kw = dict(padding=p, dilation=d, groups=g, output_padding=op)
    want_y = torch.nn.functional.conv_transpose2d(
        torch.tensor(x, dtype=torch.float64), torch.tensor(wt, dtype=torch.float64),
        **kw)
    xs, ws = cg.Tensor(x, requires_grad=True), cg.Tensor(wt, requires_grad=True)
    y = F.conv_transpose2d(xs, ws, **kw)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(dy)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    wtt = torch.tensor(wt, dtype=torch.float64, requires_grad=True)
    yt = torch.nn.functional.conv_transpose2d(xt, wtt, **kw)
    yt.backward(torch.tensor(dy, dtype=torch.float64))
    _close(y.data, want_y.numpy(), "y")
    _close(xs.grad, xt.grad.numpy(), "dx")
    _close(ws.grad, wtt.grad.numpy(), "dw")


def _direct_and_winograd(x, w, dy, args, groups, out_hw, monkeypatch):
    got = []
    for on in (False, True):
        monkeypatch.setattr(conv_fast, "WINOGRAD", on)
        y = conv_fast.conv2d_forward(x, w, args, groups, out_hw)
        dx, dw = conv_fast.conv2d_backward(x, w, dy, args, groups)
        got.append((y, dx, dw))
    return got


@pytest.mark.parametrize("block", [1, 20, 64, 512, 1 << 16])
def test_every_blocking_agrees_with_the_direct_path(block, monkeypatch):
    """Bands of one tile row, bands of several, whole images several to a
    block: the same sums."""
    rng = np.random.default_rng(block)
    x = rng.standard_normal((5, 3, 9, 11)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((5, 4, 9, 11)).astype(np.float32)
    monkeypatch.setattr(winograd, "BLOCK_TILES", block)
    direct, wino = _direct_and_winograd(x, w, dy, (3, 3, 1, 1, 1, 1, 1, 1), 1, (9, 11),
                                        monkeypatch)
    for a, b, what in zip(direct, wino, ("y", "dx", "dw"), strict=True):
        _close(b, a.astype(np.float64), what)


def test_threads_over_images_agree_with_one_thread(monkeypatch):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 4, 8, 8)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((6, 6, 6, 6)).astype(np.float32)
    args = (3, 3, 1, 1, 1, 1, 2, 2)
    one = (conv_fast.conv2d_forward(x, w, args, 2, (6, 6)),
           *conv_fast.conv2d_backward(x, w, dy, args, 2))
    monkeypatch.setattr(conv_fast, "THREAD_MIN_WORK", 0)
    monkeypatch.setattr(conv_fast, "threads_for", lambda n, work: 2)
    two = (conv_fast.conv2d_forward(x, w, args, 2, (6, 6)),
           *conv_fast.conv2d_backward(x, w, dy, args, 2))
    np.testing.assert_array_equal(one[0], two[0])  # disjoint images: same bits
    np.testing.assert_array_equal(one[1], two[1])
    np.testing.assert_allclose(one[2], two[2], rtol=1e-5, atol=1e-5)  # dw: partial sums


def test_only_3x3_stride_1_float32_takes_winograd():
    ok = (3, 3, 1, 1, 1, 1, 1, 1)
    assert winograd.eligible((4, 2, 3, 3), ok, np.float32)
    assert not winograd.eligible((4, 2, 3, 3), ok, np.float64)  # keeps the direct sums
    assert not winograd.eligible((4, 2, 5, 5), (5, 5, 1, 1, 2, 2, 1, 1), np.float32)
    assert not winograd.eligible((4, 2, 3, 3), (3, 3, 2, 2, 1, 1, 1, 1), np.float32)
    dilated = (3, 3, 1, 1, 2, 2, 2, 2)
    assert winograd.eligible((4, 2, 3, 3), dilated, np.float32)  # MAX_DILATION here
    winograd.MAX_DILATION = 1
    assert not winograd.eligible((4, 2, 3, 3), dilated, np.float32)
    winograd.MIN_OUT_WIDTH = 12
    assert winograd.eligible((4, 2, 3, 3), ok, np.float32, out_w=12)
    assert not winograd.eligible((4, 2, 3, 3), ok, np.float32, out_w=11)
    assert not winograd.eligible((4, 2, 3, 1), (3, 1, 1, 1, 1, 0, 1, 1), np.float32)


def test_float64_keeps_the_direct_sums(monkeypatch):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((4, 3, 3, 3))
    args = (3, 3, 1, 1, 1, 1, 1, 1)
    monkeypatch.setattr(conv_fast, "WINOGRAD", False)
    want = conv_fast.conv2d_forward(x, w, args, 1, (6, 6))
    monkeypatch.setattr(conv_fast, "WINOGRAD", True)
    np.testing.assert_array_equal(conv_fast.conv2d_forward(x, w, args, 1, (6, 6)), want)


def test_error_against_float64_stays_near_the_direct_sums():
    """Winograd rounds more than the direct sums, but by a small factor."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 16, 16, 16))
    w = rng.standard_normal((16, 16, 3, 3)) / 10
    args = (3, 3, 1, 1, 1, 1, 1, 1)
    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    exact32 = conv_fast.conv2d_forward(x32.astype(np.float64), w32.astype(np.float64),
                                       args, 1, (16, 16))
    err_w = np.abs(winograd.forward(x32, w32, args, 1, (16, 16), conv_fast._split)
                   - exact32)
    conv_fast.WINOGRAD = False
    try:
        err_d = np.abs(conv_fast.conv2d_forward(x32, w32, args, 1, (16, 16)) - exact32)
    finally:
        conv_fast.WINOGRAD = True
    assert err_w.max() < 8 * err_d.max() + 1e-6
    assert err_w.max() < 1e-5 * np.abs(exact32).max()


def _slots_layout(blk, tw):
    """Mask of the slots of a block that hold a tile (the rest are unused)."""
    b, nb, ta, tb = blk
    t = winograd._slots(blk, tw)
    used = np.zeros(t, bool)
    rr, sl = tb - ta + 1, tw + 1
    for tr in range(nb * rr - 1):
        if tr % rr != rr - 1:
            used[tr * sl : tr * sl + tw] = True
    return used


@pytest.mark.parametrize("blk, pad, dil", [
    ((0, 1, 0, 3), 1, 1), ((1, 2, 0, 3), 0, 1), ((0, 1, 1, 2), 2, 1),
    ((2, 1, 0, 2), 1, 2),
])
def test_the_input_transform_and_its_adjoint_are_adjoint(blk, pad, dil):
    """<input_tiles(x), dV> = <x, input_tiles_adjoint(dV)> for dV zero in the
    unused slots (as the GEMM makes it from grad_tiles' zeros there)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 2, 7, 6)).astype(np.float32)
    oh = 7 + 2 * pad - 2 * dil
    ow = 6 + 2 * pad - 2 * dil
    # phase (0, 0) of the dilation: its tiles
    th, tw = (-(-oh // dil) + 1) // 2, (-(-ow // dil) + 1) // 2
    b, nb, ta, tb = blk
    tb = min(tb, th)
    blk = winograd.Block(b, nb, min(ta, tb - 1), tb) if nb == 1 else (
        winograd.Block(b, nb, 0, th))
    imap = winograd.InMap(tw, -pad, -pad, dil, dil)
    t = winograd._slots(blk, tw)
    used = _slots_layout(blk, tw)
    vf, v, vs = winograd._planes("test-v", 1, 2, t, np.float32)
    pb, _, dd = winograd._scratch(np.float32, t, tw)
    winograd.input_tiles(x, tuple(blk), tuple(imap), vf, vs, pb)
    fwd = v.copy()
    assert np.isfinite(fwd).all()
    dv = rng.standard_normal(v.shape).astype(np.float32) * used
    v[...] = dv
    dx = np.zeros_like(x)
    winograd.input_tiles_adjoint(vf, tuple(blk), tuple(imap), dx, vs, pb, dd)
    lhs = float((fwd.astype(np.float64) * dv).sum())
    rhs = float((x.astype(np.float64) * dx).sum())
    assert lhs == pytest.approx(rhs, rel=1e-5, abs=1e-4)


def test_the_output_transform_and_its_adjoint_are_adjoint():
    rng = np.random.default_rng(6)
    blk, tw, oh, ow = winograd.Block(0, 2, 0, 3), 3, 5, 5
    omap = tuple(winograd.OutMap(tw, oh, ow, 0, 0, 1, 1))
    t = winograd._slots(blk, tw)
    used = _slots_layout(blk, tw)
    mf, m, ms = winograd._planes("test-m", 1, 3, t, np.float32)
    _, ob, _ = winograd._scratch(np.float32, t, tw)
    m[...] = rng.standard_normal(m.shape).astype(np.float32) * used
    y = np.zeros((2, 3, oh, ow), np.float32)
    winograd.output_tiles(mf, tuple(blk), omap, y, ms, ob, np.empty(0, np.float32))
    fwd = m.copy()
    dy = rng.standard_normal(y.shape).astype(np.float32)
    winograd.grad_tiles(dy, tuple(blk), omap, mf, ms, ob)
    assert not m[..., ~used].any()  # the gradient leaves unused slots zero
    lhs = float((y.astype(np.float64) * dy).sum())
    rhs = float((fwd.astype(np.float64) * m).sum())
    assert lhs == pytest.approx(rhs, rel=1e-5, abs=1e-4)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_a_non_finite_value_reaches_only_the_windows_that_hold_it(bad):
    """A tile's transforms mix its 16 pixels, so inf - inf would put nan on
    outputs whose 3×3 windows never saw the inf: such calls keep the direct
    sums (torch's answer), forward and backward."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 2, 8, 8)).astype(np.float32)
    x[1, 0, 3, 4] = bad
    w = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)
    xs, ws = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
    y = F.conv2d(xs, ws, padding=1)
    want = np.zeros((8, 8), bool)
    want[2:5, 3:6] = True
    for c in range(2):
        assert (~np.isfinite(y.data[1, c]) == want).all()
    assert np.isfinite(y.data[0]).all()
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy[0, 1, 5, 5] = bad
    y.backward(dy)
    wantx = np.zeros((8, 8), bool)
    wantx[4:7, 4:7] = True
    assert (~np.isfinite(xs.grad[0, 0]) == wantx).all()
    assert np.isfinite(xs.grad[1]).all()


def test_one_tile_by_the_book_is_the_direct_correlation():
    """lesson 10's F(2×2, 3×3) on one tile: four outputs from 16 products."""
    rng = np.random.default_rng(8)
    d, g = rng.standard_normal((4, 4)), rng.standard_normal((3, 3))
    direct = np.array([[(d[i:i + 3, j:j + 3] * g).sum() for j in range(2)]
                       for i in range(2)])
    np.testing.assert_allclose(winograd.tile(d, g), direct, rtol=1e-12, atol=1e-12)
    # and the batched kernels compute exactly this, tile by tile
    x = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
    y = winograd.forward(x, g.reshape(1, 1, 3, 3).astype(np.float32),
                         (3, 3, 1, 1, 0, 0, 1, 1), 1, (2, 2), conv_fast._split)
    np.testing.assert_allclose(y[0, 0], winograd.tile(x[0, 0].astype(np.float64), g),
                               rtol=1e-5, atol=1e-5)


def test_wide_layers_keep_bounded_scratch(monkeypatch):
    """Blocks shrink to keep their planes under BLOCK_BYTES, whatever the
    channel count, and still compute the same sums."""
    from convgrad.kernels import workspace

    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 24, 12, 12)).astype(np.float32)
    w = rng.standard_normal((40, 24, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((2, 40, 12, 12)).astype(np.float32)
    args = (3, 3, 1, 1, 1, 1, 1, 1)
    direct, _ = _direct_and_winograd(x, w, dy, args, 1, (12, 12), monkeypatch)
    monkeypatch.setattr(winograd, "BLOCK_BYTES", 64 << 10)
    workspace.release()
    y = winograd.forward(x, w, args, 1, (12, 12), conv_fast._split)
    dx, dw = winograd.backward(x, w, dy, args, 1, True, True, conv_fast._split)
    per_slot = 16 * (24 + 2 * 40) * 4
    blocks = list(winograd._bands(0, 2, 6, 6, 24 + 2 * 40))
    assert len(blocks) == 12  # one tile row each: 7 slots fit the budget, 14 not
    assert all(winograd._slots(blk, 6) * per_slot <= 64 << 10 for blk in blocks)
    planes = sum(b.nbytes for k, b in workspace._buffers().items()
                 if k[0] in ("wv", "wm", "wdm"))
    assert planes <= 64 << 10  # the planes of one block (padding included)
    for a, b, what in zip(direct, (y, dx, dw), ("y", "dx", "dw"), strict=True):
        _close(b, a.astype(np.float64), what)


def _spy(monkeypatch):
    """Record which Winograd driver each call went through."""
    calls = []
    for name in ("forward", "backward"):
        real = getattr(winograd, name)

        def spy(*a, _real=real, _name=name, **k):
            calls.append(_name)
            return _real(*a, **k)

        monkeypatch.setattr(winograd, name, spy)
    return calls


@pytest.mark.torch
@pytest.mark.parametrize("ci, co, groups", [(6, 4, 1), (4, 6, 1), (4, 4, 2), (6, 4, 2)])
@pytest.mark.parametrize("padding", [0, 1, 2, 3])
def test_bias_and_its_gradient_in_the_kernels_threads_match_torch(ci, co, groups,
                                                                  padding, monkeypatch):
    """The bias added as each block is written, and the transposed conv in
    either form (flipped conv2d when C_in <= C_out, else conv2d's adjoint;
    padding 3 has no flipped form), over two threads. A gradient is two
    more forwards (issue 43): dx the other conv, dw the weight-gradient op,
    which share one pass over dy's tiles (the dx forward runs the fused
    backward and leaves dw); db is the rule's sum of dy."""
    monkeypatch.setattr(conv_fast, "THREAD_MIN_WORK", 0)
    rng = np.random.default_rng(ci * 100 + co * 10 + padding + groups)
    calls = _spy(monkeypatch)
    for transposed in (False, True):
        x = rng.standard_normal((3, ci, 7, 9)).astype(np.float32)
        shape = (ci, co // groups, 3, 3) if transposed else (co, ci // groups, 3, 3)
        w = rng.standard_normal(shape).astype(np.float32)
        b = rng.standard_normal(co).astype(np.float32)
        op = F.conv_transpose2d if transposed else F.conv2d
        top = (torch.nn.functional.conv_transpose2d if transposed
               else torch.nn.functional.conv2d)
        ts = [cg.Tensor(a, requires_grad=True) for a in (x, w, b)]
        y = op(*ts, padding=padding, groups=groups)
        dy = rng.standard_normal(y.shape).astype(np.float32)
        y.backward(dy)
        tt = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
              for a in (x, w, b)]
        yt = top(*tt, padding=padding, groups=groups)
        yt.backward(torch.tensor(dy, dtype=torch.float64))
        _close(y.data, yt.detach().numpy(), "y")
        for t, r, what in zip(ts, tt, ("dx", "dw", "db"), strict=True):
            assert t.grad.dtype == np.float32, what
            _close(t.grad, r.grad.numpy(), what)
    def transposed_conv(c_in, c_out):  # its Winograd driver
        return "forward" if c_in <= c_out and padding <= 2 else "backward"

    def fused(c_in, c_out):  # the transposed conv's dx and dw in one pass
        return "backward" if transposed_conv(c_in, c_out) == "forward" else "forward"

    # conv2d: forward; dx and dw, one pass over dy's tiles
    assert calls[:2] == ["forward", "backward"]
    # the transposed conv: forward; dx and dw: the flipped conv2d's
    # backward, or conv2d's forward of dy with dw from the same tiles
    assert calls[2:] == [transposed_conv(ci, co), fused(ci, co)]


def _column_split(a, d):
    """The column-split copy, by definition: split row h*d + σ holds row h's
    columns σ, σ + d, σ + 2d, ..., then zeros."""
    n, c, h, w = a.shape
    out = np.zeros((n, c, h * d, -(-w // d)), a.dtype)
    for r in range(h):
        for sg in range(d):
            cols = a[:, :, r, sg::d]
            out[:, :, r * d + sg, : cols.shape[2]] = cols
    return out


@pytest.mark.parametrize("d, pad, hw", [
    (2, 2, (9, 11)), (2, 0, (8, 7)), (2, 3, (6, 10)), (3, 3, (10, 8)), (3, 1, (11, 13)),
])
def test_the_in_place_maps_address_what_the_split_maps_do(d, pad, hw):
    """The forward writes y, and the backward adds into dx, in place through
    _in_place / _in_place_in: for every phase, each output (i, j) and each
    subsampled pixel (u, v) they name is the pixel the split-copy maps name
    in a column-split copy's layout (x_split[h*d + σ, v] = x[h, d*v + σ],
    0 past a row's last column of phase σ)."""
    h, w = hw
    args = (3, 3, 1, 1, pad, pad, d, d)
    oh, ow = h + 2 * pad - 2 * d, w + 2 * pad - 2 * d
    a = np.arange(h * w, dtype=np.float64).reshape(1, 1, h, w) + 1
    split = _column_split(a, d)
    yo = np.arange(oh * ow, dtype=np.float64).reshape(1, 1, oh, ow) + 1
    ysplit = _column_split(yo, d)
    seen = np.zeros((oh, ow), int)
    for _, tw, imap, omap in winograd._phases(args, (oh, ow)):
        o2 = winograd._in_place(omap, d)
        for i in range(omap.oh):
            for j in range(omap.ow):
                r, c = o2.dh * i + o2.r0, o2.dw * j + o2.s0
                rs, cs = omap.dh * i + omap.r0, omap.dw * j + omap.s0
                assert ysplit[0, 0, rs, cs] == yo[0, 0, r, c]
                seen[r, c] += 1
        i2 = winograd._in_place_in(imap, d)
        for u in range(2 * ((omap.oh + 1) // 2) + 2):
            for v in range(2 * tw + 2):
                rs, cs = imap.dh * u + imap.offh, imap.dw * v + imap.offw
                r, c = i2.dh * u + i2.offh, i2.dw * v + i2.offw
                inside = 0 <= r < h and 0 <= c < w
                inside_split = 0 <= rs < h * d and 0 <= cs < split.shape[3]
                if inside:
                    assert inside_split and split[0, 0, rs, cs] == a[0, 0, r, c]
                elif inside_split:  # the split copy's padding column: 0
                    assert split[0, 0, rs, cs] == 0
    assert (seen == 1).all()  # every output written once


def _numpy_blas_threads():
    """The thread count of each BLAS library the kernels can limit (those
    loaded when convgrad first asked; numpy's among them), read now."""
    from convgrad.kernels import placement

    return [i["num_threads"] for i in
            placement.blas_controller().select(user_api="blas").info()]


def test_a_wide_kernel_transform_runs_on_one_blas_thread(monkeypatch):
    """A 64→64 layer's kernel transforms are big enough for OpenBLAS to
    thread, and its woken thread would then spin on a core the image threads
    need (issue 31: the large conv at 2 threads took twice its time). They
    run with BLAS held to one thread, and give the float64 product's bits."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    seen = []
    real = winograd.one_blas_thread

    def watched(rows):
        ctx = real(rows)

        class Probe:
            def __enter__(self):
                ctx.__enter__()
                seen.append((rows, max(_numpy_blas_threads(), default=1)))

            def __exit__(self, *exc):
                return ctx.__exit__(*exc)

        return Probe()

    monkeypatch.setattr(winograd, "one_blas_thread", watched)
    rng = np.random.default_rng(31)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        u = winograd.kernel_transform(w, 1)
        du = rng.standard_normal(u.shape).astype(np.float32)
        dw = winograd.kernel_transform_adjoint(du, w.shape)
        after = _numpy_blas_threads()
    assert seen == [(4096, 1), (4096, 1)]
    assert all(t == 2 for t in after)  # put back as it was
    gg = winograd.GG
    want_u = (w.reshape(4096, 9).astype(np.float64) @ gg.T).reshape(1, 64, 64, 16)
    np.testing.assert_array_equal(
        u, want_u.transpose(0, 3, 2, 1).astype(np.float32))
    want_dw = du.astype(np.float64).transpose(0, 3, 2, 1).reshape(4096, 16) @ gg
    np.testing.assert_array_equal(dw, want_dw.reshape(w.shape).astype(np.float32))


def test_dilated_gradient_passes_take_winograd_only_up_to_their_setting(monkeypatch):
    """conv2d's forward at dilation 2 runs Winograd; a gradient pass for dx
    or dw alone (here dw: x needs none) runs the direct GEMMs unless
    ``winograd_grad_max_dilation`` lets it (issue 43); the pass for both,
    which shares dy's tiles, keeps Winograd. The same gradients either
    way."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 4, 10, 10)).astype(np.float32)
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((2, 6, 10, 10)).astype(np.float32)
    grads = []
    for limit in (1, 2):
        monkeypatch.setattr(SETTINGS, "winograd_grad_max_dilation", limit)
        for both in (False, True):
            calls = _spy(monkeypatch)
            cx = cg.Tensor(x, requires_grad=both)
            cw = cg.Tensor(w, requires_grad=True)
            F.conv2d(cx, cw, padding=2, dilation=2).backward(dy)
            assert calls == (["forward"] if limit == 1 and not both
                             else ["forward", "backward"]), (limit, both)
            grads.append(cw.grad)
    for a in grads[1:]:
        _close(a, grads[0].astype(np.float64), "dw")


@pytest.mark.parametrize("hw", [(2, 2), (5, 4), (7, 9), (32, 32)])
def test_glue_puts_the_phases_side_by_side_and_unglue_takes_them_back(hw):
    """glue: even rows above odd ones, even columns left of odd ones, one
    zero row and column between the phases; unglue inverts it exactly."""
    h, w = hw
    rng = np.random.default_rng(h * 31 + w)
    a = rng.standard_normal((2, 3, h, w)).astype(np.float32)
    g = np.full((2, 3, h + 1, w + 1), np.nan, np.float32)
    winograd.glue(a, g)
    h0, w0 = (h + 1) // 2, (w + 1) // 2
    assert (g[:, :, h0] == 0).all() and (g[:, :, :, w0] == 0).all()
    for r in (0, 1):
        for s in (0, 1):
            rows = slice(0, h0) if r == 0 else slice(h0 + 1, None)
            cols = slice(0, w0) if s == 0 else slice(w0 + 1, None)
            np.testing.assert_array_equal(g[:, :, rows, cols], a[:, :, r::2, s::2])
    back = np.full_like(a, np.nan)
    winograd.unglue(g, back)
    np.testing.assert_array_equal(back, a)


@pytest.mark.torch
@pytest.mark.parametrize("n, ci, co, h, w, groups", [
    (2, 4, 6, 10, 10, 1), (3, 6, 4, 7, 9, 2), (1, 3, 3, 2, 5, 1), (4, 8, 8, 13, 6, 4)])
def test_dilation_2_padding_2_runs_glued_and_matches_torch(monkeypatch, n, ci, co, h, w,
                                                           groups):
    """A 3×3 conv at dilation 2 and padding 2 (odd and even planes, groups,
    a bias, two threads) goes through the glued plane, forward and the
    fused backward, and gives torch's y, dx, dw and db, as the four-phase
    path does."""
    monkeypatch.setattr(conv_fast, "THREAD_MIN_WORK", 0)
    monkeypatch.setattr(conv_fast, "threads_for", lambda n_, work: min(n_, 2))
    glued = []
    for name in ("_glued_forward", "_glued_backward"):
        real = getattr(winograd, name)

        def spy(*a, _real=real, _name=name):
            glued.append(_name)
            return _real(*a)

        monkeypatch.setattr(winograd, name, spy)
    rng = np.random.default_rng(n * 1000 + h * 10 + w)
    x = rng.standard_normal((n, ci, h, w)).astype(np.float32)
    wt = rng.standard_normal((co, ci // groups, 3, 3)).astype(np.float32)
    b = rng.standard_normal(co).astype(np.float32)
    dy = rng.standard_normal((n, co, h, w)).astype(np.float32)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    wtt = torch.tensor(wt, dtype=torch.float64, requires_grad=True)
    bt = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    yt = torch.nn.functional.conv2d(xt, wtt, bt, padding=2, dilation=2, groups=groups)
    yt.backward(torch.tensor(dy, dtype=torch.float64))
    for glue in (True, False):
        monkeypatch.setattr(winograd, "GLUE", glue)
        glued.clear()
        cx = cg.Tensor(x, requires_grad=True)
        cw = cg.Tensor(wt, requires_grad=True)
        cb = cg.Tensor(b, requires_grad=True)
        y = F.conv2d(cx, cw, cb, padding=2, dilation=2, groups=groups)
        y.backward(dy)
        assert glued == (["_glued_forward", "_glued_backward"] if glue else [])
        _close(y.data, yt.detach().numpy(), "y")
        _close(cx.grad, xt.grad.numpy(), "dx")
        _close(cw.grad, wtt.grad.numpy(), "dw")
        _close(cb.grad, bt.grad.numpy(), "db")


def test_a_transposed_conv_with_output_padding_is_not_glued(monkeypatch):
    """The adjoint conv2d of a transposed conv with an output_padding maps
    a larger plane to a smaller one: not its input's size, so not glued;
    its gradients are the phase path's."""
    called = []
    real = winograd._glued_forward
    monkeypatch.setattr(winograd, "_glued_forward",
                        lambda *a: called.append(1) or real(*a))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    kw = dict(padding=2, dilation=2, output_padding=1)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    yt = torch.nn.functional.conv_transpose2d(xt, wt, **kw)
    dy = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
    yt.backward(torch.tensor(dy, dtype=torch.float64))
    cx, cw = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
    F.conv_transpose2d(cx, cw, **kw).backward(dy)
    assert called == []
    _close(cx.grad, xt.grad.numpy(), "dx")
    _close(cw.grad, wt.grad.numpy(), "dw")
