"""Blind corpus: sgd_momentum_step (tune), written without reading the checker."""
# ruff: noqa: E501



def wrong_dampened_velocity(w, dw, v, lr, momentum):
    """Makes the velocity a running average, v = m*v + (1 - m)*dw, so the gradient is scaled by (1 - m)."""
    v_new = momentum * v + (1 - momentum) * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_lr_folded_into_velocity(w, dw, v, lr, momentum):
    """Uses the other textbook form, v = m*v - lr*dw and w += v: the velocity it returns is -lr times PyTorch's."""
    v = momentum * v - lr * dw
    w = w + v
    return w, v


def wrong_returns_v_then_w(w, dw, v, lr, momentum):
    """Computes both correctly but returns them in the order (v, w)."""
    v_new = momentum * v + dw
    w_new = w - lr * v_new
    return v_new, w_new


def wrong_updates_in_place(w, dw, v, lr, momentum):
    """Updates the caller's arrays in place with *= and -=, then returns them."""
    v *= momentum
    v += dw
    w -= lr * v
    return w, v


def wrong_returns_old_velocity(w, dw, v, lr, momentum):
    """Computes the new velocity for the step but returns the velocity it was given."""
    new_v = momentum * v + dw
    w_new = w - lr * new_v
    return w_new, v
