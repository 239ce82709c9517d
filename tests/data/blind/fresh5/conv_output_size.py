"""Blind corpus: conv_output_size (fresh5), written without reading the checker."""
# ruff: noqa: E501

import math

import numpy as np


def wrong_missing_parentheses(size, kernel_size, stride=1, padding=0,
                              dilation=1):
    """Forgets the parentheses around the numerator, so only the reach is floor-divided by the stride: size + 2p - reach // s + 1."""
    reach = dilation * (kernel_size - 1) + 1
    return size + 2 * padding - reach // stride + 1


def wrong_transposed_conv_formula(size, kernel_size, stride=1, padding=0,
                                  dilation=1):
    """Uses the output-size rule of a transposed convolution, (size - 1)*s - 2p + d*(k - 1) + 1, instead of the forward convolution's."""
    return (size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + 1


def wrong_padding_scaled_by_dilation(size, kernel_size, stride=1, padding=0,
                                     dilation=1):
    """Thinks dilation also spreads the padding, so the padded size is size + 2*p*d."""
    padded = size + 2 * padding * dilation
    reach = dilation * (kernel_size - 1) + 1
    return (padded - reach) // stride + 1


def wrong_gaps_counted_once(size, kernel_size, stride=1, padding=0,
                            dilation=1):
    """Counts the dilation's extra gap only once instead of once per gap between taps: reach = k + d - 1 instead of d*(k - 1) + 1."""
    reach = kernel_size + dilation - 1
    return int(np.floor_divide(size + 2 * padding - reach, stride)) + 1


def wrong_stride1_count_divided(size, kernel_size, stride=1, padding=0,
                                dilation=1):
    """Counts the stride-1 positions first and then floor-divides that count by the stride, (n - reach + 1) // s, which drops the first window when the count is not a multiple of s."""
    reach = dilation * (kernel_size - 1) + 1
    positions = size + 2 * padding - reach + 1
    return positions // stride


def wrong_reach_without_plus_one(size, kernel_size, stride=1, padding=0,
                                 dilation=1):
    """Takes the dilated kernel's reach as d*(k - 1) (the distance from the first to the last tap) instead of d*(k - 1) + 1 pixels."""
    reach = dilation * (kernel_size - 1)
    return math.floor((size + 2 * padding - reach) / stride) + 1
