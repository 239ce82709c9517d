"""Blind corpus: sgd_momentum_step (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_steps_with_old_velocity(w, dw, v, lr, momentum):
    """Takes the step with the old velocity (w - lr*v) before updating v, instead of stepping with the new one."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_dampened_velocity(w, dw, v, lr, momentum):
    """Uses an exponential moving average v = m*v + (1 - m)*dw, damping the gradient term by (1 - momentum)."""
    v_new = momentum * v + (1.0 - momentum) * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_nesterov_step(w, dw, v, lr, momentum):
    """Steps along the Nesterov look-ahead dw + m*v_new instead of along v_new."""
    v_new = momentum * np.asarray(v) + dw
    w_new = w - lr * (dw + momentum * v_new)
    return w_new, v_new


def wrong_lr_inside_velocity(w, dw, v, lr, momentum):
    """Folds the learning rate into the velocity (v = m*v + lr*dw, w -= v), so v is scaled by lr and the old v is treated as already scaled."""
    v_new = momentum * v + lr * dw
    w_new = w - v_new
    return w_new, v_new
