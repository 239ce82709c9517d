"""Blind corpus: sgd_momentum_step (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_steps_with_old_velocity(w, dw, v, lr, momentum):
    """Takes the step with the old velocity and only then updates it (w - lr*v first, v = m*v + dw after), the reverse of PyTorch's order."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_dampened_velocity(w, dw, v, lr, momentum):
    """Keeps the velocity as a running mean like Adam's first moment, v = m*v + (1-m)*dw, so the gradient is damped by (1 - momentum)."""
    v_new = momentum * v + (1 - momentum) * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_lr_inside_velocity(w, dw, v, lr, momentum):
    """Uses the other textbook convention, v = m*v - lr*dw and w = w + v, on a velocity that was stored in PyTorch's convention (without lr)."""
    v_new = np.multiply(momentum, v) - np.multiply(lr, dw)
    w_new = np.add(w, v_new)
    return w_new, v_new


def wrong_returns_v_then_w(w, dw, v, lr, momentum):
    """Computes the step correctly but returns (v, w) instead of (w, v)."""
    v = momentum * v + dw
    w = w - lr * v
    return v, w


def wrong_momentum_on_gradient(w, dw, v, lr, momentum):
    """Puts the momentum factor on the new gradient instead of the old velocity: v = v + momentum*dw."""
    v_new = v + momentum * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_velocity_restarts(w, dw, v, lr, momentum):
    """Starts each step from a fresh zero velocity, as in the lesson's hand loop before the first step, ignoring the v that was passed in."""
    v = np.zeros_like(w)
    v = momentum * v + dw
    w = w - lr * v
    return w, v
