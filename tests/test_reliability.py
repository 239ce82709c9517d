"""Issue 29's items: no aliasing of the user's arrays, grad mode and the
backend per thread, hooks and retained gradients, the second-backward
error, and clear errors for what used to slip through. Torch is the
oracle wherever it has the behaviour."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, nn, optim

# --------------------------------------------------------------------------
# Tensor and Parameter copy what they are given; from_numpy shares
# --------------------------------------------------------------------------


def test_tensor_copies_a_float_array(rng):
    a = rng.standard_normal(4)
    t = cg.Tensor(a)
    a[0] = 5.0
    assert t.data[0] != 5.0 and not np.shares_memory(t.data, a)
    assert not np.shares_memory(cg.tensor(a).data, a)
    u = cg.Tensor(t)  # torch.tensor(t) copies too
    assert not np.shares_memory(u.data, t.data)


def test_sgd_step_leaves_the_users_array_alone(rng):
    arr = rng.standard_normal((2, 1, 3, 3))
    before = arr.copy()
    p = nn.Parameter(arr)
    opt = optim.SGD([p], lr=0.1)
    F.conv2d(rng.standard_normal((1, 1, 4, 4)), p).sum().backward()
    opt.step()
    np.testing.assert_array_equal(arr, before)
    assert not np.array_equal(p.data, before)


def test_a_read_only_array_trains(rng):
    arr = rng.standard_normal((3, 2))
    arr.flags.writeable = False
    p = nn.Parameter(arr)
    opt = optim.SGD([p], lr=0.5, momentum=0.9)
    F.linear(rng.standard_normal((4, 2)), p).sum().backward()
    opt.step()  # used to fail: "output array is read-only"
    assert not np.array_equal(p.data, arr)


def test_from_numpy_shares_memory_as_torchs(rng, torch):
    a = rng.standard_normal(3)
    t, tt = cg.from_numpy(a), torch.from_numpy(a)
    a[1] = 7.0
    assert t.data[1] == tt[1].item() == 7.0
    t.data[2] = -1.0
    assert a[2] == -1.0
    # a Parameter wraps a Tensor without a copy, as torch's does
    p = nn.Parameter(cg.from_numpy(a))
    p.grad = np.ones(3)
    optim.SGD([p], lr=1.0).step()
    np.testing.assert_array_equal(a, p.data)


@pytest.mark.parametrize(
    "bad, words",
    [([1.0, 2.0], "numpy.ndarray"), (np.arange(3), "float32 or float64")],
)
def test_from_numpy_refuses_what_it_cannot_share(bad, words):
    with pytest.raises(TypeError, match="ndarray must") as info:
        cg.from_numpy(bad)
    assert words in str(info.value)


@pytest.mark.parametrize("order", [">", "<"])
def test_either_byte_order_keeps_float32(order):
    x = np.arange(16, dtype=f"{order}f4").reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2), dtype=np.float32)
    t = cg.Tensor(x)
    assert t.dtype == np.float32 and t.dtype.isnative
    y = F.conv2d(x, w)  # used to say: got float32 and float64
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, F.conv2d(x.astype(np.float32), w).data)
    assert cg.Tensor(np.ones(2, ">f8")).dtype == np.dtype("=f8")


# --------------------------------------------------------------------------
# complex gradients, torch tensors, flags and generators
# --------------------------------------------------------------------------


def test_a_complex_upstream_gradient_is_refused():
    x = cg.Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(TypeError, match=r"gradient must be .* real numbers.*complex"):
        (x * 2).backward(np.ones(3) * (1 + 1j))
    with pytest.raises(TypeError, match=r"grad_outputs\[0\] must be .*real"):
        cg.grad(x * 2, x, np.array(["a", "b", "c"]))
    assert x.grad is None


def test_a_torch_tensor_that_requires_grad_is_named(torch):
    t = torch.randn(3, requires_grad=True)
    with pytest.raises(TypeError, match=r"input must be .*torch tensor.*detach"):
        F.relu(t)
    with pytest.raises(TypeError, match="weight must be"):
        F.conv2d(np.zeros((1, 1, 3, 3)), torch.zeros((1, 1, 2, 2), requires_grad=True))
    np.testing.assert_array_equal(F.relu(t.detach()).data, t.detach().relu().numpy())


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: cg.Tensor(np.ones(2), requires_grad="yes"), "requires_grad"),
        (lambda: nn.Parameter(np.ones(2), requires_grad=1), "requires_grad"),
        (lambda: cg.Tensor(np.ones(2)).requires_grad_("no"), "requires_grad"),
        (lambda: F.dropout(np.ones(4), 0.5, training="no"), "training"),
        (lambda: F.dropout(np.ones(4), 0.5, training=None), "training"),
        (lambda: nn.MaxPool2d(2, ceil_mode="no"), "ceil_mode"),
        (lambda: nn.MaxPool2d(2, return_indices=1), "return_indices"),
        (lambda: nn.AvgPool2d(2, count_include_pad="no"), "count_include_pad"),
        (lambda: nn.Conv2d(1, 1, 3, bias="no"), "bias"),
        (lambda: nn.Linear(2, 2, bias=0), "bias"),
        (lambda: optim.SGD([nn.Parameter(np.ones(1))], lr=0.1, momentum=0.9,
                           nesterov="yes"), "nesterov"),
        (lambda: cg.Tensor(np.ones(2)).sum(keepdims="yes"), "keepdims"),
        (lambda: list(nn.Linear(2, 2).parameters(recurse="no")), "recurse"),
        (lambda: nn.Linear(2, 2).train("no"), "mode"),
    ],
)
def test_flags_must_be_bools(call, name):
    with pytest.raises(TypeError, match=rf"{name} must be .*(bool|True or False)"):
        call()


@pytest.mark.parametrize(
    "generator, exc",
    [("x", TypeError), (1.5, TypeError), (True, TypeError), (-1, ValueError),
     (np.random.RandomState(0), TypeError)],
)
def test_bad_generators_are_named(generator, exc):
    with pytest.raises(exc, match="generator"):
        F.dropout(np.ones(4), 0.5, generator=generator)
    with pytest.raises(exc, match="generator"):
        nn.Dropout(0.5, generator=generator)
    with pytest.raises(exc, match="generator"):
        nn.Linear(2, 2, generator=generator)


def test_a_seed_still_makes_dropout_reproducible():
    a = F.dropout(np.ones(50), 0.5, generator=3).data
    b = F.dropout(np.ones(50), 0.5, generator=np.random.default_rng(3)).data
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="seed must be at least 0"):
        nn.manual_seed(-2)


@pytest.mark.parametrize("target", [[np.inf, 0], [np.nan, 1], [-np.inf, 0]])
def test_a_non_finite_target_is_named(target):
    with pytest.raises(ValueError, match=r"target must hold class indices in \[0, 3\)"):
        F.cross_entropy(np.zeros((2, 3)), target)


@pytest.mark.parametrize("target", [[1e20, 0], [-1e20, 1], [3.0, 0]])
def test_a_huge_float_target_is_out_of_range_not_a_cast_warning(target):
    with pytest.raises(ValueError, match=r"target values must lie in \[0, 3\)"):
        F.cross_entropy(np.zeros((2, 3)), target)


# --------------------------------------------------------------------------
# no_grad on a generator function; the backend per thread
# --------------------------------------------------------------------------


def test_no_grad_decorates_a_generator_function_as_torchs(torch):
    @cg.no_grad()
    def ours():
        for _ in range(2):
            yield cg.is_grad_enabled()

    @torch.no_grad()
    def theirs():
        for _ in range(2):
            yield torch.is_grad_enabled()

    gen, tgen = ours(), theirs()
    assert next(gen) is next(tgen) is False
    assert cg.is_grad_enabled()  # the caller's mode is back between steps
    assert list(gen) == list(tgen) == [False]
    assert cg.is_grad_enabled()


def test_enable_grad_on_a_generator_and_send_and_close():
    @cg.enable_grad()
    def echo():
        got = yield cg.is_grad_enabled()
        while True:
            got = yield (got, cg.is_grad_enabled())

    with cg.no_grad():
        gen = echo()
        assert next(gen) is True
        assert gen.send("a") == ("a", True)
        assert not cg.is_grad_enabled()
        gen.close()
    assert cg.is_grad_enabled()


def test_no_grad_generator_returns_its_value_and_records_no_graph():
    x = cg.Tensor(np.ones(2), requires_grad=True)

    @cg.no_grad()
    def steps():
        y = yield x * 2
        return y

    gen = steps()
    assert not next(gen).requires_grad
    with pytest.raises(StopIteration) as stop:
        gen.send(5)
    assert stop.value.value == 5


#: the process default (CONVGRAD_BACKEND may set it) and the other backend:
#: the thread tests hold on either
HOME = cg.get_backend()
AWAY = next(b for b in ("numba", "numpy") if b != HOME)


def test_use_backend_is_per_thread():
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def other():
        seen["start"] = cg.get_backend()
        with cg.use_backend(HOME):
            entered.set()
            release.wait(10)
            seen["inside"] = cg.get_backend()
        seen["after"] = cg.get_backend()

    with cg.use_backend(AWAY):
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(10)
        assert cg.get_backend() == AWAY  # the other thread's block is its own
        release.set()
        thread.join(10)
        assert cg.get_backend() == AWAY
    assert seen == {"start": HOME, "inside": HOME, "after": HOME}
    assert cg.get_backend() == HOME


def test_overlapping_blocks_in_two_threads_restore_each_their_own():
    # thread A enters numpy, thread B enters numpy, A leaves, B leaves:
    # with one process-wide setting, B's exit restored A's choice for good
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    after = {}

    def a():
        with cg.use_backend(AWAY):
            a_in.set()
            b_in.wait(10)
        after["a"] = cg.get_backend()
        a_out.set()

    def b():
        a_in.wait(10)
        with cg.use_backend(AWAY):
            b_in.set()
            a_out.wait(10)
        after["b"] = cg.get_backend()

    threads = [threading.Thread(target=f) for f in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert after == {"a": HOME, "b": HOME}
    assert cg.get_backend() == HOME


def test_set_backend_changes_only_this_thread():
    from convgrad import backend

    seen = []
    with cg.use_backend(HOME):
        backend.set_backend(AWAY)
        t = threading.Thread(target=lambda: seen.append(cg.get_backend()))
        t.start()
        t.join(10)
        assert cg.get_backend() == AWAY
    assert seen == [HOME] and cg.get_backend() == HOME


# --------------------------------------------------------------------------
# relu(-0.0), log_softmax of a 0-d tensor
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_keeps_the_sign_of_zero_as_torch(dtype, rng, torch):
    x = np.array([-0.0, 0.0, -1.5, 2.0, np.nan, -np.inf, np.inf], dtype=dtype)
    t = cg.Tensor(x, requires_grad=True)
    tt = torch.tensor(x, requires_grad=True)
    y, ty = F.relu(t), torch.relu(tt)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    np.testing.assert_array_equal(np.signbit(y.data), torch.signbit(ty).numpy())
    dy = rng.standard_normal(x.shape).astype(dtype)
    y.backward(dy)
    ty.backward(torch.tensor(dy))
    np.testing.assert_array_equal(t.grad, tt.grad.numpy())


@pytest.mark.parametrize("dim", [0, -1])
def test_log_softmax_of_a_0d_tensor_as_torch(dim, torch):
    x = cg.Tensor(np.array(2.5), requires_grad=True)
    tx = torch.tensor(2.5, dtype=torch.float64, requires_grad=True)
    y = F.log_softmax(x, dim=dim)
    ty = torch.nn.functional.log_softmax(tx, dim=dim)
    assert y.shape == () and y.item() == ty.item() == 0.0
    y.backward(np.array(1.7))
    ty.backward(torch.tensor(1.7, dtype=torch.float64))
    assert x.grad.shape == () and x.grad.item() == tx.grad.item()
    with pytest.raises(ValueError, match="dim must be in"):
        F.log_softmax(x, dim=1)


# --------------------------------------------------------------------------
# retain_grad, register_hook, and a second backward through one graph
# --------------------------------------------------------------------------


def _pair(rng, torch, shape=(2, 1, 5, 5)):
    x = rng.standard_normal(shape)
    return cg.Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


def test_retain_grad_fills_intermediate_grads_as_torchs(rng, torch):
    w = rng.standard_normal((3, 1, 3, 3))
    x, tx = _pair(rng, torch)
    wt, twt = cg.Tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    h = F.conv2d(x, wt, padding=1)
    th = torch.nn.functional.conv2d(tx, twt, padding=1)
    r, tr = F.relu(h), torch.relu(th)
    for t in (h, r, th, tr):
        t.retain_grad()
    assert h.retains_grad and not x.retains_grad
    x.retain_grad()  # a leaf: nothing to do, as in torch
    assert not x.retains_grad
    dy = rng.standard_normal((2, 3, 2, 2))
    y = F.max_pool2d(r, 2)
    ty = torch.nn.functional.max_pool2d(tr, 2)
    y.backward(dy)
    ty.backward(torch.tensor(dy))
    for ours, theirs in ((h, th), (r, tr), (x, tx)):
        assert isinstance(ours.grad, np.ndarray)
        np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-12)
    assert y.grad is None  # not retained: none kept


def test_a_retained_grad_adds_up_over_backward_passes(rng, torch):
    x, tx = _pair(rng, torch, (3,))
    h, th = x * x, tx * tx
    h.retain_grad()
    th.retain_grad()
    u, v = rng.standard_normal(3), rng.standard_normal(3)
    h.backward(u, retain_graph=True)
    h.backward(v)
    th.backward(torch.tensor(u), retain_graph=True)
    th.backward(torch.tensor(v))
    np.testing.assert_allclose(h.grad, th.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_hooks_see_and_replace_gradients_as_torchs(rng, torch):
    x, tx = _pair(rng, torch, (4,))
    seen, tseen = [], []
    h, th = x * 3.0, tx * 3.0
    h.register_hook(lambda g: seen.append(np.array(g)))
    th.register_hook(lambda g: tseen.append(g.numpy().copy()))
    h.register_hook(lambda g: g * 2)  # hooks run in order; this one replaces
    th.register_hook(lambda g: g * 2)
    h.retain_grad()
    th.retain_grad()
    x.register_hook(lambda g: g + 1)
    tx.register_hook(lambda g: g + 1)
    u = rng.standard_normal(4)
    (h * h).backward(u)
    (th * th).backward(torch.tensor(u))
    np.testing.assert_allclose(seen[0], tseen[0], rtol=1e-12)
    np.testing.assert_allclose(h.grad, th.grad.numpy(), rtol=1e-12)  # after hooks
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_a_removed_hook_no_longer_runs_and_grad_runs_hooks(rng, torch):
    x, tx = _pair(rng, torch, (3,))
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    x.register_hook(lambda g: g * 10)
    tx.register_hook(lambda g: g * 10)
    h, th = x * 2.0, tx * 2.0
    h.register_hook(lambda g: g + 1)
    th.register_hook(lambda g: g + 1)
    u = rng.standard_normal(3)
    gx, gh = cg.grad(h, [x, h], u)
    tgx, tgh = torch.autograd.grad(th, [tx, th], torch.tensor(u))
    np.testing.assert_allclose(gx.data, tgx.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gh.data, tgh.numpy(), rtol=1e-12)
    assert x.grad is None


def test_hooks_work_with_create_graph(rng, torch):
    x, tx = _pair(rng, torch, (3,))
    h, th = x * x, tx * tx
    h.register_hook(lambda g: g * h)  # a hook that itself depends on x
    th.register_hook(lambda g: g * th)
    h.retain_grad()
    th.retain_grad()
    (gx,) = cg.grad(h.sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad(th.sum(), tx, create_graph=True)
    np.testing.assert_allclose(gx.data, tgx.detach().numpy(), rtol=1e-12)
    assert gx.requires_grad
    v = rng.standard_normal(3)
    (ggx,) = cg.grad(gx, x, v)
    (tggx,) = torch.autograd.grad(tgx, tx, torch.tensor(v))
    np.testing.assert_allclose(ggx.data, tggx.numpy(), rtol=1e-12)
    np.testing.assert_allclose(h.grad.data, th.grad.detach().numpy(), rtol=1e-12)


def test_hook_errors_are_torchs():
    x = cg.Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        cg.Tensor(np.ones(2)).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        cg.Tensor(np.ones(2)).retain_grad()
    with pytest.raises(TypeError, match="hook must be callable"):
        x.register_hook(3)
    y = x * 2.0
    y.register_hook(lambda g: g[:1])
    with pytest.raises(RuntimeError, match=r"hook '<lambda>' has changed the size"):
        y.sum().backward()


def test_a_second_backward_raises_as_torchs(rng, torch):
    x, tx = _pair(rng, torch)
    w = rng.standard_normal((2, 1, 3, 3))
    y = F.conv2d(x, w).sum()
    ty = torch.nn.functional.conv2d(tx, torch.tensor(w)).sum()
    y.backward()
    ty.backward()
    first = x.grad.copy()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ty.backward()
    with pytest.raises(
        RuntimeError,
        match=r"backward through the graph a second time.*Conv2d.*retain_graph=True",
    ):
        y.backward()
    np.testing.assert_array_equal(x.grad, first)  # not silently doubled


def test_a_refused_second_backward_adds_nothing_anywhere(rng):
    x = cg.Tensor(rng.standard_normal(3), requires_grad=True)
    z = cg.Tensor(rng.standard_normal(3), requires_grad=True)
    y = (z + x * x).sum()  # z's gradient needs no saved array, and
    # the walk reaches z before x * x: z must not get a second gradient
    y.backward()
    before = x.grad.copy(), z.grad.copy()
    with pytest.raises(RuntimeError, match="Mul saved a, b"):
        y.backward()
    np.testing.assert_array_equal(x.grad, before[0])
    np.testing.assert_array_equal(z.grad, before[1])


def test_retain_graph_allows_a_second_backward(rng, torch):
    x, tx = _pair(rng, torch, (4,))
    y, ty = (F.relu(x) * x).sum(), (torch.relu(tx) * tx).sum()
    y.backward(retain_graph=True)
    y.backward()
    ty.backward(retain_graph=True)
    ty.backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_grad_frees_the_graph_too_and_create_graph_retains_it(rng):
    x = cg.Tensor(rng.standard_normal(3), requires_grad=True)
    y = (x * x).sum()
    cg.grad(y, x)
    with pytest.raises(RuntimeError, match="second time"):
        cg.grad(y, x)
    z = (x * x * x).sum()
    (g,) = cg.grad(z, x, create_graph=True)  # retain_graph defaults to True
    (g2,) = cg.grad(z, x)
    np.testing.assert_allclose(g.data, g2.data)


def test_a_graph_without_saved_arrays_runs_again_as_torchs(rng, torch):
    x, tx = _pair(rng, torch, (3,))
    y, ty = (x + 1.0).sum(), (tx + 1.0).sum()
    y.backward()
    y.backward()
    ty.backward()
    ty.backward()
    np.testing.assert_array_equal(x.grad, tx.grad.numpy())


# --------------------------------------------------------------------------
# a single image through layers, as a learner copying a tutorial passes it
# --------------------------------------------------------------------------


def test_layers_take_a_single_image_with_gradients(rng):
    model = nn.Sequential(
        nn.Conv2d(2, 3, 3, padding=1, dtype=np.float64, generator=0),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.AvgPool2d(1),
        nn.AdaptiveAvgPool2d(1),
    )
    img = rng.standard_normal((2, 6, 6))
    one = cg.Tensor(img, requires_grad=True)
    batch = cg.Tensor(img[None], requires_grad=True)
    y, yb = model(one), model(batch)
    assert y.shape == (3, 1, 1) and yb.shape == (1, 3, 1, 1)
    np.testing.assert_array_equal(y.data, yb.data[0])
    dy = rng.standard_normal(y.shape)
    y.backward(dy)
    yb.backward(dy[None])
    np.testing.assert_array_equal(one.grad, batch.grad[0])
