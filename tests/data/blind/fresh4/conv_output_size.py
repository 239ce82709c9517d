"""Blind corpus: conv_output_size (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_span_without_minus_one(size, kernel_size, stride=1, padding=0,
                                 dilation=1):
    """Takes the dilated window's span as d*(k-1) (the gap count) instead of d*(k-1)+1, so one extra position is counted whenever the leftover divides evenly."""
    span = dilation * (kernel_size - 1)
    return (size + 2 * padding - span) // stride + 1


def wrong_dilation_added_once(size, kernel_size, stride=1, padding=0,
                              dilation=1):
    """Grows the kernel by d-1 once (k + d - 1) instead of by d-1 per gap between taps."""
    effective = kernel_size + dilation - 1
    return (size + 2 * padding - effective) // stride + 1


def wrong_stride_dilation_swapped(size, kernel_size, stride=1, padding=0,
                                  dilation=1):
    """Mixes up the two spacings: spreads the taps by the stride and steps the window by the dilation."""
    return (size + 2 * padding - stride * (kernel_size - 1) - 1) // dilation + 1


def wrong_rounds_to_nearest(size, kernel_size, stride=1, padding=0,
                            dilation=1):
    """Rounds the quotient to the nearest integer instead of flooring it, so a window that is more than half in gets counted."""
    span = dilation * (kernel_size - 1) + 1
    return int(np.round((size + 2 * padding - span) / stride)) + 1


def wrong_padding_ignored(size, kernel_size, stride=1, padding=0,
                          dilation=1):
    """Forgets the padding entirely and counts positions on the unpadded axis."""
    span = dilation * (kernel_size - 1) + 1
    return (size - span) // stride + 1


def wrong_loop_strict_edge(size, kernel_size, stride=1, padding=0,
                           dilation=1):
    """Slides the window in a loop but stops with a strict '<', so a window whose last tap lands exactly on the last padded pixel is not counted."""
    total = size + 2 * padding
    span = dilation * (kernel_size - 1) + 1
    count = 0
    start = 0
    while start + span < total:
        count += 1
        start += stride
    return count
