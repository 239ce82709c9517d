"""The Numba backend's fast conv path (kernels/conv_fast.py) against the
textbook im2col path (the NumPy backend) and its scratch-space rules.

Small shapes: these also run with ``NUMBA_DISABLE_JIT=1``. The oracle suite
(test_conv.py and friends) runs the fast path against torch as well, since
the Numba backend picks it for every conv.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, backend
from convgrad.kernels import SETTINGS, conv_fast, workspace


@pytest.fixture(autouse=True)
def fast_path_always(monkeypatch):
    """Tiny convs keep the textbook path (``settings.min_work``); not here."""
    monkeypatch.setattr(SETTINGS, "min_work", 0)


CASES = [  # x shape, w shape, kwargs
    ((3, 4, 6, 7), (6, 4, 3, 3), dict(padding=1)),
    ((2, 4, 7, 6), (6, 2, 3, 3), dict(stride=2, padding=1, groups=2)),
    ((2, 4, 9, 9), (4, 1, 3, 3), dict(padding=2, dilation=2, groups=4)),
    ((2, 3, 5, 6), (2, 3, 2, 3), dict(padding="same")),
    ((1, 2, 4, 4), (3, 2, 1, 1), dict()),
    ((0, 2, 4, 4), (3, 2, 3, 3), dict(padding=1)),
]
T_CASES = [  # x shape, w shape, kwargs
    ((2, 4, 4, 5), (4, 3, 3, 3), dict(padding=1)),
    ((2, 4, 3, 3), (4, 1, 3, 3), dict(stride=2, output_padding=1, groups=2)),
    ((1, 2, 4, 4), (2, 2, 3, 2), dict(stride=(2, 1), padding=1, dilation=2)),
]


def _grads(op, x, w, b, dy, name, dtype):
    with cg.use_backend(name):
        ts = [cg.Tensor(a.astype(dtype), requires_grad=True) for a in (x, w, b)]
        y = op(*ts)
        y.backward(dy.astype(dtype))
    return [y.data] + [t.grad for t in ts]


def _agree(op, x_shape, w_shape, c_out, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    b = rng.standard_normal(c_out)
    with cg.no_grad():
        shape = op(cg.Tensor(x), cg.Tensor(w), cg.Tensor(b)).shape
    dy = rng.standard_normal(shape)
    fast = _grads(op, x, w, b, dy, "numba", dtype)
    textbook = _grads(op, x, w, b, dy, "numpy", dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12)
    for got, want, what in zip(fast, textbook, ("y", "dx", "dw", "db"), strict=True):
        assert got.dtype == want.dtype == np.dtype(dtype), what
        np.testing.assert_allclose(got, want, err_msg=what, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("x_shape, w_shape, kw", CASES, ids=str)
def test_conv2d_fast_path_agrees_with_the_textbook_path(x_shape, w_shape, kw, dtype):
    def op(x, w, b):
        return F.conv2d(x, w, b, **kw)

    _agree(op, x_shape, w_shape, w_shape[0], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("x_shape, w_shape, kw", T_CASES, ids=str)
def test_conv_transpose2d_fast_path_agrees_with_the_textbook_path(
    x_shape, w_shape, kw, dtype
):
    def op(x, w, b):
        return F.conv_transpose2d(x, w, b, **kw)

    g = kw.get("groups", 1)
    _agree(op, x_shape, w_shape, w_shape[1] * g, dtype)


def test_the_numba_backend_runs_the_fast_path_and_numpy_the_textbook_one():
    x = cg.Tensor(np.ones((1, 1, 3, 3)), requires_grad=True)
    w = cg.Tensor(np.ones((1, 1, 2, 2)), requires_grad=True)
    for name, fast in (("numba", True), ("numpy", False)):
        with cg.use_backend(name):
            assert (backend.forward("conv2d", 4) is not None) is fast
            y = F.conv2d(x, w)
        # the same Function either way (grad_fn reads the same) ...
        assert y.node.fn is cg.ops.conv.Conv2d
        # ... but the fast path saves x, not col
        assert ("col" in vars(y.node.ctx)) is not fast
        assert ("x" in vars(y.node.ctx)) is fast
    with pytest.raises(ValueError, match="op must be one of"):
        backend.forward("conv3d", 1)


def test_small_convs_keep_the_textbook_path(monkeypatch):
    monkeypatch.setattr(SETTINGS, "min_work", 1000)
    with cg.use_backend("numba"):
        assert backend.forward("conv2d", 999) is None
        assert backend.forward("conv2d", 1000) is not None


def test_blocks_cover_the_batch_whatever_the_block_size(monkeypatch):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((5, 2, 4, 4)), rng.standard_normal((3, 2, 3, 3))
    dy = rng.standard_normal((5, 3, 4, 4))
    args = (3, 3, 1, 1, 1, 1, 1, 1)
    want = conv_fast.conv2d_forward(x, w, args, 1, (4, 4))
    want_dx, want_dw = conv_fast.conv2d_backward(x, w, dy, args, 1)
    for size in (1, 2 * 16 * 18 * 8, 3 * 16 * 18 * 8):  # 1, 2 and 3 images
        monkeypatch.setattr(conv_fast, "BLOCK_BYTES", size)
        np.testing.assert_allclose(
            conv_fast.conv2d_forward(x, w, args, 1, (4, 4)), want, rtol=1e-12)
        dx, dw = conv_fast.conv2d_backward(x, w, dy, args, 1)
        np.testing.assert_allclose(dx, want_dx, rtol=1e-12)
        np.testing.assert_allclose(dw, want_dw, rtol=1e-12)
    assert conv_fast.block_size(5, 2 * 16 * 18 * 8) == 1  # at least one image


def test_only_the_gradients_asked_for_are_computed():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((2, 2, 4, 4)), rng.standard_normal((3, 2, 3, 3))
    dy = rng.standard_normal((2, 3, 2, 2))
    args = (3, 3, 1, 1, 0, 0, 1, 1)
    dx, dw = conv_fast.conv2d_backward(x, w, dy, args, 1, True, False)
    assert dw is None and dx.shape == x.shape
    dx, dw = conv_fast.conv2d_backward(x, w, dy, args, 1, False, True)
    assert dx is None and dw.shape == w.shape


def test_scratch_space_is_reused_bounded_and_released():
    workspace.release()
    assert workspace.nbytes() == 0
    rng = np.random.default_rng(5)
    x = cg.Tensor(rng.standard_normal((4, 2, 6, 6)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((3, 2, 3, 3)), requires_grad=True)
    with cg.use_backend("numba"):
        F.conv2d(x, w, padding=1).sum().backward()
        held = workspace.nbytes()
        assert 0 < held <= 3 * conv_fast.BLOCK_BYTES  # a block, not a batch
        a = workspace.get("rows", (2, 3), np.float64)
        F.conv2d(x, w, padding=1).sum().backward()  # same sizes: no new buffers
        assert workspace.nbytes() == held
        b = workspace.get("rows", (3, 2), np.float64)
        assert np.shares_memory(a, b)
        assert workspace.get("rows", (2,), np.float32).dtype == np.float32
    workspace.release()
    assert workspace.nbytes() == 0
    c = workspace.get("rows", (2, 3), np.float64)
    assert not np.shares_memory(a, c)
    workspace.release()


def test_each_thread_has_its_own_scratch_space():
    mine = workspace.get("rows", (8,), np.float64)
    theirs = []
    thread = threading.Thread(
        target=lambda: theirs.append(workspace.get("rows", (8,), np.float64))
    )
    thread.start()
    thread.join()
    assert not np.shares_memory(mine, theirs[0])
    workspace.release()


def test_threads_over_images_agree_with_one_thread(monkeypatch):
    pytest.importorskip("threadpoolctl")
    numba = pytest.importorskip("numba")
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((5, 4, 5, 5)), rng.standard_normal((6, 2, 3, 3))
    dy = rng.standard_normal((5, 6, 5, 5))
    args = (3, 3, 1, 1, 1, 1, 1, 1)
    one = (conv_fast.conv2d_forward(x, w, args, 2, (5, 5)),
           *conv_fast.conv2d_backward(x, w, dy, args, 2),
           conv_fast.conv_transpose2d_forward(dy, w, args, 2, (5, 5)),
           *conv_fast.conv_transpose2d_backward(dy, w, x, args, 2))
    monkeypatch.setattr(conv_fast, "THREAD_MIN_WORK", 0)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    assert conv_fast.threads_for(5, 1) == 2
    two = (conv_fast.conv2d_forward(x, w, args, 2, (5, 5)),
           *conv_fast.conv2d_backward(x, w, dy, args, 2),
           conv_fast.conv_transpose2d_forward(dy, w, args, 2, (5, 5)),
           *conv_fast.conv_transpose2d_backward(dy, w, x, args, 2))
    for a, b in zip(one, two, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert conv_fast.threads_for(1, 1 << 40) == 1  # one image: one thread
