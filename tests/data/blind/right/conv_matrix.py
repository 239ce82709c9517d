"""Blind corpus: conv_matrix (right), written without reading the checker."""
import math

import numpy as np


def right_probe_with_unit_images(w, input_size, stride=1, padding=0):
    """Column by column: correlate each one-hot image e_p with w by explicit window loops, giving C[:, p]."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    for pix in range(H * W):
        img = np.zeros((H + 2 * p, W + 2 * p))
        img[p + pix // W, p + pix % W] = 1.0
        out = np.zeros((OH, OW))
        for i in range(OH):
            for j in range(OW):
                out[i, j] = np.sum(img[i * s:i * s + KH, j * s:j * s + KW] * w)
        C[:, pix] = out.ravel()
    return C


def right_padded_then_crop_columns(w, input_size, stride=1, padding=0):
    """Stamps w into a matrix over the padded image (slices of a 2-D row view), then keeps only the real pixels' columns."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    HP, WP = H + 2 * p, W + 2 * p
    OH = (HP - KH) // s + 1
    OW = (WP - KW) // s + 1
    Cp = np.zeros((OH, OW, HP, WP))
    for i in range(OH):
        for j in range(OW):
            Cp[i, j, i * s:i * s + KH, j * s:j * s + KW] = w
    return Cp[:, :, p:p + H, p:p + W].reshape(OH * OW, H * W)


def right_taps_outer_loop(w, input_size, stride=1, padding=0):
    """Loops over taps outside and windows inside, with a flat-index table built by np.ravel_multi_index."""
    KH, KW = w.shape
    H, W = input_size
    s, p = stride, padding
    OH = (H + 2 * p - KH) // s + 1
    OW = (W + 2 * p - KW) // s + 1
    C = np.zeros((OH * OW, H * W))
    rows_out = np.arange(OH * OW).reshape(OH, OW)
    for ki in range(KH):
        hh = np.arange(OH) * s - p + ki
        for kj in range(KW):
            ww = np.arange(OW) * s - p + kj
            ok_h = (hh >= 0) & (hh < H)
            ok_w = (ww >= 0) & (ww < W)
            hs, ws = np.meshgrid(hh[ok_h], ww[ok_w], indexing="ij")
            pix = np.ravel_multi_index((hs, ws), (H, W))
            C[rows_out[np.ix_(ok_h, ok_w)], pix] = w[ki, kj]
    return C
