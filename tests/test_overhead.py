"""The per-step shortcuts of a training loop keep every rule (issue 16).

Memoized geometry, byte snapshots as fingerprints, ReLU's bitwise select:
each is checked here against the slow path it replaces.
"""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import functional as F
from convgrad import geometry as geo
from convgrad.function import SNAPSHOT_BYTES, Context, fingerprint
from convgrad.ops.basic import ReLU, ReLUGrad


@pytest.fixture
def x():
    return cg.Tensor(np.random.default_rng(0).standard_normal((2, 3, 8, 8)))


@pytest.mark.parametrize("bad", [True, 1.0, "1"])
def test_a_cached_stride_does_not_stand_in_for_an_equal_value(x, bad):
    w = cg.Tensor(np.ones((4, 3, 3, 3)))
    F.conv2d(x, w, stride=1)  # cached for the int 1
    with pytest.raises(TypeError, match="stride must be an int or a pair of ints"):
        F.conv2d(x, w, stride=bad)
    with pytest.raises(TypeError, match="stride"):
        F.conv2d(x, w, stride=(1, bad))


def test_a_cached_ceil_mode_does_not_accept_an_int(x):
    F.max_pool2d(x, 2, ceil_mode=True)
    F.max_pool2d(x, 2, ceil_mode=False)
    for bad in (1, 0):
        with pytest.raises(TypeError, match="ceil_mode must be a bool"):
            F.max_pool2d(x, 2, ceil_mode=bad)


def test_numpy_ints_still_take_the_full_path_and_agree(x):
    a = geo.pool_window(x.shape, 2, None, 0, 1, False)
    b = geo.pool_window(x.shape, np.int64(2), None, np.int32(0), 1, False)
    assert a == b


def test_errors_are_not_cached(x):
    for _ in range(2):
        with pytest.raises(ValueError, match="padding must be at most half"):
            F.max_pool2d(x, 2, padding=2)


def test_the_memo_sees_a_smaller_memory_limit(x, monkeypatch):
    w = cg.Tensor(np.ones((4, 3, 3, 3)))
    F.conv2d(x, w, padding=1)
    monkeypatch.setattr(geo, "memory_limit", lambda: 1000)
    with pytest.raises(ValueError, match="more than this machine's"):
        F.conv2d(x, w, padding=1)


def test_memoized_and_full_results_are_equal(x):
    args = (x.shape, (4, 3, 3, 3), (4,), 2, 1, 1, 1)
    assert geo.conv2d_geometry(*args, itemsize=4) == geo.conv2d_geometry.__wrapped__(
        *args, itemsize=4
    )


@pytest.mark.parametrize("n", [7, SNAPSHOT_BYTES // 8, SNAPSHOT_BYTES // 8 + 1, 30000])
def test_both_fingerprints_see_the_smallest_change(n):
    a = np.random.default_rng(1).standard_normal(n)
    before = fingerprint(a)
    for i in (0, n // 2, n - 1):
        b = a.copy()
        b[i] = np.nextafter(b[i], np.inf)
        assert fingerprint(b) != before
    assert fingerprint(a.copy()) == before
    assert fingerprint(a.reshape(1, -1)) != before  # the shape counts too


def test_a_changed_small_saved_input_still_raises():
    x = cg.Tensor(np.ones((2, 4)), requires_grad=True)
    w = cg.Tensor(np.ones((3, 4)), requires_grad=True)
    y = F.linear(x, w).sum()
    w.data[1, 2] += 1e-12
    with pytest.raises(RuntimeError, match="modified in place"):
        y.backward()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_is_where_bit_for_bit(dtype):
    v = [1.0, -1.0, 0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45]
    a = np.array(v, dtype)
    dy = np.array(v[::-1], dtype)
    ctx = Context()
    y = ReLU.forward(ctx, a)
    words = f"u{a.itemsize}"
    # torch's relu: only a < 0 becomes 0, so -0.0 stays -0.0 (issue 29)
    expect = np.where(a < 0, dtype(0), a)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.view(words), expect.view(words))
    mask = ~(a <= 0)
    np.testing.assert_array_equal(ctx.keep != 0, mask)
    # the rule (ReLUGrad's forward) selects by the same words
    dx = ReLUGrad.forward(Context(), dy, a, ctx.keep)
    np.testing.assert_array_equal(
        dx.view(words), np.where(mask, dy, dtype(0)).view(words)
    )
    dx = ReLUGrad.forward(Context(), np.broadcast_to(dtype(2), a.shape), a, ctx.keep)
    np.testing.assert_array_equal(dx, np.where(mask, 2, 0))
    # a gradient of another width (float32 dy, float64 relu): the where
    other = np.float32 if dtype == np.float64 else np.float64
    dx = ReLUGrad.forward(Context(), dy.astype(other), a, ctx.keep)
    np.testing.assert_array_equal(dx, np.where(mask, dy.astype(other), 0))


def test_relu_of_a_strided_view():
    a = np.random.default_rng(2).standard_normal((5, 6)).astype(np.float32)[:, ::2]
    y = F.relu(cg.Tensor(a, requires_grad=True))
    np.testing.assert_array_equal(y.data, np.where(a > 0, a, 0))


def _adam_reference(p, g, m, v, t, lr, b1, b2, eps):
    """The update as written before it ran in place (issue 16's base)."""
    m += (1 - b1) * (g - m)
    v *= b2
    v += (1 - b2) * g * g
    step_size = lr / (1 - b1**t)
    denom = np.sqrt(v) / np.sqrt(1 - b2**t) + eps
    p -= step_size * (m / denom)


@pytest.mark.parametrize("dtype, gdtype", [
    (np.float32, np.float32), (np.float64, np.float64), (np.float32, np.float64),
    (np.float64, np.float32),
])
def test_adam_in_place_is_the_formula_bit_for_bit(dtype, gdtype):
    rng = np.random.default_rng(3)
    p = cg.Tensor(rng.standard_normal((5, 7)).astype(dtype), requires_grad=True)
    ref = p.data.copy()
    m, v = np.zeros_like(ref), np.zeros_like(ref)
    opt = cg.optim.Adam([p], lr=0.01)
    for t in range(1, 6):
        g = rng.standard_normal(ref.shape).astype(gdtype)
        p.grad = g
        opt.step()
        _adam_reference(ref, g, m, v, t, 0.01, 0.9, 0.999, 1e-8)
        np.testing.assert_array_equal(p.data.view(np.uint8), ref.view(np.uint8))
    assert p.data.dtype == dtype


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_picks_as_take_along_axis(reduction):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    logits = cg.Tensor(x, requires_grad=True)
    target = rng.integers(0, 5, 6)
    loss = F.cross_entropy(logits, target, reduction=reduction)
    shifted = logits.data - logits.data.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    picked = -np.take_along_axis(logp, target[:, None], axis=1)[:, 0]
    want = {"none": picked, "sum": picked.sum(), "mean": picked.sum() / np.float32(6)}
    np.testing.assert_array_equal(loss.data, want[reduction])
    dy = rng.standard_normal(loss.shape).astype(np.float32)
    loss.backward(dy)
    onehot = np.zeros_like(logp)
    np.put_along_axis(onehot, target[:, None], 1, axis=1)
    scale = dy[:, None] if reduction == "none" else dy
    if reduction == "mean":
        scale = dy / np.float32(6)
    np.testing.assert_array_equal(logits.grad, (np.exp(logp) - onehot) * scale)


def _adam_run(shapes, steps, wd=0.0, skip=None, dtypes=None, rng_seed=5):
    """Adam on len(shapes) parameters, with the reference alongside; skip
    maps a step to the parameter whose grad is None at it."""
    rng = np.random.default_rng(rng_seed)
    dtypes = dtypes or [np.float32] * len(shapes)
    ps = [cg.Tensor(rng.standard_normal(s).astype(d), requires_grad=True)
          for s, d in zip(shapes, dtypes, strict=True)]
    refs = [(p.data.copy(), np.zeros_like(p.data), np.zeros_like(p.data), [0])
            for p in ps]
    opt = cg.optim.Adam(ps, lr=0.01, weight_decay=wd)
    for t in range(steps):
        for i, (p, (ref, m, v, n)) in enumerate(zip(ps, refs, strict=True)):
            if skip and skip.get(t) == i:
                p.grad = None
                continue
            p.grad = rng.standard_normal(p.shape).astype(p.dtype)
            n[0] += 1
            g = p.grad + wd * ref if wd else p.grad
            _adam_reference(ref, g, m, v, n[0], 0.01, 0.9, 0.999, 1e-8)
        opt.step()
        for p, (ref, m, v, _) in zip(ps, refs, strict=True):
            np.testing.assert_array_equal(p.data.view(np.uint8), ref.view(np.uint8))
            np.testing.assert_array_equal(opt.state[id(p)]["exp_avg"], m)
            np.testing.assert_array_equal(opt.state[id(p)]["exp_avg_sq"], v)
    return opt, ps


SHAPES = [(4, 1, 3, 3), (4,), (3, 5), (0, 2)]


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_adam_on_flat_buffers_is_the_formula_bit_for_bit(wd):
    opt, ps = _adam_run(SHAPES, 6, wd=wd)
    assert opt._flat  # the flat path ran
    m = opt.state[id(ps[0])]["exp_avg"]
    assert m.shape == ps[0].shape and np.shares_memory(m, opt._flat[0].m)


def test_adam_falls_back_per_parameter_and_stays_exact():
    _adam_run(SHAPES, 6, skip={2: 1})  # a missing grad: steps diverge
    _adam_run(SHAPES, 4, dtypes=[np.float32, np.float64, np.float32, np.float32])


def test_adam_sees_a_replaced_state():
    opt, ps = _adam_run(SHAPES, 2)
    st = opt.state[id(ps[2])]
    st["exp_avg"] = st["exp_avg"].copy()  # no longer a view of the buffer
    before = st["exp_avg"].copy()
    ps[2].grad = np.ones(ps[2].shape, np.float32)
    for p in (ps[0], ps[1], ps[3]):
        p.grad = np.zeros(p.shape, np.float32)
    opt.step()
    assert not np.array_equal(st["exp_avg"], before)  # updated where it lives


def test_adam_copied_with_its_buffers_steps_its_state_arrays():
    import copy

    opt, ps = _adam_run(SHAPES, 2)
    memo: dict = {}  # as a deepcopy of the optimizer: views become copies
    opt.state = copy.deepcopy(opt.state, memo)
    opt._flat = copy.deepcopy(opt._flat, memo)
    want = []
    for p in ps:
        st = opt.state[id(p)]
        ref, m, v = p.data.copy(), st["exp_avg"].copy(), st["exp_avg_sq"].copy()
        p.grad = np.full(p.shape, 0.5, np.float32)
        _adam_reference(ref, p.grad, m, v, 3, 0.01, 0.9, 0.999, 1e-8)
        want.append((ref, m))
    opt.step()
    for p, (ref, m) in zip(ps, want, strict=True):
        np.testing.assert_array_equal(p.data, ref)
        np.testing.assert_array_equal(opt.state[id(p)]["exp_avg"], m)


# --------------------------------------------------------------------------
# issue 31: the geometry memo is bounded, and keyed on every argument
# --------------------------------------------------------------------------


def test_the_geometry_memo_is_bounded_and_keeps_working(monkeypatch):
    monkeypatch.setattr(geo, "_MEMO_SIZE", 8)
    geo.conv2d_geometry.cache_clear()
    store = geo.conv2d_geometry.cache_clear.__self__  # the memo's dict
    assert isinstance(store, dict) and not store
    for h in range(4, 40):  # 36 geometries through a memo of 8
        g = geo.conv2d_geometry((2, 3, h, h), (4, 3, 3, 3), None, 1, 1, 1, 1)
        assert len(store) <= 8
        assert g.win.out == (h, h)
    again = geo.conv2d_geometry((2, 3, 39, 39), (4, 3, 3, 3), None, 1, 1, 1, 1)
    assert again.win.out == (39, 39) and len(store) <= 8
    geo.conv2d_geometry.cache_clear()


@pytest.mark.parametrize("change", [
    {"x": (2, 3, 9, 8)}, {"w": (4, 3, 2, 3)}, {"stride": 2}, {"stride": (1, 2)},
    {"padding": 0}, {"padding": (1, 0)}, {"dilation": 2}, {"itemsize": 8},
])
def test_two_geometries_do_not_share_a_memoized_result(change):
    base = {"x": (2, 3, 8, 8), "w": (4, 3, 3, 3), "stride": 1, "padding": 1,
            "dilation": 1, "itemsize": 4}
    other = {**base, **change}

    def call(a, *, full=False):
        fn = geo.conv2d_geometry.__wrapped__ if full else geo.conv2d_geometry
        return fn(a["x"], a["w"], (4,), a["stride"], a["padding"], a["dilation"],
                  1, itemsize=a["itemsize"])

    first, second = call(base), call(other)  # both through the memo
    assert first == call(base, full=True)
    assert second == call(other, full=True)
    if change != {"itemsize": 8}:  # the item size changes no field
        assert first != second
    assert call(base) is first  # a repeat is the remembered object


@pytest.mark.parametrize("change", [
    {"k": 3}, {"s": 1}, {"p": 1}, {"d": 2}, {"ceil": True}, {"x": (2, 3, 11, 9)},
])
def test_two_pool_windows_do_not_share_a_memoized_result(change):
    base = {"x": (2, 3, 9, 9), "k": 2, "s": None, "p": 0, "d": 1, "ceil": False}
    other = {**base, **change}
    a = geo.pool_window(base["x"], base["k"], base["s"], base["p"], base["d"],
                        base["ceil"])
    b = geo.pool_window(other["x"], other["k"], other["s"], other["p"],
                        other["d"], other["ceil"])
    assert a != b
    assert b == geo.pool_window.__wrapped__(
        other["x"], other["k"], other["s"], other["p"], other["d"], other["ceil"]
    )


# --------------------------------------------------------------------------
# issue 31: the small-plane kernels' shortcuts against the NumPy twins
# --------------------------------------------------------------------------

# (input shape, kernel, padding, dilation) at stride 1 with OW == W: the
# im2col's contiguous-run path; taps wholly in the padding, OH != H, an
# even kernel, a kernel wider than the input
FLAT_IM2COL = [
    ((2, 3, 4, 4), 3, 1, 1),
    ((32, 2, 8, 8), 3, 1, 1),
    ((1, 2, 5, 6), 5, 2, 1),
    ((2, 1, 7, 5), 3, 2, 2),
    ((1, 1, 3, 4), 2, 1, 2),
    ((2, 2, 6, 7), (3, 5), (0, 2), 1),
    ((1, 2, 2, 2), 5, 2, 1),
    ((1, 1, 1, 3), (7, 3), (3, 1), 1),
    ((3, 2, 4, 4), 1, 0, 1),
    ((0, 2, 4, 4), 3, 1, 1),
]


@pytest.mark.parametrize("which", ["serial", "parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", FLAT_IM2COL)
def test_im2col_contiguous_run_path_is_the_twin_bit_for_bit(case, dtype, which):
    from convgrad import kernels as K
    from convgrad import reference as R

    shape, k, p, d = case
    win = geo.window(shape[2:], k, 1, p, d)
    assert win.out[1] == shape[3]  # the case takes the contiguous path
    x = np.random.default_rng(6).standard_normal(shape).astype(dtype)
    col = np.full((*shape[:2], *win.k, *win.out), np.nan, dtype)  # all set
    want = np.empty_like(col)
    getattr(K.im2col, which)(x, *win.args, col)
    R.im2col(x, *win.args, want)
    np.testing.assert_array_equal(col.view(f"u{col.itemsize}"),
                                  want.view(f"u{col.itemsize}"))


# (input shape, stride, dilation, ceil_mode) with a 2×2 kernel and no padding
TWO_BY_TWO = [
    ((32, 16, 8, 8), None, 1, False),
    ((32, 32, 4, 4), None, 1, False),
    ((2, 3, 5, 5), 1, 1, False),
    ((2, 3, 7, 6), 3, 1, False),
    ((2, 3, 6, 7), (2, 1), 2, False),
    ((2, 3, 5, 5), None, 1, True),  # the last window hangs off the edge
    ((2, 3, 7, 7), 3, 2, True),
]


@pytest.mark.parametrize("which", ["serial", "parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", TWO_BY_TWO)
def test_the_unrolled_2x2_max_pool_is_the_twin_bit_for_bit(case, dtype, which):
    from convgrad import kernels as K
    from convgrad import reference as R

    shape, s, d, ceil = case
    win = geo.pool_window(shape, 2, s, 0, d, ceil)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(dtype)
    x[0, 0, 0, :2] = np.nan  # a NaN first tap, and one after it
    x[0, 1, 1, 1] = np.nan
    x[0, 2, :2, :2] = -np.inf  # a window of -inf
    x[1, 0] = np.round(x[1, 0])  # ties: the first maximum wins
    x[1, 1, 0, 0], x[1, 1, 0, 1] = -0.0, 0.0
    got = np.empty((*shape[:2], *win.out), dtype), np.full((*shape[:2], *win.out), -7)
    want = np.empty_like(got[0]), np.empty_like(got[1])
    getattr(K.maxpool2d_forward, which)(x, *win.args, *got)
    R.maxpool2d_forward(x, *win.args, *want)
    words = f"u{x.itemsize}"
    np.testing.assert_array_equal(got[0].view(words), want[0].view(words))
    np.testing.assert_array_equal(got[1], want[1])


def test_the_undispatched_overlap_check_is_numpys():
    from convgrad.function import _may_share

    a = np.arange(24.0).reshape(4, 6)
    pairs = [(a, a), (a, a.T), (a, a[1:3]), (a[:2], a[2:]), (a[:, ::2], a[:, 1::2]),
             (a, a.copy()), (a[0], a.reshape(-1)[:6]), (np.float64(1.0) * a, a),
             (a[:0], a)]
    for u, v in pairs:
        assert _may_share(u, v) == np.may_share_memory(u, v)
