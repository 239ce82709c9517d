"""Blind corpus: maxpool_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_no_plane_offset(dy, argmax, input_shape):
    """Scatters with one np.add.at into the flattened dx using the per-plane argmax as a global index, so every plane's gradient lands in plane (0, 0)."""
    dx = np.zeros(input_shape)
    flat = dx.reshape(-1)
    np.add.at(flat, argmax.reshape(-1), dy.reshape(-1))
    return flat.reshape(input_shape)


def wrong_max_reduction(dy, argmax, input_shape):
    """Builds the one-hot routing correctly but reduces it over the windows with max instead of sum ("it is max-pool"), so shared pixels keep one dy and negative dy are lost to the zeros."""
    n, c, h, w = input_shape
    onehot = np.eye(h * w)[argmax]  # (N, C, OH, OW, H*W)
    routed = dy[..., None] * onehot
    dx = routed.max(axis=(2, 3))
    return dx.reshape(n, c, h, w)


def wrong_int_canvas(dy, argmax, input_shape):
    """Creates dx with argmax's dtype (an integer array), so each += of a float dy is truncated toward zero."""
    n_, c_, oh, ow = dy.shape
    dx = np.zeros(input_shape, dtype=argmax.dtype)
    width = input_shape[3]
    for n in range(n_):
        for c in range(c_):
            for i in range(oh):
                for j in range(ow):
                    k = int(argmax[n, c, i, j])
                    dx[n, c, k // width, k % width] += dy[n, c, i, j]
    return dx


def wrong_loop_bounds(dy, argmax, input_shape):
    """Loops both output axes over range(OW) (copied the inner bound), so rows past OW are skipped when OH > OW and a wide dy (OW > OH) raises an index error."""
    dx = np.zeros(input_shape)
    _, _, _, w = input_shape
    ow = dy.shape[3]
    for n in range(dy.shape[0]):
        for c in range(dy.shape[1]):
            for i in range(ow):
                for j in range(ow):
                    r, q = divmod(int(argmax[n, c, i, j]), w)
                    dx[n, c, r, q] += dy[n, c, i, j]
    return dx
