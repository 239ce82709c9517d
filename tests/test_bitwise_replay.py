"""Every trace replays its kernel bit for bit, in float32.

For each trace: the Numba kernel (serial and parallel builds), the NumPy
twin and ``trace.replay`` of the trace's events, on random non-integer
data, agree to the last bit. Configs have overlapping windows, padding
next to negative inputs, dilation, ceil_mode, and ties for max-pool. So a
trace whose loop order differs from its kernel's (an add order that
rounds differently) fails here.

Trace calls pass everything but the data by keyword: the trace signatures
follow ``torch.nn.functional``'s argument order.
"""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import backend, trace
from convgrad import geometry as geo

F32 = np.float32

# --------------------------------------------------------------------------
# the kernels, and bitwise equality
# --------------------------------------------------------------------------


def builds(name: str) -> dict:
    """Every implementation of kernel ``name``: the NumPy twin and both
    compiled builds of the Numba kernel."""
    compiled = backend.table("numba")[name]
    return {
        "numpy": backend.table("numpy")[name],
        "numba serial": compiled.serial,
        "numba parallel": compiled.parallel,
    }


def assert_bitwise(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    uint = np.dtype(f"u{got.dtype.itemsize}")
    same = got.view(uint) == want.view(uint)
    assert same.all(), (
        f"{what}: {np.count_nonzero(~same)} of {same.size} cells differ, "
        f"largest by {np.max(np.abs(got - want))}"
    )


def exact(value: float, dtype) -> bool:
    """``value`` (a Python float) holds a number of ``dtype`` exactly."""
    return float(np.dtype(dtype).type(value)) == value


def replay(events: list, shape: tuple[int, ...], dtype) -> np.ndarray:
    out = trace.replay(events, shape, dtype=dtype)
    assert out.dtype == np.dtype(dtype)
    return out


# --------------------------------------------------------------------------
# random configs, drawn once
# --------------------------------------------------------------------------


def _pairs(rng, low, high):
    return tuple(int(v) for v in rng.integers(low, high, 2))


def _conv_configs(seed: int, count: int) -> list:
    """(x_shape, kernel_size, stride, padding, dilation) for im2col/col2im."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        shape = (*_pairs(rng, 1, 3), *_pairs(rng, 2, 10))
        k, s, p, d = (_pairs(rng, 1, 4), _pairs(rng, 1, 3), _pairs(rng, 0, 3),
                      _pairs(rng, 1, 3))
        try:
            geo.window(shape[2:], k, s, p, d)
        except ValueError:
            continue
        out.append((shape, k, s, p, d))
    return out


def _transpose_configs(seed: int, count: int) -> list:
    """(x_shape, w_shape, stride, padding, output_padding, dilation, groups)."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        g = int(rng.integers(1, 3))
        x_shape = (int(rng.integers(1, 3)), g * int(rng.integers(1, 3)),
                   *_pairs(rng, 1, 6))
        w_shape = (x_shape[1], int(rng.integers(1, 3)), *_pairs(rng, 1, 4))
        s, p, d = _pairs(rng, 1, 4), _pairs(rng, 0, 3), _pairs(rng, 1, 3)
        op = tuple(int(rng.integers(0, max(a, b))) for a, b in zip(s, d, strict=True))
        try:
            geo.conv_transpose2d_geometry(x_shape, w_shape, None, s, p, op, g, d)
        except ValueError:
            continue
        out.append((x_shape, w_shape, s, p, op, d, g))
    return out


def _pool_configs(seed: int, count: int, *, dilation: bool) -> list:
    """(x_shape, kernel_size, stride, padding, dilation, ceil_mode)."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        shape = (*_pairs(rng, 1, 3), *_pairs(rng, 2, 10))
        k = _pairs(rng, 1, 5)
        s = _pairs(rng, 1, 4) if rng.random() < 0.85 else None
        p = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
        d = _pairs(rng, 1, 3) if dilation else (1, 1)
        ceil = bool(rng.random() < 0.4)
        try:
            geo.pool_window(shape, k, s, p, d, ceil)
        except ValueError:
            continue
        out.append((shape, k, s, p, d, ceil))
    return out


def _avg_configs(seed: int, count: int) -> list:
    """A pool config plus (count_include_pad, divisor_override or None)."""
    rng = np.random.default_rng(seed)
    return [
        (*c, bool(rng.random() < 0.5),
         None if rng.random() < 0.7 else int(rng.integers(1, 8)))
        for c in _pool_configs(seed, count, dilation=False)
    ]


CONV = _conv_configs(0, 24)
TRANSPOSE = _transpose_configs(1, 16)
MAXPOOL = _pool_configs(2, 24, dilation=True)
AVGPOOL = _avg_configs(3, 32)


def _overlap(shape, k, s, d) -> bool:
    s = k if s is None else s
    return any((kk - 1) * dd + 1 > ss for kk, ss, dd in zip(k, s, d, strict=True))


def test_configs_cover_what_rounding_depends_on():
    pools = [c[:6] for c in AVGPOOL] + MAXPOOL
    seen = {
        "conv overlap": sum(_overlap(c[0], c[1], c[2], c[4]) for c in CONV),
        "conv padding": sum(max(c[3]) > 0 for c in CONV),
        "conv dilation": sum(max(c[4]) > 1 for c in CONV),
        "transpose overlap": sum(
            _overlap(None, c[1][2:], c[2], c[5]) for c in TRANSPOSE
        ),
        "transpose groups": sum(c[6] > 1 for c in TRANSPOSE),
        "pool overlap": sum(_overlap(c[0], c[1], c[2], c[4]) for c in pools),
        "pool padding": sum(max(c[3]) > 0 for c in pools),
        "pool ceil_mode": sum(c[5] for c in pools),
        "maxpool dilation": sum(max(c[4]) > 1 for c in MAXPOOL),
        "avg count_include_pad off": sum(not c[6] for c in AVGPOOL),
        "avg divisor_override": sum(c[7] is not None for c in AVGPOOL),
    }
    assert all(v >= 3 for v in seen.values()), seen


def _data(rng, shape, dtype=F32) -> np.ndarray:
    """Random non-integers, mostly negative next to the padding (which a
    max-pool must never pick, and an average must count as 0)."""
    return (rng.standard_normal(shape) - 0.5).astype(dtype)


def _ties(rng, shape) -> np.ndarray:
    """Random non-integers from a set of 4: many ties, for max-pool."""
    return rng.choice(_data(rng, 4), size=shape)


# --------------------------------------------------------------------------
# one test per trace
# --------------------------------------------------------------------------


@pytest.mark.parametrize("config", CONV, ids=str)
def test_im2col(config):
    shape, k, s, p, d = config
    rng = np.random.default_rng(10)
    x = _data(rng, shape)
    win = geo.window(shape[2:], k, s, p, d)
    col_shape = (*shape[:2], *win.k, *win.out)
    events = list(trace.im2col(x, kernel_size=k, stride=s, padding=p, dilation=d))
    got = replay(events, col_shape, F32)
    assert all(e.value == (0.0 if e.padding else x[e.src]) for e in events)
    for name, fn in builds("im2col").items():
        col = np.full(col_shape, np.nan, F32)  # every cell must be written
        fn(x, *win.args, col)
        assert_bitwise(got, col, name)


@pytest.mark.parametrize("config", CONV, ids=str)
def test_col2im(config):
    shape, k, s, p, d = config
    rng = np.random.default_rng(11)
    win = geo.window(shape[2:], k, s, p, d)
    col = _data(rng, (*shape[:2], *win.k, *win.out))
    events = list(
        trace.col2im(
            col, output_size=shape[2:], kernel_size=k, stride=s, padding=p,
            dilation=d,
        )
    )
    got = replay(events, shape, F32)
    assert all(e.value == col[e.src] and exact(e.value, F32) for e in events)
    for name, fn in builds("col2im").items():
        x = np.zeros(shape, F32)
        fn(col, *win.args, x)
        assert_bitwise(got, x, name)


@pytest.mark.parametrize("config", TRANSPOSE, ids=str)
def test_conv_transpose_forward(config):
    x_shape, w_shape, s, p, op, d, g = config
    rng = np.random.default_rng(12)
    x, w = _data(rng, x_shape), _data(rng, w_shape)
    kw = dict(stride=s, padding=p, output_padding=op, groups=g, dilation=d)
    events = list(trace.conv_transpose_forward(x, w, **kw))
    assert all(exact(e.value, F32) for e in events)
    geom = geo.conv_transpose2d_geometry(x_shape, w_shape, None, s, p, op, g, d)
    got = replay(events, (x_shape[0], geom.c_out, *geom.out), F32)
    for name in backend.BACKENDS:  # the whole op: wᵀ·x by matmul, then col2im
        with cg.use_backend(name):
            y = cg.functional.conv_transpose2d(x, w, None, **kw).data
        assert_bitwise(got, y, f"F.conv_transpose2d on {name}")


def _maxpool(fn, x, win):
    y = np.full((*x.shape[:2], *win.out), np.nan, x.dtype)
    argmax = np.full(y.shape, -7, np.int64)
    fn(x, *win.args, y, argmax)
    return y, argmax


@pytest.mark.parametrize("config", MAXPOOL, ids=str)
def test_maxpool_forward(config):
    shape, k, s, p, d, ceil = config
    rng = np.random.default_rng(13)
    x = _ties(rng, shape)
    win = geo.pool_window(shape, k, s, p, d, ceil)
    events = list(
        trace.maxpool_forward(
            x, kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil
        )
    )
    y_shape = (*shape[:2], *win.out)
    got = replay(events, y_shape, F32)
    got_argmax = trace.replay_argmax(events, y_shape)
    assert all(e.padding or e.value == x[e.src] for e in events)
    for name, fn in builds("maxpool2d_forward").items():
        y, argmax = _maxpool(fn, x, win)
        assert_bitwise(got, y, name)
        np.testing.assert_array_equal(got_argmax, argmax, err_msg=name)


@pytest.mark.parametrize("config", MAXPOOL, ids=str)
def test_maxpool_backward(config):
    shape, k, s, p, d, ceil = config
    rng = np.random.default_rng(14)
    win = geo.pool_window(shape, k, s, p, d, ceil)
    _, argmax = _maxpool(builds("maxpool2d_forward")["numpy"], _ties(rng, shape), win)
    dy = _data(rng, argmax.shape)
    events = list(trace.maxpool_backward(dy, argmax, shape))
    got = replay(events, shape, F32)
    assert all(e.value == dy[e.src] and exact(e.value, F32) for e in events)
    for name, fn in builds("maxpool2d_backward").items():
        dx = np.zeros(shape, F32)
        fn(dy, argmax, dx)
        assert_bitwise(got, dx, name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("config", AVGPOOL, ids=str)
def test_avgpool_backward(config, dtype):
    shape, k, s, p, _, ceil, include, override = config
    rng = np.random.default_rng(15)
    win = geo.pool_window(shape, k, s, p, 1, ceil)
    dy = _data(rng, (*shape[:2], *win.out), dtype)
    events = list(
        trace.avgpool_backward(
            dy, input_shape=shape, kernel_size=k, stride=s, padding=p,
            ceil_mode=ceil, count_include_pad=include, divisor_override=override,
        )
    )
    got = replay(events, shape, dtype)
    one = np.dtype(dtype).type
    for e in events:  # the share, divided in dy's dtype
        assert e.value == one(dy[e.src]) / one(e.divisor) and exact(e.value, dtype)
    args = (*win.args[:6], include, override or 0)
    for name, fn in builds("avgpool2d_backward").items():
        dx = np.zeros(shape, dtype)
        fn(dy, *args, dx)
        assert_bitwise(got, dx, name)


# --------------------------------------------------------------------------
# why the order matters, and what replay adds in
# --------------------------------------------------------------------------


def test_float32_sums_depend_on_the_order_of_adds():
    # one row, kernel 3, stride 1: pixel 2 gets the shares of windows 0, 1
    # and 2 (taps 2, 1, 0). 1 + 2⁻²⁴ rounds back to 1 in float32, but
    # 2⁻²⁴ + 2⁻²⁴ = 2⁻²³ does not vanish: window order (1 first) gives 1,
    # tap order (the tiny ones first) gives 1 + 2⁻²³.
    tiny = 2.0**-24
    dy = np.array([[[[1.0, tiny, tiny]]]], F32)
    shape = (1, 1, 1, 5)
    events = list(
        trace.avgpool_backward(
            dy, input_shape=shape, kernel_size=(1, 3), stride=1, divisor_override=1
        )
    )
    got = replay(events, shape, F32)
    assert got[0, 0, 0, 2] == F32(1.0) + F32(2 * tiny) != 1.0
    for name, fn in builds("avgpool2d_backward").items():
        dx = np.zeros(shape, F32)
        fn(dy, 1, 3, 1, 1, 0, 0, True, 1, dx)
        assert_bitwise(got, dx, name)


def test_events_come_in_the_documented_loop_order():
    # the orders convgrad.trace's docstring states; with the bitwise tests
    # above, they are the kernels' orders
    rng = np.random.default_rng(17)
    x = _data(rng, (1, 2, 5, 4))
    n_c = x.shape[:2]
    gather = list(trace.im2col(x, kernel_size=2, stride=2, padding=1))
    assert [e.dst for e in gather] == list(np.ndindex(*n_c, 2, 2, 3, 3))
    col = _data(rng, (*n_c, 2, 2, 3, 3))
    scatter = list(
        trace.col2im(col, output_size=(5, 4), kernel_size=2, stride=2, padding=1)
    )
    assert [e.src for e in scatter] == list(np.ndindex(col.shape))
    stamp = list(trace.conv_transpose_forward(x, _data(rng, (2, 3, 2, 2)), stride=2))
    assert [e.src for e in stamp] == list(np.ndindex(1, 3, 2, 2, 5, 4))
    scan = list(trace.maxpool_forward(x, kernel_size=2, stride=1, padding=1))
    assert [(*e.dst, *e.tap) for e in scan] == list(np.ndindex(*n_c, 6, 5, 2, 2))
    dy = _data(rng, (*n_c, 6, 5))
    route = list(trace.maxpool_backward(dy, np.zeros(dy.shape, np.int64), x.shape))
    assert [e.src for e in route] == list(np.ndindex(dy.shape))
    spread = list(
        trace.avgpool_backward(
            dy, input_shape=x.shape, kernel_size=2, stride=1, padding=1
        )
    )
    assert [(*e.src[:2], *e.tap, *e.src[2:]) for e in spread] == list(
        np.ndindex(*n_c, 2, 2, 6, 5)
    )  # n, c, ki, kj, i, j: col2im's order


def test_replay_adds_in_the_dtype_it_is_given():
    # a 1x1 image, kernel (1, 4), padding (0, 3): window j's tap 3 - j is
    # the pixel, so four column cells land on it, tap 0 first. In float32
    # 1 + 2⁻²⁵ + 2⁻²⁵ + 2⁻²⁵ is 1 (each add rounds); in float64 it is not.
    col = np.random.default_rng(16).standard_normal((1, 1, 1, 4, 1, 4)).astype(F32)
    for kj, v in enumerate([1.0, 2.0**-25, 2.0**-25, 2.0**-25]):
        col[0, 0, 0, kj, 0, 3 - kj] = v
    events = list(
        trace.col2im(col, output_size=(1, 1), kernel_size=(1, 4), padding=(0, 3))
    )
    assert [e.src for e in events if not e.padding] == [
        (0, 0, 0, kj, 0, 3 - kj) for kj in range(4)
    ]
    assert replay(events, (1, 1, 1, 1), F32)[0, 0, 0, 0] == 1.0
    assert replay(events, (1, 1, 1, 1), np.float64)[0, 0, 0, 0] > 1.0
    x = np.zeros((1, 1, 1, 1), F32)
    backend.table("numba")["col2im"](col, 1, 4, 1, 1, 0, 3, 1, 1, x)
    assert x[0, 0, 0, 0] == 1.0
