"""Pool kernels over threads (kernels/pool_threads.py): the threaded call
equals the serial kernel and the NumPy twin bit for bit, small calls and
``numba.set_num_threads(1)`` stay serial."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import convgrad as cg
from convgrad import functional as F
from convgrad import kernels as K
from convgrad import reference as R
from convgrad.geometry import pool_window
from convgrad.kernels import pool_threads as PT

DTYPES = [np.float32, np.float64]
TWO = numba.config.NUMBA_NUM_THREADS >= 2
needs_two = pytest.mark.skipif(not TWO, reason="numba has one thread")


@pytest.fixture
def split_everything(monkeypatch):
    """Every call is split over 2 threads, in chunks of about one plane."""
    monkeypatch.setattr(PT, "MIN_ELEMENTS", 0)
    monkeypatch.setattr(PT, "CHUNK_ELEMENTS", 1)
    numba.set_num_threads(2 if TWO else 1)
    yield
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@pytest.fixture
def splits(monkeypatch):
    """The chunk count of every split call, in order."""
    seen = []
    real = PT.over_planes

    def spy(fn, args, threads, chunks):
        seen.append(chunks)
        return real(fn, args, threads, chunks)

    monkeypatch.setattr(PT, "over_planes", spy)
    return seen


def assert_bitwise(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    uint = np.dtype(f"u{got.dtype.itemsize}")
    assert (got.view(uint) == want.view(uint)).all()


def _ties(rng, shape):
    return rng.integers(-2, 3, shape).astype(np.float64)


def _negative(rng, shape):
    return -np.abs(rng.standard_normal(shape)) - 0.5


def _normal(rng, shape):
    return rng.standard_normal(shape)


# x shape (odd batches, N=1, one channel), kernel, stride, padding, dilation
CASES = [
    ((1, 3, 9, 7), 3, 2, 1, 1),
    ((3, 5, 8, 8), 2, 2, 0, 1),
    ((5, 1, 11, 6), (3, 2), (2, 1), (1, 1), (1, 1)),
    ((7, 2, 9, 9), 3, 1, 1, 2),
    ((1, 1, 6, 6), 3, 2, 1, 1),
]
MAKERS = [_ties, _negative, _normal]


def _run_all(name, args, out_index):
    """The op's kernel three ways (threaded, serial, NumPy twin) on copies
    of ``args``; the outputs (``args[i]`` for i in ``out_index``)."""
    results = []
    for fn in (getattr(K, name), getattr(K, name).serial, getattr(R, name)):
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        fn(*mine)
        results.append([mine[i] for i in out_index])
    return results


@pytest.mark.usefixtures("split_everything")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("case", CASES)
def test_maxpool_threaded_is_serial_is_twin(case, make, dtype, rng, splits):
    shape, k, s, p, d = case
    win = pool_window(shape, k, s, p, d, False)
    x = make(rng, shape).astype(dtype)
    y = np.empty((*shape[:2], *win.out), dtype)
    argmax = np.empty(y.shape, np.int64)
    threaded, serial, twin = _run_all(
        "maxpool2d_forward", (x, *win.args, y, argmax), (-2, -1)
    )
    for got, want, other in zip(threaded, serial, twin, strict=True):
        assert_bitwise(got, want)
        assert_bitwise(got, other)
    R.maxpool2d_forward(x, *win.args, y, argmax)
    dy = rng.standard_normal(y.shape).astype(dtype)
    threaded, serial, twin = _run_all(
        "maxpool2d_backward", (dy, argmax, np.zeros_like(x)), (-1,)
    )
    assert_bitwise(threaded[0], serial[0])
    assert_bitwise(threaded[0], twin[0])
    assert splits == _expected_splits(shape, 2)


def _expected_splits(shape, calls):
    """One plane a chunk, over two threads: none where one plane or one
    thread leaves nothing to split."""
    planes = shape[0] * shape[1]
    return [planes] * calls if TWO and planes > 1 else []


@pytest.mark.usefixtures("split_everything")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("include_pad, override", [(True, 0), (False, 0), (True, 3)])
@pytest.mark.parametrize("case", [c for c in CASES if c[4] == 1])
def test_avgpool_threaded_is_serial_is_twin(
    case, include_pad, override, make, dtype, rng, splits
):
    shape, k, s, p, _ = case
    win = pool_window(shape, k, s, p, 1, False)
    avg = (*win.args[:6], include_pad, override)
    x = make(rng, shape).astype(dtype)
    y = np.empty((*shape[:2], *win.out), dtype)
    threaded, serial, twin = _run_all("avgpool2d_forward", (x, *avg, y), (-1,))
    assert_bitwise(threaded[0], serial[0])
    assert_bitwise(threaded[0], twin[0])
    dy = rng.standard_normal(y.shape).astype(dtype)
    threaded, serial, twin = _run_all(
        "avgpool2d_backward", (dy, *avg, np.zeros_like(x)), (-1,)
    )
    assert_bitwise(threaded[0], serial[0])
    assert_bitwise(threaded[0], twin[0])
    assert splits == _expected_splits(shape, 2)


def _large_max_call(dtype=np.float32):
    side = int(np.ceil(np.sqrt(PT.MIN_ELEMENTS / 6)))
    shape = (3, 2, side, side)  # just over MIN_ELEMENTS
    assert np.prod(shape) >= PT.MIN_ELEMENTS
    x = np.random.default_rng(0).integers(-3, 4, shape).astype(dtype)
    win = pool_window(shape, 3, 2, 1, 1, False)
    y = np.empty((*shape[:2], *win.out), dtype)
    return x, win, y, np.empty(y.shape, np.int64)


@needs_two
def test_a_large_call_splits_and_equals_the_twin(splits):
    x, win, y, argmax = _large_max_call()
    K.maxpool2d_forward(x, *win.args, y, argmax)
    assert len(splits) == 1
    want_y, want_a = np.empty_like(y), np.empty_like(argmax)
    R.maxpool2d_forward(x, *win.args, want_y, want_a)
    assert_bitwise(y, want_y)
    assert_bitwise(argmax, want_a)


def test_one_numba_thread_keeps_it_serial(splits, monkeypatch):
    x, win, y, argmax = _large_max_call()

    def no_prange(*args):
        raise AssertionError("the prange build ran")

    monkeypatch.setattr(K.maxpool2d_forward.switch, "parallel", no_prange)
    numba.set_num_threads(1)
    try:
        K.maxpool2d_forward(x, *win.args, y, argmax)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert splits == []


def test_small_calls_stay_serial(splits):
    x = np.ones((2, 3, 8, 8), np.float32)
    with cg.use_backend("numba"):
        t = cg.Tensor(x, requires_grad=True)
        F.max_pool2d(t, 2).sum().backward()
        F.avg_pool2d(t, 3, 2, 1).sum().backward()
    assert splits == []


@pytest.mark.usefixtures("split_everything")
@pytest.mark.parametrize("op", ["max", "avg"])
def test_op_level_threaded_equals_numpy_backend(op, rng):
    x = rng.standard_normal((3, 4, 9, 9)).astype(np.float32)
    x[:, :, ::2] = 0.5  # ties
    dy = rng.standard_normal((3, 4, 5, 5)).astype(np.float32)
    out = {}
    for backend in ("numba", "numpy"):
        with cg.use_backend(backend):
            t = cg.Tensor(x, requires_grad=True)
            if op == "max":
                y = F.max_pool2d(t, 3, 2, 1)
            else:
                y = F.avg_pool2d(t, 3, 2, 1, count_include_pad=False)
            y.backward(dy)
            out[backend] = (y.numpy(), np.asarray(t.grad))
    for a, b in zip(out["numba"], out["numpy"], strict=True):
        assert_bitwise(a, b)


def test_every_plane_once_and_errors_reach_the_caller():
    out = np.zeros((3, 7, 2, 2))

    def add_one(a):
        a += 1

    PT.over_planes(add_one, (out,), 2, 21)
    np.testing.assert_array_equal(out, 1)

    def fails(a):
        raise IndexError("bad index")

    with pytest.raises(IndexError, match="bad index"):
        PT.over_planes(fails, (out,), 2, 5)


def test_refused_arrays_still_raise_the_kernels_error(monkeypatch):
    monkeypatch.setattr(PT, "MIN_ELEMENTS", 0)
    x = np.zeros((1, 2, 4, 4), np.float16)
    with pytest.raises(TypeError, match="maxpool2d_forward: argument 0"):
        K.maxpool2d_forward(x, 2, 2, 2, 2, 0, 0, 1, 1,
                            np.zeros((1, 2, 2, 2), np.float16),
                            np.zeros((1, 2, 2, 2), np.int64))


def test_the_builds_are_still_reachable():
    for name in ("maxpool2d_forward", "maxpool2d_backward",
                 "avgpool2d_forward", "avgpool2d_backward"):
        kernel = getattr(K, name)
        assert kernel.serial is kernel.switch.serial
        assert kernel.parallel is kernel.switch.parallel
        assert kernel.__name__ == name
