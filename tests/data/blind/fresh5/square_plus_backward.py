"""Blind corpus: square_plus_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_one_product_path(x, dy):
    """Counts x * x as a single use of x, adding only one factor's piece (dy * x) and the + x piece, so dx = dy * (x + 1)."""
    product = dy * x
    plus = dy
    return product + plus


def wrong_plus_path_without_dy(x, dy):
    """Takes the + x path's piece as the local derivative 1 without multiplying by dy."""
    left = dy * x
    right = dy * x
    plus = np.ones_like(x)
    return left + right + plus


def wrong_initial_ones(x, dy):
    """Starts the accumulator at np.ones_like(x) instead of zeros, then adds the three pieces."""
    dx = np.ones_like(x)
    dx += dy * x
    dx += dy * x
    dx += dy
    return dx


def wrong_multiplies_pieces(x, dy):
    """Combines the three path pieces with the chain rule's product instead of summing them."""
    left = dy * x
    right = dy * x
    plus = dy
    return left * right * plus


def wrong_power_rule_per_path(x, dy):
    """Uses the full derivative 2x of x*x for each of the two factor paths, so the square's gradient is counted twice (dy * (4x + 1))."""
    dx = np.zeros_like(x)
    for piece in (2 * x * dy, 2 * x * dy, dy):
        dx += piece
    return dx


def wrong_matrix_product_rule(x, dy):
    """Reads x * x as the matrix product x @ x and uses its backward (dy @ x.T + x.T @ dy) for the two factor paths."""
    left = dy @ x.T
    right = x.T @ dy
    plus = dy
    return left + right + plus
