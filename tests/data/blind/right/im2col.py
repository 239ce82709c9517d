"""Blind corpus: im2col (right), written without reading the checker."""
import numpy as np


def right_sliding_window_transposed(x, kernel_size, stride=1, padding=0, dilation=1):
    """sliding_window_view over the dilated span, subsampled by stride and dilation, then the kernel axes moved forward."""
    from numpy.lib.stride_tricks import sliding_window_view
    K, s, p, d = kernel_size, stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    span = d * (K - 1) + 1
    win = sliding_window_view(xp, (span, span), axis=(2, 3))[:, :, ::s, ::s, ::d, ::d]
    return np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3))


def right_as_strided(x, kernel_size, stride=1, padding=0, dilation=1):
    """A strided view of the padded image with shape (N, C, K, K, OH, OW) built from its byte strides."""
    from numpy.lib.stride_tricks import as_strided
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    xp = np.ascontiguousarray(np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))))
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    sn, sc, sh, sw = xp.strides
    view = as_strided(xp, shape=(N, C, K, K, OH, OW),
                      strides=(sn, sc, sh * d, sw * d, sh * s, sw * s), writeable=False)
    return view.copy()


def right_fancy_index_gather(x, kernel_size, stride=1, padding=0, dilation=1):
    """Index arrays rows[ki, oh] and cols[kj, ow] broadcast into one fancy-index gather, zeros where they fall in the padding."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    rows = np.arange(K)[:, None] * d + np.arange(OH)[None, :] * s - p   # (K, OH)
    cols = np.arange(K)[:, None] * d + np.arange(OW)[None, :] * s - p   # (K, OW)
    r = rows[:, None, :, None]            # (K, 1, OH, 1)
    c = cols[None, :, None, :]            # (1, K, 1, OW)
    inside = (r >= 0) & (r < H) & (c >= 0) & (c < W)
    got = x[:, :, np.clip(r, 0, H - 1), np.clip(c, 0, W - 1)]
    return np.where(inside, got, 0.0)
