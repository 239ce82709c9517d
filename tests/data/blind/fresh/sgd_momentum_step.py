"""Blind corpus: sgd_momentum_step (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_steps_with_old_velocity(w, dw, v, lr, momentum):
    """Takes the step with the old velocity, then updates the velocity afterwards."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_lr_inside_velocity(w, dw, v, lr, momentum):
    """Folds the learning rate into the velocity (v = m*v + lr*dw, w = w - v)."""
    v_new = momentum * v + lr * dw
    w_new = w - v_new
    return w_new, v_new


def wrong_dampened_average_velocity(w, dw, v, lr, momentum):
    """Keeps the velocity as a running average, v = m*v + (1 - m)*dw, like Adam's first moment."""
    v_new = momentum * np.asarray(v) + (1.0 - momentum) * np.asarray(dw)
    w_new = np.asarray(w) - lr * v_new
    return w_new, v_new


def wrong_returns_velocity_first(w, dw, v, lr, momentum):
    """Computes both right but returns them as (v, w) instead of (w, v)."""
    v = momentum * v + dw
    w = w - lr * v
    return v, w
