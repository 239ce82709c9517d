"""Blind corpus: numeric_grad (tune), written without reading the checker."""
import numpy as np


def wrong_one_sided(f, x, eps=1e-6):
    """Uses a forward difference (f(x+eps) - f(x)) / eps instead of a central one."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    f0 = f(x)
    for i in range(x.size):
        old = x.flat[i]
        x.flat[i] = old + eps
        grad.flat[i] = (f(x) - f0) / eps
        x.flat[i] = old
    return grad


def wrong_difference_reversed(f, x, eps=1e-6):
    """Subtracts the wrong way round, (f(x-eps) - f(x+eps)) / (2 eps): the gradient is negated."""
    grad = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        plus = x.astype(np.float64)
        minus = x.astype(np.float64)
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (f(minus) - f(plus)) / (2 * eps)
    return grad


def wrong_nudges_every_element_at_once(f, x, eps=1e-6):
    """Nudges the whole array by eps at once, so every entry gets the sum of the gradient."""
    x = np.asarray(x, dtype=np.float64)
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full(x.shape, slope)


def wrong_first_axis_only(f, x, eps=1e-6):
    """Loops over range(len(x)) and nudges x[i], a whole row when x has more than one axis (right only for 1-D x)."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(len(x)):
        old = x[i].copy()
        x[i] = old + eps
        fp = f(x)
        x[i] = old - eps
        fm = f(x)
        x[i] = old
        grad[i] = (fp - fm) / (2 * eps)
    return grad


def wrong_second_nudge_from_nudged_copy(f, x, eps=1e-6):
    """The minus copy is the same array as the plus copy, so x-eps lands back on x: half a forward difference."""
    grad = np.zeros(x.shape)
    for i in range(x.size):
        xp = np.array(x, dtype=np.float64)
        xp.flat[i] += eps
        fp = f(xp)
        xm = xp
        xm.flat[i] -= eps
        fm = f(xm)
        grad.flat[i] = (fp - fm) / (2 * eps)
    return grad
