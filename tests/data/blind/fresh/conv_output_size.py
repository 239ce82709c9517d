"""Blind corpus: conv_output_size (fresh), written without reading the checker."""
# ruff: noqa: E501
import math


def wrong_forgot_minus_one(size, kernel_size, stride=1, padding=0, dilation=1):
    """Wrote the dilated span as d*(k-1) but dropped the - 1 before dividing by the stride."""
    return (size + 2 * padding - dilation * (kernel_size - 1)) // stride + 1


def wrong_missing_parentheses(size, kernel_size, stride=1, padding=0, dilation=1):
    """Left out the parentheses, so only the 1 is divided by the stride."""
    return size + 2 * padding - dilation * (kernel_size - 1) - 1 // stride + 1


def wrong_dilation_added_once(size, kernel_size, stride=1, padding=0, dilation=1):
    """Took the dilated kernel to be k + d - 1 pixels wide instead of d*(k-1) + 1."""
    span = kernel_size + dilation - 1
    return (size + 2 * padding - span) // stride + 1


def wrong_floor_of_span_over_stride(size, kernel_size, stride=1, padding=0, dilation=1):
    """Dropped both the - 1 and the + 1 and took the floor of the remaining room over the stride."""
    room = size + 2 * padding - dilation * (kernel_size - 1)
    return math.floor(room / stride)
