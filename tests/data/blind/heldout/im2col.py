"""Blind corpus: im2col (heldout), written without reading the checker."""
import numpy as np


def wrong_taps_swapped(x, kernel_size, stride=1, padding=0, dilation=1):
    """Stores tap (ki, kj) at [kj, ki]: the kernel axes are transposed in the columns."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW), dtype=x.dtype)
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    col[:, :, kj, ki, oh, ow] = xp[:, :, oh * s + ki * d, ow * s + kj * d]
    return col


def wrong_out_size_without_dilation(x, kernel_size, stride=1, padding=0, dilation=1):
    """Taps are dilated but OH/OW use (H + 2p - K) // s + 1, so with dilation>1 there are too many windows and reads run off the image."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - K) // s + 1
    OW = (W + 2 * p - K) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((N, C, K, K, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            for ki in range(K):
                for kj in range(K):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * s + ki * d, ow * s + kj * d]
    return col


def wrong_pads_top_left_only(x, kernel_size, stride=1, padding=0, dilation=1):
    """np.pad with (p, 0): padding added only above and to the left, so the bottom/right windows fall off the image."""
    N, C, H, W = x.shape
    K, s, p, d = kernel_size, stride, padding, dilation
    OH = (H + 2 * p - d * (K - 1) - 1) // s + 1
    OW = (W + 2 * p - d * (K - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, 0), (p, 0)))
    col = np.zeros((N, C, K, K, OH, OW))
    for ki in range(K):
        for kj in range(K):
            for oh in range(OH):
                for ow in range(OW):
                    col[:, :, ki, kj, oh, ow] = xp[:, :, oh * s + ki * d, ow * s + kj * d]
    return col
