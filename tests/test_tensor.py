"""The engine: Tensor basics, accumulation, broadcasting, deep graphs."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from oracle import check_op

import convgrad as cg
from convgrad import F


def test_ints_become_float64_and_floats_keep_dtype():
    assert cg.Tensor([1, 2, 3]).dtype == np.float64
    assert cg.Tensor(np.ones(2, np.float32)).dtype == np.float32
    assert cg.Tensor(np.ones(2, np.float64)).dtype == np.float64
    assert cg.Tensor([True, False]).dtype == np.float64


@pytest.mark.parametrize("bad", [np.array([1 + 2j]), np.array(["a"], dtype=object)])
def test_complex_and_object_are_refused(bad):
    with pytest.raises(TypeError, match="dtype"):
        cg.Tensor(bad)


def test_gradients_accumulate_across_uses_and_calls():
    x = cg.Tensor([1.5, -2.0], requires_grad=True)
    y = x * x + x  # x used three times
    y.backward(np.array([1.0, 2.0]))
    np.testing.assert_allclose(x.grad, [1.0 * (2 * 1.5 + 1), 2.0 * (2 * -2.0 + 1)])
    first = x.grad.copy()
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad, first + 3.0)
    x.zero_grad()
    assert x.grad is None


def test_backward_needs_gradient_for_non_scalar():
    x = cg.Tensor(np.ones((2, 2)), requires_grad=True)
    with pytest.raises(ValueError, match="gradient"):
        (x * 2).backward()
    with pytest.raises(ValueError, match="shape"):
        (x * 2).backward(np.ones(3))


def test_backward_without_grad_is_an_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        cg.Tensor([1.0]).sum().backward()


def test_deep_chain_does_not_recurse():
    x = cg.Tensor(np.array([0.5]), requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.sum().backward()
    np.testing.assert_allclose(x.grad, [1.0001**10_000], rtol=1e-9)


def test_no_grad_builds_no_graph():
    x = cg.Tensor([1.0], requires_grad=True)
    with cg.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert cg.is_grad_enabled()


def test_no_grad_nests_and_decorates():
    @cg.no_grad()
    def inner():
        return cg.is_grad_enabled()

    with cg.no_grad():
        with cg.no_grad():
            assert not cg.is_grad_enabled()
        assert not cg.is_grad_enabled()
        assert not inner()
    assert cg.is_grad_enabled() and not inner() and cg.is_grad_enabled()


def _in_thread(fn):
    out: list = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join(timeout=30)
    return out[0]


def test_grad_mode_is_per_thread_as_in_torch(torch):
    with cg.no_grad(), torch.no_grad():
        # a new thread starts with grad mode on, in torch and here
        assert _in_thread(torch.is_grad_enabled) is True
        assert _in_thread(cg.is_grad_enabled) is True
        assert not cg.is_grad_enabled()


def test_another_threads_no_grad_does_not_stop_this_threads_graph():
    inside, done = threading.Event(), threading.Event()

    def other():
        with cg.no_grad():
            inside.set()
            done.wait(timeout=30)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(timeout=30)
    try:
        x = cg.Tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        assert y.requires_grad
        y.backward()
        np.testing.assert_array_equal(x.grad, [2.0, 4.0])
    finally:
        done.set()
        t.join(timeout=30)


def test_interleaved_no_grad_exits_restore_each_threads_own_state():
    # A enters, B enters, A exits, B exits: with one global flag B would
    # restore A's "off" and leave grad mode off for good
    step = threading.Barrier(2, timeout=30)
    after: dict[str, bool] = {}

    def a():
        with cg.no_grad():
            step.wait()  # 1: both inside
            step.wait()  # 2: A exits first
        after["a"] = cg.is_grad_enabled()
        step.wait()  # 3

    def b():
        step.wait()  # 1: B enters only once A is inside
        with cg.no_grad():
            step.wait()
            step.wait()
        after["b"] = cg.is_grad_enabled()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert after == {"a": True, "b": True}
    assert cg.is_grad_enabled()


def test_detach_and_numpy():
    x = cg.Tensor([1.0, 2.0], requires_grad=True)
    d = (x * 2).detach()
    assert not d.requires_grad and d.is_leaf
    np.testing.assert_array_equal(d.numpy(), [2.0, 4.0])


def test_python_scalar_keeps_float32():
    x = cg.Tensor(np.ones(3, np.float32), requires_grad=True)
    y = 2.5 * x - 1 + x / 3.0
    assert y.dtype == np.float32
    y.backward(np.ones(3, np.float32) * 0.5)
    assert x.grad.dtype == np.float32


def test_ndarray_on_either_side(rng):
    a = rng.standard_normal((3, 4))
    x = cg.Tensor(rng.standard_normal((3, 4)), requires_grad=True)
    for y in (a + x, x + a, a - x, a * x, x / (a + 5), (a + 5) / x, -x):
        assert isinstance(y, cg.Tensor)
    y = a @ x.T
    assert isinstance(y, cg.Tensor) and y.shape == (3, 3)


BINARY = {
    "add": (lambda a, b: a + b),
    "sub": (lambda a, b: a - b),
    "mul": (lambda a, b: a * b),
    "div": (lambda a, b: a / b),
}


@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize(
    "shapes", [((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((3,), (2, 3)), ((), (2,))]
)
def test_broadcasting_arithmetic_matches_torch(op, shapes, rng):
    a = rng.standard_normal(shapes[0])
    b = rng.uniform(0.5, 2.0, shapes[1])
    check_op(BINARY[op], BINARY[op], [a, b])


@pytest.mark.torch
@pytest.mark.parametrize(
    "shapes", [((3, 4), (4, 5)), ((4,), (4, 2)), ((2, 3), (3,)), ((2, 3, 4), (4, 2))]
)
def test_matmul_matches_torch(shapes, rng):
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    check_op(lambda x, y: x @ y, lambda x, y: x @ y, [a, b])


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_reduce_and_shape_ops_match_torch(dtype, rng):
    a = rng.standard_normal((2, 3, 4))
    cases = [
        (lambda x: x.relu(), lambda x: x.relu()),
        (lambda x: x.tanh(), lambda x: x.tanh()),
        (lambda x: x.sigmoid(), lambda x: x.sigmoid()),
        (lambda x: x.exp(), lambda x: x.exp()),
        (lambda x: (x * x + 1).log(), lambda x: (x * x + 1).log()),
        (lambda x: x**3, lambda x: x**3),
        (lambda x: x.sum(), lambda x: x.sum()),
        (lambda x: x.sum(axis=1), lambda x: x.sum(dim=1)),
        (lambda x: x.mean(axis=(0, 2), keepdims=True), lambda x: x.mean((0, 2), True)),
        (lambda x: x.mean(), lambda x: x.mean()),
        (lambda x: x.reshape(6, -1), lambda x: x.reshape(6, -1)),
        (lambda x: x.flatten(), lambda x: x.flatten()),
        (lambda x: x.flatten(1), lambda x: x.flatten(1)),
        (lambda x: x.transpose(0, 2), lambda x: x.transpose(0, 2)),
        (lambda x: x.transpose((2, 0, 1)), lambda x: x.permute(2, 0, 1)),
    ]
    for ours, theirs in cases:
        check_op(ours, theirs, [a], dtype=dtype)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_losses_and_linear_match_torch(dtype, rng, torch):
    tf = torch.nn.functional
    logits = rng.standard_normal((5, 4)) * 3
    target = np.array([0, 3, 1, 1, 2])
    for red in ("mean", "sum", "none"):
        check_op(
            lambda x, t=target, r=red: F.cross_entropy(x, t, reduction=r),
            lambda x, t=target, r=red: tf.cross_entropy(
                x, torch.tensor(t), reduction=r
            ),
            [logits],
            dtype=dtype,
        )
        check_op(
            lambda a, b, r=red: F.mse_loss(a, b, reduction=r),
            lambda a, b, r=red: tf.mse_loss(a, b, reduction=r),
            [logits, rng.standard_normal((5, 4))],
            dtype=dtype,
        )
    check_op(
        lambda x: F.log_softmax(x, dim=1),
        lambda x: tf.log_softmax(x, dim=1),
        [logits],
        dtype=dtype,
    )
    check_op(
        F.linear,
        tf.linear,
        [
            rng.standard_normal((6, 3)),
            rng.standard_normal((2, 3)),
            rng.standard_normal(2),
        ],
        dtype=dtype,
    )


def test_cross_entropy_accepts_tensor_target_and_checks_it():
    logits = cg.Tensor(np.zeros((2, 3)), requires_grad=True)
    loss = F.cross_entropy(logits, cg.Tensor([0, 2]))
    np.testing.assert_allclose(loss.item(), np.log(3))
    with pytest.raises(ValueError, match="target"):
        F.cross_entropy(logits, np.array([0, 3]))
    with pytest.raises(ValueError, match="target"):
        F.cross_entropy(logits, np.array([0]))
    with pytest.raises(TypeError, match="target"):
        F.cross_entropy(logits, np.array([0.5, 1.0]))


def test_dropout_is_seeded_and_scaled():
    x = cg.Tensor(np.ones((200, 50)), requires_grad=True)
    a = F.dropout(x, p=0.3, generator=7)
    b = F.dropout(x, p=0.3, generator=7)
    np.testing.assert_array_equal(a.data, b.data)
    kept = a.data != 0
    np.testing.assert_allclose(a.data[kept], 1 / 0.7)
    assert abs(kept.mean() - 0.7) < 0.02
    g = np.random.default_rng(0).standard_normal(x.shape)
    a.backward(g)
    np.testing.assert_allclose(x.grad, np.where(kept, g / 0.7, 0.0))
    assert F.dropout(x, p=0.3, training=False) is x
    with pytest.raises(ValueError, match="p must"):
        F.dropout(x, p=1.5)


def test_gradcheck_reports_the_worst_element():
    class Wrong(cg.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.a = a
            return a * a

        @staticmethod
        def backward(ctx, dy):
            return dy * ctx.a  # forgot the factor 2

    x = np.array([[1.0, -2.0], [0.5, 3.0]])
    report = cg.gradcheck(lambda t: t * t, [x])
    assert report.ok
    with pytest.raises(AssertionError, match="worst element"):
        cg.gradcheck(Wrong.apply, [x])
    bad = cg.gradcheck(Wrong.apply, [x], raise_exception=False)
    assert not bad.ok
    # the rule is off by exactly a factor 2 everywhere
    np.testing.assert_allclose(bad.analytic, bad.numeric / 2, rtol=1e-6)
    upstream = np.random.default_rng(0).standard_normal(x.shape)
    errors = np.abs(upstream * x)  # |2*dy*x - dy*x|
    assert bad.element == np.unravel_index(np.argmax(errors), x.shape)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda a, b: a * b + a / (b * b + 1) - b, [(2, 3), (3,)]),
        (lambda a, b: a @ b, [(2, 3), (3, 4)]),
        (lambda a: (a**2).sum(axis=1, keepdims=True), [(3, 4)]),
        (lambda a: a.mean(axis=0), [(3, 4)]),
        (lambda a: a.reshape(4, 3).transpose().flatten(), [(3, 4)]),
        (lambda a: a.tanh() + a.sigmoid() + (a * 0.5).exp(), [(3, 4)]),
        (lambda a: (a * a + 0.5).log(), [(3, 4)]),
        (lambda a: F.relu(a + 0.05), [(3, 4)]),
        (lambda a: F.log_softmax(a, dim=1), [(3, 4)]),
        (lambda a: F.cross_entropy(a, np.array([0, 3, 1])), [(3, 4)]),
        (lambda a, b: F.mse_loss(a, b), [(3, 4), (3, 4)]),
        (lambda a, w, b: F.linear(a, w, b), [(3, 4), (2, 4), (2,)]),
        (lambda a: F.dropout(a, 0.4, generator=3), [(3, 4)]),
    ],
)
def test_gradcheck_tensor_ops(fn, shapes, rng):
    inputs = [rng.standard_normal(s) for s in shapes]
    assert cg.gradcheck(fn, inputs).ok


# --------------------------------------------------------------------------
# arrays saved for backward, changed in place before it (torch's version
# counter): a RuntimeError at backward, never a silently wrong gradient
# --------------------------------------------------------------------------


def _modified_in_torch(torch, build, change) -> bool:
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, 0.25, 2.0], requires_grad=True)
    y = build(x, w)
    with torch.no_grad():
        change(x, w, y)
    try:
        y.sum().backward()
    except RuntimeError as err:
        assert "inplace" in str(err)
        return True
    return False


IN_PLACE = [
    # (what, build y from x and w, change in place between forward and backward)
    ("a factor of a product", lambda x, w: x * w, lambda x, w, y: w.mul_(2)),
    ("a divisor", lambda x, w: x / w, lambda x, w, y: w.add_(1)),
    ("tanh's output", lambda x, w: x.tanh(), lambda x, w, y: y.zero_()),
    ("exp's output", lambda x, w: x.exp(), lambda x, w, y: y.mul_(3)),
    ("one element of a linear input",
     lambda x, w: x.reshape(1, 3) @ w.reshape(3, 1), lambda x, w, y: x[1:2].add_(1)),
]


@pytest.mark.parametrize("what, build, change", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_an_in_place_change_of_a_saved_array_fails_at_backward_as_in_torch(
    what, build, change, torch
):
    assert _modified_in_torch(torch, build, change)
    x = cg.Tensor([1.0, -2.0, 3.0], requires_grad=True)
    w = cg.Tensor([0.5, 0.25, 2.0], requires_grad=True)
    y = build(x, w)
    tensors = {"x": x, "w": w, "y": y}
    data = {k: torch.from_numpy(t.data) for k, t in tensors.items()}  # shared
    change(data["x"], data["w"], data["y"])
    with pytest.raises(RuntimeError, match="modified in place after the forward"):
        y.sum().backward()


def test_an_unsaved_input_may_change_as_in_torch(torch):
    assert not _modified_in_torch(torch, lambda x, w: x + w, lambda x, w, y: w.mul_(2))
    x = cg.Tensor([1.0, 2.0], requires_grad=True)
    w = cg.Tensor([3.0, 4.0], requires_grad=True)
    y = x + w
    w.data *= 2  # Add saves nothing: its gradient does not depend on w
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])


def test_the_numpy_array_a_tensor_wraps_is_watched_too():
    a = np.array([1.0, 2.0, 3.0])
    x = cg.from_numpy(a).requires_grad_()  # shares memory: x.data is a
    loss = (x * x).sum()
    a[0] = 10.0
    with pytest.raises(RuntimeError, match=r"Mul\.backward: input 0 \(shape \(3,\)\)"):
        loss.backward()


def test_an_optimizer_step_before_backward_is_caught():
    w = cg.Tensor(np.ones((2, 1, 3, 3)), requires_grad=True)
    v = cg.Tensor(np.ones((3, 4)), requires_grad=True)
    conv = F.conv2d(np.arange(16.0).reshape(1, 1, 4, 4), w).sum()
    linear = F.linear(np.ones((2, 4)), v).sum()
    opt = cg.optim.SGD([w, v], lr=0.1)
    w.grad, v.grad = np.ones(w.shape), np.ones(v.shape)
    opt.step()  # updates w.data and v.data in place
    for y in (conv, linear):
        with pytest.raises(RuntimeError, match="modified in place"):
            y.backward()


def test_changing_it_after_backward_is_fine():
    x = cg.Tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.data *= 3
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_the_fingerprint_sees_any_single_element_change_and_a_swap():
    from convgrad.function import fingerprint

    rng = np.random.default_rng(0)
    for a in (rng.standard_normal((3, 4100)), rng.standard_normal(7, np.float32)):
        before = fingerprint(a)
        for i in range(a.size):
            b = a.copy()
            b.flat[i] = np.nextafter(b.flat[i], np.inf)  # the smallest change
            assert fingerprint(b) != before, i
        b = a.copy()
        b.flat[[0, 5]] = b.flat[[5, 0]]
        assert fingerprint(b) != before
        assert fingerprint(a.copy()) == before


@pytest.mark.parametrize("make", [
    lambda ps: cg.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    lambda ps: cg.optim.Adam(ps, lr=0.1),
])
def test_a_step_after_backward_with_create_graph_uses_the_gradient_values(make):
    rng = np.random.default_rng(3)
    x, w0 = rng.standard_normal((2, 1, 5, 5)), rng.standard_normal((2, 1, 3, 3))
    steps = []
    for create_graph in (False, True):
        w = cg.Tensor(w0.copy(), requires_grad=True)
        opt = make([w])
        for _ in range(2):
            opt.zero_grad()
            loss = (F.conv2d(x, w) ** 2).sum()
            loss.backward(create_graph=create_graph)
            assert isinstance(w.grad, cg.Tensor) == create_graph
            opt.step()
        assert isinstance(w.data, np.ndarray)  # never a Tensor
        steps.append(w.data)
    np.testing.assert_allclose(steps[1], steps[0], rtol=1e-12)


class _Fresh(cg.Function):
    """Gradients of fresh arrays, remembered so a test can look for them."""

    made: list = []

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, dy):
        ga, gb = dy * 2.0, dy * 3.0
        _Fresh.made[:] = [ga, gb]
        return ga, gb


class _Shared(cg.Function):
    """Both inputs get the very same array; the rule also keeps it."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, dy):
        g = dy * 1.0
        ctx.kept = g
        return g, g


def test_only_a_sum_the_walk_made_becomes_grad_without_a_copy(monkeypatch):
    """A rule's arrays are copied into ``.grad``, whoever else holds them
    (no reference count decides); a sum of two pieces, which only the walk
    has seen, is taken as it is."""
    from convgrad import engine

    taken = []
    accumulate = engine.accumulate

    def spy(t, g, own, create_graph):
        taken.append((t, g, own))
        accumulate(t, g, own, create_graph)

    monkeypatch.setattr(engine, "accumulate", spy)

    class Quiet(_Fresh):
        @staticmethod
        def backward(ctx, dy):
            out = dy * 2.0, dy * 3.0
            _Fresh.made[:] = [id(o) for o in out]  # ids only: no reference
            return out

    a = cg.Tensor(np.ones(3), requires_grad=True)
    b = cg.Tensor(np.ones(3), requires_grad=True)
    seed = np.array([1.0, -2.0, 0.5])
    Quiet.apply(a, b).backward(seed)
    # nothing but the walk holds the rule's arrays, and still they are
    # copied: the walk cannot know that
    assert [own for _, _, own in taken] == [False, False]
    assert id(a.grad) not in _Fresh.made and id(b.grad) not in _Fresh.made
    np.testing.assert_array_equal(a.grad, 2.0 * seed)
    np.testing.assert_array_equal(b.grad, 3.0 * seed)
    # a leaf used twice: the walk adds the two pieces into a new array,
    # its own, which becomes .grad without a copy
    taken.clear()
    x = cg.Tensor(np.ones(3), requires_grad=True)
    (x * 2.0 + x * 3.0).backward(seed)
    [(t, g, own)] = taken
    assert t is x and own and x.grad is g
    np.testing.assert_array_equal(x.grad, 5.0 * seed)
    # a broadcast summed back is the walk's own too
    taken.clear()
    bias = cg.Tensor(np.zeros(3), requires_grad=True)
    (cg.Tensor(np.ones((4, 3))) + bias).backward(np.ones((4, 3)))
    assert [own for _, _, own in taken] == [True]
    np.testing.assert_array_equal(bias.grad, [4.0, 4.0, 4.0])


def test_a_shared_or_borrowed_gradient_is_copied_into_grad():
    a = cg.Tensor(np.ones(3), requires_grad=True)
    b = cg.Tensor(np.ones(3), requires_grad=True)
    _Shared.apply(a, b).backward(np.array([1.0, 2.0, 3.0]))
    assert a.grad is not b.grad
    a.grad += 1  # neither leaf's gradient moves with the other's
    np.testing.assert_array_equal(b.grad, [1.0, 2.0, 3.0])
    # the user's seed, reaching a leaf as it is, stays the user's
    leaf = cg.Tensor(np.zeros(3), requires_grad=True)
    seed = np.array([4.0, 5.0, 6.0])
    leaf.backward(seed)
    assert leaf.grad is not seed
    seed[0] = 0.0
    np.testing.assert_array_equal(leaf.grad, [4.0, 5.0, 6.0])
    # a view of another array (a reshape's, a sum's broadcast) is copied too
    x = cg.Tensor(np.ones((2, 3)), requires_grad=True)
    x.reshape(6).sum().backward()
    assert x.grad.base is None and x.grad.flags.owndata and x.grad.flags.writeable
    x.grad += 1
    np.testing.assert_array_equal(x.grad, np.full((2, 3), 2.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("n", [16385, 4096 * 7, 4096 * 7 + 5, 300001])
def test_the_one_pass_fingerprint_is_numpys_bit_for_bit(dtype, n):
    """kernels/checksum.py's single pass gives the NumPy passes' numbers, so
    a fingerprint taken by one and checked by the other still matches, and
    it still sees a one-element change anywhere (in the last, short row too)."""
    from convgrad import backend, function

    backend.table("numba")  # the Numba kernels, and their checksum hook
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 1e3).astype(dtype)
    with cg.use_backend("numba"):
        fast = function.fingerprint(a)
        one_pass = backend.hook("checksum")
    with cg.use_backend("numpy"):  # no hook: NumPy's two passes
        assert backend.hook("checksum") is None
        assert function.fingerprint(a) == fast
    if one_pass is None:  # NUMBA_DISABLE_JIT: NumPy's passes only
        return
    for i in (0, n // 2, n - 1):
        b = a.copy()
        b[i] += 1
        assert function.fingerprint(b) != fast


def test_an_in_place_change_of_a_large_saved_input_fails_at_backward():
    """A conv on the fast path saves its 2 MB input; one changed pixel is seen."""
    rng = np.random.default_rng(5)
    x = cg.Tensor(rng.standard_normal((32, 16, 32, 32)).astype(np.float32),
                  requires_grad=True)
    w = cg.Tensor(rng.standard_normal((32, 16, 3, 3)).astype(np.float32),
                  requires_grad=True)
    with cg.use_backend("numba"):
        y = F.conv2d(x, w, padding=1)
    x.data[31, 15, 31, 31] += 1.0
    with pytest.raises(RuntimeError, match="modified in place after the forward"):
        y.sum().backward()
