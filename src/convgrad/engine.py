"""The engine: the graph, the walk back through it, and accumulation.

A tensor an op made holds a :class:`Node`: the Function, its saved
context and its inputs. :func:`backprop` visits the tensors from the
outputs back to the leaves, each after every tensor that used it, so its
gradient is complete when its rule runs. Lesson 1 shows this file.

Gradients are added, never assigned. An addition is in place only into
an array the walk made itself (a sum of two pieces, a broadcast summed
back): a rule's array may be its upstream gradient passed on, or saved
in its context, and a hook may keep what it saw, so such an array is
copied before anything is added into it, in the walk or in ``.grad``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


class Node(NamedTuple):
    """How a Tensor was made: the Function, its context and its inputs."""

    fn: type
    ctx: Any
    inputs: tuple


def parents(node: Node) -> list:
    """The inputs that needed a gradient when the node was recorded."""
    need = node.ctx.needs_input_grad
    return [t for t, n in zip(node.inputs, need, strict=True) if n]


def topological_order(roots: list) -> list:
    """Every tensor behind ``roots``, inputs before outputs (no recursion)."""
    order, seen = [], set()
    stack = [(t, False) for t in reversed(roots)]
    while stack:
        t, expanded = stack.pop()
        if expanded:
            order.append(t)
        elif id(t) not in seen:
            seen.add(id(t))
            stack.append((t, True))
            if t._node is not None:
                stack += [(p, False) for p in parents(t._node)]
    return order


def backprop(roots, seeds, create_graph=False, targets=None, retain=True):
    """Send the seeds back from the roots into every leaf's ``.grad``; with
    ``targets`` (ids), into the dict returned instead (see _needed)."""
    order = topological_order(roots)
    needed, found = _needed(order, targets), {}
    grads, mine = {}, set()  # id -> gradient so far; ids of the walk's own
    for root, seed in zip(roots, seeds, strict=True):
        _add(grads, mine, id(root), seed, False)
    with np.errstate(all="ignore"):  # IEEE arithmetic, silent as forward's
        for t in reversed(order):  # each tensor after all its uses
            key, node = id(t), t._node
            if key not in grads or (needed is not None and key not in needed):
                continue
            g, own = grads.pop(key), key in mine
            if targets is not None and key in targets:
                found[key] = g  # before its hooks, as torch's grad()
            if t._hooks:  # a hook may keep g: it is not the walk's any more
                g, own = t._run_hooks(g, create_graph), False
            if node is None:  # a leaf
                if targets is None:
                    accumulate(t, g, own, create_graph)
                elif key in targets:
                    found[key] = g  # a leaf's: after its hooks
                continue
            if t._retains_grad:
                accumulate(t, g, False, create_graph)
            for inp, piece, own in _run_rule(node, g, create_graph, needed, retain):
                _add(grads, mine, id(inp), piece, own)
    return found


def accumulate(t, g, own: bool, create_graph: bool) -> None:
    """``t.grad += g``. The first gradient becomes ``.grad`` itself only
    if the walk made it (``own``); anything else is copied, so ``.grad``
    never aliases a rule's, a hook's or the caller's array."""
    if create_graph:  # out of place: the sum is recorded
        t.grad = g if t.grad is None else g + t.grad
    elif t.grad is None:
        t.grad = g if own else np.array(g, dtype=t.dtype, copy=True)
    elif not isinstance(t.grad, np.ndarray):  # a Tensor: create_graph's
        t.grad = type(t)._from_op(t.grad.data + g, False)
    else:
        t.grad += g


def _add(grads: dict, mine: set, key: int, g: Any, own: bool) -> None:
    """Add one piece into a tensor's gradient so far: in place only into
    an array the walk made; else the sum is a new array, the walk's."""
    if key not in grads:
        grads[key] = g
        if own:
            mine.add(key)
    elif key in mine:
        grads[key] += g
    else:
        grads[key] = total = grads[key] + g
        if type(total) is np.ndarray:  # (0-d arrays sum to scalars)
            mine.add(key)


def _fit(g: Any, like: np.ndarray) -> tuple[np.ndarray, bool]:
    """A rule's gradient summed back to ``like``'s shape and cast to its
    dtype, and whether that made a new array (the walk's own: a sum or a
    cast does; a bare reshape would not)."""
    g, own = np.asarray(g), False
    if g.shape != like.shape:
        g, rule = unbroadcast(g, like.shape), g
        own = not np.may_share_memory(g, rule)
    if g.dtype != like.dtype:
        g, own = g.astype(like.dtype), True
    return g, own


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting added or stretched."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(
        i for i, (g, s) in enumerate(zip(grad.shape, shape, strict=True))
        if s == 1 and g != 1
    )
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


def _run_rule(node: Node, g: Any, create_graph: bool, needed, retain) -> list:
    """(input, gradient, whether the walk made it) for each input the
    node's rule gives a gradient to: its ``backward`` on arrays, or its
    ``vjp`` on Tensors (``create_graph``), fitted to the input's shape and
    dtype. The rule does not run when no input is ``needed``; without
    ``retain``, the node frees its saved arrays once it ran."""
    fn, ctx = node.fn, node.ctx
    asked = need = ctx.needs_input_grad
    if needed is not None:  # grad(): skip inputs no target lies behind
        need = tuple(
            n and id(t) in needed for n, t in zip(asked, node.inputs, strict=True)
        )
        if not any(need):
            return []
    ctx.check_saved(fn)
    if create_graph and fn.vjp is None:
        raise RuntimeError(
            f"double backward through {fn.__name__} is not supported yet: "
            f"{fn.__name__} has no vjp rule, and create_graph=True needs one "
            f"(a backward written with differentiable ops)"
        )
    ctx.needs_input_grad = need
    try:
        out = fn.vjp(ctx, node.inputs, g) if create_graph else fn.backward(ctx, g)
    finally:
        ctx.needs_input_grad = asked
    if not isinstance(out, tuple):
        out = (out,)
    pieces = []
    for t, n, d in zip(node.inputs, need, out, strict=False):
        if n and d is not None:
            if create_graph:
                pieces.append((t, t._fit_grad(d), False))
            else:
                g_, own = _fit(d, t.data)
                if not own and fn.fresh_grads and g_ is d and d.base is None:
                    own = True  # made for this call (Function.fresh_grads)
                pieces.append((t, g_, own))
    if not retain:
        ctx.release()
    return pieces


def _needed(order: list, targets) -> set[int] | None:
    """grad(): the ids of the tensors with a target at or behind them (None:
    all). Raises first if a node the walk would run was freed by an
    earlier pass, so nothing is half accumulated."""
    needed = None if targets is None else set(targets)
    for t in order:
        node = t._node
        if node is None:
            continue
        behind = needed is None or any(id(p) in needed for p in parents(node))
        if needed is not None and behind:
            needed.add(id(t))
        if behind and node.ctx._released:
            node.ctx.check_saved(node.fn)
    return needed
