"""Blind corpus: square_plus_backward (heldout), written without reading the checker."""
import numpy as np


def wrong_overwrites_each_path(x, dy):
    """Assigns dx = piece once per path instead of adding, so only the last piece (dy) survives."""
    dx = dy * x    # left factor
    dx = dy * x    # right factor
    dx = dy        # the + x path
    return dx


def wrong_drops_plus_path(x, dy):
    """Adds the two product pieces but forgets the gradient through the '+ x' path."""
    left = dy * x
    right = dy * x
    return left + right


def wrong_sums_over_elements(x, dy):
    """Adds the pieces up over all elements (np.sum), returning one number broadcast to every entry."""
    total = np.sum(dy * x) + np.sum(dy * x) + np.sum(dy)
    return np.full(np.shape(x), total)
