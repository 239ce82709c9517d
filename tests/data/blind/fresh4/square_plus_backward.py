"""Blind corpus: square_plus_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_assign_each_path(x, dy):
    """Writes dx = piece once per path, so only the last path's piece (dy) survives."""
    dx = np.zeros_like(x)
    dx = dy * x
    dx = dy * x
    dx = dy
    return dx


def wrong_drops_plus_path(x, dy):
    """Adds the two factors of x*x but forgets the + x path."""
    dx = np.zeros_like(x, dtype=float)
    dx += dy * x
    dx += dy * x
    return dx


def wrong_one_factor_path(x, dy):
    """Counts x*x as a single path (dy*x) instead of two factors, plus the + x path."""
    left = dy * x
    plus = dy
    return left + plus


def wrong_plus_path_without_dy(x, dy):
    """Adds 1 for the + x path instead of dy * 1, forgetting the upstream gradient there."""
    pieces = [dy * x, dy * x, np.ones_like(x)]
    return np.sum(pieces, axis=0)


def wrong_mean_of_paths(x, dy):
    """Averages the three path pieces instead of summing them."""
    pieces = np.stack([dy * x, x * dy, dy])
    return pieces.mean(axis=0)


def wrong_forward_as_backward(x, dy):
    """Uses the forward value dy*x*x as the piece of the x*x path instead of the two dy*x pieces."""
    dx = np.zeros(x.shape)
    for piece in (dy * x * x, dy):
        dx += piece
    return dx
