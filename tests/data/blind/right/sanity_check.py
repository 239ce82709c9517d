"""Blind corpus: sanity_check (right), in unusual styles. Written by the
exercise's author."""

import math

import numpy as np


def right_perplexity(net, x, y, classes, steps):
    """Compares the perplexity exp(first loss) with C, to within 10%, and the final perplexity with 1."""
    first = float(net.loss(x, y))
    ok = abs(math.exp(first) / classes - 1) < 0.1
    for _ in range(int(steps)):
        net.step(x, y)
    return ok, math.exp(float(net.loss(x, y))) < 1.02


def right_history(net, x, y, classes, steps):
    """Keeps the whole history of what step returns, then reads its first and last entries."""
    history = np.array([net.step(x, y) for _ in range(steps)], dtype=float)
    first_ok = np.abs(history[0] - np.log(classes)) <= 0.15
    return bool(first_ok), bool(history[-1] <= 0.05)


def right_both_ends(net, x, y, classes, steps):
    """Brackets the first loss between ln C - 0.08 and ln C + 0.08, and asks the final loss to be under one percent of the first."""
    lo, hi = np.log(classes) - 0.08, np.log(classes) + 0.08
    start = net.loss(x, y)
    for _ in range(steps):
        net.step(x, y)
    return bool(lo <= start <= hi), bool(net.loss(x, y) < 0.01 * start)
