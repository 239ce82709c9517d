"""Blind corpus: square_plus_backward (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_last_piece_only(x, dy):
    """Assigns dx once per path (dx = ...), so only the last piece, the + x path's dy, survives."""
    dx = np.zeros_like(x)
    dx = dy * x  # left factor of x * x
    dx = dy * x  # right factor of x * x
    dx = dy      # the + x path
    return dx


def wrong_one_product_path(x, dy):
    """Counts x * x as a single path, so the product contributes dy * x once instead of twice."""
    dx = np.zeros_like(x, dtype=float)
    dx += dy * x
    dx += dy
    return dx


def wrong_plus_without_dy(x, dy):
    """Adds 1 for the + x path instead of dy * 1, forgetting to multiply that piece by the upstream gradient."""
    left = dy * x
    right = dy * x
    plus = 1.0
    return left + right + plus


def wrong_value_not_derivative(x, dy):
    """Uses the value of the product, x * x, as the local derivative of the product path instead of the other factor."""
    product_piece = dy * (x * x)
    plus_piece = dy
    return product_piece + plus_piece


def wrong_summed_pieces(x, dy):
    """Reduces the product pieces with np.sum before adding them, so every entry gets the total of the product paths plus its own dy."""
    left = np.sum(dy * x)
    right = np.sum(dy * x)
    plus = dy
    return left + right + plus


def wrong_aliases_dy(x, dy):
    """Starts the accumulator as dx = dy (no copy) and adds in place, so dy itself grows and the later pieces are multiplied by the already-updated dy."""
    dx = dy
    dx += dy * x
    dx += dy * x
    return dx
