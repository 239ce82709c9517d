"""Output-size arithmetic and argument rules, in one place.

Every op validates here before any kernel runs, so a kernel never sees an
input that could make it index out of bounds. A violation raises a
``ValueError`` or ``TypeError`` that names the parameter, the value given and
the rule it breaks.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

Pair = tuple[int, int]


# --------------------------------------------------------------------------
# small parsers
# --------------------------------------------------------------------------


def _is_int(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def pair(value: object, name: str, *, minimum: int = 0) -> Pair:
    """Turn an int or a pair of ints into a checked ``(h, w)`` pair."""
    if _is_int(value):
        items = (int(value), int(value))  # type: ignore[arg-type]
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not all(_is_int(v) for v in value):
            raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
        items = (int(value[0]), int(value[1]))
    else:
        raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
    for v in items:
        if v < minimum:
            rule = "at least 1" if minimum == 1 else f"at least {minimum}"
            raise ValueError(f"{name} must be {rule}, got {value!r}")
    return items


def check_ndim(shape: tuple[int, ...], ndim: int, name: str, layout: str) -> None:
    if len(shape) != ndim:
        raise ValueError(
            f"{name} must be {ndim}-D ({layout}), got {len(shape)}-D "
            f"shape {tuple(shape)}"
        )


def conv_out_size(size: int, k: int, s: int, p: int, d: int) -> int:
    """Positions a window of ``k`` taps, dilation ``d`` can take (floor)."""
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def pool_out_size(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """PyTorch's pooling output size, including its ``ceil_mode`` rule."""
    span = size + 2 * p - d * (k - 1) - 1
    if ceil:
        out = -(-span // s) + 1
        # the last window must start inside the input or the left padding
        if (out - 1) * s >= size + p:
            out -= 1
    else:
        out = span // s + 1
    return out


# --------------------------------------------------------------------------
# window geometry shared by unfold / fold / conv / pool
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """A sliding window over an ``H x W`` plane.

    ``k`` kernel size, ``s`` stride, ``p`` padding, ``d`` dilation, each a
    ``(h, w)`` pair; ``out`` is ``(OH, OW)``.
    """

    k: Pair
    s: Pair
    p: Pair
    d: Pair
    out: Pair

    @property
    def args(self) -> tuple[int, ...]:
        """``kh, kw, sh, sw, ph, pw, dh, dw``: what every kernel takes."""
        return (*self.k, *self.s, *self.p, *self.d)


def window(
    hw: Pair,
    kernel_size: object,
    stride: object,
    padding: object,
    dilation: object,
    *,
    what: str = "kernel",
) -> Window:
    """Validate a window over a plane of size ``hw`` and compute ``(OH, OW)``."""
    k = pair(kernel_size, "kernel_size", minimum=1)
    s = pair(stride, "stride", minimum=1)
    p = pair(padding, "padding", minimum=0)
    d = pair(dilation, "dilation", minimum=1)
    out = []
    for axis, size, kk, ss, pp, dd in zip("HW", hw, k, s, p, d, strict=True):
        span = dd * (kk - 1) + 1
        if span > size + 2 * pp:
            raise ValueError(
                f"{what} does not fit: the dilated kernel spans {span} along "
                f"{axis} but the padded input is only {size + 2 * pp} "
                f"(size {size} + 2*padding {pp}); kernel_size={kernel_size!r}, "
                f"dilation={dilation!r}"
            )
        out.append(conv_out_size(size, kk, ss, pp, dd))
    return Window(k, s, p, d, (out[0], out[1]))


# --------------------------------------------------------------------------
# unfold / fold
# --------------------------------------------------------------------------


def unfold_geometry(
    x_shape: tuple[int, ...], kernel_size, dilation, padding, stride
) -> Window:
    check_ndim(x_shape, 4, "input", "N, C, H, W")
    return window(x_shape[2:], kernel_size, stride, padding, dilation)


def fold_geometry(
    col_shape: tuple[int, ...], output_size, kernel_size, dilation, padding, stride
) -> tuple[Window, int]:
    """Validate ``fold``; return the window and the channel count ``C``."""
    check_ndim(col_shape, 3, "input", "N, C*KH*KW, L")
    hw = pair(output_size, "output_size", minimum=1)
    win = window(hw, kernel_size, stride, padding, dilation)
    kh, kw = win.k
    rows, length = col_shape[1], col_shape[2]
    if rows % (kh * kw):
        raise ValueError(
            f"input.shape[1] must be divisible by KH*KW = {kh * kw} "
            f"(kernel_size={kernel_size!r}), got {rows}"
        )
    blocks = win.out[0] * win.out[1]
    if length != blocks:
        raise ValueError(
            f"input.shape[2] must equal the number of sliding windows "
            f"OH*OW = {win.out[0]}*{win.out[1]} = {blocks} for "
            f"output_size={output_size!r}, got {length}"
        )
    return win, rows // (kh * kw)


# --------------------------------------------------------------------------
# convolution
# --------------------------------------------------------------------------


def check_groups(groups: object, c_in: int, c_out: int) -> int:
    """``groups`` as an int that divides both channel counts."""
    if not _is_int(groups):
        raise TypeError(f"groups must be an int, got {groups!r}")
    g = int(groups)  # type: ignore[arg-type]
    if g < 1:
        raise ValueError(f"groups must be at least 1, got {g}")
    if c_in % g or c_out % g:
        raise ValueError(
            f"groups={g} must divide both in_channels={c_in} and out_channels={c_out}"
        )
    return g


def _check_bias(b_shape, c_out: int) -> None:
    if b_shape is not None and tuple(b_shape) != (c_out,):
        raise ValueError(
            f"bias must have shape ({c_out},) (one value per output channel), "
            f"got {tuple(b_shape)}"
        )


def same_padding(k: Pair, d: Pair) -> tuple[Pair, Pair]:
    """Left/top and right/bottom padding that keeps the size, as torch does.

    Returns ``((top, left), (bottom, right))``; an even kernel puts the
    extra row and column at the bottom and right.
    """
    total = [dd * (kk - 1) for kk, dd in zip(k, d, strict=True)]
    lo = (total[0] // 2, total[1] // 2)
    hi = (total[0] - lo[0], total[1] - lo[1])
    return lo, hi


def conv_padding(padding: object, stride: object) -> Pair | str:
    """A conv's ``padding``: a checked pair, or ``'valid'`` / ``'same'``
    (``'same'`` only with stride 1)."""
    if not isinstance(padding, str):
        return pair(padding, "padding", minimum=0)
    if padding not in ("valid", "same"):
        raise ValueError(
            f"padding must be an int, a pair, 'valid' or 'same', got {padding!r}"
        )
    if padding == "same" and pair(stride, "stride", minimum=1) != (1, 1):
        raise ValueError(f"padding='same' requires stride=1, got stride={stride!r}")
    return padding


def output_padding_pair(
    output_padding: object, stride: object, dilation: object
) -> Pair:
    """A transposed conv's ``output_padding``, each entry smaller than the
    stride or the dilation along its axis."""
    op = pair(output_padding, "output_padding", minimum=0)
    s = pair(stride, "stride", minimum=1)
    d = pair(dilation, "dilation", minimum=1)
    for oo, ss, dd in zip(op, s, d, strict=True):
        if oo >= max(ss, dd):
            raise ValueError(
                f"output_padding must be smaller than either stride or "
                f"dilation, got output_padding={output_padding!r}, "
                f"stride={stride!r}, dilation={dilation!r}"
            )
    return op


@dataclass(frozen=True)
class ConvGeometry:
    win: Window
    groups: int
    c_in: int
    c_out: int
    # 'same' with an even dilated kernel pads one more at the bottom/right;
    # extra = (extra rows, extra cols) added to the input before the conv.
    extra: Pair = (0, 0)


@dataclass(frozen=True)
class TransposeGeometry:
    """A transposed conv, seen as the conv it is the adjoint of.

    ``win`` describes the *forward conv* from the output (``out``) back to
    the input: ``win.out`` is the input's spatial size. ``c_in``/``c_out``
    are the transposed conv's own channel counts.
    """

    win: Window
    groups: int
    c_in: int
    c_out: int
    out: Pair


def conv2d_geometry(
    x_shape, w_shape, b_shape, stride, padding, dilation, groups
) -> ConvGeometry:
    check_ndim(x_shape, 4, "input", "N, C_in, H, W")
    check_ndim(w_shape, 4, "weight", "C_out, C_in/groups, KH, KW")
    c_in, c_out = x_shape[1], w_shape[0]
    g = check_groups(groups, c_in, c_out)
    if w_shape[1] * g != c_in:
        raise ValueError(
            f"weight.shape[1] must equal in_channels/groups = {c_in}/{g} = "
            f"{c_in // g}; got weight of shape {tuple(w_shape)} for input of "
            f"shape {tuple(x_shape)}"
        )
    _check_bias(b_shape, c_out)
    k = (w_shape[2], w_shape[3])
    if min(k) < 1:
        raise ValueError(f"weight kernel size must be at least 1, got {k}")
    extra = (0, 0)
    padding = conv_padding(padding, stride)
    if padding == "valid":
        padding = 0
    elif padding == "same":
        lo, hi = same_padding(k, pair(dilation, "dilation", minimum=1))
        padding = lo
        extra = (hi[0] - lo[0], hi[1] - lo[1])
    hw = (x_shape[2] + extra[0], x_shape[3] + extra[1])
    win = window(hw, k, stride, padding, dilation)
    return ConvGeometry(win, g, c_in, c_out, extra)


def conv_transpose2d_geometry(
    x_shape, w_shape, b_shape, stride, padding, output_padding, groups, dilation
) -> TransposeGeometry:
    """Validate a transposed conv and compute its output size."""
    check_ndim(x_shape, 4, "input", "N, C_in, H, W")
    check_ndim(w_shape, 4, "weight", "C_in, C_out/groups, KH, KW")
    c_in = x_shape[1]
    if w_shape[0] != c_in:
        raise ValueError(
            f"weight.shape[0] must equal in_channels = {c_in}; got weight of "
            f"shape {tuple(w_shape)} for input of shape {tuple(x_shape)}"
        )
    if not _is_int(groups):
        raise TypeError(f"groups must be an int, got {groups!r}")
    g = int(groups)
    if g < 1:
        raise ValueError(f"groups must be at least 1, got {g}")
    c_out = w_shape[1] * g
    check_groups(g, c_in, c_out)
    _check_bias(b_shape, c_out)
    if isinstance(padding, str):
        raise ValueError(
            f"padding must be an int or a pair for conv_transpose2d, got {padding!r}"
        )
    k = (w_shape[2], w_shape[3])
    s = pair(stride, "stride", minimum=1)
    p = pair(padding, "padding", minimum=0)
    d = pair(dilation, "dilation", minimum=1)
    op = output_padding_pair(output_padding, stride, dilation)
    out = []
    for size, kk, ss, pp, dd, oo in zip(x_shape[2:], k, s, p, d, op, strict=True):
        o = (size - 1) * ss - 2 * pp + dd * (kk - 1) + oo + 1
        if o < 1:
            raise ValueError(
                f"conv_transpose2d output would be empty ({o}) for input size "
                f"{size}, kernel_size {kk}, stride {ss}, padding {pp}, "
                f"dilation {dd}: padding={padding!r} is too large"
            )
        out.append(o)
    win = Window(k, s, p, d, (x_shape[2], x_shape[3]))
    return TransposeGeometry(win, g, c_in, c_out, (out[0], out[1]))


# --------------------------------------------------------------------------
# pooling
# --------------------------------------------------------------------------


def check_bool(value: object, name: str) -> bool:
    """A flag must be a real bool (so ``ceil_mode=2`` is not silently true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def pool_stride(stride: object, k: Pair) -> Pair:
    """A pool's stride; ``None`` or an empty sequence means ``kernel_size``."""
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        return k
    return pair(stride, "stride", minimum=1)


def pool_window(
    x_shape,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode: bool,
) -> Window:
    """Validate a pooling window; ``stride=None`` means ``kernel_size``.

    The output size is torch's: ``floor`` (or, with ``ceil_mode``, ``ceil``)
    of ``(size + 2*padding - dilation*(kernel_size-1) - 1) / stride``, plus
    one. In ``ceil_mode`` the last window may hang past the padded input by
    less than one stride, but it must start inside the input or the left
    padding; a window that would start in the right padding is dropped.

    Two rules torch enforces too: padding is at most half the kernel, and
    the output has at least one row and column. One rule is ours: every
    window must see at least one input pixel. (A dilated window can straddle
    a small input with all its taps in the padding; torch then returns -inf
    and an index outside the input, whose backward would write out of
    bounds.)
    """
    check_ndim(x_shape, 4, "input", "N, C, H, W")
    k = pair(kernel_size, "kernel_size", minimum=1)
    s = pool_stride(stride, k)
    p = pair(padding, "padding", minimum=0)
    d = pair(dilation, "dilation", minimum=1)
    ceil = check_bool(ceil_mode, "ceil_mode")
    for pp, kk in zip(p, k, strict=True):
        if pp > kk // 2:
            raise ValueError(
                f"padding must be at most half the kernel size, got "
                f"padding={padding!r} for kernel_size={kernel_size!r}"
            )
    out = []
    for axis, size, kk, ss, pp, dd in zip("HW", x_shape[2:], k, s, p, d, strict=True):
        span = dd * (kk - 1) + 1
        o = pool_out_size(size, kk, ss, pp, dd, ceil)
        if o < 1:
            slack = " (ceil_mode allows less than one stride of overhang)"
            raise ValueError(
                f"kernel does not fit: the pooling window spans {span} along "
                f"{axis} but the padded input is only {size + 2 * pp}"
                f"{slack if ceil else ''}; kernel_size={kernel_size!r}, "
                f"dilation={dilation!r}, padding={padding!r}"
            )
        starts = np.arange(o) * ss - pp
        taps = starts[:, None] + dd * np.arange(kk)
        sees_input = ((taps >= 0) & (taps < size)).any(axis=1)
        if not sees_input.all():
            i = int(np.argmin(sees_input))
            raise ValueError(
                f"every pooling window must see at least one input pixel, but "
                f"window {i} along {axis} (taps {taps[i].tolist()}) lies wholly "
                f"in the padding of an input of size {size}; reduce "
                f"padding={padding!r} or dilation={dilation!r}"
            )
        out.append(o)
    return Window(k, s, p, d, (out[0], out[1]))


def avg_pool_options(count_include_pad: object, divisor_override: object) -> int:
    """Check avg_pool2d's flags; return the divisor as the kernels take it.

    ``divisor_override`` must be ``None`` or a positive int; the kernels
    take ``0`` for "none".
    """
    check_bool(count_include_pad, "count_include_pad")
    if divisor_override is None:
        return 0
    if not _is_int(divisor_override):
        raise TypeError(
            f"divisor_override must be None or a positive int, got {divisor_override!r}"
        )
    if divisor_override < 1:  # type: ignore[operator]
        raise ValueError(
            f"divisor_override must be a positive int (at least 1), got "
            f"{divisor_override!r}"
        )
    return int(divisor_override)  # type: ignore[arg-type]


def unpool_output_size(x_shape, kernel_size, stride, padding, output_size) -> Pair:
    """max_unpool2d's output ``(OH, OW)``, by torch's rule.

    The default inverts max_pool2d's floor formula:
    ``(H - 1)*stride - 2*padding + kernel_size``. A given ``output_size``
    (``(OH, OW)`` or ``(N, C, OH, OW)``) must lie strictly within one stride
    of that default, since those are the input sizes max_pool2d maps to ``H``.
    """
    check_ndim(x_shape, 4, "input", "N, C, H, W")
    k = pair(kernel_size, "kernel_size", minimum=1)
    s = pool_stride(stride, k)
    p = pair(padding, "padding", minimum=0)
    default = [
        (size - 1) * ss - 2 * pp + kk
        for size, kk, ss, pp in zip(x_shape[2:], k, s, p, strict=True)
    ]
    if output_size is None:
        for axis, o in zip("HW", default, strict=True):
            if o < 1:
                raise ValueError(
                    f"max_unpool2d output would be empty ({o}) along {axis}: "
                    f"padding={padding!r} is too large for kernel_size="
                    f"{kernel_size!r}, stride={stride!r} and input of shape "
                    f"{tuple(x_shape)}"
                )
        return (default[0], default[1])
    if not isinstance(output_size, (tuple, list)) or len(output_size) not in (2, 4):
        raise TypeError(
            f"output_size must be None or a sequence of 2 (OH, OW) or 4 "
            f"(N, C, OH, OW) ints, got {output_size!r}"
        )
    hw = pair(tuple(output_size[-2:]), "output_size", minimum=1)
    for axis, o, dflt, ss in zip("HW", hw, default, s, strict=True):
        lo, hi = dflt - ss, dflt + ss
        if not lo < o < hi:
            raise ValueError(
                f"output_size must lie strictly between {lo} and {hi} along "
                f"{axis} (the sizes max_pool2d maps back to the input), got "
                f"output_size={output_size!r}"
            )
    return hw


def check_unpool_indices(indices: np.ndarray, x_shape, out: Pair) -> np.ndarray:
    """Indices must match the input's shape and point into the output plane."""
    if indices.dtype.kind not in "iu":
        raise TypeError(
            f"indices must be an integer array (as returned by max_pool2d with "
            f"return_indices=True), got dtype {indices.dtype}"
        )
    if tuple(indices.shape) != tuple(x_shape):
        raise ValueError(
            f"indices must have the input's shape {tuple(x_shape)}, got "
            f"{tuple(indices.shape)}"
        )
    plane = out[0] * out[1]
    if indices.size and (indices.min() < 0 or indices.max() >= plane):
        raise ValueError(
            f"indices must lie in [0, OH*OW) = [0, {plane}) for an output of "
            f"{out[0]}x{out[1]}, got values from {indices.min()} to "
            f"{indices.max()}"
        )
    return np.ascontiguousarray(indices, dtype=np.int64)


def adaptive_pool_size(x_shape, output_size) -> Pair:
    """adaptive_avg_pool2d's ``(OH, OW)``; ``None`` keeps that input size."""
    check_ndim(x_shape, 4, "input", "N, C, H, W")
    if isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        output_size = tuple(
            size if o is None else o
            for o, size in zip(output_size, x_shape[2:], strict=True)
        )
    return pair(output_size, "output_size", minimum=1)


def adaptive_bins(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """torch's adaptive windows: bin ``i`` covers ``[start_i, end_i)`` with
    ``start_i = floor(i*size/out)`` and ``end_i = ceil((i+1)*size/out)``."""
    i = np.arange(out)
    starts = (i * size) // out
    ends = -(-((i + 1) * size) // out)
    return starts, ends
