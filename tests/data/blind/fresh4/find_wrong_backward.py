"""Blind corpus: find_wrong_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_returns_passing_one(layers):
    """Inverts the test: returns the index of the first suspect whose gradcheck is ok."""
    for i, layer in enumerate(layers):
        fn, inputs = layer
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if report.ok:
            return i
    return -1


def wrong_one_based_index(layers):
    """Reports the suspect's position counting from 1 (i + 1) instead of its 0-based index."""
    for i, (fn, inputs) in enumerate(layers, start=1):
        if not cg.gradcheck(fn, inputs, raise_exception=False):
            return i
    return None


def wrong_biggest_gradient(layers):
    """Skips gradcheck and blames the suspect whose backward gives the largest gradient norm, on the theory that a buggy backward blows up."""
    norms = []
    for fn, inputs in layers:
        ts = [cg.Tensor(np.array(a.data if hasattr(a, "data") else a, dtype=float), requires_grad=True) for a in inputs]
        out = fn(*ts)
        out.sum().backward()
        norms.append(sum(float(np.abs(t.grad).sum()) for t in ts if t.grad is not None))
    return int(np.argmax(norms))


def wrong_loop_skips_last(layers):
    """Loops over range(len(layers) - 1), so a bug in the last suspect is never checked and 0 is returned by default."""
    wrong = 0
    for i in range(len(layers) - 1):
        fn, inputs = layers[i]
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            wrong = i
    return wrong


def wrong_loose_tolerance(layers):
    """Loosens gradcheck's tolerance to rtol=1.0, atol=1.0 'because finite differences are noisy', so bugs that only scale a gradient pass, and falls back to the first suspect."""
    for i, (fn, inputs) in enumerate(layers):
        if not cg.gradcheck(fn, inputs, atol=1.0, rtol=1.0, raise_exception=False).ok:
            return i
    return 0


def wrong_returns_the_function(layers):
    """Returns the failing suspect's function itself instead of its index in the list."""
    for fn, inputs in layers:
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return fn
    return None
