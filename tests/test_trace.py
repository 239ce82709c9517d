"""Traces: replaying the events gives exactly what the kernels compute."""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import geometry as geo
from convgrad import reference as ref
from convgrad import trace
from convgrad.trace import (
    GatherEvent,
    RouteEvent,
    ScanEvent,
    ScatterEvent,
    SpreadEvent,
)

# --------------------------------------------------------------------------
# random valid configurations
# --------------------------------------------------------------------------


def conv_configs(seed: int, count: int):
    """Random valid (x_shape, k, s, p, d, window) for im2col/col2im."""
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        n, c = rng.integers(1, 3, 2)
        hw = tuple(int(v) for v in rng.integers(1, 9, 2))
        k = tuple(int(v) for v in rng.integers(1, 5, 2))
        s = tuple(int(v) for v in rng.integers(1, 4, 2))
        p = tuple(int(v) for v in rng.integers(0, 3, 2))
        d = tuple(int(v) for v in rng.integers(1, 3, 2))
        try:
            win = geo.window(hw, k, s, p, d)
        except ValueError:
            continue
        made += 1
        yield (int(n), int(c), *hw), k, s, p, d, win


def pool_configs(seed: int, count: int, *, dilation: bool = True):
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        shape += tuple(int(v) for v in rng.integers(1, 9, 2))
        k = tuple(int(v) for v in rng.integers(1, 5, 2))
        s = None if rng.random() < 0.2 else tuple(int(v) for v in rng.integers(1, 4, 2))
        p = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
        d = tuple(int(v) for v in rng.integers(1, 3, 2)) if dilation else (1, 1)
        ceil = bool(rng.random() < 0.4)
        try:
            win = geo.pool_window(shape, k, s, p, d, ceil)
        except ValueError:
            continue
        made += 1
        yield shape, k, s, p, d, ceil, win


def ties(rng, shape, dtype=np.float64):
    """Small integers: many equal values, negatives next to the padding."""
    return rng.integers(-3, 4, size=shape).astype(dtype)


def assert_totals(events, shape, dtype=np.float64):
    """Each event's running total is the destination after that event."""
    out = np.zeros(shape, dtype=dtype)
    for e in events:
        if e.padding:
            continue
        out[e.dst] += e.value
        assert e.total == float(out[e.dst]), e


# --------------------------------------------------------------------------
# im2col / col2im
# --------------------------------------------------------------------------


def test_configs_cover_overlaps_padding_and_dilation():
    seen = {"overlap": 0, "gap": 0, "padding": 0, "dilation": 0}
    for shape, k, s, p, d, _ in conv_configs(0, 60):
        counts = trace.overlap_count(shape[2:], k, stride=s, padding=p, dilation=d)
        seen["overlap"] += counts.max() > 1
        seen["gap"] += counts.min() == 0
        seen["padding"] += max(p) > 0
        seen["dilation"] += max(d) > 1
    assert all(v >= 5 for v in seen.values()), seen


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_im2col_replay_equals_reference(dtype):
    rng = np.random.default_rng(1)
    for shape, k, s, p, d, win in conv_configs(1, 40):
        x = rng.standard_normal(shape).astype(dtype)
        want = np.empty((*shape[:2], *win.k, *win.out), dtype=dtype)
        ref.im2col(x, *win.args, want)
        events = list(trace.im2col(x, k, stride=s, padding=p, dilation=d))
        assert all(isinstance(e, GatherEvent) for e in events)
        assert len(events) == want.size
        got = trace.replay(events, want.shape, dtype=dtype)
        np.testing.assert_array_equal(got, want, err_msg=str((shape, k, s, p, d)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_col2im_replay_equals_reference(dtype):
    rng = np.random.default_rng(2)
    for shape, k, s, p, d, win in conv_configs(2, 40):
        col = rng.standard_normal((*shape[:2], *win.k, *win.out)).astype(dtype)
        want = np.zeros(shape, dtype=dtype)
        ref.col2im(col, *win.args, want)
        events = list(trace.col2im(col, shape[2:], k, stride=s, padding=p, dilation=d))
        assert all(isinstance(e, ScatterEvent) for e in events)
        assert len(events) == col.size  # one per column cell, padding included
        got = trace.replay(events, shape, dtype=dtype)
        # same adds in the same order: equal to the last bit
        np.testing.assert_array_equal(got, want, err_msg=str((shape, k, s, p, d)))
        assert_totals(events, shape, dtype)
        kept = list(trace.col2im(
            col, shape[2:], k, stride=s, padding=p, dilation=d, skip_padding=True
        ))
        assert kept == [e for e in events if not e.padding]


@pytest.mark.torch
def test_col2im_replay_equals_torch_fold(torch):
    rng = np.random.default_rng(3)
    for shape, k, s, p, d, win in conv_configs(3, 25):
        col = rng.standard_normal((*shape[:2], *win.k, *win.out))
        events = trace.col2im(col, shape[2:], k, stride=s, padding=p, dilation=d)
        got = trace.replay(events, shape)
        folded = torch.nn.functional.fold(
            torch.tensor(col.reshape(shape[0], -1, win.out[0] * win.out[1])),
            shape[2:],
            k,
            dilation=d,
            padding=p,
            stride=s,
        )
        np.testing.assert_allclose(got, folded.numpy(), rtol=1e-12, atol=1e-12)


def test_col2im_loop_order_is_n_c_ki_kj_oh_ow():
    col = np.arange(2 * 2 * 2 * 2 * 3 * 3, dtype=float).reshape(2, 2, 2, 2, 3, 3)
    events = list(trace.col2im(col, (4, 4), 2, stride=1))
    # the column's memory order, one event per cell
    assert [e.src for e in events] == list(np.ndindex(col.shape))
    assert [e.value for e in events] == list(col.ravel())
    e = events[2 * 9 + 3 + 1]  # n=0, c=0, ki=1, kj=0, oh=1, ow=1
    assert e.src == (0, 0, 1, 0, 1, 1) and e.dst == (0, 0, 2, 1)


def test_col2im_overlapping_windows_add_and_padding_is_dropped():
    # 1-D along W: kernel 3, stride 1, padding 1, on a 1x3 image
    col = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [100.0, 200.0, 300.0]])
    col = col.reshape(1, 1, 1, 3, 1, 3)
    events = list(trace.col2im(col, (1, 3), (1, 3), stride=1, padding=(0, 1)))
    dropped = [e for e in events if e.padding]
    assert [e.value for e in dropped] == [1.0, 300.0]
    assert all(e.total is None for e in dropped)
    assert [d.dst for d in dropped] == [(0, 0, 0, -1), (0, 0, 0, 3)]
    got = trace.replay(events, (1, 1, 1, 3))
    np.testing.assert_array_equal(got[0, 0, 0], [2 + 10 + 0, 3 + 20 + 100, 30 + 200])
    assert "dropped" in dropped[0].describe()
    assert events[1].describe() == "dcol[0,0,0,0,0,1] = 2 added to dx[0,0,0,0] → 2"


def test_im2col_padding_events_read_zero():
    x = -np.ones((1, 1, 2, 2))
    events = list(trace.im2col(x, 3, stride=1, padding=1))
    pads = [e for e in events if e.padding]
    assert pads and all(e.value == 0.0 for e in pads)
    col = trace.replay(events, (1, 1, 3, 3, 2, 2))
    assert (col == 0).sum() == len(pads) and (col == -1).sum() == len(events) - len(
        pads
    )


# --------------------------------------------------------------------------
# transposed convolution
# --------------------------------------------------------------------------


def transpose_configs(seed: int, count: int):
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        x_shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        x_shape += tuple(int(v) for v in rng.integers(1, 5, 2))
        w_shape = (x_shape[1], int(rng.integers(1, 3)))
        w_shape += tuple(int(v) for v in rng.integers(1, 4, 2))
        s = tuple(int(v) for v in rng.integers(1, 4, 2))
        p = tuple(int(v) for v in rng.integers(0, 3, 2))
        d = tuple(int(v) for v in rng.integers(1, 3, 2))
        op = tuple(
            int(rng.integers(0, max(ss, dd))) for ss, dd in zip(s, d, strict=True)
        )
        try:
            geom = geo.conv_transpose2d_geometry(x_shape, w_shape, None, s, p, op, 1, d)
        except ValueError:
            continue
        made += 1
        yield x_shape, w_shape, s, p, op, d, geom


def test_conv_transpose_replay_equals_functional():
    rng = np.random.default_rng(4)
    for x_shape, w_shape, s, p, op, d, geom in transpose_configs(4, 30):
        x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
        events = list(trace.conv_transpose_forward(
            x, w, stride=s, padding=p, output_padding=op, dilation=d
        ))
        out_shape = (x_shape[0], w_shape[1], *geom.out)
        with cg.use_backend("numpy"):
            want = cg.functional.conv_transpose2d(x, w, None, s, p, op, 1, d).data
        got = trace.replay(events, out_shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert_totals(events, out_shape)


@pytest.mark.torch
def test_conv_transpose_replay_equals_torch(torch):
    rng = np.random.default_rng(5)
    for x_shape, w_shape, s, p, op, d, geom in transpose_configs(5, 20):
        x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
        got = trace.replay(
            trace.conv_transpose_forward(
            x, w, stride=s, padding=p, output_padding=op, dilation=d
        ),
            (x_shape[0], w_shape[1], *geom.out),
        )
        want = torch.nn.functional.conv_transpose2d(
            torch.tensor(x), torch.tensor(w), None, s, p, op, 1, d
        )
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)


def test_conv_transpose_single_channel_stamps_the_scaled_kernel():
    x = np.array([[[[2.0, -1.0]]]])
    w = np.arange(1.0, 10.0).reshape(1, 1, 3, 3)
    events = list(trace.conv_transpose_forward(x, w, stride=2))
    for e in events:
        _, _, ki, kj, i, j = e.src
        assert e.value == x[0, 0, i, j] * w[0, 0, ki, kj]
        assert e.dst == (0, 0, 2 * i + ki, 2 * j + kj)
    y = trace.replay(events, (1, 1, 3, 5))
    assert y[0, 0, 1, 2] == 2 * 6 + -1 * 4  # the overlap column adds


# --------------------------------------------------------------------------
# max pooling
# --------------------------------------------------------------------------


def ref_maxpool(x, win):
    y = np.empty((*x.shape[:2], *win.out), dtype=x.dtype)
    argmax = np.empty(y.shape, dtype=np.int64)
    ref.maxpool2d_forward(x, *win.args, y, argmax)
    return y, argmax


def test_maxpool_forward_replay_equals_reference_with_ties():
    rng = np.random.default_rng(6)
    for shape, k, s, p, d, ceil, win in pool_configs(6, 60):
        x = ties(rng, shape)
        events = list(trace.maxpool_forward(x, k, s, p, d, ceil))
        assert all(isinstance(e, ScanEvent) for e in events)
        y, argmax = ref_maxpool(x, win)
        np.testing.assert_array_equal(trace.replay(events, y.shape), y)
        np.testing.assert_array_equal(trace.replay_argmax(events, y.shape), argmax)


@pytest.mark.torch
def test_maxpool_forward_replay_equals_torch(torch):
    rng = np.random.default_rng(7)
    for shape, k, s, p, d, ceil, _ in pool_configs(7, 40):
        x = ties(rng, shape)
        events = list(trace.maxpool_forward(x, k, s, p, d, ceil))
        ty, ti = torch.nn.functional.max_pool2d(
            torch.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True
        )
        np.testing.assert_array_equal(trace.replay(events, ty.shape), ty.numpy())
        np.testing.assert_array_equal(trace.replay_argmax(events, ty.shape), ti.numpy())


def test_maxpool_scan_first_maximum_wins_a_tie_and_nan_wins():
    x = np.array([[[[1.0, 3.0], [3.0, 2.0]]]])
    events = list(trace.maxpool_forward(x, 2))
    assert [e.taken for e in events] == [True, True, False, False]
    assert events[-1].argmax == 1 and events[-1].total == 3.0
    assert "not above 3" in events[2].describe()
    x[0, 0, 1, 1] = np.nan
    last = list(trace.maxpool_forward(x, 2))[-1]
    assert last.taken and last.argmax == 3 and np.isnan(last.total)


def test_maxpool_padding_reads_minus_infinity_not_zero():
    x = -np.arange(1.0, 10.0).reshape(1, 1, 3, 3)
    events = list(trace.maxpool_forward(x, 3, 1, 1))
    pads = [e for e in events if e.padding]
    assert pads and all(e.value == -np.inf and not e.taken for e in pads)
    y = trace.replay(events, (1, 1, 3, 3))
    assert (y < 0).all()  # a 0 from the padding would have won everywhere
    assert y[0, 0, 0, 0] == -1.0


def test_maxpool_backward_replay_equals_reference_and_overlaps_add():
    rng = np.random.default_rng(8)
    shared = 0
    for shape, *_, win in pool_configs(8, 60):
        x = ties(rng, shape)
        _, argmax = ref_maxpool(x, win)
        dy = rng.standard_normal(argmax.shape)
        events = list(trace.maxpool_backward(dy, argmax, shape))
        assert all(isinstance(e, RouteEvent) for e in events)
        want = np.zeros(shape)
        ref.maxpool2d_backward(dy, argmax, want)
        np.testing.assert_allclose(
            trace.replay(events, shape), want, rtol=0, atol=1e-14
        )
        assert_totals(events, shape)
        for e in events:
            assert e.dst[3] + e.dst[2] * shape[3] == e.index == argmax[e.src]
        dsts = [e.dst for e in events]
        shared += len(set(dsts)) < len(dsts)
    assert shared >= 5  # several configs had two windows pick one pixel


@pytest.mark.torch
def test_maxpool_backward_replay_equals_torch(torch):
    rng = np.random.default_rng(9)
    for shape, k, s, p, d, ceil, _ in pool_configs(9, 30):
        tx = torch.tensor(ties(rng, shape), requires_grad=True)
        ty, ti = torch.nn.functional.max_pool2d(
            tx, k, s, p, d, ceil_mode=ceil, return_indices=True
        )
        dy = rng.standard_normal(tuple(ty.shape))
        ty.backward(torch.tensor(dy))
        events = trace.maxpool_backward(dy, ti.numpy(), shape)
        np.testing.assert_allclose(
            trace.replay(events, shape), tx.grad.numpy(), rtol=1e-12, atol=1e-14
        )


# --------------------------------------------------------------------------
# average pooling
# --------------------------------------------------------------------------


def avg_options(rng):
    include = bool(rng.random() < 0.5)
    override = None if rng.random() < 0.7 else int(rng.integers(1, 6))
    return include, override


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_avgpool_backward_replay_equals_reference(dtype):
    rng = np.random.default_rng(10)
    for shape, k, s, p, _, ceil, win in pool_configs(10, 60, dilation=False):
        include, override = avg_options(rng)
        dy = rng.standard_normal((*shape[:2], *win.out)).astype(dtype)
        events = list(
            trace.avgpool_backward(
                dy, input_shape=shape, kernel_size=k, stride=s, padding=p,
                ceil_mode=ceil, count_include_pad=include,
                divisor_override=override,
            )
        )
        assert all(isinstance(e, SpreadEvent) for e in events)
        got = trace.replay(events, shape, dtype=dtype)
        kh, kw, sh, sw, ph, pw, _, _ = win.args
        args = (kh, kw, sh, sw, ph, pw, include, override or 0)
        for name in ("numpy", "numba"):
            want = np.zeros(shape, dtype=dtype)
            cg.backend.table(name)["avgpool2d_backward"](dy, *args, want)
            # same adds in the same order (col2im's): equal to the last bit
            np.testing.assert_array_equal(
                got, want, err_msg=f"{name} {(shape, k, s, p, ceil)}"
            )
        assert_totals(events, shape, dtype)


@pytest.mark.torch
def test_avgpool_backward_replay_equals_torch(torch):
    rng = np.random.default_rng(11)
    for shape, k, s, p, _, ceil, _ in pool_configs(11, 40, dilation=False):
        include, override = avg_options(rng)
        tx = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
        ty = torch.nn.functional.avg_pool2d(
            tx,
            k,
            s,
            p,
            ceil_mode=ceil,
            count_include_pad=include,
            divisor_override=override,
        )
        dy = rng.standard_normal(tuple(ty.shape))
        ty.backward(torch.tensor(dy))
        events = trace.avgpool_backward(dy, shape, k, s, p, ceil, include, override)
        np.testing.assert_allclose(
            trace.replay(events, shape), tx.grad.numpy(), rtol=1e-12, atol=1e-14
        )


def test_avgpool_divisor_counts_padding_only_when_asked():
    dy = np.array([[[[6.0, 6.0], [6.0, 6.0]]]])
    with_pad = list(trace.avgpool_backward(dy, (1, 1, 3, 3), 3, 2, 1))
    without = list(
        trace.avgpool_backward(dy, (1, 1, 3, 3), 3, 2, 1, count_include_pad=False)
    )
    assert {e.divisor for e in with_pad} == {9}
    assert {e.divisor for e in without} == {4}
    corner = [e for e in with_pad if e.src == (0, 0, 0, 0)]
    assert sum(e.padding for e in corner) == 5 and len(corner) == 9
    assert corner[-1].value == 6.0 / 9
    assert corner[-1].describe().startswith("dy[0,0,0,0] / 9 = 0.667 added to")


# --------------------------------------------------------------------------
# overlap counts, replay, validation, speed
# --------------------------------------------------------------------------


def test_overlap_count_is_col2im_of_ones():
    for shape, k, s, p, d, win in conv_configs(12, 40):
        ones = np.ones((1, 1, *win.k, *win.out))
        want = np.zeros((1, 1, *shape[2:]))
        ref.col2im(ones, *win.args, want)
        got = trace.overlap_count(shape[2:], k, stride=s, padding=p, dilation=d)
        assert got.dtype.kind == "i"
        np.testing.assert_array_equal(got, want[0, 0])


def test_overlap_count_checkerboard_when_stride_does_not_divide_kernel():
    uneven = trace.overlap_count((7, 7), 3, stride=2)
    assert set(np.unique(uneven)) == {1, 2, 4}
    assert (trace.overlap_count((8, 8), 3, stride=2)[7] == 0).all()  # no window reaches
    np.testing.assert_array_equal(uneven[2:5, 2:5], [[4, 2, 4], [2, 1, 2], [4, 2, 4]])
    even = trace.overlap_count((8, 8), 4, stride=2)
    assert (even[2:6, 2:6] == 4).all()  # interior is flat when 2 divides 4


@pytest.mark.parametrize(
    "call, rule",
    [
        (lambda: trace.im2col(np.zeros((1, 1, 3, 3)), 5), "does not fit"),
        (lambda: trace.im2col(np.zeros((1, 1, 3, 3)), 2, stride=0), "stride"),
        (lambda: trace.im2col(np.zeros((3, 3)), 2), "4-D"),
        (
            lambda: trace.col2im(np.zeros((1, 1, 2, 2, 3, 3)), (4, 4), 2, stride=2),
            "col.shape",
        ),
        (lambda: trace.maxpool_forward(np.zeros((1, 1, 4, 4)), 2, 2, 2), "half"),
        (
            lambda: trace.maxpool_backward(
                np.zeros((1, 1, 2, 2)), np.full((1, 1, 2, 2), 16), (1, 1, 4, 4)
            ),
            "argmax values",
        ),
        (
            lambda: trace.avgpool_backward(np.zeros((1, 1, 3, 3)), (1, 1, 4, 4), 2),
            "pooled shape",
        ),
        (
            lambda: trace.avgpool_backward(
                np.zeros((1, 1, 2, 2)), (1, 1, 4, 4), 2, divisor_override=0
            ),
            "divisor_override",
        ),
        (
            lambda: trace.conv_transpose_forward(
                np.zeros((1, 1, 3, 3)),
                np.zeros((1, 1, 3, 3)),
                stride=2,
                output_padding=2,
            ),
            "output_padding",
        ),
        (lambda: trace.overlap_count((4, 4), 3, dilation=0), "dilation"),
    ],
)
def test_bad_arguments_raise_at_call_time_with_the_rule(call, rule):
    with pytest.raises((ValueError, TypeError), match=rule):
        call()  # not lazily at the first next(): the generator is never started


def test_replay_rejects_a_shape_that_cannot_hold_the_events():
    events = list(trace.col2im(np.ones((1, 1, 2, 2, 2, 2)), (3, 3), 2))
    with pytest.raises(ValueError, match="does not hold"):
        trace.replay(events, (1, 1, 2, 2))
    with pytest.raises(TypeError, match="shape"):
        trace.replay(events, 3)


def test_events_are_frozen():
    e = next(iter(trace.im2col(np.ones((1, 1, 2, 2)), 2)))
    with pytest.raises(AttributeError):
        e.value = 2.0  # type: ignore[misc]
