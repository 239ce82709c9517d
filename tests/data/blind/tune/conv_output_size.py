"""Blind corpus: conv_output_size (tune), written without reading the checker."""


def wrong_float_division(size, kernel_size, stride=1, padding=0, dilation=1):
    """Divides by the stride with / instead of //, returning a float like 3.5."""
    return (size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1


def wrong_padding_subtracted(size, kernel_size, stride=1, padding=0, dilation=1):
    """Subtracts the padding (size - 2p) as if it shrank the image."""
    span = dilation * (kernel_size - 1) + 1
    return (size - 2 * padding - span) // stride + 1


def wrong_operator_precedence(size, kernel_size, stride=1, padding=0, dilation=1):
    """Leaves out the parentheses, so only the span is divided by the stride."""
    span = dilation * (kernel_size - 1) + 1
    return size + 2 * padding - span // stride + 1


def wrong_range_end_exclusive(size, kernel_size, stride=1, padding=0, dilation=1):
    """Counts starts with range(0, size + 2p - span, s), missing the last start."""
    span = dilation * (kernel_size - 1) + 1
    return len(range(0, size + 2 * padding - span, stride))


def wrong_floor_division_distributed(
    size, kernel_size, stride=1, padding=0, dilation=1
):
    """Splits the floor division: (size + 2p - 1)//s - d*(k-1)//s + 1."""
    return (
        (size + 2 * padding - 1) // stride - dilation * (kernel_size - 1) // stride + 1
    )
