"""Blind corpus: dx_by_conv2d (right), written without reading the checker."""

import numpy as np

import convgrad.functional as F


def _pair(v):
    return (v, v) if np.isscalar(v) else tuple(v)


def right_kron_stuff_then_trim(dy, w, input_size, stride=1, padding=0):
    """Stuffs with np.kron (which leaves s-1 zeros after the last entry too), trims them, and pads with one np.pad call per side."""
    H, W = _pair(input_size)
    dy = np.asarray(dy, dtype=float)
    w = np.asarray(w, dtype=float)
    N, Co, OH, OW = dy.shape
    k = w.shape[-1]
    s, p = stride, padding
    unit = np.zeros((s, s))
    unit[0, 0] = 1.0
    st = np.kron(dy, unit)[:, :, :(OH - 1) * s + 1, :(OW - 1) * s + 1]
    oph = H + 2 * p - k - (OH - 1) * s
    opw = W + 2 * p - k - (OW - 1) * s
    top, left = k - 1 - p, k - 1 - p
    bottom, right = top + oph, left + opw
    # negative padding means cropping
    st = st[:, :, max(-top, 0):st.shape[2] - max(-bottom, 0), max(-left, 0):st.shape[3] - max(-right, 0)]
    st = np.pad(st, ((0, 0), (0, 0), (max(top, 0), max(bottom, 0)), (max(left, 0), max(right, 0))))
    back = np.ascontiguousarray(np.flip(w, axis=(2, 3)).swapaxes(0, 1))
    return F.conv2d(st, back).data


def right_canvas_placement(dy, w, input_size, stride=1, padding=0):
    """Allocates the whole (H + k - 1)-sized canvas at once and drops dy's entries at rows k-1-p + i*s with one strided assignment."""
    H, W = _pair(input_size)
    dy = np.asarray(dy, dtype=float)
    w = np.asarray(w, dtype=float)
    N, Co, OH, OW = dy.shape
    kh, kw = w.shape[-2:]
    s, p = stride, padding
    off_h, off_w = kh - 1 - p, kw - 1 - p
    margin = max(0, -off_h, -off_w)
    canvas = np.zeros((N, Co, H + kh - 1 + 2 * margin + s * OH, W + kw - 1 + 2 * margin + s * OW))
    r0, c0 = off_h + margin, off_w + margin
    canvas[:, :, r0:r0 + (OH - 1) * s + 1:s, c0:c0 + (OW - 1) * s + 1:s] = dy
    canvas = canvas[:, :, margin:margin + H + kh - 1, margin:margin + W + kw - 1]
    back = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).copy()
    return F.conv2d(canvas, back, stride=1).data


def right_per_output_channel_sum(dy, w, input_size, stride=1, padding=0):
    """Same stuffing and padding, but one single-channel conv2d per output channel o, summed: the channel swap done by hand."""
    H, W = _pair(input_size)
    dy = np.asarray(dy, dtype=float)
    w = np.asarray(w, dtype=float)
    N, Co, OH, OW = dy.shape
    C, k = w.shape[1], w.shape[-1]
    s, p = stride, padding
    big = np.zeros((N, Co, (OH - 1) * s + 1, (OW - 1) * s + 1))
    big[:, :, ::s, ::s] = dy
    extra_h = H + 2 * p - k - (OH - 1) * s
    extra_w = W + 2 * p - k - (OW - 1) * s
    q = k - 1 - p
    big = np.pad(big, ((0, 0), (0, 0), (k, k + extra_h), (k, k + extra_w)))
    big = big[:, :, k - q:, k - q:]
    big = big[:, :, :H + k - 1, :W + k - 1]
    dx = np.zeros((N, C, H, W))
    for o in range(Co):
        kern = np.rot90(w[o], 2, axes=(1, 2))[:, None].copy()   # (C, 1, k, k)
        dx += F.conv2d(big[:, o:o + 1], kern).data
    return dx
