"""The fast path as a backend's own forwards (issues 27 and 43): one
seam, ``backend.forward(op, work)``, that the conv Functions of ``ops/``
ask; the rules are theirs alone, written in the same ops, so a gradient's
convs ask again; and nothing in ``ops/`` asks which backend is active.

Small shapes: these also run with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, backend
from convgrad.geometry import conv2d_geometry, conv_transpose2d_geometry
from convgrad.kernels import SETTINGS, conv_fast, forwards
from convgrad.ops import conv

OPS = Path(conv.__file__).parent

#: the Function of each op, as ops/conv.py names them
TEXTBOOK = {"conv2d": conv.Conv2d, "conv_transpose2d": conv.ConvTranspose2d,
            "conv2d_weight": conv.ConvWeightGrad}

# --------------------------------------------------------------------------
# no rule in ops/ branches on the backend
# --------------------------------------------------------------------------

#: what ops/ may take from convgrad.backend: the twin-kernel table (same
#: algorithm, same signatures in every backend), the one seam, and the
#: handle a gradient gives its two forwards of one dy (read by none of ops/)
ALLOWED_FROM_BACKEND = {"kernel", "forward", "Shared"}

#: names that would let a rule see, or act on, the active backend
#: (generic words such as ``forward`` may be locals; importing them from
#: backend is caught by the import check)
BACKEND_NAMES = {
    "get_backend", "set_backend", "use_backend", "REGISTRY", "FORWARD_NAMES",
    "SETTINGS", "min_work", "conv_fast", "forwards", "winograd", "numba",
    "CONVGRAD_BACKEND",
}


def _problems(source: str) -> list[str]:
    """Why a module of ops/ would branch on the backend (empty: it does
    not)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            names = {a.name for a in node.names}
            if mod.split(".")[-1] == "backend":
                extra = names - ALLOWED_FROM_BACKEND
                if extra:
                    found.append(f"{where}: imports {sorted(extra)} from backend")
            elif "kernels" in mod.split(".") or mod.split(".")[0] == "numba":
                found.append(f"{where}: imports from {mod}")
            elif "backend" in names or "kernels" in names:
                found.append(f"{where}: imports the module {sorted(names)}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if "backend" in a.name or "kernels" in a.name or "numba" in a.name:
                    found.append(f"{where}: imports {a.name}")
        elif (isinstance(node, ast.Name) and node.id in BACKEND_NAMES
              and isinstance(node.ctx, ast.Load)):
            found.append(f"{where}: names {node.id}")
        elif isinstance(node, ast.Attribute) and (
            node.attr in BACKEND_NAMES or node.attr in {"fast", "backend", "settings"}
        ):
            found.append(f"{where}: reads .{node.attr}")
        elif isinstance(node, ast.Constant) and node.value in ("numba", "numpy"):
            found.append(f"{where}: compares with the backend name {node.value!r}")
    return found


@pytest.mark.parametrize("path", sorted(OPS.glob("*.py")), ids=lambda p: p.name)
def test_no_rule_in_ops_branches_on_the_backend(path):
    assert _problems(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("snippet", [
    "from ..backend import REGISTRY",
    "from ..backend import kernel, get_backend",
    "from .. import backend",
    "import convgrad.backend",
    "from ..kernels import conv_fast",
    "from ..kernels.forwards import conv2d",
    "import numba",
    "def f(ctx):\n    if ctx.fast:\n        pass",
    "def f():\n    return backend.get_backend() == 'numba'",
    "def f(b):\n    return b.settings.min_work",
    "def f():\n    return SETTINGS.min_work",
])
def test_the_check_catches_each_way_of_branching(snippet):
    assert _problems(snippet), snippet


def _spy_forwards(monkeypatch) -> list[str]:
    """Record each op whose Numba forward runs (the real one still runs)."""
    ran: list[str] = []
    own = backend.get("numba").load().forwards
    for op, fn in list(own.items()):
        def spy(*args, _op=op, _fn=fn):
            ran.append(_op)
            return _fn(*args)

        monkeypatch.setitem(own, op, spy)
    return ran


def test_below_the_threshold_numba_runs_the_textbook_forwards(monkeypatch):
    """Every Function of ops/conv.py, with the Numba backend active and
    the calls below its threshold, runs the textbook forward: never the
    pipeline (its entries raise here), bit for bit the NumPy backend's
    sums (the kernels are twins), forward and gradient alike."""
    def boom(*args, **kwargs):
        raise AssertionError("the pipeline ran below the threshold")

    for name in ("conv2d_forward", "conv2d_backward", "conv_transpose2d_forward"):
        monkeypatch.setattr(conv_fast, name, boom)
    monkeypatch.setattr(SETTINGS, "min_work", 1 << 40)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((6, 2, 3, 3))
    b, dy = rng.standard_normal(6), rng.standard_normal((2, 6, 3, 3))
    geom = conv2d_geometry(x.shape, w.shape, b.shape, 2, 1, 1, 2)
    tgeom = conv_transpose2d_geometry(dy.shape, (6, 2, 3, 3), (4,), 2, 1, 0, 2, 1)
    runs = {}
    for name in ("numpy", "numba"):
        rng = np.random.default_rng(1)  # the same upstream gradients
        with cg.use_backend(name):
            out = []
            for rule, args in ((conv.Conv2d, (x, w, b, geom)),
                               (conv.ConvTranspose2d, (dy, w, b[:4], tgeom)),
                               (conv.ConvWeightGrad, (x, dy, geom))):
                ts = [cg.Tensor(a, requires_grad=True)
                      if isinstance(a, np.ndarray) else a for a in args]
                y = rule.apply(*ts)
                y.backward(rng.standard_normal(y.shape))
                out += [y.data] + [t.grad for t in ts if isinstance(t, cg.Tensor)]
            runs[name] = out
    for a, b_ in zip(runs["numpy"], runs["numba"], strict=True):
        np.testing.assert_array_equal(a, b_)


# --------------------------------------------------------------------------
# the backend objects and the one choice
# --------------------------------------------------------------------------


def test_the_numba_backend_has_forwards_and_numpy_none():
    numba, numpy = backend.get("numba").load(), backend.get("numpy").load()
    assert set(numba.forwards) == set(backend.FORWARD_NAMES)
    assert numpy.forwards == {} and numpy.settings is None
    assert numba.settings is SETTINGS
    for name in backend.FORWARD_NAMES:
        own = numba.forwards[name]
        assert own is forwards.FORWARDS[name]
        assert own.__module__ == "convgrad.kernels.forwards"
        # a forward on arrays, not a rule: the ops' Functions keep theirs,
        # one body each
        assert not isinstance(own, type)
        assert "backward" not in vars(TEXTBOOK[name])
        assert "vjp" in vars(TEXTBOOK[name])


def _functions(package) -> dict[str, type]:
    """Every Function class a module of ``package`` defines, by
    ``module.Class``."""
    import importlib
    import pkgutil

    from convgrad.function import Function

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, obj in vars(module).items():
            if (isinstance(obj, type) and issubclass(obj, Function)
                    and obj.__module__ == module.__name__):
                found[f"{info.name}.{name}"] = obj
    return found


def _bodies(fn: type) -> list[str]:
    """What is wrong with Function ``fn``'s rule (empty: one body, its
    ``vjp``): an array ``backward`` of its own or inherited, or no vjp."""
    from convgrad.function import Function

    wrong = []
    if fn.backward is not Function.backward:
        wrong.append("an array backward")
    if fn.vjp is None:
        wrong.append("no vjp")
    return wrong


def test_every_function_in_ops_has_one_body():
    """Issue 43's Done when: no Function in ops/ defines both ``backward``
    and ``vjp``; each has its ``vjp`` alone (inherited ones count)."""
    import convgrad.ops

    fns = _functions(convgrad.ops)
    assert len(fns) >= 40, sorted(fns)  # every module of ops/ was read
    assert {k.split(".")[0] for k in fns} == {p.stem for p in OPS.glob("*.py")
                                              if p.stem != "__init__"}
    wrong = {k: _bodies(fn) for k, fn in fns.items() if _bodies(fn)}
    assert wrong == {}


def test_the_one_body_check_catches_a_second_body():
    from convgrad.function import Function

    class Both(Function):
        forward = staticmethod(lambda ctx, a: a)
        backward = staticmethod(lambda ctx, dy: dy)
        vjp = staticmethod(lambda ctx, inputs, dy: dy)

    class Heir(Both):
        backward = Function.backward  # an heir that drops the array body
        vjp = None

    class Later(conv.ZeroPadCrop):  # an op's Function with a body added
        backward = staticmethod(lambda ctx, dy: dy)

    assert _bodies(Both) == ["an array backward"]
    assert _bodies(Heir) == ["no vjp"]
    assert _bodies(Later) == ["an array backward"]
    assert _bodies(conv.ZeroPadCrop) == []


def test_the_numba_backend_overrides_only_forwards():
    """The Numba backend's object in backend.REGISTRY brings kernels (the
    twins' names), forwards of FORWARD_NAMES on arrays, hooks, settings and
    warm-up examples: no rule. Nothing it hands over is a Function or
    carries a rule, and no module of convgrad.kernels defines a Function
    (nor can import one: tests/test_imports.py holds kernels/ below the
    engine's layer)."""
    import convgrad.kernels

    numba = backend.REGISTRY["numba"].load()
    numpy = backend.REGISTRY["numpy"].load()
    assert set(vars(numba)) == set(vars(numpy)) == {
        "name", "module", "_loaded", "kernels", "forwards", "hooks", "settings",
        "examples"}
    assert set(numba.kernels) == set(numpy.kernels) == set(backend.KERNEL_NAMES)
    assert set(numba.forwards) == set(backend.FORWARD_NAMES)
    assert set(numba.hooks) <= set(backend.HOOK_NAMES)
    handed = [*numba.kernels.values(), *numba.forwards.values(),
              *numba.hooks.values()]
    for fn in handed:
        assert not isinstance(fn, type), fn
        assert not hasattr(fn, "vjp") and not hasattr(fn, "backward"), fn
    assert _functions(convgrad.kernels) == {}


def test_the_forward_is_chosen_by_backend_and_size(monkeypatch):
    numba = backend.get("numba").load()
    monkeypatch.setattr(SETTINGS, "min_work", 1000)
    for name in backend.FORWARD_NAMES:
        assert numba.forward(name, 1000) is numba.forwards[name]
        assert numba.forward(name, 999) is None
        with cg.use_backend("numba"):  # the module's seam: the thread's backend
            assert backend.forward(name, 1000) is numba.forwards[name]
        with cg.use_backend("numpy"):
            assert backend.forward(name, 1 << 40) is None
        monkeypatch.setattr(SETTINGS, "min_work", 0)
        assert numba.forward(name, 0) is None  # an empty conv: nothing to speed up
        assert numba.forward(name, 1) is numba.forwards[name]
        monkeypatch.setattr(SETTINGS, "min_work", 1000)
    with pytest.raises(ValueError, match="op must be one of .*'conv3d'"):
        numba.forward("conv3d", 1)
    with pytest.raises(ValueError, match="op must be one of"):
        backend.forward("conv3d", 1)


def test_the_multiply_adds_are_counted_once_for_every_op():
    """N·OH·OW·KH·KW·C_in·C_out/G: conv2d's forward, its dw op (same
    geometry), and the transposed conv (its input's plane)."""
    geom = conv2d_geometry((2, 4, 9, 8), (6, 2, 3, 2), None, 2, 1, 1, 2)
    oh, ow = geom.win.out
    assert conv.macs(2, geom) == 2 * 6 * oh * ow * 2 * 3 * 2
    t = conv_transpose2d_geometry((2, 4, 5, 6), (4, 3, 3, 3), None, 2, 1, 1, 2, 1)
    assert t.win.out == (5, 6)
    assert conv.macs(2, t) == 2 * 4 * 5 * 6 * (3 * 2 // 2) * 3 * 3
    assert conv.macs(0, geom) == 0


@pytest.mark.parametrize("transposed", [False, True])
def test_a_big_call_and_its_gradient_run_the_numba_forwards(monkeypatch, transposed):
    """Above the threshold the op and each conv of its gradient run the
    backend's forward (dx: the other conv; dw: the weight-gradient op),
    and save ``x``, not ``col``; below it none does, and the forward
    saves its columns. The result's grad_fn is the same Function either
    way, and so are the numbers."""
    ran = _spy_forwards(monkeypatch)
    rng = np.random.default_rng(1)
    xa, wa = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((3, 3, 3, 3))
    dy = rng.standard_normal((2, 3, 6, 6))
    op = F.conv_transpose2d if transposed else F.conv2d
    fn = conv.ConvTranspose2d if transposed else conv.Conv2d
    dx_op = "conv2d" if transposed else "conv_transpose2d"
    grads = {}
    for min_work in (0, 1 << 40):
        monkeypatch.setattr(SETTINGS, "min_work", min_work)
        x, w = cg.Tensor(xa, requires_grad=True), cg.Tensor(wa, requires_grad=True)
        ran.clear()
        with cg.use_backend("numba"):
            y = op(x, w, padding=1)
            assert y.node.fn is fn
            saved = dict(vars(y.node.ctx))  # before backward frees it
            y.backward(dy)
        if min_work == 0:
            assert sorted(ran) == sorted(
                [op.__name__, dx_op, "conv2d_weight"]), ran
            assert "col" not in saved and saved["x"] is x.data
        else:
            assert ran == []
            assert transposed or saved["col"] is not None
        grads[min_work] = (y.data, x.grad, w.grad)
    for a, b in zip(*grads.values(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_create_graph_builds_the_same_functions_on_both_paths(monkeypatch):
    """Double backward: the gradient's graph is made of the ops' own
    Functions whichever forward ran, and asks the backend again."""
    ran = _spy_forwards(monkeypatch)
    rng = np.random.default_rng(1)
    x = cg.Tensor(rng.standard_normal((2, 3, 6, 6)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((4, 3, 3, 3)), requires_grad=True)
    for min_work in (0, 1 << 40):
        monkeypatch.setattr(SETTINGS, "min_work", min_work)
        ran.clear()
        with cg.use_backend("numba"):
            y = F.conv2d(x, w, padding=1)
            dx, dw = cg.grad((y * y).sum(), [x, w], create_graph=True)
        assert {dx.node.fn, dw.node.fn} == {conv.ConvTranspose2d, conv.ConvWeightGrad}
        assert (len(ran) == 3) is (min_work == 0), ran


def test_the_fast_forwards_compute_only_the_gradients_asked_for(monkeypatch):
    """needs_input_grad reaches the pipeline: with only w requiring a
    gradient, the rule asks for dw alone (the pipeline's backward pass,
    dw only), and no conv runs for dx."""
    asked = []
    real = conv_fast.conv2d_backward

    def spy(x, w, dy, args, groups, need_dx=True, need_dw=True):
        asked.append((need_dx, need_dw))
        return real(x, w, dy, args, groups, need_dx, need_dw)

    monkeypatch.setattr(conv_fast, "conv2d_backward", spy)
    ran = _spy_forwards(monkeypatch)
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    rng = np.random.default_rng(2)
    x = cg.Tensor(rng.standard_normal((2, 2, 5, 5)))
    w = cg.Tensor(rng.standard_normal((3, 2, 3, 3)), requires_grad=True)
    b = cg.Tensor(rng.standard_normal(3))
    with cg.use_backend("numba"):
        F.conv2d(x, w, b, padding=1).backward(rng.standard_normal((2, 3, 5, 5)))
    assert asked == [(False, True)]
    assert ran == ["conv2d", "conv2d_weight"]
    assert x.grad is None and w.grad.shape == (3, 2, 3, 3)


@pytest.mark.parametrize("transposed", [False, True])
def test_the_fast_forwards_gradients_become_grad_without_a_copy(
        monkeypatch, transposed):
    """The walk's own: a leaf's first .grad is the array the fast forward made
    (no serial copy), owning its memory; a second backward adds into it, and a
    rule that hands back its own dy (textbook add) is still copied."""
    made = []
    # x's gradient is the other conv's forward: its entry, or the fused
    # pass it runs when w's gradient is asked for too
    for name in ("conv2d_forward", "conv_transpose2d_forward", "conv2d_backward",
                 "conv_transpose2d_backward"):
        real = getattr(conv_fast, name)

        def spy(*args, _real=real, **kwargs):
            out = _real(*args, **kwargs)
            made.extend(out if isinstance(out, tuple) else (out,))
            return out

        monkeypatch.setattr(conv_fast, name, spy)
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    rng = np.random.default_rng(7)
    xa = rng.standard_normal((2, 3, 6, 6))
    wa = rng.standard_normal((3, 4, 3, 3) if transposed else (4, 3, 3, 3))
    dy = rng.standard_normal((2, 4, 6, 6))
    op = F.conv_transpose2d if transposed else F.conv2d
    x, w = cg.Tensor(xa, requires_grad=True), cg.Tensor(wa, requires_grad=True)
    with cg.use_backend("numba"):
        op(x, w, padding=1).backward(dy)
        assert any(x.grad is m for m in made)
        assert x.grad.flags.owndata and x.grad.flags.writeable
        first = x.grad.copy()
        op(x, w, padding=1).backward(dy)
    np.testing.assert_allclose(x.grad, 2 * first, rtol=1e-12)
    with cg.use_backend("numpy"):
        ref = cg.Tensor(xa, requires_grad=True)
        op(ref, cg.Tensor(wa), padding=1).backward(dy)
    np.testing.assert_allclose(first, ref.grad, rtol=1e-10, atol=1e-12)
    z = cg.Tensor(xa, requires_grad=True)
    g = rng.standard_normal(xa.shape)
    (z + 0.0).backward(g)
    assert not np.shares_memory(z.grad, g)


def test_a_cropped_same_padding_dx_is_copied_into_grad(monkeypatch):
    """'same' with an even kernel crops the fast forward's dx: the walk's
    .grad still owns its memory."""
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    rng = np.random.default_rng(8)
    x = cg.Tensor(rng.standard_normal((2, 2, 5, 5)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((3, 2, 2, 2)))
    with cg.use_backend("numba"):
        F.conv2d(x, w, padding="same").backward(rng.standard_normal((2, 3, 5, 5)))
    assert x.grad.base is None and x.grad.flags.owndata and x.grad.shape == (2, 2, 5, 5)


# --------------------------------------------------------------------------
# one pass over dy for a gradient's dx and dw (backend.Shared)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("transposed, ws, padding", [
    (False, (6, 4, 3, 3), 1),  # Winograd
    (False, (6, 4, 2, 3), "same"),  # direct, x padded by the extra row
    (True, (4, 6, 3, 3), 1),  # Winograd, the flipped conv2d's
    (True, (4, 3, 3, 3), 1),  # Winograd, as conv2d's adjoint (C_in > C_out)
], ids=str)
def test_a_gradient_reads_dy_once_for_dx_and_dw(monkeypatch, transposed, ws, padding):
    """With x and w both needing a gradient, the dx forward runs the
    pipeline's fused pass (dy's tiles or rows made once for both GEMMs) and
    the weight-gradient forward takes the dw it left, running nothing; with
    w alone, dw is its own pass. The numbers are those of the NumPy
    backend's textbook forwards either way."""
    fused = "conv_transpose2d_backward" if transposed else "conv2d_backward"
    asked = []
    for name in ("conv2d_forward", "conv2d_backward", "conv_transpose2d_forward",
                 "conv_transpose2d_backward"):
        real = getattr(conv_fast, name)

        def spy(*args, _name=name, _real=real, **kwargs):
            flags = args[5:7] if "backward" in _name else ()
            asked.append((_name, *flags))
            return _real(*args, **kwargs)

        monkeypatch.setattr(conv_fast, name, spy)
    ran = _spy_forwards(monkeypatch)
    monkeypatch.setattr(SETTINGS, "min_work", 0)
    rng = np.random.default_rng(11)
    xa = rng.standard_normal((3, 4, 7, 6)).astype(np.float32)
    wa = rng.standard_normal(ws).astype(np.float32)
    op = F.conv_transpose2d if transposed else F.conv2d
    dy = None
    grads = {}
    for who, both in (("numba", True), ("numba", False), ("numpy", True)):
        x = cg.Tensor(xa, requires_grad=both)
        w = cg.Tensor(wa, requires_grad=True)
        asked.clear()
        ran.clear()
        with cg.use_backend(who):
            y = op(x, w, padding=padding)
            if dy is None:
                dy = rng.standard_normal(y.shape).astype(np.float32)
            asked.clear()
            y.backward(dy)
        if who == "numba" and both:
            assert asked == [(fused, True, True)], asked
            assert sorted(ran[1:]) == sorted(
                ["conv2d" if transposed else "conv_transpose2d", "conv2d_weight"])
        elif who == "numba":  # dw alone: its own pass, dw only
            assert asked == [("conv2d_backward", False, True)], asked
        grads[who, both] = w.grad
        if both:
            grads[who, "dx"] = x.grad
    np.testing.assert_allclose(grads["numba", True], grads["numba", False],
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grads["numba", True], grads["numpy", True],
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(grads["numba", "dx"], grads["numpy", "dx"],
                               rtol=1e-4, atol=1e-4)


def test_shared_hands_its_value_once_and_only_for_the_same_arrays():
    x, dy = np.ones((1, 1, 3, 3)), np.ones((1, 1, 3, 3))
    share = backend.Shared(x)
    assert share.take((x, dy, (3, 3), 1)) is None  # nothing given yet
    dw = np.arange(9.0)
    share.give((x, dy, (3, 3), 1), dw)
    assert share.take((x.copy(), dy, (3, 3), 1)) is None  # equal, not the same
    assert share.take((x, dy[...], (3, 3), 1)) is None  # a view is another array
    assert share.take((x, dy, (3, 3), 2)) is None  # another geometry
    assert share.take((x, dy, (3, 3), 1)) is dw
    assert share.take((x, dy, (3, 3), 1)) is None  # dropped once taken


def test_gradients_in_threads_at_once_are_each_their_own(monkeypatch):
    """Each vjp makes its own handle: convs of other shapes and values
    differentiated in two threads at once get the gradients each gets
    alone."""
    import threading

    monkeypatch.setattr(SETTINGS, "min_work", 0)
    rng = np.random.default_rng(12)
    cases = [(rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((5, 3, 3, 3))),
             (rng.standard_normal((3, 5, 6, 6)), rng.standard_normal((4, 5, 3, 3)))]
    dys = [rng.standard_normal((2, 5, 8, 8)), rng.standard_normal((3, 4, 6, 6))]

    def grads(i):
        x, w = (cg.Tensor(a, requires_grad=True) for a in cases[i])
        F.conv2d(x, w, padding=1).backward(dys[i])
        return x.grad, w.grad

    with cg.use_backend("numba"):
        alone = [grads(0), grads(1)]
    got = [[] for _ in cases]
    errors = []

    def work(i):
        try:
            with cg.use_backend("numba"):
                for _ in range(20):
                    got[i].append(grads(i))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for i in range(2):
        for dx, dw in got[i]:
            np.testing.assert_allclose(dx, alone[i][0], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(dw, alone[i][1], rtol=1e-12, atol=1e-12)
