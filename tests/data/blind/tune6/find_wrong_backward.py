"""Blind corpus: find_wrong_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_condition_inverted(layers):
    """Reads `if report:` as 'the check found something' and returns the first suspect whose gradcheck passes."""
    for i, layer in enumerate(layers):
        fn, inputs = layer
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if report:
            return i
    return None


def wrong_checks_first_input_only(layers):
    """Gradchecks each Function only with respect to its first input (the others held fixed in a lambda), so a wrong weight or bias gradient is never seen."""
    for i, (fn, inputs) in enumerate(layers):
        x, rest = inputs[0], list(inputs[1:])
        report = cg.gradcheck(lambda t, rest=rest, fn=fn: fn(t, *rest), [x],
                              raise_exception=False)
        if not report.ok:
            return i
    return -1


def wrong_own_check_sum_of_outputs(layers):
    """Writes its own finite-difference check of out.sum() (upstream gradient all ones) instead of cg.gradcheck, so a bug that only gets the weighting of dy wrong goes unseen."""
    eps = 1e-6
    for i, (fn, inputs) in enumerate(layers):
        xs = [cg.Tensor(np.array(a, dtype=np.float64), requires_grad=True)
              for a in inputs]
        fn(*xs).sum().backward()
        for x in xs:
            analytic = np.zeros_like(x.data) if x.grad is None else x.grad
            numeric = np.zeros_like(x.data)
            flat, nflat = x.data.reshape(-1), numeric.reshape(-1)
            for j in range(flat.size):
                old = flat[j]
                flat[j] = old + eps
                plus = fn(*xs).data.sum()
                flat[j] = old - eps
                minus = fn(*xs).data.sum()
                flat[j] = old
                nflat[j] = (plus - minus) / (2 * eps)
            if not np.allclose(analytic, numeric, atol=1e-5, rtol=1e-3):
                return i
    return 0
