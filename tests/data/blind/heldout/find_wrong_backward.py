"""Blind corpus: find_wrong_backward (heldout), written without reading the checker."""
# ruff: noqa: E501


import convgrad as cg


def wrong_checks_only_first_input(layers):
    """Checks only the gradient of each suspect's first input (dx), holding the weights fixed, so a bug in dw or db goes unseen."""
    for i, (fn, inputs) in enumerate(layers):
        first, rest = inputs[0], list(inputs[1:])

        def only_x(x, fn=fn, rest=rest):
            return fn(x, *rest)

        if not cg.gradcheck(only_x, [first], raise_exception=False).ok:
            return i
    return None


def wrong_returns_input_index(layers):
    """Returns the report's input_index (which input of the Function is off) instead of the suspect's position in the list."""
    for fn, inputs in layers:
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if not report.ok:
            return report.input_index
    return None


def wrong_index_in_reversed_order(layers):
    """Checks from the top layer down, like backprop, but returns the position in the reversed list."""
    for i, (fn, inputs) in enumerate(reversed(layers)):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
    return None
