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

Each rule is one body, the Function's ``vjp`` on Tensors; the walk runs
it with grad mode off for first order and on for ``create_graph`` (the
caller, :func:`convgrad.tensor.grad` or ``backward``, sets the mode). The
engine imports nothing of convgrad: it asks a tensor ``t`` for ``t.node``,
``t.hooks`` and ``t.run_hooks(g, create_graph)``, ``t.retains_grad``,
``t.fit_grad(g)`` (a gradient summed and cast to ``t``'s shape and dtype),
``t.grad`` and ``t.dtype``, and its class for ``wrap(array)``, a Tensor
around an array without a copy.
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
            node = t.node
            if node is not None:
                stack += [(p, False) for p in parents(node)]
    return order


def backprop(roots, seeds, create_graph=False, targets=None, retain=True):
    """Send the seeds back from the roots into every leaf's ``.grad``; with
    ``targets`` (ids), into the dict returned instead (see _needed)."""
    order = topological_order(roots)
    needed, found = _needed(order, targets), {}
    grads = {}  # id -> (gradient so far, whether the walk made its array)
    for root, seed in zip(roots, seeds, strict=True):
        _add(grads, id(root), seed, False)
    with np.errstate(all="ignore"):  # IEEE arithmetic, silent as forward's
        for t in reversed(order):  # each tensor after all its uses
            key, node = id(t), t.node
            if key not in grads or (needed is not None and key not in needed):
                continue
            g, own = grads.pop(key)
            if targets is not None and key in targets:
                found[key] = g  # before its hooks, as torch's grad()
            if t.hooks:  # a hook may keep g: it is not the walk's any more
                g, own = t.run_hooks(g, create_graph), False
            if node is None:  # a leaf
                if targets is None:
                    accumulate(t, g, own, create_graph)
                elif key in targets:
                    found[key] = g  # a leaf's: after its hooks
                continue
            if t.retains_grad:
                accumulate(t, g, False, create_graph)
            for inp, piece, own in _run_rule(t, g, create_graph, needed, retain):
                _add(grads, id(inp), piece, own)
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
        t.grad = type(t).wrap(t.grad.data + g)
    else:
        t.grad += g


def _add(grads: dict, key: int, g: Any, own: bool) -> None:
    """Add one piece into a tensor's gradient so far: in place only into
    an array the walk made; else the sum is a new array, the walk's."""
    if key not in grads:
        grads[key] = g, own
        return
    total, mine = grads[key]
    if mine:
        total += g
    else:
        total = total + g
    # (0-d arrays sum to NumPy scalars, which cannot be added into)
    grads[key] = total, type(total) is np.ndarray


def _run_rule(t, g: Any, create_graph: bool, needed, retain) -> list:
    """(input, gradient, whether the walk made it) for each input that the
    rule of ``t``'s node gives a gradient to, fitted to the input's shape
    and dtype (``fit_grad``). The rule is the Function's ``vjp``, run as it
    stands: with grad mode off for first order (on arrays wrapped as
    Tensors, recording nothing), on for ``create_graph``. It does not run
    when no input is ``needed``; without ``retain``, the node frees its
    saved arrays once it ran."""
    fn, ctx, inputs = t.node
    asked = need = ctx.needs_input_grad
    if needed is not None:  # grad(): skip inputs no target lies behind
        need = tuple(n and id(i) in needed for n, i in zip(asked, inputs, strict=True))
        if not any(need):
            return []
    if ctx._saved or ctx._released:  # (nothing saved: nothing to check)
        ctx.check_saved(fn)
    if fn.vjp is None:
        return _run_array_rule(t, g, create_graph, need, retain)
    dy = g if create_graph else type(t).wrap(g)
    ctx.needs_input_grad, ctx.output = need, t
    try:
        out = fn.vjp(ctx, inputs, dy)
    finally:
        ctx.needs_input_grad, ctx.output = asked, None
    if type(out) is not tuple:
        out = (out,)
    pieces = []
    for i, n, d in zip(inputs, need, out, strict=False):
        if not n or d is None:
            continue
        if create_graph:
            pieces.append((i, i.fit_grad(d), False))
            continue
        # the walk's own: an array a rule's op made (not dy passed on, nor
        # a view, nor an input, which requires grad), or that fitting made
        a, like = d.data, i.data
        own = d is not dy and not d.requires_grad and a.base is None
        if a.shape != like.shape or a.dtype is not like.dtype:
            fitted = i.fit_grad(d).data
            own = own or not np.may_share_memory(fitted, a)
            a = fitted
        pieces.append((i, a, own))
    if not retain:
        ctx.release()
    return pieces


def _run_array_rule(t, g, create_graph: bool, need, retain) -> list:
    """A hand-written ``backward`` on arrays (a lesson's Function): first
    order only; its gradients are never the walk's own."""
    fn, ctx, inputs = t.node
    if create_graph or fn.backward is None:
        raise RuntimeError(
            f"double backward through {fn.__name__} is not supported: "
            f"{fn.__name__} has no vjp rule, and create_graph=True needs one "
            f"(its backward written with differentiable ops)"
            if create_graph else f"{fn.__name__} has no vjp and no backward rule"
        )
    asked, ctx.needs_input_grad = ctx.needs_input_grad, need
    try:
        out = fn.backward(ctx, g)
    finally:
        ctx.needs_input_grad = asked
    if not isinstance(out, tuple):
        out = (out,)
    wrap = type(t).wrap
    pieces = [
        (i, i.fit_grad(wrap(np.asarray(d))).data, False)
        for i, n, d in zip(inputs, need, out, strict=False)
        if n and d is not None
    ]
    if not retain:
        ctx.release()
    return pieces


def _needed(order: list, targets) -> set[int] | None:
    """grad(): the ids of the tensors with a target at or behind them (None:
    all). Raises first if a node the walk would run was freed by an
    earlier pass, so nothing is half accumulated."""
    needed = None if targets is None else set(targets)
    for t in order:
        node = t.node
        if node is None:
            continue
        behind = needed is None or any(id(p) in needed for p in parents(node))
        if needed is not None and behind:
            needed.add(id(t))
        if behind and node.ctx._released:
            node.ctx.check_saved(node.fn)
    return needed
