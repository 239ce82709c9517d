"""The fast path as a backend of its own (issue 27): the rule table, the
one place a conv is routed, and rules in ``ops/`` that never ask which
backend is active.

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
from convgrad.kernels import conv_fast, conv_rules
from convgrad.ops import conv

OPS = Path(conv.__file__).parent

#: the textbook rule of each op, as ops/conv.py names them
TEXTBOOK = {"conv2d": conv.Conv2d, "conv_transpose2d": conv.ConvTranspose2d,
            "conv2d_weight": conv.ConvWeightGrad}

# --------------------------------------------------------------------------
# no rule in ops/ branches on the backend
# --------------------------------------------------------------------------

#: what ops/ may take from convgrad.backend: the twin-kernel table (same
#: algorithm, same signatures in every backend) and the one router
ALLOWED_FROM_BACKEND = {"kernel", "apply_rule"}

#: names that would let a rule see, or act on, the active backend
#: (generic words such as ``rule`` may be locals; importing them from
#: backend is caught by the import check)
BACKEND_NAMES = {
    "fast_kernel", "get_backend", "set_backend", "use_backend",
    "FAST_KERNELS", "FAST_NAMES", "RULE_NAMES", "conv_macs", "MIN_WORK",
    "conv_fast", "conv_rules", "winograd", "numba", "CONVGRAD_BACKEND",
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
            node.attr in BACKEND_NAMES or node.attr in {"fast", "backend"}
        ):
            found.append(f"{where}: reads .{node.attr}")
        elif isinstance(node, ast.Constant) and node.value in ("numba", "numpy"):
            found.append(f"{where}: compares with the backend name {node.value!r}")
    return found


@pytest.mark.parametrize("path", sorted(OPS.glob("*.py")), ids=lambda p: p.name)
def test_no_rule_in_ops_branches_on_the_backend(path):
    assert _problems(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("snippet", [
    "from ..backend import fast_kernel",
    "from ..backend import kernel, get_backend",
    "from .. import backend",
    "import convgrad.backend",
    "from ..kernels import conv_fast",
    "from ..kernels.conv_fast import conv2d_forward",
    "import numba",
    "def f(ctx):\n    if ctx.fast:\n        pass",
    "def f():\n    return backend.get_backend() == 'numba'",
    "def f(work):\n    return fast_kernel('conv2d_forward', work)",
    "def f():\n    return conv_fast.MIN_WORK",
])
def test_the_check_catches_each_way_of_branching(snippet):
    assert _problems(snippet), snippet


def test_the_textbook_rules_ignore_the_backend(monkeypatch):
    """Called directly, every rule of ops/conv.py runs its forward on
    either backend: never the pipeline (its drivers raise here, even with
    the size threshold off), bit for bit the same sums (the kernels are
    twins). Its gradient is made of convs routed by size (issue 43), here
    below the threshold: the textbook's again, on both backends alike.
    (ConvWeightGrad's forward only: its rule is two routed convs.)"""
    def boom(*args, **kwargs):
        raise AssertionError("a textbook rule ran the fast pipeline")

    for name in backend.FAST_NAMES:
        monkeypatch.setattr(conv_fast, name, boom)
    threshold = conv_fast.MIN_WORK
    monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
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
                if rule is conv.ConvWeightGrad:
                    out.append(y.data)
                    continue
                monkeypatch.setattr(conv_fast, "MIN_WORK", threshold)
                y.backward(rng.standard_normal(y.shape))
                monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
                out += [y.data] + [t.grad for t in ts if isinstance(t, cg.Tensor)]
            runs[name] = out
    for a, b_ in zip(runs["numpy"], runs["numba"], strict=True):
        np.testing.assert_array_equal(a, b_)


# --------------------------------------------------------------------------
# the rule table and the one choice
# --------------------------------------------------------------------------


def test_the_numba_backend_has_whole_rules_and_numpy_none():
    assert set(backend.rules("numba")) == set(backend.RULE_NAMES)
    assert backend.rules("numpy") == {}
    for name in backend.RULE_NAMES:
        own, ref = backend.rules("numba")[name], backend.textbook(name)
        assert own is conv_rules.RULES[name] and ref is TEXTBOOK[name]
        assert own.__module__ == "convgrad.kernels.conv_rules"
        assert ref.__module__ == "convgrad.ops.conv"
        assert own.__name__ == ref.__name__  # grad_fn reads the same
        # one rule each, its vjp: the convs' run the fused backward at first
        # order and are the textbook's under create_graph (issue 43)
        assert "backward" not in vars(own) and "backward" not in vars(ref)
        if name == "conv2d_weight":
            assert own.vjp is ref.vjp  # the same graph for double backward


def test_the_rule_is_chosen_by_backend_and_size(monkeypatch):
    monkeypatch.setattr(conv_fast, "MIN_WORK", 1000)
    for name in backend.RULE_NAMES:
        with cg.use_backend("numba"):
            assert backend.rule(name, 1000) is conv_rules.RULES[name]
            assert backend.rule(name, 999) is TEXTBOOK[name]
        monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
        with cg.use_backend("numba"):  # an empty conv: nothing to speed up
            assert backend.rule(name, 0) is TEXTBOOK[name]
        with cg.use_backend("numpy"):
            assert backend.rule(name, 1 << 40) is TEXTBOOK[name]
        monkeypatch.setattr(conv_fast, "MIN_WORK", 1000)
    with pytest.raises(ValueError, match="rule must be one of .*'conv3d'"):
        backend.rule("conv3d", 1)
    with pytest.raises(ValueError, match="rule must be one of"):
        backend.apply_rule("conv3d", np.ones((1, 1, 1, 1)))


def test_the_multiply_adds_are_counted_once_for_every_rule():
    """N·OH·OW·KH·KW·C_in·C_out/G: conv2d's forward, its dw op (same
    geometry), and the transposed conv (its input's plane)."""
    geom = conv2d_geometry((2, 4, 9, 8), (6, 2, 3, 2), None, 2, 1, 1, 2)
    oh, ow = geom.win.out
    assert backend.conv_macs(2, geom) == 2 * 6 * oh * ow * 2 * 3 * 2
    t = conv_transpose2d_geometry((2, 4, 5, 6), (4, 3, 3, 3), None, 2, 1, 1, 2, 1)
    assert t.win.out == (5, 6)
    assert backend.conv_macs(2, t) == 2 * 4 * 5 * 6 * (3 * 2 // 2) * 3 * 3


@pytest.mark.parametrize("where", ["functional", "vjp"])
def test_functional_and_the_vjps_route_through_the_choice(monkeypatch, where):
    """F.conv2d and the gradient graphs the vjps build ask the one router:
    above the threshold on the Numba backend every node is the backend's
    rule, below it every node is the textbook's."""
    rng = np.random.default_rng(1)
    x = cg.Tensor(rng.standard_normal((2, 3, 6, 6)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((4, 3, 3, 3)), requires_grad=True)
    for min_work, table in ((0, conv_rules.RULES), (1 << 40, TEXTBOOK)):
        monkeypatch.setattr(conv_fast, "MIN_WORK", min_work)
        with cg.use_backend("numba"):
            y = F.conv2d(x, w, padding=1)
            nodes = [y.node]
            if where == "vjp":
                dx, dw = cg.grad((y * y).sum(), [x, w], create_graph=True)
                nodes = [dx.node, dw.node]
        kinds = {n.fn for n in nodes}
        assert kinds <= set(table.values()), (min_work, kinds)


def test_the_fast_rules_save_x_not_col(monkeypatch):
    monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
    x = cg.Tensor(np.ones((1, 1, 3, 3)), requires_grad=True)
    w = cg.Tensor(np.ones((1, 1, 2, 2)), requires_grad=True)
    geom = conv2d_geometry(x.shape, w.shape, None, 1, 0, 1, 1)
    _, fast = conv_rules.Conv2d.apply_with_ctx(x, w, None, geom)
    _, ref = conv.Conv2d.apply_with_ctx(x, w, None, geom)
    assert "col" not in vars(fast) and fast.x.shape == (1, 1, 3, 3)
    assert ref.col.shape == (1, 1, 4, 4) and "x" not in vars(ref)


def test_the_fast_rules_compute_only_the_gradients_asked_for(monkeypatch):
    """needs_input_grad reaches the pipeline: with only w requiring a
    gradient, conv2d's backward is asked for dw alone."""
    asked = []
    real = conv_fast.conv2d_backward

    def spy(x, w, dy, args, groups, need_dx=True, need_dw=True, need_db=False):
        asked.append((need_dx, need_dw, need_db))
        return real(x, w, dy, args, groups, need_dx, need_dw, need_db)

    monkeypatch.setattr(conv_fast, "conv2d_backward", spy)
    monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
    rng = np.random.default_rng(2)
    x = cg.Tensor(rng.standard_normal((2, 2, 5, 5)))
    w = cg.Tensor(rng.standard_normal((3, 2, 3, 3)), requires_grad=True)
    b = cg.Tensor(rng.standard_normal(3))
    with cg.use_backend("numba"):
        F.conv2d(x, w, b, padding=1).backward(rng.standard_normal((2, 3, 5, 5)))
    assert asked == [(False, True, False)]
    assert x.grad is None and w.grad.shape == (3, 2, 3, 3)


@pytest.mark.parametrize("transposed", [False, True])
def test_the_fast_rules_gradients_become_grad_without_a_copy(monkeypatch, transposed):
    """The walk's own: a leaf's first .grad is the array the fast rule made (no
    serial copy), owning its memory; a second backward adds into it, and a
    rule that hands back its own dy (textbook add) is still copied."""
    made = []
    name = "conv_transpose2d_backward" if transposed else "conv2d_backward"
    real = getattr(conv_fast, name)

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        made.append(out[0])
        return out

    monkeypatch.setattr(conv_fast, name, spy)
    monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
    rng = np.random.default_rng(7)
    xa = rng.standard_normal((2, 3, 6, 6))
    wa = rng.standard_normal((3, 4, 3, 3) if transposed else (4, 3, 3, 3))
    dy = rng.standard_normal((2, 4, 6, 6))
    op = F.conv_transpose2d if transposed else F.conv2d
    x, w = cg.Tensor(xa, requires_grad=True), cg.Tensor(wa, requires_grad=True)
    with cg.use_backend("numba"):
        op(x, w, padding=1).backward(dy)
        assert x.grad is made[0] and x.grad.flags.owndata and x.grad.flags.writeable
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
    """'same' with an even kernel crops the fast rule's dx: a view, so the
    walk copies it and .grad still owns its memory."""
    monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
    rng = np.random.default_rng(8)
    x = cg.Tensor(rng.standard_normal((2, 2, 5, 5)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((3, 2, 2, 2)))
    with cg.use_backend("numba"):
        F.conv2d(x, w, padding="same").backward(rng.standard_normal((2, 3, 5, 5)))
    assert x.grad.base is None and x.grad.flags.owndata and x.grad.shape == (2, 2, 5, 5)
