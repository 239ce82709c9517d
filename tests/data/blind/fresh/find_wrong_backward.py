"""Blind corpus: find_wrong_backward (fresh), written without reading the checker."""
# ruff: noqa: E501
import convgrad as cg


def wrong_counts_from_one(layers):
    """Numbered the suspects from 1 (enumerate(layers, 1)), so the index returned is one too high."""
    for number, (fn, inputs) in enumerate(layers, 1):
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if not report.ok:
            return number
    return None


def wrong_lets_gradcheck_raise(layers):
    """Called cg.gradcheck without raise_exception=False, so the wrong suspect raises an AssertionError instead of giving its index."""
    i = 0
    for layer in layers:
        fn, inputs = layer
        if not cg.gradcheck(fn, inputs).ok:
            return i
        i += 1
    return -1


def wrong_checks_first_input_only(layers):
    """Checked only the gradient of each suspect's first input (x), holding the weights fixed, so a bug in dw or db goes unseen."""
    for idx, layer in enumerate(layers):
        fn, inputs = layer
        rest = list(inputs[1:])

        def only_x(x, fn=fn, rest=rest):
            return fn(x, *rest)

        if not cg.gradcheck(only_x, [inputs[0]], raise_exception=False).ok:
            return idx
    return None


def wrong_loosened_tolerance(layers):
    """Loosened gradcheck's tolerances (rtol=1, atol=1e-2) to be safe from rounding, so a gradient scaled by 1/2 or 1/3 still passes."""
    verdicts = [
        cg.gradcheck(fn, inputs, atol=1e-2, rtol=1.0, raise_exception=False).ok
        for fn, inputs in layers
    ]
    return verdicts.index(False) if False in verdicts else None
