"""Blind corpus: conv1x1_backward (tune8), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_dw_reshaped_not_transposed(x, w, dy):
    """Builds dw as an (in, out) matrix with einsum and reshapes it to (out, in, 1, 1) instead of transposing it, scrambling which weight gets which gradient."""
    C_out, C_in = w.shape[:2]
    wm = w[:, :, 0, 0]
    dx = np.einsum("nohw,oc->nchw", dy, wm)
    dw_ci_co = np.einsum("nchw,nohw->co", x, dy)  # (C_in, C_out)
    dw = dw_ci_co.reshape(C_out, C_in, 1, 1)
    return dx, dw


def wrong_loops_width_uses_H(x, w, dy):
    """Loops over every pixel, but runs the column index over range(H) instead of range(W), so on wide planes the right-hand columns get no dx and add nothing to dw."""
    N, C_in, H, W = x.shape
    wm = w[:, :, 0, 0]
    dx = np.zeros_like(x)
    dw = np.zeros_like(wm)
    for n in range(N):
        for i in range(H):
            for j in range(H):
                dx[n, :, i, j] = wm.T @ dy[n, :, i, j]
                dw += np.outer(dy[n, :, i, j], x[n, :, i, j])
    return dx, dw[:, :, None, None]

