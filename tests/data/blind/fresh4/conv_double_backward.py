"""Blind corpus: conv_double_backward (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad.functional as F


def wrong_flipped_kernel_for_ddy(w, dy, v, stride=1, padding=0):
    """Correlates v with the 180-degree-flipped kernel for ddy, carrying over the flip from dx's full-convolution form."""
    N, O, OH, OW = dy.shape
    _, C, KH, KW = w.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    wf = w[:, :, ::-1, ::-1]
    ddy = np.zeros_like(dy)
    dw = np.zeros_like(w)
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    patch = vp[n, :, i * s:i * s + KH, j * s:j * s + KW]
                    ddy[n, o, i, j] = np.sum(patch * wf[o])
                    dw[o] += dy[n, o, i, j] * patch
    return ddy, dw


def wrong_ddy_without_padding(w, dy, v, stride=1, padding=0):
    """Computes ddy as the forward conv of v with F.conv2d but leaves out the padding, so padded cases get a smaller, shifted map."""
    ddy = F.conv2d(v, w, stride=stride).data
    N, O, OH, OW = dy.shape
    _, C, KH, KW = w.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    dw = np.zeros_like(w)
    for kh in range(KH):
        for kw in range(KW):
            patch = vp[:, :, kh:kh + s * (OH - 1) + 1:s, kw:kw + s * (OW - 1) + 1:s]
            dw[:, :, kh, kw] = np.einsum("nohw,nchw->oc", dy, patch)
    return ddy, dw


def wrong_windows_not_strided(w, dy, v, stride=1, padding=0):
    """Slides the window one pixel per output position (i + kh) instead of stride pixels (i*s + kh), in both ddy and dw."""
    N, O, OH, OW = dy.shape
    _, C, KH, KW = w.shape
    p = padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros_like(dy)
    dw = np.zeros_like(w)
    for kh in range(KH):
        for kw in range(KW):
            patch = vp[:, :, kh:kh + OH, kw:kw + OW]
            ddy += np.einsum("oc,nchw->nohw", w[:, :, kh, kw], patch)
            dw[:, :, kh, kw] += np.einsum("nohw,nchw->oc", dy, patch)
    return ddy, dw


def wrong_dw_overwritten_per_image(w, dy, v, stride=1, padding=0):
    """Resets dw inside the loop over images (dw = ... for each n), so only the last image's contribution is returned."""
    N, O, OH, OW = dy.shape
    _, C, KH, KW = w.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy = np.zeros_like(dy)
    for n in range(N):
        dw = np.zeros_like(w)
        for i in range(OH):
            for j in range(OW):
                patch = vp[n, :, i * s:i * s + KH, j * s:j * s + KW]
                ddy[n, :, i, j] = np.einsum("ochw,chw->o", w, patch)
                dw += dy[n, :, i, j][:, None, None, None] * patch[None]
    return ddy, dw


def wrong_dw_from_ddy(w, dy, v, stride=1, padding=0):
    """Builds dw by correlating v with ddy (the quantity just computed) instead of with the incoming dy."""
    N, O, OH, OW = dy.shape
    _, C, KH, KW = w.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    cols = np.zeros((N, C, KH, KW, OH, OW))
    for kh in range(KH):
        for kw in range(KW):
            cols[:, :, kh, kw] = vp[:, :, kh:kh + s * (OH - 1) + 1:s, kw:kw + s * (OW - 1) + 1:s]
    ddy = np.einsum("ockl,nckluv->nouv", w, cols)
    dw = np.einsum("nouv,nckluv->ockl", ddy, cols)
    return ddy, dw


def wrong_dw_taps_transposed(w, dy, v, stride=1, padding=0):
    """Writes the einsum output for dw as 'oclk' instead of 'ockl', so the kernel's row and column taps come out transposed."""
    N, O, OH, OW = dy.shape
    _, C, KH, KW = w.shape
    s, p = stride, padding
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    cols = np.zeros((N, C, KH, KW, OH, OW))
    for kh in range(KH):
        for kw in range(KW):
            cols[:, :, kh, kw] = vp[:, :, kh:kh + s * (OH - 1) + 1:s, kw:kw + s * (OW - 1) + 1:s]
    ddy = np.einsum("ockl,nckluv->nouv", w, cols)
    dw = np.einsum("nouv,nckluv->oclk", dy, cols)
    return ddy, dw
