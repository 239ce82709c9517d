"""Blind corpus: conv_output_size (right), written without reading the checker."""

import math


def right_count_window_starts(size, kernel_size, stride=1, padding=0, dilation=1):
    """Slides the window and counts the starts whose last tap still fits."""
    last_tap = dilation * (kernel_size - 1)
    count, start = 0, 0
    while start + last_tap <= size + 2 * padding - 1:
        count += 1
        start += stride
    return count


def right_effective_kernel_floor(size, kernel_size, stride=1, padding=0, dilation=1):
    """Uses the effective kernel k + (k-1)(d-1) and math.floor of a true division."""
    k_eff = kernel_size + (kernel_size - 1) * (dilation - 1)
    return int(math.floor((size + 2 * padding - k_eff) / stride)) + 1


def right_len_of_inclusive_range(size, kernel_size, stride=1, padding=0, dilation=1):
    """Counts the valid starts as len(range(0, last_start + 1, stride))."""
    last_start = size + 2 * padding - dilation * (kernel_size - 1) - 1
    return len(range(0, last_start + 1, stride))
