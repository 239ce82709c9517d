"""Blind corpus: find_wrong_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_returns_passing(layers):
    """Inverts the test: returns the index of the first suspect whose gradcheck is ok, not the one that fails."""
    for i, layer in enumerate(layers):
        fn, inputs = layer
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if report.ok:
            return i
    return -1


def wrong_one_based(layers):
    """Numbers the suspects from 1 (enumerate(layers, 1), "the 2nd layer"), so the returned index is one too large."""
    for number, (fn, inputs) in enumerate(layers, 1):
        if not cg.gradcheck(fn, inputs, raise_exception=False):
            return number
    return None


def wrong_first_input_only(layers):
    """Gradchecks each Function with respect to its first input only (the others held fixed), so a bug in the weight or bias gradient is never seen."""
    verdicts = []
    for fn, inputs in layers:
        first, rest = inputs[0], [np.asarray(getattr(a, "data", a)) for a in inputs[1:]]

        def only_first(t, fn=fn, rest=rest):
            return fn(t, *rest)

        verdicts.append(cg.gradcheck(only_first, [first], raise_exception=False).ok)
    return int(np.argmin(verdicts))


def wrong_lets_gradcheck_raise(layers):
    """Calls cg.gradcheck(fn, inputs) with its default raise_exception=True, so the wrong suspect raises an AssertionError instead of having its index returned."""
    for i, (fn, inputs) in enumerate(layers):
        report = cg.gradcheck(fn, inputs)
        if not report.ok:
            return i
    return None
