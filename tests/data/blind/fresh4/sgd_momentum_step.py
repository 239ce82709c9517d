"""Blind corpus: sgd_momentum_step (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_step_with_old_velocity(w, dw, v, lr, momentum):
    """Takes the step with the old velocity, then updates it: w - lr*v before v = m*v + dw."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_dampened_velocity(w, dw, v, lr, momentum):
    """Uses the exponential-average form v = m*v + (1-m)*dw instead of v = m*v + dw."""
    v_new = momentum * v + (1 - momentum) * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_lr_inside_velocity(w, dw, v, lr, momentum):
    """Folds lr into the velocity (v = m*v + lr*dw) and then multiplies by lr again in the step."""
    v_new = momentum * v + lr * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_momentum_on_gradient(w, dw, v, lr, momentum):
    """Scales the gradient by the momentum instead of the old velocity: v = v + momentum*dw."""
    v_new = v + momentum * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_velocity_restarted(w, dw, v, lr, momentum):
    """Starts the velocity from zero on every call (v = m*zeros + dw), ignoring the v passed in."""
    v_new = momentum * np.zeros_like(v) + dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_nesterov(w, dw, v, lr, momentum):
    """Uses the Nesterov step w -= lr*(dw + m*v_new) instead of plain momentum's w -= lr*v_new."""
    v_new = momentum * v + dw
    w_new = w - lr * (dw + momentum * v_new)
    return w_new, v_new
