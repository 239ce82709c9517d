"""Blind corpus: col2im (tune), written without reading the checker."""
import numpy as np


def wrong_square_image_assumed(col, input_size, kernel_size, stride=1, padding=0,
                               dilation=1):
    """Builds an H x H image from input_size[0] only, so a non-square image comes back with the wrong width."""
    N, C, K, _, OH, OW = col.shape
    H = input_size[0]
    W = input_size[0]
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    xp[:, :, oh * s + ki * d, ow * s + kj * d] += col[:, :, ki, kj, oh, ow]
    return xp[:, :, p:p + H, p:p + W]


def wrong_padded_buffer_one_side(col, input_size, kernel_size, stride=1, padding=0,
                                 dilation=1):
    """Allocates the padded image as (H + p, W + p) instead of (H + 2p, W + 2p): bottom/right windows index past it."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + p, W + p))
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                for ow in range(OW):
                    for ki in range(K):
                        for kj in range(K):
                            xp[n, c, oh * s + ki * d, ow * s + kj * d] += col[n, c, ki, kj, oh, ow]
    return xp[:, :, p:, p:]


def wrong_negative_index_wraps(col, input_size, kernel_size, stride=1, padding=0,
                               dilation=1):
    """Scatters straight into the unpadded image with `if h < H and w < W`, forgetting h >= 0: top/left padding taps wrap to the far edge."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    img = np.zeros((N, C, H, W))
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    h = oh * s - p + ki * d
                    w = ow * s - p + kj * d
                    if h < H and w < W:
                        img[:, :, h, w] += col[:, :, ki, kj, oh, ow]
    return img


def wrong_reshape_to_window_major(col, input_size, kernel_size, stride=1, padding=0,
                                  dilation=1):
    """Wants (N, C, OH, OW, K, K) and gets it with reshape instead of transpose, so taps and windows are scrambled."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    win = col.reshape(N, C, OH, OW, K, K)
    xp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s, ow * s
            xp[:, :, h0:h0 + d * (K - 1) + 1:d, w0:w0 + d * (K - 1) + 1:d] += win[:, :, oh, ow]
    return xp[:, :, p:p + H, p:p + W]


def wrong_taps_spaced_by_stride(col, input_size, kernel_size, stride=1, padding=0,
                                dilation=1):
    """Offsets tap ki by ki * stride instead of ki * dilation (confuses the two spacings)."""
    N, C, K, _, OH, OW = col.shape
    H, W = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((N, C, H + 2 * p + K * s, W + 2 * p + K * s))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    xp[:, :, oh * s + ki * s, ow * s + kj * s] += col[:, :, ki, kj, oh, ow]
    return xp[:, :, p:p + H, p:p + W]
