"""Blind corpus: find_wrong_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_returns_inside_else(layers):
    """Puts `return None` in the else branch inside the loop, so the search stops after the first suspect whenever that one passes."""
    for i, layer in enumerate(layers):
        fn, inputs = layer
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if not report.ok:
            return i
        else:
            return None


def wrong_counts_from_one(layers):
    """Numbers the suspects from 1 (enumerate(..., start=1)), so the index returned is one too high."""
    for number, (fn, inputs) in enumerate(layers, start=1):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return number
    return -1


def wrong_skips_last_suspect(layers):
    """Loops over range(len(layers) - 1), so the last suspect is never checked, and falls back to 0 when nothing failed (it differs only where the last suspect is the wrong one, e.g. case 3 of cases(np.random.default_rng(0)), where it returns 0 instead of 3)."""
    for i in range(len(layers) - 1):
        fn, inputs = layers[i]
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
    return 0


def wrong_default_raises(layers):
    """Calls cg.gradcheck without raise_exception=False and then reads .ok, so the wrong suspect raises an AssertionError instead of being reported."""
    for i, (fn, inputs) in enumerate(layers):
        report = cg.gradcheck(fn, inputs)
        if not report.ok:
            return i
    return None


def wrong_checks_only_first_input(layers):
    """Checks only the gradient with respect to each layer's first input (the one that flows back down the network), holding weights and biases fixed, so a bug confined to dw or db goes unseen."""
    for i, (fn, inputs) in enumerate(layers):
        rest = [np.asarray(getattr(a, "data", a)) for a in inputs[1:]]

        def first_only(a, fn=fn, rest=rest):
            return fn(a, *rest)

        if not cg.gradcheck(first_only, inputs[:1], raise_exception=False).ok:
            return i
    return None


def wrong_argmin_of_errors(layers):
    """Collects each suspect's worst abs_error and returns np.argmin (the best-behaved Function) instead of the one with the largest error."""
    errors = []
    for fn, inputs in layers:
        errors.append(cg.gradcheck(fn, inputs, raise_exception=False).abs_error)
    return int(np.argmin(errors))
