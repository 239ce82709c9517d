"""Blind corpus: im2col (tune), written without reading the checker."""
import numpy as np


def wrong_width_from_height(x, kernel_size, stride=1, padding=0, dilation=1):
    """Computes OW from H (copy-paste of the OH line), so non-square images get the wrong number of columns."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (H + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * s + ki * d, ow * s + kj * d]
    return col


def wrong_negative_index_wraps(x, kernel_size, stride=1, padding=0, dilation=1):
    """Skips the padding with `if h < H and w < W` but forgets h >= 0, w >= 0: top/left padding reads wrap to the far edge."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    col = np.zeros((N, C, K, K, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = oh * s - p + ki * d
                    w = ow * s - p + kj * d
                    if h < H and w < W:
                        col[:, :, ki, kj, oh, ow] = x[:, :, h, w]
    return col


def wrong_window_major_layout(x, kernel_size, stride=1, padding=0, dilation=1):
    """sliding_window_view gives (N, C, OH, OW, K, K) and the learner returns it without moving the kernel axes forward."""
    from numpy.lib.stride_tricks import sliding_window_view
    K, s, p, d = kernel_size, stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    span = d * (K - 1) + 1
    win = sliding_window_view(xp, (span, span), axis=(2, 3))
    win = win[:, :, ::s, ::s, ::d, ::d]
    return np.ascontiguousarray(win)


def wrong_reshape_instead_of_transpose(x, kernel_size, stride=1, padding=0, dilation=1):
    """Gets the (N, C, OH, OW, K, K) windows right, then reshapes to (N, C, K, K, OH, OW) instead of transposing: values scrambled."""
    from numpy.lib.stride_tricks import sliding_window_view
    N, C = x.shape[:2]
    K, s, p, d = kernel_size, stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    span = d * (K - 1) + 1
    win = sliding_window_view(xp, (span, span), axis=(2, 3))[:, :, ::s, ::s, ::d, ::d]
    OH, OW = win.shape[2], win.shape[3]
    return win.reshape(N, C, K, K, OH, OW).copy()


def wrong_first_image_only(x, kernel_size, stride=1, padding=0, dilation=1):
    """Pads x[0] only (tested with N=1), so every image in the batch gets the first image's columns."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    img = np.pad(x[0], ((0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW))
    for n in range(N):
        for c in range(C):
            for ki in range(K):
                for kj in range(K):
                    for oh in range(OH):
                        for ow in range(OW):
                            col[n, c, ki, kj, oh, ow] = img[c, oh * s + ki * d, ow * s + kj * d]
    return col
