"""The mistakes the checker can name: one code each, as the lessons say them.

``CheckResult.diagnosis`` is one of these codes, or ``None`` when the
answer passed or no known mistake fits the evidence. The lessons' exercise
cells and ``course/plans`` use the same words. Each code maps to what the
bug is and how to fix it; the report adds where it shows.

Which exercises can make which mistake (each pair is tested with a wrong
answer that makes it, in ``tests/test_diagnosis.py``):

===================  ========================================================
code                 exercises
===================  ========================================================
overwrites           square_plus_backward, col2im, conv2d_backward (dx, dw, db),
                     maxpool_backward, avgpool_backward, conv_transpose2d,
                     dilated_grouped_backward (dx), checkerboard_dx
no-crop              col2im, conv2d_backward (dx), conv_transpose2d,
                     dilated_grouped_backward (dx), conv_matrix,
                     checkerboard_dx, race_map
dilation-ignored     im2col, col2im, conv_output_size,
                     dilated_grouped_backward (dx, dw)
stride-ignored       im2col, col2im, conv2d_backward (dx, dw), maxpool_forward,
                     avgpool_backward, conv_transpose2d, conv_output_size,
                     conv2d_macs, dilated_grouped_backward (dx, dw),
                     conv_matrix, checkerboard_dx, conv_double_backward,
                     race_map, dx_by_conv2d
kernel-flipped       im2col, col2im, conv2d_backward (dx, dw), conv_transpose2d,
                     grouped_weight_matrix, dilated_grouped_backward (dx),
                     conv_matrix, checkerboard_dx, conv_double_backward,
                     dx_by_conv2d
taps-swapped         im2col, col2im, conv2d_backward (dx, dw), conv_transpose2d,
                     grouped_weight_matrix, dilated_grouped_backward (dx, dw),
                     conv_matrix, checkerboard_dx, conv_double_backward,
                     dx_by_conv2d
missing-batch-sum    conv2d_backward (dw, db), conv2d_macs,
                     dilated_grouped_backward (dw), conv_double_backward (dw),
                     linear_backward (dw, db),
                     batch_norm_backward (dx, dgamma, dbeta)
batch-mean           conv2d_backward (dw, db), dilated_grouped_backward (dw),
                     linear_backward (dw, db)
one-sided            numeric_grad
not-restored         numeric_grad
low-precision        numeric_grad
mutates-input        every exercise that takes an array
wrong-index-width    maxpool_backward, maxpool_forward (argmax)
index-convention     maxpool_forward (argmax)
default-stride       maxpool_forward, avgpool_backward
scale                every exercise
shape                every exercise that returns an array
plane-transposed     linear_backward (dx, dw: transposed, a shape of its own)
hw-swapped           every exercise that returns an image plane with H != W,
                     im2col, col2im (raises where H != W)
writes-to-copy       every exercise that returns an array, conv2d_backward (dx),
                     maxpool_backward
time-limit           every exercise
bad-return           every exercise
tie-last             maxpool_forward (argmax)
pad-zero             maxpool_forward (y)
divisor              avgpool_backward
span                 conv_output_size
off-by-one           conv_output_size
float-division       conv_output_size
one-sided-padding    conv_output_size
rounds-up            conv_output_size
group-offset         dilated_grouped_backward (dx, dw), grouped_weight_matrix
column-order         grouped_weight_matrix
output-padding       conv_transpose2d
transposed           conv_matrix
flat-order           conv_matrix
padding-ignored      conv_matrix, race_map
parity               checkerboard_dx
ones-upstream        grad_check, find_wrong_backward
loose-tolerance      grad_check, find_wrong_backward
one-gradient         grad_check
inverse-test         adjoint_gap
draw-order           adjoint_gap
any-overlap          race_map
stuffed-padding      dx_by_conv2d
forbidden-call       dx_by_conv2d, dw_by_correlation
stats-as-constants   batch_norm_backward (dx)
mean-term-only       batch_norm_backward (dx)
forward-for-derivative square_plus_backward
wrong-count          batch_norm_backward (dx)
misplaced-factor     batch_norm_backward (dx)
stats-as-constants   group_norm_backward
mean-term-only       group_norm_backward
term-dropped         group_norm_backward
sum-axes             group_norm_backward
group-order          group_norm_backward
wrong-count          group_norm_backward
eps-placement        group_norm_backward
misplaced-factor     group_norm_backward
missing-batch-sum    conv1x1_backward (dw)
overwrites           conv1x1_backward (dw)
batch-mean           conv1x1_backward (dw)
channels-swapped     conv1x1_backward (dx, dw)
reshape-for-transpose conv1x1_backward (dx, dw)
count-factor         head_backward
term-dropped         head_backward
sum-axes             head_backward
plane-transposed     head_backward (dw)
missing-batch-sum    head_backward (db)
relu-mask            head_backward (da)
onehot-rows          head_backward
input-ignored        head_backward
tie-last             block_backward
pool-spread          block_backward
relu-mask            block_backward (dc)
forward-for-derivative block_backward (dc)
kernel-flipped       block_backward (dx, dw)
taps-swapped         block_backward (dx)
no-crop              block_backward (dx)
padding-ignored      block_backward (dx)
channels-swapped     block_backward (dw)
missing-batch-sum    block_backward (dw, db)
batch-mean           block_backward (dw, db)
sum-axes             block_backward (db)
argument-ignored     block_backward (dr)
plane-offset         block_backward (dr)
wrong-index-width    block_backward (dr)
below-max            block_backward (dr)
forbidden-call       block_backward
onehot-wrong         head_backward
softmax-not-chained  head_backward
forward-changed      head_backward
finite-difference    hessian_vector_product
spot-check           grad_check
totals-only          grad_check
either-gradient      grad_check
direction-only       grad_check
rejects-right        grad_check
accepts-all          grad_check
inverted-test        find_wrong_backward
stops-early          find_wrong_backward
counted-from-end     find_wrong_backward
gradcheck-raises     find_wrong_backward
count-factor         col2im
sign-lost            adjoint_gap
relative-gap         adjoint_gap
draw-kind            adjoint_gap
own-random           adjoint_gap
update-order         sgd_momentum_step
precedence           conv_output_size
stride-ignored       dw_by_correlation
no-crop              dw_by_correlation
padding-ignored      dw_by_correlation
kernel-flipped       dw_by_correlation
taps-swapped         dw_by_correlation
missing-batch-sum    dw_by_correlation
batch-mean           dw_by_correlation
graph-dropped        hessian_vector_product
grad-accumulated     hessian_vector_product
one-backward         hessian_vector_product
misplaced-factor     hessian_vector_product
grad-as-direction    hessian_vector_product
one-sided            hessian_vector_product
padding-misused      dw_by_correlation
batch-mixed          dw_by_correlation
scale                hessian_vector_product
term-dropped         hessian_vector_product
plane-offset         maxpool_backward
tie-last             maxpool_backward_by_fold
pad-zero             maxpool_backward_by_fold
argmax-axis          maxpool_backward_by_fold
input-ignored        maxpool_backward_by_fold
default-stride       maxpool_backward_by_fold
no-crop              maxpool_backward_by_fold, col2im_gather
overwrites           maxpool_backward_by_fold, col2im_gather
tie-first            maxpool_backward_split
count-factor         maxpool_backward_split
divisor              maxpool_backward_split
sum-axes             maxpool_backward_split
averaged             maxpool_backward_split
pad-zero             maxpool_backward_split
overwrites           maxpool_backward_split
default-stride       maxpool_backward_split
below-max            maxpool_backward_split
no-crop              maxpool_backward_split
not-divisible        col2im_gather
window-bounds        col2im_gather
padding-ignored      col2im_gather
stride-ignored       col2im_gather
dilation-ignored     col2im_gather
kernel-flipped       col2im_gather
taps-swapped         col2im_gather
row-order            col2im_gather
flat-order           col2im_gather
input-for-output     conv2d_macs, conv_output_size
extra-term           linear_backward
heuristic            find_wrong_backward
nudged-together      numeric_grad
batch-for-classes    sanity_check (first_ok)
classes-from-model   sanity_check (first_ok)
log-base             sanity_check (first_ok)
probability-for-loss sanity_check (first_ok)
after-step           sanity_check (first_ok)
one-sided-bound      sanity_check (first_ok)
fell-not-fit         sanity_check (fits)
accuracy-for-loss    sanity_check (fits)
loose-bound          sanity_check
tight-bound          sanity_check
===================  ========================================================

A code may have a second row further down: its exercises are both rows'.
Issue 45 added the rows from ``stride-ignored  dw_by_correlation`` to
``one-sided  hessian_vector_product``: lesson 4's ``dw`` as a correlation
and lesson 11's Hessian-vector product, with four codes of its own for the
two backward passes (``graph-dropped`` to ``grad-as-direction``). Its
``forbidden-call`` row (after ``stuffed-padding``) is the one code seen by
the call rather than the values: lesson 4's ``dx`` and ``dw`` built from
``F.conv2d`` are right whatever computes them, so an answer that hands the
work to autodiff, ``conv_transpose2d`` or ``convgrad.adjoint`` is named by
the library watch (:mod:`.watch`; in ``check`` too), not by a model.
It also added the rows from ``tie-last  maxpool_backward_by_fold`` to
``flat-order  col2im_gather``: lesson 5's max-pool backward as ``fold``
of a one-hot ``dcol`` (``argmax-axis``, an argmax down the wrong axis of
the columns, is its own) and lesson 10's col2im as a race-free gather
(``not-divisible``, ``window-bounds`` and ``row-order`` are its own: the
inverse map's divisibility test, its range test, and fold's row order).
It also added the rows from ``tie-first  maxpool_backward_split`` to
``no-crop  maxpool_backward_split``: lesson 5's max-pool backward with
each window's ``dy`` split equally among its tied maxima (exercise 5.4),
where torch's first maximum is the mistake, ``tie-first`` (one maximum
takes the whole ``dy``); the other codes existed: ``dy`` not divided by
the tie count (``count-factor``), divided by the window's ``K*K`` taps
(``divisor``), the ties counted over the plane or the batch
(``sum-axes``), each pixel divided by how many windows it tied in
(``averaged``).

``tie-last``, ``pad-zero``, ``divisor`` and ``span`` go beyond the issue's
list: they are the other mistakes lessons 05, 06 and 08 warn about. The
last four are those of lesson 03's convolution matrix and lesson 07's
gradient checkerboard. Issue 25 added the families that were caught but
never named (``taps-swapped`` to ``default-stride``), ``time-limit`` and
``bad-return`` for calls that never return or return something that is
not numbers, and fixes that follow the form of the answer: ``kernel-flipped``
says "flip it" to a ``dx`` written as a conv2d of the zero-stuffed ``dy``,
and "drop the [::-1]" to loops that flip.

Issue 42 added the rows from ``forward-for-derivative`` on: the weak
checks of lessons 4 and 9 and the slips of lessons 1 and 12 that learners
wrote and nobody had modelled. It also added codes no table row needs,
because any exercise can show them: the generated family of
:mod:`.generated` (an argument left out, off by one or mixed up; inputs
swapped, transposed, flipped or reshaped; the answer negated, truncated,
transposed, divided by a count; a term of a sum dropped), the places of
:mod:`.localise` (an edge line, the border ring, one image, channel or
group, one stride phase), what an exception says (:mod:`.crash`) and
which cases are wrong (:mod:`.split`: right on every case without padding
and wrong on each with it is ``padding-misused``).

Lesson 12 added the table's last two rows before those, ``stats-as-constants`` and
``mean-term-only``: the two ways a batch norm backward ignores that the
batch's mean and variance depend on ``x``; its sums taken per image
reuse ``missing-batch-sum``.

Issue 45 also added the rows from ``stats-as-constants
group_norm_backward`` to ``relu-mask head_backward``:
lesson 12's group norm (layer norm is one group, instance norm one per
channel), with two codes of its own, ``group-order`` (the channels put
into groups interleaved) and ``eps-placement`` (``eps`` outside the
square root, or left out); lesson 9's 1×1 convolution as the linear
layer at every pixel, whose codes all existed; and lesson 9's head
(ReLU, linear, softmax cross-entropy) by hand, with ``relu-mask`` (the
ReLU's mask from the wrong tensor, or ``>=`` at the kink).

Issue 45 then added the rows from ``tie-last  block_backward`` to
``forbidden-call  block_backward``: lesson 9's conv block (conv, ReLU,
max-pool) by hand, with ``pool-spread`` of its own (``dm`` spread over
its whole window, average pooling's rule, where max-pool sends it to the
window's maximum alone); its ``forbidden-call`` is autodiff, since the
block's gradients are right whatever computes them.

Issue 45's whole-model sanity checks (lesson 9's ``sanity_check``, CS231n's
first loss about ln C and a tiny batch overfitted) added the rows from
``batch-for-classes`` to ``tight-bound``, all new: the learner writes the
check, and each code is a weak check that lets a different fault through
(ln N or ln of the model's width for ln C, log10 or log2, the probability
1/C, the loss read after a step, one side of ln C only, a falling loss or
100% accuracy for a fitted batch). ``loose-bound`` and ``tight-bound`` are
the bounds of lesson 4's ``loose-tolerance`` on a loss instead of a
gradient: any bound between the right pipelines' numbers and the faults'
passes, one beyond them is named.
Session 17 added the rows from ``onehot-wrong`` to
``finite-difference``: two ways a softmax cross-entropy's ``dz`` goes
wrong (a one-hot of whole numbers at the wrong entries, ``p[:, labels]
-= 1`` say; the derivative taken with respect to the probabilities,
their log or the Jacobian's diagonal, not the logits), the head's
forward recomputed without its ReLU (``forward-changed``), a Hessian-vector
product approximated by a finite difference of the gradient (within a
few percent on every wrong case), and what a wrong answer's structure
says when nothing more specific fits (:mod:`.structure`): the right
pieces at the wrong places (``misplaced``), an accumulator never reset
(``not-reset``), one number times an input (``scalar-times-input``), one
link of a chain of gradients wrong with the later ones following rightly
from it (``chain-link``), and the right terms with a wrong factor on some
(``term-weight``). Those five need no table row: any exercise with the
structure they read (a scatter, a running sum, an input of the answer's
shape, ``links``, ``terms``) can show them.
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
        "pad both sides by p ((p, p) per axis), scatter into the padded "
        "canvas at i*s + ki*d (no -p there: that is the unpadded image's "
        "coordinate), then return canvas[..., p:p + H, p:p + W] (a crop "
        "p:-p breaks when p = 0)",
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
        "in the loop form, tap (ki, kj) meets w[..., ki, kj] in the forward "
        "and the backward pass alike, with no flip",
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
        "ties broken the wrong way: the first maximum in the window's "
        "row-by-row order must win (not the last, nor the first down the "
        "columns)",
        "scan the window row by row (np.argmax of the window as it is, not "
        "of its transpose) and replace the best only when a value is "
        "strictly greater (>, never >=)",
    ),
    "pad-zero": (
        "a 0 where -inf belongs: the padding taken as 0, or the running "
        "maximum started at 0",
        "start the running maximum at -np.inf (or at the window's first "
        "value) and skip positions outside the image (or pad with "
        "-np.inf): a window of negative numbers has a negative max",
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
    "off-by-one": (
        "a count one too small or too large: the +1 for the first window",
        "count the window positions: the first starts at 0, the last at "
        "size + 2*p - span, every stride between: (size + 2*p - span) // s "
        "+ 1",
    ),
    "float-division": (
        "`/` where the count needs whole windows",
        "a window that does not fit is not counted: divide with `//`, "
        "which rounds down, (size + 2*p - span) // s + 1",
    ),
    "one-sided-padding": (
        "the padding added on one side only",
        "padding p adds p pixels on each side of the axis: size + 2*p",
    ),
    "rounds-up": (
        "rounded up (or to the nearest) where the count rounds down",
        "a window that would stick out of the padded input does not count: "
        "`//` (floor), not math.ceil or round",
    ),
    "taps-swapped": (
        "the tap indices (ki, kj) swapped: the kernel is used transposed",
        "tap (ki, kj) is row ki, column kj of the kernel: it pairs with "
        "row i*s + ki*d and column j*s + kj*d, and w[..., ki, kj], "
        "never w[..., kj, ki]",
    ),
    "hw-swapped": (
        "height and width swapped",
        "arrays are (N, C, H, W): H rows, W columns; unpack h, w = "
        "x.shape[2:] (or input_size) in that order, and index [.., r, q] "
        "with r along H",
    ),
    "index-convention": (
        "the max's index counted in the wrong frame",
        "argmax holds r*W + q, the flat index of the chosen pixel in the "
        "unpadded input plane (r, q its row and column there), not its "
        "place in the window or in the padded plane",
    ),
    "writes-to-copy": (
        "the result is all zeros: the writes went into a copy, or never "
        "happened",
        "write into the array you return: dx[b, c].reshape(-1) is a view, "
        "but flatten(), fancy indexing (a[[0, 2]]) and np.pad make copies",
    ),
    "group-offset": (
        "output channel o reads the wrong input channels: the group's "
        "first channel misplaced",
        "o's group is o // (C_out/groups); its input channels start at "
        "c0 = (o // (C_out/groups)) * (C_in/groups)",
    ),
    "output-padding": (
        "the output_padding rows and columns placed wrong",
        "output_padding adds rows and columns at the bottom and right of "
        "the canvas before the crop, so they get their stamps: crop "
        "[p : p + OH] of a canvas of (H - 1)*s + K + output_padding",
    ),
    "column-order": (
        "the columns of a group's block ordered (ki, kj, c), not (c, ki, kj)",
        "flatten w[o] as it is stored, w[o].reshape(-1): channel first, "
        "then ki, then kj, as im2col's rows",
    ),
    "low-precision": (
        "a float32 working copy: a nudge of eps drowns in its rounding",
        "work in float64, x = np.array(x, dtype=np.float64): float32 "
        "keeps about 7 digits, too few for (f(x + eps) - f(x - eps)) / "
        "(2 * eps)",
    ),
    "default-stride": (
        "the default stride=None not replaced by kernel_size",
        "start with s = kernel_size if stride is None else stride: "
        "pooling windows tile the input by default",
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
    "ones-upstream": (
        "a check with an all-ones dy: a dy symmetric in H and W hides an "
        "index with i and j swapped",
        "draw dy at random, dy = rng.standard_normal(y.shape): an all-ones "
        "dy weighs every output alike, so a backward that mixes outputs up "
        "passes",
    ),
    "loose-tolerance": (
        "a tolerance loose enough to pass a gradient that is slightly wrong",
        "compare with np.allclose's defaults (rtol=1e-5): central "
        "differences in float64 agree to about 1e-8, so anything looser "
        "only lets bugs through",
    ),
    "one-gradient": (
        "only one of the gradients compared",
        "compare dx and dw, each with its own finite differences: a "
        "backward can be right in one and wrong in the other",
    ),
    "inverse-test": (
        "a test of an inverse, |At(A x) - x|, where the adjoint is asked",
        "an adjoint need not undo A: compare <A x, r> with <x, At r> for a "
        "random r of A's output shape, and return their difference",
    ),
    "draw-order": (
        "r drawn before x, so the numbers are not the checker's",
        "draw x = rng.standard_normal(x_shape) first, then "
        "r = rng.standard_normal(y_shape)",
    ),
    "any-overlap": (
        "the overlap map where the race map is asked: overlap inside one "
        "thread is no race",
        "mark each thread's pixels on its own and return where the two "
        "threads' marks meet: one thread adds its own pieces in turn",
    ),
    "stats-as-constants": (
        "dx as if the batch's mean and variance were constants: dy·γ/σ",
        "in training mode every x of the channel moved its mean and its "
        "variance: subtract the mean of dy and x_hat times the mean of "
        "dy * x_hat (both over N, H, W) before scaling by gamma / sigma",
    ),
    "mean-term-only": (
        "the mean's term subtracted, the variance's left out",
        "the variance depends on x too: subtract x_hat * mean(dy * x_hat) "
        "as well as mean(dy), both over N, H, W",
    ),
    "group-order": (
        "the channels put into groups in the wrong order: interleaved "
        "(channel k in group k % G) where each group is a block of C/G "
        "channels in a row",
        "group g holds the channels g*C/G to (g + 1)*C/G - 1: view x as "
        "x.reshape(N, G, C // G, H, W), the group before the channels "
        "inside it, and take the statistics over the axes (2, 3, 4)",
    ),
    "eps-placement": (
        "eps in the wrong place: added outside the square root, left out, "
        "or not the one given",
        "sigma = np.sqrt(var + eps), with the eps argument under the root; "
        "a group whose numbers are all equal has var = 0, and there only "
        "eps keeps x_hat and dx finite",
    ),
    "onehot-rows": (
        "the one-hot subtracted from whole rows: p[labels] -= 1 indexes the "
        "examples by the labels' values",
        "take one entry per example, its label's: p[np.arange(N), labels] "
        "-= 1, or p - np.eye(K)[labels]",
    ),
    "relu-mask": (
        "the ReLU's mask taken from the wrong tensor (the gradient's sign), "
        "or with >= at the kink",
        "mask with the forward's input: da = dh * (a > 0), strictly "
        "greater, so that at exactly 0 nothing passes, as in PyTorch",
    ),
    # the max-pool of lesson 9's conv block (block_backward)
    "pool-spread": (
        "dm spread over its whole window, average pooling's rule, where "
        "max-pool sends it to the window's maximum alone",
        "route each dm to the one pixel that won its window, the index "
        "F.max_pool2d(r, 2, return_indices=True) returns, and give the "
        "window's other pixels 0",
    ),
    "stuffed-padding": (
        "the stuffed dy padded by p, the forward's padding, where the "
        "backward needs k - 1 - p",
        "pad the stuffed dy by k - 1 - p on every side (a forward padding "
        "p takes p rows of each full window away), plus the "
        "output_padding rows at the bottom and right",
    ),
    # what an exercise's text rules out (Exercise.forbids), seen by the
    # call itself; the report adds the exercise's hint to the fix
    "forbidden-call": (
        "a call the exercise rules out (autodiff, conv_transpose2d, fold or "
        "convgrad.adjoint) computes the answer, so the convolution it asks "
        "for is never built",
        "build it yourself with F.conv2d and NumPy, as the exercise asks",
    ),
    # the two backward passes of a Hessian-vector product (lesson 11)
    "graph-dropped": (
        "the first gradient taken without its graph: the second backward "
        "pass has nothing to go through",
        "keep the graph: g = cg.grad(f(x), x, create_graph=True)[0], then "
        "differentiate (g * v).sum() with respect to x",
    ),
    "grad-accumulated": (
        "the first gradient left in x.grad: the second backward() added "
        "H·v to it",
        "use cg.grad, which returns the gradient and stores nothing, or "
        "take g = x.grad and set x.grad = None before the second "
        "backward()",
    ),
    "one-backward": (
        "one backward pass where H·v needs two: the gradient (or the "
        "gradient times v) returned",
        "differentiate once more: H·v is the gradient of (g * v).sum(), "
        "g the first gradient, kept with create_graph=True",
    ),
    "grad-as-direction": (
        "the gradient used as the direction: H·g, a gradient penalty's "
        "gradient, where H·v is asked",
        "weigh the first gradient by the direction v, (g * v).sum(), not "
        "by itself, (g * g).sum()",
    ),
    # the generated family (generated.py): a small change to the right
    # computation, found from the exercise's own arguments and inputs
    "argument-ignored": (
        "an argument left out: your answer is what its neutral value gives",
        "bring the argument into the computation where it belongs",
    ),
    "argument-off-by-one": (
        "an argument used one too large or one too small",
        "use the argument exactly as given: look for a stray + 1 or - 1, "
        "or a range() bound",
    ),
    "argument-mixed-up": (
        "one argument used where another belongs",
        "check each place an argument enters: each has its own role",
    ),
    "channels-swapped": (
        "the kernel's channel axes swapped",
        "w is (C_out, C_in/groups, K, K): index it w[o, c, ki, kj]; only a "
        "backward written as a conv2d swaps the two axes, on purpose",
    ),
    "input-ignored": (
        "an input left out of a product: your answer is what an all-ones "
        "array in its place gives",
        "multiply by that input (the upstream gradient dy: each output's "
        "piece is scaled by its own dy)",
    ),
    "inputs-swapped": (
        "two inputs of the same shape swapped",
        "check which array enters where: the two have the same shape, so "
        "nothing fails, but they mean different things",
    ),
    "outputs-swapped": (
        "an output returned in another's place",
        "return the outputs in the order the exercise states",
    ),
    "sign": (
        "the right numbers with the opposite sign",
        "look for a minus: a gradient of y = f(x) flows back with f's own "
        "sign; an update subtracts lr times the step",
    ),
    "plane-transposed": (
        "the right numbers transposed: rows where columns belong",
        "index [..., row, column] = [..., i, j] with i along H; a .T or a "
        "reshape of the wrong order transposes the plane",
    ),
    "truncated": (
        "the fractions cut off: the numbers kept as integers",
        "keep floats: np.zeros(shape) (float64), not np.zeros_like of an "
        "integer array or dtype=int, and no int() or // on the values",
    ),
    # where the wrong elements sit (localise.py), when no model fits
    "edge-line": (
        "everything right but one edge line of the plane (the last or first "
        "row or column)",
        "look at a loop bound or a slice: range(H - 1), [:-1], a start at "
        "1, or a size computed one short",
    ),
    "border-ring": (
        "everything right but the plane's border ring: the padding is "
        "handled wrong at the edges",
        "the elements next to the edge are the ones windows reach through "
        "the padding: pad (or crop) by exactly `padding` on every side, "
        "and let windows that hang over the edge still count",
    ),
    "one-image": (
        "the images of the batch treated differently: one image (or all "
        "but the first) is wrong",
        "loop over (or broadcast along) every image n, and sum over n only "
        "where the exercise sums over the batch",
    ),
    "one-group": (
        "one group of channels wrong, the others right",
        "group g's output channels read input channels g*C_in/groups to "
        "(g + 1)*C_in/groups - 1, with their own slice of w",
    ),
    "one-channel": (
        "one channel (or every channel but the first) wrong, the others "
        "right",
        "loop over every channel (or keep the channel axis when you "
        "broadcast): each channel has its own numbers",
    ),
    "stride-phase": (
        "only one phase of the stride wrong: every s-th row or column",
        "with stride s, rows r and r + s belong to different windows: look "
        "at how a position is mapped to its window (i*s + ki), and at // "
        "and % by s",
    ),
    "groups-misused": (
        "groups handled wrongly: right on every case with one group, wrong "
        "on each with more",
        "output channel o sees only the input channels of its own group, "
        "o // (C_out // groups), each group with its own slice of w",
    ),
    "dilation-misused": (
        "dilation handled wrongly: right on every case without dilation, "
        "wrong on each with it",
        "tap ki of window i is at row i*s - p + ki*d: the dilation spaces "
        "the taps, and a window spans d*(k - 1) + 1 rows",
    ),
    "output-padding-misused": (
        "output_padding handled wrongly: right on every case without it, "
        "wrong on each with it",
        "output_padding only adds rows and columns at the bottom and the "
        "right of the output, which no window writes",
    ),
    "stride-misused": (
        "the stride handled wrongly: right on every case with stride 1 (or "
        "the stride equal to the kernel), wrong on each other",
        "window i starts at row i*s - p: check each place the stride "
        "enters, the output size, a window's start and where its gradient "
        "goes back",
    ),
    "padding-misused": (
        "the padding handled wrongly: right on every case without padding, "
        "wrong on each with it (or the other way round)",
        "work on a canvas padded by p on every side and crop it back with "
        "[p:p + H, p:p + W], or skip the taps outside 0 <= r < H",
    ),
    "square-assumed": (
        "a square image (or kernel) assumed: right on every square case, "
        "wrong on each other",
        "each size, loop bound, crop and reshape along the columns comes "
        "from W (and KW), each along the rows from H (and KH)",
    ),
    "batch-misused": (
        "the batch handled wrongly: right on every case with one image, "
        "wrong on each with more",
        "keep each image n on its own: move N first before a reshape and "
        "back after, and sum over n only where the exercise sums over the "
        "batch",
    ),
    "channels-misused": (
        "the channels handled wrongly: right on every case with one "
        "channel, wrong on each with more",
        "keep the channel axis in its place: the columns' order is (C, KH, "
        "KW), and each channel has its own numbers",
    ),
    "argument-sign": (
        "an argument with the wrong sign: the padding subtracted where it "
        "is added",
        "padding p adds p pixels on each side: size + 2*p",
    ),
    "input-transposed": (
        "an input read transposed: [..., j, i] where [..., i, j] is meant",
        "index every array [..., row, column] in the same order: window "
        "(i, j) reads dy[..., i, j]",
    ),
    "batch-mixed": (
        "every image of the batch given the whole batch's sum",
        "keep the image index n on both sides: image n's pieces land in "
        "image n only",
    ),
    "averaged": (
        "the pieces that land on an element averaged, not added",
        "a gradient adds every piece that lands on an element: sum them "
        "(+=, np.add.at), never divide by how many there are",
    ),
    "last-window-skipped": (
        "a row or column of windows left out: a loop that stops one short",
        "visit every window: range(OH) and range(OW), with OH and OW read "
        "from the output's (or dy's) shape; a count you compute must follow "
        "the same rule, (H + 2p - span) // s + 1 (and ceil mode's extra "
        "window), and a range's end is exclusive",
    ),
    "count-factor": (
        "the right numbers divided or multiplied by a count (a size, the "
        "batch, the kernel's taps)",
        "look for a division or product by that count: a sum is not a "
        "mean, and each piece is counted once",
    ),
    "result-off-by-one": (
        "the right answer plus or minus one",
        "count from 0 (Python's indices start at 0), and check the +1 of "
        "a count",
    ),
    # weak checks (grad_check, find_wrong_backward)
    "spot-check": (
        "a check of a few elements only: a backward wrong elsewhere passes",
        "compare every element: np.allclose(dx, numeric_dx) over the whole "
        "arrays, not dx[0, 0, 0, 0] or a random sample",
    ),
    "totals-only": (
        "a check of totals only: dx.sum() can be right while dx is wrong",
        "compare the arrays element by element (np.allclose on dx and on "
        "dw), never their sums",
    ),
    "either-gradient": (
        "a check that passes when either gradient is right (`or` for "
        "`and`)",
        "both must agree: return ok_dx and ok_dw",
    ),
    "direction-only": (
        "a check of the gradients' direction only: a gradient off by a "
        "factor passes",
        "compare the values, not just the direction: np.allclose(dx, "
        "numeric_dx) (a cosine of 1 lets dw / N through)",
    ),
    "rejects-right": (
        "the check rejects the right backward pass: its numeric gradient "
        "is wrong",
        "check the finite differences: nudge one element to x + eps, then "
        "to x - eps, put it back, and divide by 2 * eps; use the same dy "
        "in the numeric and the analytic gradient",
    ),
    "accepts-all": (
        "the check accepts every backward pass, the wrong ones too",
        "return the comparison's result: np.allclose(...) for dx and dw, "
        "not True",
    ),
    "inverted-test": (
        "the test read the wrong way round: the first suspect that passes "
        "is returned",
        "return the index where the check fails: `if not report.ok: "
        "return i`",
    ),
    "stops-early": (
        "the search stops after the first suspect (a return in both "
        "branches)",
        "return only when a suspect fails; after the loop (every suspect "
        "passed) return -1",
    ),
    "counted-from-end": (
        "the position counted from the end of the list",
        "enumerate(layers) from the front: the first suspect is index 0",
    ),
    "gradcheck-raises": (
        "cg.gradcheck raised: by default it raises on a mismatch",
        "call cg.gradcheck(fn, inputs, raise_exception=False) and read the "
        "report's .ok",
    ),
    "term-dropped": (
        "a term of the sum left out",
        "every path from the input to the output adds its own term: write "
        "one term per path and add them all",
    ),
    "term-sign": (
        "a term of the sum with the wrong sign",
        "follow each term's sign through the chain rule: a term subtracted "
        "in the forward pass is subtracted in its derivative too",
    ),
    "term-doubled": (
        "a term of the sum counted twice",
        "each path adds its term once",
    ),
    "forward-for-derivative": (
        "the forward's value used where its derivative is meant",
        "the backward multiplies dy by the derivative of each use: d(x*x)/dx "
        "= 2*x, d(x)/dx = 1; never by y itself",
    ),
    "wrong-count": (
        "the means divided by the wrong count M",
        "M counts the positions of one channel, N*H*W: the means are over "
        "(N, H, W), biased (M, not M - 1), as in the forward",
    ),
    "misplaced-factor": (
        "a factor or a sum in the wrong place",
        "dx = γ/σ · (dy − dbeta/M − x̂·dgamma/M): γ/σ multiplies all three "
        "terms, reshaped (1, C, 1, 1) to broadcast along C",
    ),
    # what an exception says, when no model predicts it (crash.py)
    "out-of-bounds": (
        "an index past the end of an array",
        "size the array for every index the loop reaches, or stop the loop "
        "at the array's size",
    ),
    "shapes-mismatch": (
        "two arrays whose shapes do not fit where they meet",
        "print the shapes where they meet: an axis in the wrong order, a "
        "missing [..., None], or a size taken from the wrong axis",
    ),
    "none-used": (
        "None used as a value",
        "return a value on every path, and replace an argument's default "
        "None before using it",
    ),
    "axes-order": (
        "the right numbers with their axes in another order",
        "build the output in the layout the exercise states; np.transpose "
        "(or moveaxis) to that order before returning",
    ),
    "reshape-for-transpose": (
        "a reshape where a transpose is meant: the numbers land in the "
        "wrong places",
        "reshape never moves numbers between axes: to reorder axes use "
        ".transpose(...) (or .T) first, then reshape",
    ),
    "sum-axes": (
        "summed over the wrong axes",
        "sum over every axis the parameter is shared along (the batch, "
        "and for a conv the positions): the axes the exercise names, no "
        "more, no fewer",
    ),
    "heuristic": (
        "a suspect blamed by a heuristic (the largest gradient, say), "
        "never compared with finite differences",
        "a backward is wrong when it disagrees with finite differences: "
        "run cg.gradcheck(fn, inputs, raise_exception=False) on each "
        "suspect and return the index whose .ok is False",
    ),
    "nudged-together": (
        "several elements nudged at once: a slope along a direction, not "
        "one partial derivative",
        "nudge one element at a time: loop over every index "
        "(np.ndindex(x.shape)), not over the first axis or the whole array "
        "at once",
    ),
    "negatives-dropped": (
        "the negative values dropped, as a ReLU would: only part of the "
        "gradient flows",
        "every value of dy flows back, whatever its sign: only a ReLU's "
        "own backward zeroes anything (where its input x <= 0), and no ReLU "
        "sits here",
    ),
    "extra-term": (
        "a term added that does not belong: a path that does not go "
        "through the input",
        "a gradient collects only the paths from that input to the "
        "output; a term that does not depend on it (a bias) sends nothing "
        "back",
    ),
    "sign-lost": (
        "the gap's sign thrown away (abs)",
        "return the signed difference <A x, r> - <x, At r>: its sign says "
        "which side is larger, and the checker compares it as it is",
    ),
    "relative-gap": (
        "a relative gap, divided by a size, where the difference is asked",
        "return the plain difference np.sum(A(x) * r) - np.sum(x * At(r))",
    ),
    "draw-kind": (
        "the random vectors not drawn as the exercise says: from another "
        "distribution, or not drawn at all",
        "draw x = rng.standard_normal(x_shape), then r = "
        "rng.standard_normal(y_shape): both random and independent (not "
        "r = A(x), not ones; rng.random gives uniform numbers in [0, 1))",
    ),
    "own-random": (
        "random numbers from a generator of its own, not the rng given",
        "draw from the rng argument (rng.standard_normal), never a new "
        "np.random.default_rng() or np.random.randn: the checker hands you "
        "the generator whose numbers it expects",
    ),
    "returns-input": (
        "an argument handed back as it came, where a new value is asked",
        "return the value you computed (the new velocity, the new "
        "weights), not the argument",
    ),
    "size-off-by-one": (
        "the output one row or column too many or too few: the window "
        "count's +1, or a count rounded the wrong way",
        "count the windows as (H + 2p - span) // s + 1 (floor division, "
        "and the +1 for the first window), and check each bound that sets "
        "the size: a canvas, a crop, a slice's end",
    ),
    "precedence": (
        "a missing pair of parentheses: an operator applied to part of "
        "the formula",
        "write the whole numerator in parentheses before dividing: "
        "(size + 2*p - span) // s + 1",
    ),
    "update-order": (
        "a momentum step written another way: the order or the form of the "
        "two updates",
        "torch's rule, in this order: v = momentum*v + dw first, then "
        "w = w - lr*v with the new v",
    ),
    "empty-slice": (
        "the output is empty: a slice that selects nothing",
        "a crop [p:-p] is [0:0], empty, when p = 0: write [p:p + H, p:p + W] "
        "instead (and check every slice's end is past its start)",
    ),
    "never-written": (
        "some elements never written: yours are 0 where numbers belong",
        "find the elements no loop reaches: a range or a slice that stops "
        "short, a block placed at the wrong offset, or a condition that "
        "skips them",
    ),
    "written-outside": (
        "numbers written where 0 belongs",
        "an index or an offset lands outside the elements it should: check "
        "where each block or window starts, and the bounds you test",
    ),
    "output-size": (
        "the output sized wrong, though its numbers are right where the two "
        "overlap",
        "size the output from the inputs and the arguments as the exercise "
        "states (every size follows from them), then fill it as you do",
    ),
    "plane-offset": (
        "each plane's start in the flat array computed wrong",
        "in dx.ravel(), plane (n, c) starts at (n*C + c)*H*W: add that to "
        "the argmax (a flat index within its own H x W plane)",
    ),
    # max-pool backward as fold, col2im as a gather (lessons 5 and 10)
    "argmax-axis": (
        "the argmax taken down the wrong axis of the columns: over the "
        "windows, or over every channel's taps at once",
        "reshape unfold's (N, C*K*K, L) to (N, C, K*K, L) and take the "
        "argmax down the taps, axis 2: one winner per channel and window",
    ),
    # max-pool's backward with the ties split equally (lesson 5's 5.4)
    "tie-first": (
        "one tied maximum given the window's whole dy (the first, as torch "
        "does, or the last) where the tied maxima share it equally",
        "count the window's tied maxima, t = (window == window.max()).sum(), "
        "and give each of them dy / t: an argmax keeps one of them only",
    ),
    # a window's gradient on a pixel that did not win it (5.4 and 9.8)
    "below-max": (
        "part of a window's gradient sent to a pixel below the window's "
        "maximum: a running maximum's earlier holders kept, a forward "
        "recomputed another way, or an index read in one layout and "
        "written in another",
        "find the window's maximum first, m = window.max(), and give its "
        "gradient only to the pixels equal to m (the first of them for "
        "max-pool, all of them equally for the split); recompute the "
        "forward exactly as it ran",
    ),
    "not-divisible": (
        "a tap counted where no window puts it: (r + p - ki*d) not "
        "divisible by the stride",
        "window row i puts tap ki at row i*s + ki*d of the padded canvas: "
        "keep the tap only when (r + p - ki*d) % s == 0, then i = "
        "(r + p - ki*d) // s",
    ),
    "window-bounds": (
        "window indices outside 0 <= i < OH not skipped: a negative one "
        "wraps round to the last windows",
        "skip a tap unless 0 <= i < OH and 0 <= j < OW: Python reads "
        "index -1 as the last element, so a negative index never raises",
    ),
    "row-order": (
        "fold's rows read in the order (ki, kj, c), not (c, ki, kj)",
        "unfold and fold order their rows channel first, then ki, then "
        "kj: row c*K*K + ki*K + kj, i.e. cols.reshape(N, C, K, K, OH, OW)",
    ),
    "input-for-output": (
        "the input's size where the output's is meant",
        "each output position is one window: count the windows, OH = (H + "
        "2p - K) // s + 1, not the input's pixels",
    ),
    # whole-model sanity checks (sanity_check, lesson 9)
    "batch-for-classes": (
        "C read from the batch size: the first loss compared with ln N, N "
        "the number of examples",
        "compare with np.log(classes): each example's first loss is about "
        "-log(1/C) = ln C whatever the batch size, C the number of classes",
    ),
    "classes-from-model": (
        "C read from the model's output width: a head of the wrong width "
        "passes",
        "compare with np.log(classes), the task's C: a head sized by "
        "mistake (by the batch, say) starts near ln of its own width, and "
        "only the task's C shows it",
    ),
    "log-base": (
        "ln C computed in another base: log10(C) or log2(C)",
        "cross-entropy uses the natural log: compare with np.log(classes) "
        "(ln 10 is about 2.30), not np.log10 or np.log2",
    ),
    "probability-for-loss": (
        "the first loss compared with the probability 1/C, where that "
        "probability's loss, -ln(1/C) = ln C, is meant",
        "an untrained softmax gives each class about 1/C, and the loss of "
        "that is -log(1/C): compare the first loss with np.log(classes)",
    ),
    "after-step": (
        "the first loss read after training began",
        "read net.loss(x, y) before the first net.step: every step moves "
        "it, and the check is of the untrained model",
    ),
    "one-sided-bound": (
        "only one side of ln C checked: a first loss far below it (or far "
        "above it) passes",
        "check the distance both ways, abs(first - np.log(classes)) < 0.1: "
        "too low (a log10, a mean over the classes too) is as wrong as too "
        "high",
    ),
    "fell-not-fit": (
        "a falling loss taken for a fitted batch",
        "a tiny batch overfitted has a loss near 0: compare the final loss "
        "with 0.05, not with the first one; a broken pipeline's loss falls "
        "too (a softmax applied twice, labels shuffled against the inputs)",
    ),
    "accuracy-for-loss": (
        "accuracy where the loss is meant: 100% on the batch while the "
        "loss is still far from 0",
        "judge the fit by the loss, net.loss(x, y) < 0.05: a softmax "
        "applied twice still ranks the right class first, yet its loss "
        "never gets near 0",
    ),
    "loose-bound": (
        "a bound so loose that a broken pipeline passes",
        "the first loss within 0.1 of ln C, the final loss below 0.05: the "
        "faults sit farther away (a log2 loss on 2 classes starts 0.34 "
        "above ln 2, a softmax applied twice stays above 0.3)",
    ),
    "tight-bound": (
        "a bound so tight that a right pipeline fails: a first loss is "
        "about ln C, never exactly, and a fitted loss small, never 0",
        "the first loss within 0.1 of ln C (not np.isclose), the final "
        "loss below 0.05 (not 1e-6, nor == 0)",
    ),
    # session 17: what a wrong answer's structure says (.structure), and
    # the two ways a softmax cross-entropy's dz goes wrong most (lesson 9)
    "misplaced": (
        "the right values, each added once, but some at the wrong places",
        "check where each value lands: the window's start, the tap's "
        "offset, the order of the axes in each reshape or transpose, and "
        "the order the windows or taps are flattened in",
    ),
    "scalar-times-input": (
        "one number times an input, where each element needs its own value",
        "do not reduce to a single number (a sum, a norm, a curvature) and "
        "scale an input by it: keep the computation elementwise to the end",
    ),
    "not-reset": (
        "an accumulator never set back to 0: each element holds the running "
        "total of itself and every element before it",
        "start each element's sum from 0: total = 0 inside the loop over "
        "the elements, just before the loop over its terms",
    ),
    "forward-changed": (
        "the forward recomputed otherwise than it ran: a piece of it (the "
        "ReLU) left out, so every gradient is taken at the wrong values",
        "recompute each forward value exactly as the forward made it (h = "
        "relu(a), z = h @ w.T + b) before you differentiate",
    ),
    "finite-difference": (
        "a finite difference where the exact derivative is asked: close to "
        "the answer, off by the step's error",
        "differentiate exactly: H·v = cg.grad((g * v).sum(), x) with g = "
        "cg.grad(f(x), x, create_graph=True)[0]",
    ),
    "term-weight": (
        "the right terms, but one (or more) weighted by a factor other "
        "than 1",
        "find where that term's factor comes from: a 1/N or 1/M, the 2 of "
        "a square's derivative, a mean where a sum is meant, a factor "
        "applied twice",
    ),
    "chain-link": (
        "one step of the chain wrong: the gradients after it follow rightly "
        "from it",
        "fix that one output's own formula: the steps after it are right as "
        "written and only carry its error on",
    ),
    "onehot-wrong": (
        "the one-hot subtracted at the wrong entries: not a single 1 per "
        "example, at its label",
        "subtract 1 once per example, at its label's column: "
        "p[np.arange(N), labels] -= 1, or p - np.eye(K)[labels]; "
        "p[:, labels] takes whole columns and p[labels] whole rows",
    ),
    "softmax-not-chained": (
        "dz taken with respect to the probabilities (or their log), not the "
        "logits: the softmax's Jacobian not chained in",
        "chain through the softmax: d(-log p[t])/dz = softmax(z) - "
        "onehot(t), every logit's entry, not -1/p[t] at the label alone; "
        "then divide by N",
    ),
}
