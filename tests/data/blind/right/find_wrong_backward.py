"""Blind corpus: find_wrong_backward (right), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def right_argmin_of_oks(layers):
    """Checks every suspect, then takes np.argmin of the list of ok flags (False sorts first)."""
    oks = np.array([cg.gradcheck(fn, inputs, raise_exception=False).ok
                    for fn, inputs in layers])
    return int(np.argmin(oks))


def right_try_except(layers):
    """Lets gradcheck raise and catches the AssertionError of the failing suspect."""
    for i, layer in enumerate(layers):
        fn, inputs = layer
        try:
            cg.gradcheck(fn, inputs)
        except AssertionError:
            return i
    raise ValueError("every suspect passed gradcheck")


def right_worst_error_ratio(layers):
    """Picks the suspect whose report has the largest |analytic - numeric| relative to the tolerance gradcheck allows."""
    scores = []
    for fn, inputs in layers:
        r = cg.gradcheck(fn, inputs, raise_exception=False)
        allowed = 1e-5 + 1e-3 * abs(r.numeric)
        scores.append((not r.ok, r.abs_error / allowed))
    return max(range(len(scores)), key=lambda i: scores[i])
