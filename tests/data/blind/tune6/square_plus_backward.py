"""Blind corpus: square_plus_backward (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_every_path_passes_dy(x, dy):
    """Treats each of the three paths like an addition and hands each one dy unchanged, forgetting that the product's paths carry the other factor (dx = 3*dy)."""
    x = np.asarray(x, dtype=float)
    dy = np.asarray(dy, dtype=float)
    dx = np.zeros_like(x)
    pieces = [dy, dy, dy]  # left factor, right factor, the + x
    for piece in pieces:
        dx += piece
    return dx


def wrong_plus_path_forgotten(x, dy):
    """Adds the two pieces of x * x but forgets the third path, the + x term, so dx lacks its dy."""
    x = np.asarray(x, dtype=float)
    dy = np.asarray(dy, dtype=float)
    left = dy * x
    right = dy * x
    dx = left + right
    return dx


def wrong_local_derivative_only(x, dy):
    """Adds the local derivatives of the three paths (x, x and 1) but never multiplies them by the upstream dy."""
    x = np.asarray(x, dtype=float)
    dx = np.zeros(x.shape)
    dx += x          # d(x*x)/d(left factor)
    dx += x          # d(x*x)/d(right factor)
    dx += 1.0        # d(x)/dx
    return dx
