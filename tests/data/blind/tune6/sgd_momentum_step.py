"""Blind corpus: sgd_momentum_step (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_step_before_velocity(w, dw, v, lr, momentum):
    """Steps with the old velocity and only then updates it (`w - lr*v`, then `v = m*v + dw`), so the current gradient does not move w this step."""
    w_new = w - lr * v
    v_new = momentum * v + dw
    return w_new, v_new


def wrong_ema_velocity(w, dw, v, lr, momentum):
    """Keeps the velocity as a running average, `v = m*v + (1 - m)*dw`, so the gradient is damped by (1 - momentum)."""
    v_new = momentum * v + (1.0 - momentum) * dw
    w_new = w - lr * v_new
    return np.array(w_new), np.array(v_new)


def wrong_lr_inside_velocity(w, dw, v, lr, momentum):
    """Uses the textbook form `v = m*v - lr*dw; w = w + v`, which puts lr inside the velocity, so the returned v (and w when v is not zero) follow a different convention than PyTorch's."""
    v_new = v.copy()
    v_new *= momentum
    v_new -= lr * dw
    w_new = w.copy()
    w_new += v_new
    return w_new, v_new
