"""Tuning answers: maxpool_backward_by_fold (tune). Written by the
exercise's author, who knows the checker: tuning material, never a blind
measure."""

import numpy as np

import convgrad.functional as F


def _cols(x, k, s, p, fill=-np.inf):
    n, c = x.shape[:2]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    return F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)


def _fold(dcol, x, k, s, p):
    n, c, h, w = x.shape
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p,
                  stride=s).data


def wrong_unfold_pads_for_me(x, dy, kernel_size, stride=None, padding=0):
    """Let F.unfold do the padding (padding=p), as in a conv: zeros, not -inf."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c = x.shape[:2]
    cols = F.unfold(x, k, padding=p, stride=s).data.reshape(n, c, k * k, -1)
    dcol = (np.arange(k * k)[None, None, :, None]
            == cols.argmax(axis=2)[:, :, None]) * dy.reshape(n, c, 1, -1)
    return _fold(dcol, x, k, s, p)


def wrong_shares_dy_among_ties(x, dy, kernel_size, stride=None, padding=0):
    """At a tie every maximum is equally the max, so gave each an equal share of dy."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    cols = _cols(x, k, s, p)
    tied = cols == cols.max(axis=2, keepdims=True)
    dcol = tied / tied.sum(axis=2, keepdims=True) * dy.reshape(
        *dy.shape[:2], 1, -1)
    return _fold(dcol, x, k, s, p)


def wrong_forgot_to_scale(x, dy, kernel_size, stride=None, padding=0):
    """Built the one-hot of the winners and folded it: forgot to multiply by dy."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    cols = _cols(x, k, s, p)
    hot = np.zeros_like(cols)
    np.put_along_axis(hot, cols.argmax(axis=2)[:, :, None], 1.0, axis=2)
    return _fold(hot, x, k, s, p)


def wrong_argmax_on_last_axis(x, dy, kernel_size, stride=None, padding=0):
    """Took argmax(axis=-1), as usual for a batch of rows: the last axis of the columns is the windows."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    cols = _cols(x, k, s, p)
    hot = np.zeros_like(cols)
    np.put_along_axis(hot, cols.argmax(axis=-1)[..., None], 1.0, axis=-1)
    return _fold(hot * dy.reshape(*dy.shape[:2], 1, -1), x, k, s, p)


def wrong_folds_to_padded_size(x, dy, kernel_size, stride=None, padding=0):
    """Folded onto the padded size (H + 2p, W + 2p) since the columns came from the padded x, and returned that."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    cols = _cols(x, k, s, p)
    hot = np.zeros_like(cols)
    np.put_along_axis(hot, cols.argmax(axis=2)[:, :, None], 1.0, axis=2)
    dcol = hot * dy.reshape(n, c, 1, -1)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h + 2 * p, w + 2 * p), k,
                  stride=s).data


def wrong_own_fold_with_assignment(x, dy, kernel_size, stride=None,
                                   padding=0):
    """Wrote the fold by hand, window by window, with = on the chosen pixel."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    cols = _cols(x, k, s, p)
    oh, ow = dy.shape[2:]
    dxp = np.zeros((n, c, h + 2 * p, w + 2 * p))
    for b in range(n):
        for ch in range(c):
            for col in range(oh * ow):
                ki, kj = divmod(int(cols[b, ch, :, col].argmax()), k)
                i, j = divmod(col, ow)
                dxp[b, ch, i * s + ki, j * s + kj] = dy[b, ch, i, j]
    return dxp[:, :, p:p + h, p:p + w]
