"""Blind corpus: conv_output_size (heldout), written without reading the checker."""


def wrong_span_without_the_one(size, kernel_size, stride=1, padding=0, dilation=1):
    """Takes the window's reach as d*(k-1), forgetting the tap it starts on."""
    return (size + 2 * padding - dilation * (kernel_size - 1)) // stride + 1


def wrong_plus_one_inside_division(size, kernel_size, stride=1, padding=0, dilation=1):
    """Puts the + 1 inside the floor division: (size + 2p - span + 1) // s."""
    span = dilation * (kernel_size - 1) + 1
    return (size + 2 * padding - span + 1) // stride


def wrong_dilation_added_once(size, kernel_size, stride=1, padding=0, dilation=1):
    """Widens the window by d - 1 once (k + d - 1), not at each of the k - 1 gaps."""
    span = kernel_size + dilation - 1
    return (size + 2 * padding - span) // stride + 1
