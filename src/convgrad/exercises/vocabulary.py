"""The mistakes the checker can name: one code each, as the lessons say them.

``CheckResult.diagnosis`` is one of these codes, or ``None`` when the
answer passed or no known mistake fits the evidence. The lessons' exercise
cells and ``course/plans`` use the same words. Each code maps to what the
bug is and how to fix it; the report adds where it shows.

Which exercises can make which mistake (each pair is tested with a wrong
answer that makes it, in ``tests/test_diagnosis.py``):

=================  ==========================================================
code               exercises
=================  ==========================================================
overwrites         square_plus_backward, col2im, conv2d_backward (dx, dw, db),
                   maxpool_backward, avgpool_backward, conv_transpose2d,
                   dilated_grouped_backward (dx), checkerboard_dx
no-crop            col2im, conv2d_backward (dx), conv_transpose2d,
                   dilated_grouped_backward (dx), conv_matrix,
                   checkerboard_dx
dilation-ignored   im2col, col2im, conv_output_size,
                   dilated_grouped_backward (dx, dw)
stride-ignored     im2col, col2im, conv2d_backward (dx, dw), maxpool_forward,
                   avgpool_backward, conv_transpose2d, conv_output_size,
                   conv2d_macs, dilated_grouped_backward (dx, dw),
                   conv_matrix, checkerboard_dx, conv_double_backward
kernel-flipped     im2col, col2im, conv2d_backward (dx, dw), conv_transpose2d,
                   grouped_weight_matrix, dilated_grouped_backward (dx),
                   conv_matrix, checkerboard_dx, conv_double_backward
missing-batch-sum  conv2d_backward (dw, db), conv2d_macs,
                   dilated_grouped_backward (dw), conv_double_backward (dw)
batch-mean         conv2d_backward (dw, db), dilated_grouped_backward (dw)
one-sided          numeric_grad
not-restored       numeric_grad
mutates-input      every exercise that takes an array
wrong-index-width  maxpool_backward, maxpool_forward (argmax)
scale              every exercise
shape              every exercise that returns an array
time-limit         every exercise
bad-return         every exercise
tie-last           maxpool_forward (argmax)
pad-zero           maxpool_forward (y)
divisor            avgpool_backward
span               conv_output_size
transposed         conv_matrix
flat-order         conv_matrix
padding-ignored    conv_matrix
parity             checkerboard_dx
=================  ==========================================================

``tie-last``, ``pad-zero``, ``divisor`` and ``span`` go beyond the issue's
list: they are the other mistakes lessons 05, 06 and 08 warn about. The
last four are those of lesson 03's convolution matrix and lesson 07's
gradient checkerboard.
"""

from __future__ import annotations

# code -> (what the bug is, how to fix it)
CODES: dict[str, tuple[str, str]] = {
    "overwrites": (
        "`=` where `+=` is needed: overlapping or repeated contributions "
        "are lost",
        "add every contribution: `+=` in a loop, or np.add.at; a plain `=` "
        "or a fancy-index assignment keeps only one",
    ),
    "no-crop": (
        "the padding is not cropped, or is cropped at the wrong offset",
        "scatter into the padded canvas, then return "
        "canvas[..., p:p + H, p:p + W] (a crop p:-p breaks when p = 0)",
    ),
    "dilation-ignored": (
        "taps placed without the dilation",
        "tap (ki, kj) of window (i, j) sits at (i*s + ki*d, j*s + kj*d): "
        "multiply the tap offset by the dilation",
    ),
    "stride-ignored": (
        "windows placed without the stride",
        "window (i, j) starts at (i*s, j*s): multiply the window position "
        "by the stride",
    ),
    "kernel-flipped": (
        "true convolution where cross-correlation is meant, or the reverse",
        "tap (ki, kj) meets w[..., ki, kj], in the forward and the backward "
        "pass: no [::-1] on the kernel",
    ),
    "missing-batch-sum": (
        "a gradient taken from part of the batch only",
        "every image uses the same weights: sum over the batch axis n too "
        "(and count every image)",
    ),
    "batch-mean": (
        "averaged over the batch where it must be summed",
        "sum over n, do not divide by N: each image's use adds its own piece",
    ),
    "one-sided": (
        "a forward (or backward) difference where central differences are "
        "asked",
        "nudge both ways: (f(x + eps) - f(x - eps)) / (2 * eps)",
    ),
    "not-restored": (
        "the nudged input element is left changed",
        "put the old value back after each nudge (x[i] = old), so every "
        "call of f sees x with exactly one element moved",
    ),
    "mutates-input": (
        "the function changes an array it was given",
        "compute into new arrays (x.copy(), w - lr * v, np.zeros(...)) and "
        "leave the arguments as they came",
    ),
    "wrong-index-width": (
        "a flat index unravelled with the wrong row length",
        "flat = h * W + w with W the input plane's width: "
        "h, w = divmod(flat, W)",
    ),
    "scale": (
        "right pattern, off by a constant factor",
        "look for a missing or extra factor: 2 * eps, a divisor, a count, a "
        "sign",
    ),
    "shape": (
        "wrong output shape",
        "build the output with the shape the exercise states; every size "
        "follows from the input shapes and the arguments",
    ),
    "tie-last": (
        "on a tie the last maximum wins; the first must",
        "replace the best only when a value is strictly greater (>, never "
        ">=), scanning the window row by row",
    ),
    "pad-zero": (
        "the padding counted as 0 where it must be -inf",
        "skip positions outside the image (or pad with -np.inf): a window "
        "of negative numbers has a negative max",
    ),
    "divisor": (
        "the wrong divisor for a window",
        "count_include_pad=True divides by the window clipped to the padded "
        "input; False by the real pixels it covers; never always k*k",
    ),
    "span": (
        "the dilated window's span miscounted",
        "a window of k taps with dilation d spans d*(k - 1) + 1 pixels",
    ),
    "transposed": (
        "the matrix transposed: rows are the input pixels, columns the "
        "outputs",
        "C maps x (H*W numbers) to y (OH*OW numbers): it has one row per "
        "output k and one column per input pixel p, C[k, p]",
    ),
    "flat-order": (
        "an image flattened column by column where ravel goes row by row",
        "number pixel (h, w) as p = h*W + w and output (i, j) as "
        "k = i*OW + j, as x.ravel() and y.ravel() do",
    ),
    "padding-ignored": (
        "windows placed as if there were no padding",
        "on the image, window (i, j) starts at (i*s - p, j*s - p); on the "
        "padded canvas at (i*s, j*s), cropped by p afterwards",
    ),
    "time-limit": (
        "the function did not return within the time limit",
        "look for a loop that never ends: a `while` whose condition never "
        "changes, an index that is never increased, a loop over a list "
        "that grows inside it",
    ),
    "bad-return": (
        "the return value is not an array of numbers",
        "return a NumPy array (np.zeros(...) filled in), or a Tensor; "
        "reading what you returned as numbers must work",
    ),
    "parity": (
        "the stamps one pixel off: the pattern's 4s and 2s on the wrong rows "
        "and columns",
        "window (i, j) starts at (i*s, j*s) on the padded canvas, counting "
        "from 0: with stride 2 the first stamp covers rows 0 to k - 1",
    ),
}
