"""Blind corpus: conv_output_size (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_precedence_one_floordiv(size, kernel_size, stride=1, padding=0,
                                  dilation=1):
    """Leaves out the parentheses, so only the trailing 1 is floor-divided by the stride (1 // stride) and the window count is never divided."""
    return size + 2 * padding - dilation * (kernel_size - 1) - 1 // stride + 1


def wrong_plus_one_inside_floor(size, kernel_size, stride=1, padding=0,
                                dilation=1):
    """Puts the + 1 inside the floor division, (L + 1) // s, instead of after it, (L // s) + 1."""
    span = dilation * (kernel_size - 1) + 1
    return (size + 2 * padding - span + 1) // stride


def wrong_span_missing_one(size, kernel_size, stride=1, padding=0,
                           dilation=1):
    """Takes the dilated kernel's span as d*(k-1), forgetting its + 1, so the count can come out one position too high."""
    span = dilation * (kernel_size - 1)
    return (size + 2 * padding - span) // stride + 1


def wrong_dilation_single_gap(size, kernel_size, stride=1, padding=0,
                              dilation=1):
    """Widens the kernel by dilation - 1 once (k + d - 1) instead of once per gap between taps (d*(k-1) + 1)."""
    span = kernel_size + dilation - 1
    return (size + 2 * padding - span) // stride + 1


def wrong_floor_distributed(size, kernel_size, stride=1, padding=0,
                            dilation=1):
    """Floor-divides the padded size and the span by the stride separately and subtracts, as if // distributed over the difference."""
    span = dilation * (kernel_size - 1) + 1
    return (size + 2 * padding) // stride - span // stride + 1


def wrong_round_half_even(size, kernel_size, stride=1, padding=0,
                          dilation=1):
    """Uses np.round on the true quotient instead of flooring it, so a half or more left over gets an extra position."""
    span = dilation * (kernel_size - 1) + 1
    return int(np.round((size + 2 * padding - span) / stride)) + 1
