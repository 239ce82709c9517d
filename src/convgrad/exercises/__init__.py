"""Exercise checkers: run the learner's function against the reference.

A lesson's exercise cell holds a stub that raises ``NotImplementedError``
and one line that checks it::

    def col2im(col, input_size, kernel_size, stride=1, padding=0,
               dilation=1):
        raise NotImplementedError  # your code here

    exercises.check("col2im", col2im)

``check`` runs the function on a few seeded random cases, compares every
output with the reference solution, and prints one of ``not attempted
yet``, ``passed``, or the first wrong element with its case and grid. It
never raises for a wrong or unfinished answer, so an untouched exercise cell
runs cleanly under nbval.
"""

from __future__ import annotations

from .checker import CheckResult, check
from .registry import EXERCISES, Exercise, solution
from .solutions import (
    avgpool_backward,
    col2im,
    conv2d_backward,
    conv2d_macs,
    conv_output_size,
    conv_transpose2d,
    grouped_weight_matrix,
    im2col,
    maxpool_backward,
    maxpool_forward,
    numeric_grad,
    sgd_momentum_step,
    square_plus_backward,
)

__all__ = [
    "EXERCISES",
    "CheckResult",
    "Exercise",
    "check",
    "solution",
    # the reference solutions, by name
    "avgpool_backward",
    "col2im",
    "conv2d_backward",
    "conv2d_macs",
    "conv_output_size",
    "conv_transpose2d",
    "grouped_weight_matrix",
    "im2col",
    "maxpool_backward",
    "maxpool_forward",
    "numeric_grad",
    "sgd_momentum_step",
    "square_plus_backward",
]
