"""Blind corpus: conv_output_size (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_precedence(size, kernel_size, stride=1, padding=0, dilation=1):
    """Writes the formula without parentheses around the numerator, so only the trailing 1 is divided by the stride (1 // s is 0 for s > 1)."""
    return size + 2 * padding - dilation * (kernel_size - 1) - 1 // stride + 1


def wrong_span_adds_dilation_once(size, kernel_size, stride=1, padding=0, dilation=1):
    """Takes the dilated kernel's span as kernel_size + dilation - 1, as if there were only one gap between taps, instead of dilation*(k-1)+1."""
    span = kernel_size + dilation - 1
    return (size + 2 * padding - span) // stride + 1


def wrong_strict_fit(size, kernel_size, stride=1, padding=0, dilation=1):
    """Slides the window with a while loop but uses < instead of <=, so a window that ends exactly on the last padded pixel is not counted."""
    padded = size + 2 * padding
    reach = dilation * (kernel_size - 1) + 1
    count = 0
    start = 0
    while start + reach < padded:
        count += 1
        start += stride
    return count


def wrong_rounds_to_nearest(size, kernel_size, stride=1, padding=0, dilation=1):
    """Uses round() on the true quotient instead of floor division, so a remainder of half the stride or more adds a position that does not fit."""
    span = dilation * (kernel_size - 1) + 1
    return int(np.round((size + 2 * padding - span) / stride)) + 1
