"""Blind corpus: sgd_momentum_step (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_steps_with_old_velocity(w, dw, v, lr, momentum):
    """Takes the step with the old velocity and only then updates it, so the current gradient moves w one step late."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_returns_old_velocity(w, dw, v, lr, momentum):
    """Computes the new velocity and steps with it, but returns the velocity that was passed in, so the next step starts from the stale one."""
    velocity = momentum * v + dw
    w_new = w - lr * velocity
    return w_new, v


def wrong_dampened_velocity(w, dw, v, lr, momentum):
    """Keeps the velocity as a running average, v = m*v + (1 - m)*dw, like Adam's first moment, instead of adding the full gradient."""
    v_new = momentum * v + (1.0 - momentum) * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_nesterov_lookahead(w, dw, v, lr, momentum):
    """Steps along dw + momentum*v_new (Nesterov's look-ahead) instead of along the new velocity."""
    v_new = momentum * v + dw
    w_new = w - lr * (dw + momentum * v_new)
    return w_new, v_new


def wrong_lr_inside_velocity(w, dw, v, lr, momentum):
    """Uses the other textbook convention, v = m*v - lr*dw and w = w + v, which is not PyTorch's when v is already non-zero."""
    v_new = momentum * v - lr * dw
    w_new = w + v_new
    return w_new, v_new


def wrong_momentum_scales_gradient(w, dw, v, lr, momentum):
    """Puts the parentheses around the sum, v = momentum*(v + dw), so the new gradient is damped by the momentum too."""
    v_new = momentum * (v + dw)
    w_new = w - lr * v_new
    return w_new, v_new
