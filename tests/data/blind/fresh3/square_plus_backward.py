"""Blind corpus: square_plus_backward (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_assign_each_path(x, dy):
    """Writes dx = ... once per path, so only the last piece (dy from the + x path) survives."""
    x = np.asarray(x, dtype=float)
    dy = np.asarray(dy, dtype=float)
    dx = dy * x      # left factor of x * x
    dx = dy * x      # right factor of x * x
    dx = dy          # the + x path
    return dx


def wrong_one_factor(x, dy):
    """Treats x * x as a single use of x, so it adds dy * x only once instead of once per factor."""
    x = np.asarray(x, dtype=float)
    dy = np.asarray(dy, dtype=float)
    dx = np.zeros_like(x)
    dx += dy * x     # the product
    dx += dy         # the + x path
    return dx


def wrong_no_upstream(x, dy):
    """Adds the local derivatives x + x + 1 of the three paths but never multiplies by the upstream dy."""
    x = np.asarray(x, dtype=float)
    pieces = [x, x, np.ones_like(x)]
    dx = np.zeros_like(x)
    for piece in pieces:
        dx += piece
    return dx


def wrong_accumulates_into_dy(x, dy):
    """Starts with dx = dy (no copy) and then adds into it, so each += also changes dy and the later pieces use the modified dy."""
    x = np.asarray(x, dtype=float)
    dx = dy
    dx += dy * x
    dx += dy * x
    return dx


def wrong_averages_paths(x, dy):
    """Averages the three path pieces instead of adding them."""
    x = np.asarray(x, dtype=float)
    dy = np.asarray(dy, dtype=float)
    pieces = np.stack([dy * x, dy * x, dy])
    return pieces.mean(axis=0)


def wrong_sums_everything(x, dy):
    """Adds the pieces with np.sum, which also sums over the elements and returns one scalar instead of an array shaped like x."""
    x = np.asarray(x, dtype=float)
    dy = np.asarray(dy, dtype=float)
    left = dy * x
    right = dy * x
    plus = dy
    return np.sum([left, right, plus])
