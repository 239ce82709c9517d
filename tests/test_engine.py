"""The engine (issue 27): accumulation that never adds into an array
anyone else can see, the hooks a backend installs, and the registration
that gives Tensor its methods.

Every gradient here is checked against torch, which accumulates the same
way, with random upstream gradients; each case also checks that the
arrays the walk was handed (the caller's seed, what a hook kept, what a
rule saved) still hold what they held.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest

import convgrad as cg
from convgrad import engine, function


class PassOn(cg.Function):
    """The identity, whose backward hands back its upstream gradient
    itself: the same array goes on to the next rule, or into a leaf."""

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, dy):
        return dy

    @staticmethod
    def vjp(ctx, inputs, dy):
        return dy


class KeepAndShare(cg.Function):
    """``a + b``; its backward gives both inputs one array and keeps it in
    its context."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, dy):
        g = dy * 1.0
        ctx.kept = g
        return g, g


def _leaf(rng, torch, shape=(4,)):
    a = rng.standard_normal(shape)
    return (cg.Tensor(a, requires_grad=True),
            torch.tensor(a, requires_grad=True))


def test_a_passed_on_gradient_used_twice_is_summed_out_of_place(rng, torch):
    x, tx = _leaf(rng, torch)
    for _ in range(2):  # the second pass adds into .grad
        u = rng.standard_normal(4)
        before = u.copy()
        (PassOn.apply(x) + PassOn.apply(x)).backward(u)
        (tx.clone() + tx.clone()).backward(torch.tensor(u))
        np.testing.assert_array_equal(u, before)  # the caller's seed
        assert not np.shares_memory(x.grad, u)
        np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_x_plus_x_leaves_the_seed_alone(rng, torch):
    x, tx = _leaf(rng, torch)
    u = rng.standard_normal(4)
    before = u.copy()
    (x + x).backward(u)
    (tx + tx).backward(torch.tensor(u))
    np.testing.assert_array_equal(u, before)
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_what_a_hook_keeps_is_never_added_into(rng, torch):
    x, tx = _leaf(rng, torch)
    kept_h, kept_x = [], []
    h, th = PassOn.apply(x), tx.clone()
    h.register_hook(kept_h.append)  # keeps the array itself, no copy
    x.register_hook(kept_x.append)
    th.register_hook(lambda g: None)
    seen_h, seen_x = [], []
    for _ in range(2):
        u = rng.standard_normal(4)
        y = h + PassOn.apply(x) * 2.0
        y.backward(u, retain_graph=True)
        (th + tx.clone() * 2.0).backward(torch.tensor(u), retain_graph=True)
        seen_h.append(kept_h[-1].copy())
        seen_x.append(kept_x[-1].copy())
        np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)
    # what each hook was given still holds what it held then
    for kept, seen in ((kept_h, seen_h), (kept_x, seen_x)):
        for k, s in zip(kept, seen, strict=True):
            np.testing.assert_array_equal(k, s)
    assert not any(np.shares_memory(x.grad, k) for k in kept_h + kept_x)


def test_a_retained_gradient_and_the_leafs_are_apart(rng, torch):
    x, tx = _leaf(rng, torch)
    h, th = PassOn.apply(x), tx.clone()
    h.retain_grad()
    th.retain_grad()
    y, ty = PassOn.apply(h), th.clone()
    for _ in range(2):
        u = rng.standard_normal(4)
        before = u.copy()
        y.backward(u, retain_graph=True)
        ty.backward(torch.tensor(u), retain_graph=True)
        np.testing.assert_array_equal(u, before)
    assert not np.shares_memory(h.grad, x.grad)
    np.testing.assert_allclose(h.grad, th.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_an_array_a_rule_keeps_and_shares_stays_as_it_was(rng, torch):
    a, ta = _leaf(rng, torch)
    b, tb = _leaf(rng, torch)
    y = KeepAndShare.apply(a, b)
    ty = ta + tb
    ctx = y.node.ctx
    for _ in range(2):
        u = rng.standard_normal(4)
        y.backward(u, retain_graph=True)
        ty.backward(torch.tensor(u), retain_graph=True)
        np.testing.assert_array_equal(ctx.kept, u)  # this pass's, untouched
    assert not np.shares_memory(a.grad, b.grad)
    assert not np.shares_memory(a.grad, ctx.kept)
    np.testing.assert_allclose(a.grad, ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad, tb.grad.numpy(), rtol=1e-12)


def test_a_seed_reaching_a_leaf_as_it_is_stays_the_callers(rng):
    x = cg.Tensor(np.zeros(3), requires_grad=True)
    u = rng.standard_normal(3)
    x.backward(u)
    x.backward(u)
    np.testing.assert_array_equal(x.grad, 2 * u)
    np.testing.assert_array_equal(u, u.copy())
    assert not np.shares_memory(x.grad, u)


def test_grad_returns_arrays_of_its_own(rng, torch):
    x, tx = _leaf(rng, torch)
    h, th = PassOn.apply(x), tx.clone()
    u = rng.standard_normal(4)
    gx, gh = cg.grad(PassOn.apply(h), [x, h], u)
    tgx, tgh = torch.autograd.grad(th.clone(), [tx, th], torch.tensor(u))
    assert not np.shares_memory(gx.data, gh.data)
    assert not np.shares_memory(gx.data, u)
    np.testing.assert_allclose(gx.data, tgx.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gh.data, tgh.numpy(), rtol=1e-12)


def test_a_0d_leaf_used_twice_gets_a_0d_array(torch):
    s = cg.Tensor(2.0, requires_grad=True)
    ts = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    for _ in range(2):
        (s * s + s).backward()
        (ts * ts + ts).backward()
    assert type(s.grad) is np.ndarray and s.grad.shape == ()
    np.testing.assert_allclose(s.grad, ts.grad.numpy(), rtol=1e-12)


def test_a_rule_returning_a_reshaped_view_is_copied(rng):
    """A rule that gets the shape wrong but the size right reshapes into a
    view of its own array: never taken as the walk's."""

    class Flat(cg.Function):
        kept = None

        @staticmethod
        def forward(ctx, a):
            return a.sum()

        @staticmethod
        def backward(ctx, dy):
            Flat.kept = np.full(6, float(dy))
            return Flat.kept.reshape(3, 2)  # the input is (2, 3)

    x = cg.Tensor(np.ones((2, 3)), requires_grad=True)
    Flat.apply(x).backward()
    x.grad += 1
    np.testing.assert_array_equal(Flat.kept, np.ones(6))


# ------------------------------------------------------- the page itself
def test_the_walk_lesson_1_shows_fits_on_a_page():
    shown = (engine.topological_order, engine.backprop, engine.accumulate)
    lines = sum(len(inspect.getsource(f).splitlines()) for f in shown)
    assert lines <= 100
    assert "getrefcount" not in inspect.getsource(engine)


# ------------------------------------------------- the checksum hook
def test_fingerprint_sums_with_the_active_backends_checksum_hook(monkeypatch):
    from convgrad import backend

    a = np.arange(40000, dtype=np.float64)  # above the snapshot size
    calls = []

    def counting(words, cols, roww):
        calls.append(words.size)
        return None  # "not my word size": NumPy's passes run

    with cg.use_backend("numpy"):  # a backend with no hook: NumPy's passes
        expected = function.fingerprint(a)
        monkeypatch.setitem(backend.get("numpy").hooks, "checksum", counting)
        assert function.fingerprint(a) == expected
    assert calls == [40000]
    with cg.use_backend("numba"):  # the other backend's hook is not asked
        function.fingerprint(a)
    assert calls == [40000]
    with pytest.raises(ValueError, match="hook must be one of"):
        backend.hook("fingerprint")


def test_the_numba_backend_offers_its_checksum_and_overwrites_nothing():
    """Importing the kernels changes no other module (issue 43: it rebound
    ``function._checksum``); the backend's table hands out their hook."""
    import numba

    from convgrad import backend
    from convgrad.kernels import checksum

    script = ("import convgrad.function as f; before = dict(vars(f)); "
              "import convgrad.kernels; "
              "print(sorted(k for k in vars(f) if vars(f)[k] is not before.get(k)))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    backend.table("numba")
    with cg.use_backend("numba"):
        got = backend.hook("checksum")
    if numba.config.DISABLE_JIT:
        assert got is None  # the NumPy passes: faster than the loop as Python
    else:
        assert got is checksum.checksum


# ---------------------------------------------- Tensor's registered face
METHODS = (
    "__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ "
    "__rtruediv__ __matmul__ __rmatmul__ __neg__ __pow__ sum mean reshape "
    "flatten transpose T relu tanh sigmoid exp log"
).split()


@pytest.mark.parametrize("name", METHODS)
def test_the_ops_give_tensor_its_methods(name):
    attr = inspect.getattr_static(cg.Tensor, name)
    assert callable(attr) or isinstance(attr, property)


def test_registered_operators_work_from_either_side(rng, torch):
    a = rng.standard_normal((2, 3))
    x, tx = cg.Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    b = rng.standard_normal((2, 3))
    y = (b - x) * 2.0 / (1 + x * x) + (b @ x.T).mean(axis=1, keepdims=True) ** 2
    tb = torch.tensor(b)
    ty = ((tb - tx) * 2.0 / (1 + tx * tx)
          + (tb @ tx.T).mean(dim=1, keepdim=True) ** 2)
    u = rng.standard_normal(y.shape)
    y.backward(u)
    ty.backward(torch.tensor(u))
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_register_refuses_to_replace_what_tensor_defines_itself():
    from convgrad.tensor import register

    with pytest.raises(ValueError, match="Tensor.backward is Tensor's own"):
        register(backward=lambda self: None)
    with pytest.raises(TypeError, match="must be a function or a property"):
        register(twice=2)
    assert not hasattr(cg.Tensor, "twice")


def test_the_walks_silence_ends_with_it():
    """First order's ops skip setting NumPy's error state inside the walk,
    which holds it silent already (issue 43); the thread's flag for that
    is restored when the walk ends, even by an exception, and ops outside
    it (under no_grad) stay silent on their own: log(0) and 0/0, with
    warnings as errors (the suite's setting), give torch's -inf and NaN."""
    from convgrad.tensor import _mode

    x = cg.Tensor(np.array([0.0, 1.0]), requires_grad=True)

    def boom(g):
        raise KeyError("hook")

    y = x.log() * 2.0
    y.register_hook(boom)
    with pytest.raises(KeyError):
        y.sum().backward()
    assert _mode.silent is False
    (x.log() / x).sum().backward()  # the walk: 1/x and its sums, silent
    assert _mode.silent is False and not np.isfinite(x.grad[0])
    with cg.no_grad():
        out = (x.log() / (x * 0.0)).data
    assert out[0] == -np.inf and np.isnan(out[1])
