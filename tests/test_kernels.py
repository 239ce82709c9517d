"""The Numba kernels against their NumPy twins, torch, and each other.

Each kernel is compiled twice (serial and parallel, picked by size at run
time); both builds are tested directly. Runs under ``NUMBA_DISABLE_JIT=1``
too, with the kernels as plain Python.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import convgrad as cg
from convgrad import functional as F
from convgrad import kernels as K
from convgrad import reference as R
from convgrad.geometry import Window, pool_window, window

DTYPES = [np.float32, np.float64]
BUILDS = ["serial", "parallel"]


def tol(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": 2e-5, "atol": 2e-5}
    return {"rtol": 1e-12, "atol": 1e-12}


def build(name: str, which: str):
    """One compiled build ('serial' or 'parallel') of kernel ``name``."""
    return getattr(getattr(K, name), which)


# (input shape, kernel_size, stride, padding, dilation): odd sizes, stride
# smaller than the kernel (overlaps), padding, dilation, non-square
CONV_WINDOWS = [
    ((2, 3, 7, 9), (3, 2), (2, 1), (1, 0), (1, 2)),
    ((1, 2, 5, 5), 3, 1, 2, 1),
    ((2, 2, 6, 5), 2, 3, 0, 1),
    ((1, 3, 9, 8), (3, 3), (1, 2), (2, 1), (2, 2)),
    ((3, 1, 4, 4), 1, 1, 0, 1),
]


def _conv_win(case) -> tuple[tuple[int, ...], Window]:
    shape, k, s, p, d = case
    return shape, window(shape[2:], k, s, p, d)


@pytest.mark.parametrize("which", BUILDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CONV_WINDOWS)
def test_im2col_matches_reference(case, dtype, which, rng):
    shape, win = _conv_win(case)
    x = rng.standard_normal(shape).astype(dtype)
    col = np.full((*shape[:2], *win.k, *win.out), np.nan, dtype)  # every cell set
    want = np.empty_like(col)
    build("im2col", which)(x, *win.args, col)
    R.im2col(x, *win.args, want)
    np.testing.assert_array_equal(col, want)


@pytest.mark.parametrize("which", BUILDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CONV_WINDOWS)
def test_col2im_matches_reference_and_adds(case, dtype, which, rng):
    shape, win = _conv_win(case)
    col = rng.standard_normal((*shape[:2], *win.k, *win.out)).astype(dtype)
    start = rng.standard_normal(shape).astype(dtype)  # col2im adds, not sets
    got, want = start.copy(), start.copy()
    build("col2im", which)(col, *win.args, got)
    R.col2im(col, *win.args, want)
    np.testing.assert_array_equal(got, want)  # same adds, same order


@pytest.mark.parametrize("case", CONV_WINDOWS)
def test_the_window_loops_compute_what_the_tap_loops_do(case, rng):
    """Lesson 2 times ``im2col`` (a loop over taps, every window sliced at
    once) against ``im2col_by_window`` (four nested loops): the same
    columns, and the same col2im, which adds onto what ``x`` holds."""
    shape, win = _conv_win(case)
    x = rng.standard_normal(shape)
    taps = np.full((*shape[:2], *win.k, *win.out), np.nan)
    windows = taps.copy()  # every entry must be written
    R.im2col(x, *win.args, taps)
    R.im2col_by_window(x, *win.args, windows)
    np.testing.assert_array_equal(windows, taps)
    c = rng.standard_normal(taps.shape)
    start = rng.standard_normal(shape)
    by_tap, by_window = start.copy(), start.copy()
    R.col2im(c, *win.args, by_tap)
    R.col2im_by_window(c, *win.args, by_window)
    # the same adds in another order: equal up to rounding
    np.testing.assert_allclose(by_window, by_tap, rtol=1e-12, atol=1e-12)
    assert not np.allclose(by_tap, start)  # something was added


@pytest.mark.parametrize("case", CONV_WINDOWS)
def test_col2im_is_the_adjoint_of_im2col(case, rng):
    # <im2col(x), c> == <x, col2im(c)> for every x, c
    shape, win = _conv_win(case)
    x = rng.standard_normal(shape)
    c = rng.standard_normal((*shape[:2], *win.k, *win.out))
    col = np.empty_like(c)
    K.im2col(x, *win.args, col)
    back = np.zeros_like(x)
    K.col2im(c, *win.args, back)
    assert np.vdot(col, c) == pytest.approx(np.vdot(x, back), rel=1e-12)


# (input shape, kernel_size, stride, padding, dilation, ceil_mode)
POOL_WINDOWS = [
    ((2, 3, 7, 9), (3, 2), (2, 1), (1, 1), (1, 2), True),
    ((2, 2, 8, 8), 2, 2, 0, 1, False),
    ((1, 3, 9, 7), 3, 2, 1, 1, True),
    ((2, 2, 6, 6), 3, 1, 1, 1, False),
    ((1, 2, 10, 11), 3, 2, 1, 2, False),
    ((1, 1, 5, 5), 2, 3, 1, 1, True),
    # stride 2 on even rows (the pools' de-interleaved path), and a stride
    # past the width (one slot a phase)
    ((1, 2, 8, 10), 3, 2, 1, 1, False),
    ((1, 1, 6, 4), 2, 5, 1, 1, True),
]


def _pool_input(shape, dtype, rng, *, special: bool) -> np.ndarray:
    # small integers make ties; NaN and whole windows of -inf test the rule
    x = rng.integers(-3, 3, shape).astype(dtype)
    if special:
        x[0, 0, 1, 1] = np.nan
        x[-1, -1, :3, :3] = -np.inf
    return x


def _maxpool(fn, x, win):
    y = np.empty((*x.shape[:2], *win.out), x.dtype)
    argmax = np.full(y.shape, -7, np.int64)
    fn(x, *win.args, y, argmax)
    return y, argmax


@pytest.mark.parametrize("which", BUILDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", POOL_WINDOWS)
def test_maxpool_matches_reference(case, dtype, which, rng):
    shape, k, s, p, d, ceil = case
    win = pool_window(shape, k, s, p, d, ceil)
    x = _pool_input(shape, dtype, rng, special=True)
    y, argmax = _maxpool(build("maxpool2d_forward", which), x, win)
    ry, rargmax = _maxpool(R.maxpool2d_forward, x, win)
    np.testing.assert_array_equal(y, ry)
    np.testing.assert_array_equal(argmax, rargmax)

    dy = rng.standard_normal(y.shape).astype(dtype)
    dx, rdx = np.zeros_like(x), np.zeros_like(x)
    build("maxpool2d_backward", which)(dy, argmax, dx)
    R.maxpool2d_backward(dy, argmax, rdx)
    np.testing.assert_array_equal(dx, rdx)


@pytest.mark.torch
@pytest.mark.parametrize("which", BUILDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", POOL_WINDOWS)
def test_maxpool_matches_torch(case, dtype, which, rng, torch):
    shape, k, s, p, d, ceil = case
    win = pool_window(shape, k, s, p, d, ceil)
    x = _pool_input(shape, dtype, rng, special=True)
    y, argmax = _maxpool(build("maxpool2d_forward", which), x, win)
    tx = torch.tensor(x, requires_grad=True)
    ty, ti = torch.nn.functional.max_pool2d(
        tx, k, s, p, d, ceil_mode=ceil, return_indices=True
    )
    np.testing.assert_array_equal(y, ty.detach().numpy())
    np.testing.assert_array_equal(argmax, ti.numpy())

    dy = rng.standard_normal(y.shape).astype(dtype)
    ty.backward(torch.tensor(dy))
    dx = np.zeros_like(x)
    build("maxpool2d_backward", which)(dy, argmax, dx)
    np.testing.assert_allclose(dx, tx.grad.numpy(), **tol(dtype))

    out = np.zeros_like(x)
    build("maxunpool2d", which)(y, argmax, out)
    want = np.zeros((*shape[:2], shape[2] * shape[3]), dtype)
    flat = (*shape[:2], -1)
    np.put_along_axis(want, argmax.reshape(flat), y.reshape(flat), 2)
    np.testing.assert_array_equal(out, want.reshape(shape))


def test_maxpool_window_of_minus_inf_points_inside_the_input():
    # padding is -inf too: the index must still name a real pixel (the first)
    x = np.full((1, 1, 4, 4), -np.inf)
    win = pool_window(x.shape, 3, 2, 1, 1, False)
    y, argmax = _maxpool(K.maxpool2d_forward.serial, x, win)
    assert np.all(np.isneginf(y))
    np.testing.assert_array_equal(argmax[0, 0], [[0, 1], [4, 5]])


def test_maxpool_backward_adds_where_windows_share_an_argmax():
    x = np.zeros((1, 1, 3, 3))
    x[0, 0, 1, 1] = 5.0  # the max of all four overlapping 2x2 windows
    win = pool_window(x.shape, 2, 1, 0, 1, False)
    _, argmax = _maxpool(K.maxpool2d_forward.serial, x, win)
    dy = np.array([[[[1.0, 2.0], [3.0, 4.5]]]])
    for which in BUILDS:
        dx = np.zeros_like(x)
        build("maxpool2d_backward", which)(dy, argmax, dx)
        assert dx[0, 0, 1, 1] == 10.5
        assert np.count_nonzero(dx) == 1


@pytest.mark.parametrize("which", BUILDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("divisor_override", [0, 3])
@pytest.mark.parametrize("case", [c for c in POOL_WINDOWS if c[4] == 1])
def test_avgpool_matches_reference(
    case, divisor_override, count_include_pad, dtype, which, rng
):
    shape, k, s, p, _, ceil = case
    win = pool_window(shape, k, s, p, 1, ceil)
    args = (*win.args[:6], count_include_pad, divisor_override)
    x = (rng.standard_normal(shape) - 0.5).astype(dtype)  # negatives by the pads
    y = np.full((*shape[:2], *win.out), np.nan, dtype)
    ry = np.empty_like(y)
    build("avgpool2d_forward", which)(x, *args, y)
    R.avgpool2d_forward(x, *args, ry)
    np.testing.assert_array_equal(y, ry)  # taps in order, sums in x's dtype

    dy = rng.standard_normal(y.shape).astype(dtype)
    # the spread fills dx: old contents (NaN here) are never read
    dx, rdx = np.full_like(x, np.nan), np.full_like(x, np.nan)
    build("avgpool2d_backward", which)(dy, *args, dx)
    R.avgpool2d_backward(dy, *args, rdx)
    np.testing.assert_array_equal(dx, rdx)  # col2im's order in both
    assert not np.isnan(dx).any()
    into_zeros = np.zeros_like(x)
    build("avgpool2d_backward", which)(dy, *args, into_zeros)
    np.testing.assert_array_equal(dx, into_zeros)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("divisor_override", [0, 5])
def test_avgpool_matches_torch(divisor_override, count_include_pad, dtype, rng, torch):
    shape, k, s, p = (2, 3, 9, 7), (3, 2), (2, 1), (1, 1)
    win = pool_window(shape, k, s, p, 1, True)
    args = (*win.args[:6], count_include_pad, divisor_override)
    x = rng.standard_normal(shape).astype(dtype)
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.nn.functional.avg_pool2d(
        tx, k, s, p, True, count_include_pad, divisor_override or None
    )
    y = np.empty(tuple(ty.shape), dtype)
    K.avgpool2d_forward(x, *args, y)
    np.testing.assert_allclose(y, ty.detach().numpy(), **tol(dtype))
    dy = rng.standard_normal(y.shape).astype(dtype)
    ty.backward(torch.tensor(dy))
    dx = np.zeros_like(x)
    K.avgpool2d_backward(dy, *args, dx)
    np.testing.assert_allclose(dx, tx.grad.numpy(), **tol(dtype))


@pytest.mark.parametrize("which", BUILDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_maxunpool_matches_reference(dtype, which, rng):
    shape = (2, 3, 7, 6)
    win = pool_window(shape, 3, 2, 1, 1, False)
    x = rng.standard_normal(shape).astype(dtype)
    y, argmax = _maxpool(K.maxpool2d_forward, x, win)
    out, want = np.zeros_like(x), np.zeros_like(x)
    build("maxunpool2d", which)(y, argmax, out)
    R.maxunpool2d(y, argmax, want)
    np.testing.assert_array_equal(out, want)


def test_size_switch_runs_the_parallel_build_on_large_inputs(monkeypatch):
    from convgrad.kernels import _jit

    calls = []
    switch = K.maxunpool2d
    monkeypatch.setattr(switch, "serial", lambda *a: calls.append("serial"))
    monkeypatch.setattr(switch, "parallel", lambda *a: calls.append("parallel"))
    small = np.zeros(_jit.PARALLEL_MIN_SIZE - 1)
    large = np.zeros(_jit.PARALLEL_MIN_SIZE)
    switch(small, None, None)
    switch(large, None, None)
    assert calls == ["serial", "parallel"]


@pytest.mark.parametrize(
    "bad, rule",
    [
        (np.zeros((1, 1, 4, 4), np.float16), "float16"),
        (np.zeros((1, 1, 4, 4), np.int32), "int32"),
        (np.asfortranarray(np.zeros((2, 2, 4, 4))), "non-contiguous float64"),
    ],
)
def test_kernels_refuse_arrays_they_are_not_compiled_for(bad, rule):
    col = np.zeros((1, 1, 1, 1, 4, 4))
    with pytest.raises(TypeError, match=f"col2im: argument 9 .*got .*{rule}"):
        K.col2im(col, 1, 1, 1, 1, 0, 0, 1, 1, bad)


# --------------------------------------------------------------------------
# the whole op path, on both backends
# --------------------------------------------------------------------------


def _run(backend, fn, arrays, seed=0):
    """Forward + backward of ``fn`` on ``backend``: output and input grads."""
    with cg.use_backend(backend):
        ts = [cg.Tensor(a.copy(), requires_grad=True) for a in arrays]
        y = fn(*ts)
        dy = np.random.default_rng(seed).standard_normal(y.shape).astype(y.dtype)
        y.backward(dy)
    return [y.data] + [t.grad for t in ts]


OPS = {
    "conv2d": (
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2),
                                 dilation=(1, 2), groups=2),
        [(2, 4, 9, 8), (6, 2, 3, 2), (6,)],
    ),
    "conv2d_same": (
        lambda x, w: F.conv2d(x, w, padding="same"),
        [(2, 3, 7, 7), (4, 3, 2, 4)],
    ),
    "conv_transpose2d": (
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                           output_padding=1, groups=2, dilation=1),
        [(2, 4, 5, 6), (4, 3, 3, 3), (6,)],
    ),
    "unfold": (lambda x: F.unfold(x, (3, 2), 2, 1, (2, 1)), [(2, 3, 8, 7)]),
    "fold": (
        lambda c: F.fold(c, (6, 7), (3, 2), 1, (1, 0), (2, 1)),
        [(2, 3 * 6, 3 * 6)],
    ),
    "max_pool2d": (
        lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
        [(2, 3, 9, 8)],
    ),
    "avg_pool2d": (
        lambda x: F.avg_pool2d(x, (3, 2), (2, 1), 1, ceil_mode=True,
                               count_include_pad=False),
        [(2, 3, 9, 8)],
    ),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_op_agrees_on_both_backends(op, dtype, rng):
    fn, shapes = OPS[op]
    if not hasattr(F, op.removesuffix("_same")):
        pytest.skip(f"functional.{op} is not written yet")
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    numba_out = _run("numba", fn, arrays)
    numpy_out = _run("numpy", fn, arrays)
    for got, want in zip(numba_out, numpy_out, strict=True):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, **tol(dtype))


def test_numba_backend_really_runs_the_compiled_kernels(monkeypatch, rng):
    # guards the test above against comparing the reference with itself
    from convgrad import backend

    seen = []
    real = backend.table("numba")["col2im"]

    def spy(*args):
        seen.append(True)
        return real(*args)

    monkeypatch.setitem(backend.get("numba").kernels, "col2im", spy)
    _run("numba", OPS["fold"][0], [rng.standard_normal(OPS["fold"][1][0])])
    assert seen


# --------------------------------------------------------------------------
# bounds checking, in a fresh process, with the kernel cache every run uses
# (NUMBA_BOUNDSCHECK is hashed into the cache's file names: the checked
# builds are kept apart from the normal ones, and the script sees the check
# is live). A fresh cache compiled every kernel, both builds, on every run
# (42 s in CI, issue 43); now only a run after a kernel changed does.
# --------------------------------------------------------------------------

_BOUNDSCHECK_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from numba.core import config
    assert config.BOUNDSCHECK == 1, config.BOUNDSCHECK
    from convgrad import kernels as K, reference as R
    from convgrad.geometry import pool_window, window

    rng = np.random.default_rng(0)
    for build in ("serial", "parallel"):
        get = lambda name: getattr(getattr(K, name), build)
        for shape, k, s, p, d, ceil in [
            ((2, 3, 7, 9), (3, 2), (2, 1), (1, 1), (1, 2), True),
            ((1, 2, 5, 5), 2, 3, 1, 1, True),
            ((1, 1, 6, 5), 3, 1, 1, 2, False),
        ]:
            x = rng.standard_normal(shape)
            win = window(shape[2:], k, s, p, d)
            col = rng.standard_normal((*shape[:2], *win.k, *win.out))
            get("im2col")(x, *win.args, np.empty_like(col))
            got, want = np.zeros_like(x), np.zeros_like(x)
            get("col2im")(col, *win.args, got)
            R.col2im(col, *win.args, want)
            assert np.allclose(got, want)

            pw = pool_window(shape, k, s, p, d, ceil)
            y = np.empty((*shape[:2], *pw.out))
            am = np.empty(y.shape, np.int64)
            get("maxpool2d_forward")(x, *pw.args, y, am)
            get("maxpool2d_backward")(y, am, np.zeros_like(x))
            get("maxunpool2d")(y, am, np.zeros_like(x))
            if d == 1:
                a = (*pw.args[:6], False, 0)
                get("avgpool2d_forward")(x, *a, y)
                get("avgpool2d_backward")(y, *a, np.zeros_like(x))

        # the check is live: an index past the plane must raise
        bad = np.full((1, 1, 1, 1), 99, np.int64)
        try:
            get("maxpool2d_backward")(np.ones((1, 1, 1, 1)), bad,
                                      np.zeros((1, 1, 3, 3)))
        except (IndexError, SystemError) as e:
            # a parallel loop re-raises the IndexError as its cause
            assert isinstance(e, IndexError) or isinstance(e.__cause__, IndexError)
        else:
            raise SystemExit("boundscheck did not catch an out-of-range index")
    print("BOUNDSCHECK OK")
    """
)


def test_scatter_kernels_stay_in_bounds_under_numba_boundscheck():
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    env["NUMBA_BOUNDSCHECK"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _BOUNDSCHECK_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BOUNDSCHECK OK" in done.stdout
