"""Tuning answers: conv1x1_backward (tune). Written by the exercise's
author, who knows the checker: tuning material, never a blind measure."""

import numpy as np


def _to_rows(a):
    n, c, h, w = a.shape
    return a.transpose(0, 2, 3, 1).reshape(n * h * w, c)


def _from_rows(rows, shape):
    n, c, h, w = shape
    return rows.reshape(n, h, w, c).transpose(0, 3, 1, 2)


def wrong_reshape_straight_to_rows(x, w, dy):
    """Made the pixel rows with x.reshape(-1, C) and dy.reshape(-1, C_out), and reshaped dx straight back."""
    c, o = x.shape[1], dy.shape[1]
    X, dY = x.reshape(-1, c), dy.reshape(-1, o)
    W = w.reshape(o, c)
    return (dY @ W).reshape(x.shape), (dY.T @ X).reshape(w.shape)


def wrong_dw_averaged_over_pixels(x, w, dy):
    """Averaged dw over the N*H*W rows, thinking of the loss's mean."""
    X, dY = _to_rows(x), _to_rows(dy)
    W = w[:, :, 0, 0]
    return _from_rows(dY @ W, x.shape), (dY.T @ X / X.shape[0])[:, :, None, None]


def wrong_dw_as_x_transpose_dy(x, w, dy):
    """Wrote dw = X.T @ dY and put it into w's shape with reshape."""
    X, dY = _to_rows(x), _to_rows(dy)
    W = w[:, :, 0, 0]
    return _from_rows(dY @ W, x.shape), (X.T @ dY).reshape(w.shape)


def wrong_loop_keeps_last_image(x, w, dy):
    """One image at a time with a matrix product, but dw assigned in the loop, not accumulated."""
    dx = np.zeros_like(x)
    for n in range(x.shape[0]):
        xn = x[n].reshape(x.shape[1], -1)
        dyn = dy[n].reshape(dy.shape[1], -1)
        dx[n] = (w[:, :, 0, 0].T @ dyn).reshape(x.shape[1:])
        dw = (dyn @ xn.T)[:, :, None, None]
    return dx, dw


def wrong_first_pixel_is_the_linear_input(x, w, dy):
    """Took x[:, :, 0, 0] as the linear layer's input for dw, as if the image were one pixel."""
    W = w[:, :, 0, 0]
    dx = np.einsum("oc,nohw->nchw", W, dy)
    dw = dy[:, :, 0, 0].T @ x[:, :, 0, 0]
    return dx, dw[:, :, None, None]
