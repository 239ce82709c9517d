"""Blind corpus: sgd_momentum_step (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_step_with_old_velocity(w, dw, v, lr, momentum):
    """Steps w along the old velocity first and only then updates v, so the step uses m*v_old instead of m*v_old + dw."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_ema_dampening(w, dw, v, lr, momentum):
    """Treats the velocity as an exponential moving average, v = m*v + (1 - m)*dw, so the gradient is scaled down by (1 - m)."""
    v_new = momentum * v + (1.0 - momentum) * dw
    w_new = w - lr * v_new
    return w_new, v_new


def wrong_nesterov_lookahead(w, dw, v, lr, momentum):
    """Uses the Nesterov look-ahead step w -= lr*(dw + m*v_new) instead of the plain w -= lr*v_new."""
    v_new = momentum * v + dw
    w_new = w - lr * (dw + momentum * v_new)
    return w_new, v_new


def wrong_returns_v_then_w(w, dw, v, lr, momentum):
    """Computes the rule correctly but returns the pair in the order (v, w) instead of (w, v)."""
    v_new = np.empty_like(v)
    w_new = np.empty_like(w)
    for idx in np.ndindex(w.shape):
        v_new[idx] = momentum * v[idx] + dw[idx]
        w_new[idx] = w[idx] - lr * v_new[idx]
    return v_new, w_new


def wrong_lr_inside_velocity(w, dw, v, lr, momentum):
    """Uses the Sutskever form v = m*v - lr*dw, w = w + v, so the returned velocity has the opposite sign and an lr factor, and the old v is not rescaled by lr."""
    v_new = momentum * v - lr * dw
    w_new = w + v_new
    return w_new, v_new


def wrong_decay_after_adding(w, dw, v, lr, momentum):
    """Adds the gradient before decaying, v = m*(v + dw), so the fresh gradient is multiplied by the momentum too (and vanishes when m = 0)."""
    v_new = np.multiply(momentum, np.add(v, dw))
    w_new = np.subtract(w, lr * v_new)
    return w_new, v_new
