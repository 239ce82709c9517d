"""Blind corpus: square_plus_backward (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_one_factor_path(x, dy):
    """Counted x * x as a single path (dy * x) plus the + x path, so one factor's piece is missing."""
    dx = np.zeros_like(x, dtype=float)
    dx += dy * x  # the x * x path
    dx += dy  # the + x path
    return dx


def wrong_plus_path_without_dy(x, dy):
    """Added the local derivative 1 of the + x path without multiplying it by dy."""
    left = dy * x
    right = dy * x
    plus = 1.0
    return left + right + plus


def wrong_accumulates_into_dy(x, dy):
    """Started dx as dy itself (not a copy), so each += also grows dy and the later pieces use the changed dy."""
    dx = dy  # the + x path
    dx += dy * x  # left factor
    dx += dy * x  # right factor
    return dx


def wrong_piece_is_the_product(x, dy):
    """Used the value of x * x as the gradient piece of the product path instead of the other factor."""
    pieces = [dy * (x * x), dy]
    total = np.zeros(np.shape(x))
    for piece in pieces:
        total = total + piece
    return total
