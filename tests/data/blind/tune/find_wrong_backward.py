"""Blind corpus: find_wrong_backward (tune), written without reading the checker."""
# ruff: noqa: E501


import convgrad as cg


def wrong_returns_first_passing(layers):
    """Tests `.ok` the wrong way round: returns the first suspect whose backward passes."""
    for i, (fn, inputs) in enumerate(layers):
        if cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
    return None


def wrong_one_based_index(layers):
    """Counts the suspects from 1, so the index it returns is one too large."""
    for i, (fn, inputs) in enumerate(layers, start=1):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
    return None


def wrong_gradcheck_raises(layers):
    """Leaves raise_exception at its default, so gradcheck raises AssertionError on the wrong suspect instead of reporting."""
    for i, layer in enumerate(layers):
        fn, inputs = layer
        report = cg.gradcheck(fn, inputs)
        if not report.ok:
            return i
    return -1


def wrong_loose_tolerance(layers):
    """Loosens gradcheck's tolerances to 0.5 'to avoid false alarms', so a gradient off by a factor of 2 still passes."""
    for i, (fn, inputs) in enumerate(layers):
        report = cg.gradcheck(fn, inputs, atol=0.5, rtol=0.5, raise_exception=False)
        if not report.ok:
            return i
    return None


def wrong_gives_up_after_first(layers):
    """Has a return in both branches of the if, so it only ever checks the first suspect and returns -1 when that one passes."""
    for i, (fn, inputs) in enumerate(layers):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
        else:
            return -1
