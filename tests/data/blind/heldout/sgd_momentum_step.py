"""Blind corpus: sgd_momentum_step (heldout), written without reading the checker."""
# ruff: noqa: E501



def wrong_steps_with_old_velocity(w, dw, v, lr, momentum):
    """Takes the step with the old velocity, then updates v: the update order is reversed."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_steps_uphill(w, dw, v, lr, momentum):
    """Adds lr*v to w instead of subtracting it: gradient ascent."""
    v_new = momentum * v + dw
    w_new = w + lr * v_new
    return w_new, v_new


def wrong_nesterov_lookahead(w, dw, v, lr, momentum):
    """Steps along dw + m*v_new (Nesterov's look-ahead), not along the new velocity."""
    v_new = momentum * v + dw
    w_new = w - lr * (dw + momentum * v_new)
    return w_new, v_new
