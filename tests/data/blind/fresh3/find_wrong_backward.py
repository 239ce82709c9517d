"""Blind corpus: find_wrong_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_returns_first_passing(layers):
    """Inverts the test and returns the index of the first suspect whose gradcheck is ok."""
    for i, (fn, inputs) in enumerate(layers):
        if cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
    return None


def wrong_one_based_index(layers):
    """Counts the suspects from 1, as a person would, returning the position i + 1 instead of the index i."""
    for position, layer in enumerate(layers, start=1):
        fn, inputs = layer
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if not report.ok:
            return position
    return 0


def wrong_checks_only_the_data_input(layers):
    """Checks each Function's gradient with respect to its first input only, holding weights and biases fixed, so a bug in dw or db is never seen."""
    for i, (fn, inputs) in enumerate(layers):
        rest = list(inputs[1:])

        def data_only(x, fn=fn, rest=rest):
            return fn(x, *rest)

        if not cg.gradcheck(data_only, [inputs[0]], raise_exception=False).ok:
            return i
    return -1


def wrong_return_after_loop(layers):
    """Stores the failing index in `found` but returns the loop variable i after the loop, which is always the last index."""
    for i, (fn, inputs) in enumerate(layers):
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if not report.ok:
            found = i  # noqa: F841
    return i


def wrong_report_truthiness(layers):
    """Takes a truthy report to mean a mismatch (`if report:`), but the report object is always truthy, so it returns the first suspect whatever its .ok says."""
    for i, (fn, inputs) in enumerate(layers):
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if report:
            return i
    return None


def wrong_ones_upstream_own_check(layers):
    """Writes its own finite-difference check with an all-ones upstream gradient (the sum of the output), which hides rules that get the weighting wrong, and returns the suspect with the largest error."""
    errors = []
    for fn, inputs in layers:
        xs = [cg.Tensor(np.array(getattr(a, "data", a), dtype=np.float64), requires_grad=True) for a in inputs]
        out = fn(*xs)
        out.backward(np.ones(out.shape))
        worst = 0.0
        for k, x in enumerate(xs):
            analytic = np.zeros_like(x.data) if x.grad is None else x.grad
            for idx in np.ndindex(x.data.shape):
                old = x.data[idx]
                x.data[idx] = old + 1e-6
                plus = fn(*xs).data.sum()
                x.data[idx] = old - 1e-6
                minus = fn(*xs).data.sum()
                x.data[idx] = old
                numeric = (plus - minus) / 2e-6
                worst = max(worst, abs(numeric - analytic[idx]))
        errors.append(worst)
    return int(np.argmax(errors))
