"""Blind corpus: conv_output_size (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_span_without_minus_one(size, kernel_size, stride=1, padding=0,
                                 dilation=1):
    """Takes the dilated span as dilation*(kernel_size-1) and forgets the tap itself, so the formula reads (size + 2p - d*(k-1)) // s + 1 without the - 1."""
    span = dilation * (kernel_size - 1)
    return int((size + 2 * padding - span) // stride + 1)


def wrong_strict_fit_loop(size, kernel_size, stride=1, padding=0,
                          dilation=1):
    """Counts window positions with a loop that requires the window to end strictly before the padded edge, so a window that fits exactly is not counted."""
    padded = size + 2 * padding
    reach = dilation * (kernel_size - 1) + 1
    count = 0
    start = 0
    while start + reach < padded:
        count += 1
        start += stride
    return count


def wrong_reach_adds_dilation_once(size, kernel_size, stride=1, padding=0,
                                   dilation=1):
    """Thinks dilation widens the kernel by dilation-1 in total (reach = k + d - 1) instead of once per gap between taps."""
    reach = kernel_size + dilation - 1
    n = np.floor_divide(size + 2 * padding - reach, stride) + 1
    return int(n)
