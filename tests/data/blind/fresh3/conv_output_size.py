"""Blind corpus: conv_output_size (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_span_without_minus_one(size, kernel_size, stride=1, padding=0, dilation=1):
    """Takes the window's span as d*(k-1) (the distance between the first and last tap) and subtracts only that, so it counts one extra position whenever it divides evenly."""
    span = dilation * (kernel_size - 1)
    return (size + 2 * padding - span) // stride + 1


def wrong_gap_counts_dilation(size, kernel_size, stride=1, padding=0, dilation=1):
    """Puts d empty pixels between taps instead of d-1, so the span is k + d*(k-1)."""
    span = kernel_size + dilation * (kernel_size - 1)
    return (size + 2 * padding - span) // stride + 1


def wrong_padding_subtracted(size, kernel_size, stride=1, padding=0, dilation=1):
    """Subtracts the padding (size - 2p) instead of adding it, as if padding shrank the input like a crop."""
    span = dilation * (kernel_size - 1) + 1
    return (size - 2 * padding - span) // stride + 1


def wrong_plus_one_inside_division(size, kernel_size, stride=1, padding=0, dilation=1):
    """Adds the +1 before dividing by the stride, (L - span + 1) // s, instead of after it."""
    span = dilation * (kernel_size - 1) + 1
    return (size + 2 * padding - span + 1) // stride


def wrong_loop_strict_fit(size, kernel_size, stride=1, padding=0, dilation=1):
    """Counts window starts with a while loop that requires start + span < L (strict), so a window that ends exactly at the padded edge is not counted."""
    L = size + 2 * padding
    span = dilation * (kernel_size - 1) + 1
    count, start = 0, 0
    while start + span < L:
        count += 1
        start += stride
    return count


def wrong_dilation_scales_stride(size, kernel_size, stride=1, padding=0, dilation=1):
    """Treats dilation as multiplying the step between windows, (L - k) // (s*d) + 1, instead of spreading the taps."""
    L = size + 2 * padding
    return int(np.floor_divide(L - kernel_size, stride * dilation)) + 1
