"""Blind corpus: square_plus_backward (tune), written without reading the checker."""
import numpy as np


def wrong_product_counted_once(x, dy):
    """Treats x * x as a single use of x: one product piece (dy * x) instead of two."""
    return dy * x + dy


def wrong_plus_path_gives_one(x, dy):
    """The '+ x' path contributes 1 instead of dy (the upstream gradient left out of that piece)."""
    dx = np.zeros_like(x, dtype=float)
    dx += dy * x
    dx += dy * x
    dx += 1.0
    return dx


def wrong_dy_missing_on_one_factor(x, dy):
    """The right factor's piece is x instead of dy * x: the chain rule applied to only one factor."""
    left = dy * x
    right = x
    plus = dy
    return left + right + plus


def wrong_uses_output_instead_of_input(x, dy):
    """Multiplies dy by the forward output y = x*x + x instead of by x in the product pieces."""
    y = x * x + x
    return dy * y + dy * y + dy


def wrong_copies_forward_and_plus_one(x, dy):
    """Two bugs: the product piece is dy * x * x (the forward value, not its derivative) and the plus path gives 1."""
    dx = dy * x * x
    dx = dx + 1
    return dx
