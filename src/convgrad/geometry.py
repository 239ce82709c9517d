"""Output-size arithmetic and argument rules, in one place.

Every op validates here before any kernel runs, so a kernel never sees an
input that could make it index out of bounds. A violation raises a
``ValueError`` or ``TypeError`` that names the parameter, the value given and
the rule it breaks.

**Bounds.** Every geometry integer (kernel size, stride, padding, dilation,
output padding, output size, divisor, and every dimension of an input's
shape) is at most :data:`MAX_INT` = 2**31 - 1, the int32 range torch's pools
use. With every one below 2**31, each intermediate of the kernels' index
arithmetic (``i*stride - padding + k*dilation``, flat offsets ``(n*C + c)*H*W
+ ...``) stays far inside int64. And every buffer an op allocates, on either
backend (its output, its column matrix, the NumPy twins' padded copy of the
input), must fit in this machine's memory (:func:`memory_limit`): an op that
would need more is refused before anything is allocated.
"""

from __future__ import annotations

import functools
import math
import numbers
import os
from dataclasses import dataclass

import numpy as np

Pair = tuple[int, int]

#: the largest value of any geometry integer (the int32 range)
MAX_INT = 2**31 - 1
_MAX_TEXT = f"at most 2**31 - 1 = {MAX_INT}"


# --------------------------------------------------------------------------
# small parsers
# --------------------------------------------------------------------------


def _is_int(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


# --------------------------------------------------------------------------
# memo: a training loop validates the same geometry every step
# --------------------------------------------------------------------------

_MEMO_SIZE = 512


def _exact(v: object) -> bool:
    """``v`` is None, an ``int``, a ``bool``, a ``str``, or a tuple of
    ``int``s, each of exactly that type: a value whose dict key no other
    argument can share. (``True == 1 == 1.0`` and ``np.int64(1) == 1``
    hash alike, so a key on values would hand a ``1`` the result checked
    for a ``True``; a key on exact types cannot.)"""
    t = type(v)
    if t is tuple:
        return not v or set(map(type, v)) == _INT
    return v is None or t is int or t is bool or t is str


_INT = {int}


def _memo(fn):
    """Remember ``fn``'s result for repeated calls with the same exact
    arguments (see :func:`_exact`); anything else, and every call that
    raises, takes the full path, so every error message stays. The key
    holds each argument's type and :func:`memory_limit`, and every result
    is a frozen dataclass or a tuple of them, safe to share."""
    cache: dict[tuple, object] = {}

    @functools.wraps(fn)
    def memoized(*args, **kwargs):
        if not all(map(_exact, args)) or not kwargs.keys() <= {"itemsize"}:
            return fn(*args, **kwargs)
        itemsize = kwargs.get("itemsize", 8)
        if type(itemsize) is not int:
            return fn(*args, **kwargs)
        key = (*map(type, args), *args, itemsize, memory_limit())
        hit = cache.get(key)
        if hit is None:
            hit = fn(*args, **kwargs)
            if len(cache) >= _MEMO_SIZE:
                cache.clear()
            cache[key] = hit
        return hit

    memoized.cache_clear = cache.clear  # type: ignore[attr-defined]
    return memoized


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
        check_max(v, name, value)
    return items


def check_max(v: int, name: str, shown: object = None) -> int:
    """``v`` if it is at most :data:`MAX_INT`; else a ValueError naming ``name``."""
    if v > MAX_INT:
        shown = v if shown is None else shown
        raise ValueError(f"{name} must be {_MAX_TEXT}, got {shown!r}")
    return v


def check_ndim(shape: tuple[int, ...], ndim: int, name: str, layout: str) -> None:
    if len(shape) != ndim:
        raise ValueError(
            f"{name} must be {ndim}-D ({layout}), got {len(shape)}-D "
            f"shape {tuple(shape)}"
        )
    for i, size in enumerate(shape):
        check_max(size, f"{name}.shape[{i}]")


def is_unbatched(shape: tuple[int, ...], ndim: int, layout: str) -> bool:
    """Whether ``input`` of ``shape`` is one unbatched item (``ndim - 1``
    dimensions) of an op on ``ndim``-D ``layout`` (``"N, C, H, W"``), as
    torch accepts; False for a batch; a ValueError naming both accepted
    ranks otherwise."""
    if len(shape) == ndim:
        return False
    if len(shape) == ndim - 1:
        return True
    item = layout.split(", ", 1)[1]
    raise ValueError(
        f"input must be {ndim - 1}-D (unbatched: {item}) or {ndim}-D "
        f"({layout}), got {len(shape)}-D input of shape {tuple(shape)}"
    )


def check_nonzero(
    shape: tuple[int, ...], dims: tuple[int, ...], name: str, layout: str,
    why: str = "",
) -> None:
    """Refuse a zero size along ``dims``, as torch does (it allows an empty
    batch, ``N = 0``, almost everywhere, and little else)."""
    names = [d.strip() for d in layout.split(",")]
    for i in dims:
        if shape[i] == 0:
            raise ValueError(
                f"{name}.shape[{i}] ({names[i]}) must be at least 1{why}, got "
                f"shape {tuple(shape)}"
            )


@functools.lru_cache(maxsize=1)
def memory_limit() -> int:
    """The bytes an op may allocate: this machine's physical memory (1 TiB
    when the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 2**40


def check_memory(itemsize: int, args: str, **buffers: tuple[int, ...]) -> None:
    """Refuse an op whose ``buffers`` (name -> shape, held at once) would
    not fit in memory; ``args`` names the arguments that set their sizes."""
    sizes = {k: math.prod(v) * itemsize for k, v in buffers.items()}
    total = sum(sizes.values())
    if total <= memory_limit():
        return
    name = max(sizes, key=sizes.__getitem__)
    raise ValueError(
        f"this op would need {total / 2**30:.3g} GiB ({name} of shape "
        f"{tuple(buffers[name])}), more than this machine's "
        f"{memory_limit() / 2**30:.3g} GiB of memory: check {args}"
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


def _scalar(value: object, name: str, minimum: int) -> int:
    if not _is_int(value):
        raise TypeError(f"{name} must be an int, got {value!r}")
    v = int(value)  # type: ignore[arg-type]
    if v < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {v}")
    return check_max(v, name)


def conv_transpose_out_size(
    size: int,
    kernel_size: int,
    stride: int = 1,
    padding: int = 0,
    output_padding: int = 0,
    dilation: int = 1,
) -> int:
    """A transposed conv's output size along one axis, checked:
    ``(size - 1)*stride - 2*padding + dilation*(kernel_size - 1)
    + output_padding + 1``.

    It is the largest input a conv with the same ``kernel_size``,
    ``stride``, ``padding`` and ``dilation`` maps to ``size``, minus the
    ``output_padding`` (smaller than the stride or the dilation) that
    picks among the ones it maps there. ``conv_transpose2d`` uses it per
    axis; lesson 7's table of conv_arithmetic's cases is made with it.
    """
    n = _scalar(size, "size", 1)
    k = _scalar(kernel_size, "kernel_size", 1)
    s = _scalar(stride, "stride", 1)
    p = _scalar(padding, "padding", 0)
    op = _scalar(output_padding, "output_padding", 0)
    d = _scalar(dilation, "dilation", 1)
    if op >= max(s, d):
        raise ValueError(
            f"output_padding must be smaller than either stride or dilation, "
            f"got output_padding={op}, stride={s}, dilation={d}"
        )
    out = _transpose_size(n, k, s, p, d, op)
    if out < 1:
        raise ValueError(
            f"conv_transpose2d output would be empty ({out}) for size {n}, "
            f"kernel_size {k}, stride {s}, dilation {d}: padding={p} is too "
            f"large"
        )
    return out


def _transpose_size(size: int, k: int, s: int, p: int, d: int, op: int) -> int:
    return (size - 1) * s - 2 * p + d * (k - 1) + op + 1


# --------------------------------------------------------------------------
# window geometry shared by unfold / fold / conv / pool
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """A sliding window over an ``H x W`` plane.

    ``k`` kernel size, ``s`` stride, ``p`` padding, ``d`` dilation, each a
    ``(h, w)`` pair; ``out`` is ``(OH, OW)``, the number of window
    positions along each axis.

    **The index map**, written here once. Along one axis, tap ``t`` of
    window ``i`` reads input coordinate::

        i*s - p + t*d

    (below 0 or past the input's last row: the padding). Every method
    below reads that map one way: per axis (:meth:`row`,
    :meth:`column`), for a pixel (:meth:`pixel`), one window's taps
    (:meth:`rows_of`, :meth:`columns_of`), one tap over every window on
    the padded input (:meth:`tap_slices`), and the sizes it implies
    (:attr:`span`, :attr:`reach`, :meth:`padded`, :meth:`unreached`).
    They take Python ints (and give ints back) or NumPy integer arrays
    (and broadcast). Only the Numba kernels' loop bodies, from :attr:`args`,
    and the exercises' maps written the learner's way spell it again
    (``tests/test_window.py`` lists them).
    """

    k: Pair
    s: Pair
    p: Pair
    d: Pair
    out: Pair

    @classmethod
    def of(cls, args: tuple[int, ...], out: Pair) -> Window:
        """The window whose :attr:`args` are ``args`` (``kh, kw, sh, sw,
        ph, pw, dh, dw``), at ``out`` positions: what a NumPy twin, which
        takes a kernel's eight ints, reads its map from."""
        kh, kw, sh, sw, ph, pw, dh, dw = args
        return cls((kh, kw), (sh, sw), (ph, pw), (dh, dw), (out[0], out[1]))

    @property
    def args(self) -> tuple[int, ...]:
        """``kh, kw, sh, sw, ph, pw, dh, dw``: what every kernel takes."""
        return (*self.k, *self.s, *self.p, *self.d)

    def row(self, i, ki):
        """The input row tap ``ki`` of window row ``i`` reads (the map
        along H); ``i`` or ``ki`` may be an integer array."""
        return i * self.s[0] - self.p[0] + ki * self.d[0]

    def column(self, j, kj):
        """The input column tap ``kj`` of window column ``j`` reads (the
        map along W); ``j`` or ``kj`` may be an integer array."""
        return j * self.s[1] - self.p[1] + kj * self.d[1]

    def window_row(self, h: int, ki: int) -> int | None:
        """The map read backward along H: the window row ``i`` whose tap
        ``ki`` reads input row ``h`` (``h = i*s - p + ki*d``), or ``None``
        where no window's tap ``ki`` lands on ``h`` (a row between two
        strides, or a window past the last)."""
        return _back(h + self.p[0] - ki * self.d[0], self.s[0], self.out[0])

    def window_column(self, w: int, kj: int) -> int | None:
        """The window column whose tap ``kj`` reads input column ``w``, or
        ``None``; as :meth:`window_row`, along W."""
        return _back(w + self.p[1] - kj * self.d[1], self.s[1], self.out[1])

    def pixel(self, o, t) -> tuple:
        """The input pixel ``(h, w)`` tap ``t = (ki, kj)`` of window
        ``o = (i, j)`` reads."""
        return self.row(o[0], t[0]), self.column(o[1], t[1])

    def rows_of(self, i: int) -> range:
        """The input rows window row ``i``'s taps read, tap by tap (``KH``
        of them, ``dh`` apart): ``.start`` is where the window starts,
        ``.stop`` one past the end of its dilated span."""
        start = self.row(i, 0)
        return range(start, start + self.span[0], self.d[0])

    def columns_of(self, j: int) -> range:
        """The input columns window column ``j``'s taps read, tap by tap
        (``KW`` of them, ``dw`` apart); as :meth:`rows_of`."""
        start = self.column(j, 0)
        return range(start, start + self.span[1], self.d[1])

    def tap_slices(self, ki: int, kj: int) -> tuple[slice, slice]:
        """Where tap ``(ki, kj)`` of every window sits on the *padded*
        input (``p`` rows and columns added on each side): one strided
        slice per axis, ``OH`` rows ``sh`` apart and ``OW`` columns ``sw``
        apart. Within one tap no two windows share a pixel."""
        (sh, sw), (oh, ow) = self.s, self.out
        r0 = self.row(0, ki) + self.p[0]
        c0 = self.column(0, kj) + self.p[1]
        return slice(r0, r0 + sh * oh, sh), slice(c0, c0 + sw * ow, sw)

    @property
    def span(self) -> Pair:
        """The rows and columns one window covers, its taps and the holes
        the dilation leaves between them: ``(k - 1)*d + 1`` per axis."""
        return ((self.k[0] - 1) * self.d[0] + 1, (self.k[1] - 1) * self.d[1] + 1)

    @property
    def reach(self) -> Pair:
        """The rows and columns of the padded input the windows cover, from
        its first: the last window's start plus its span, ``(OH - 1)*sh +
        span`` per axis."""
        return tuple(  # type: ignore[return-value]
            (o - 1) * s + span
            for o, s, span in zip(self.out, self.s, self.span, strict=True)
        )

    def padded(self, hw: Pair) -> Pair:
        """The padded plane that holds every tap of every window over an
        input plane ``hw``: ``hw + 2p``, or the :attr:`reach` where it is
        larger (a ``ceil_mode`` pooling window hanging past the padding)."""
        return tuple(  # type: ignore[return-value]
            max(size + 2 * p, reach)
            for size, p, reach in zip(hw, self.p, self.reach, strict=True)
        )

    def unreached(self, hw: Pair) -> Pair:
        """The rows and columns at the bottom and right of the padded input
        plane ``hw`` that no window reaches, ``hw + 2p - reach`` per axis
        (0 when the stride steps exactly to the edge; negative when a
        ``ceil_mode`` window hangs past it): the ``output_padding`` that
        takes a strided conv's output back to ``hw``."""
        return tuple(  # type: ignore[return-value]
            size + 2 * p - reach
            for size, p, reach in zip(hw, self.p, self.reach, strict=True)
        )


def _back(a: int, s: int, out: int) -> int | None:
    """``a // s`` when ``a`` is a whole number of strides ``s`` and that
    window exists (``0 <= a // s < out``), else ``None``."""
    if a % s or not 0 <= a // s < out:
        return None
    return a // s


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


def _padded(shape, p: Pair) -> tuple[int, ...]:
    """``shape`` (N, C, H, W) with ``p`` rows and columns on each side."""
    n, c, h, w = shape
    return (n, c, h + 2 * p[0], w + 2 * p[1])


def _window_args(kernel_size, stride, padding, dilation) -> str:
    return (
        f"kernel_size={kernel_size!r}, stride={stride!r}, padding={padding!r}, "
        f"dilation={dilation!r}"
    )


@_memo
def unfold_geometry(
    x_shape: tuple[int, ...], kernel_size, dilation, padding, stride,
    *, itemsize: int = 8,
) -> Window:
    check_ndim(x_shape, 4, "input", "N, C, H, W")
    check_nonzero(x_shape, (1, 2, 3), "input", "N, C, H, W")
    win = window(x_shape[2:], kernel_size, stride, padding, dilation)
    n, c = x_shape[:2]
    check_memory(
        itemsize, _window_args(kernel_size, stride, padding, dilation),
        columns=(n, c * win.k[0] * win.k[1], win.out[0] * win.out[1]),
        padded_input=_padded(x_shape, win.p),
    )
    return win


@_memo
def fold_geometry(
    col_shape: tuple[int, ...], output_size, kernel_size, dilation, padding, stride,
    *, itemsize: int = 8,
) -> tuple[Window, int]:
    """Validate ``fold``; return the window and the channel count ``C``."""
    check_ndim(col_shape, 3, "input", "N, C*KH*KW, L")
    check_nonzero(col_shape, (1, 2), "input", "N, C*KH*KW, L")
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
    channels = rows // (kh * kw)
    out = (col_shape[0], channels, *hw)
    check_memory(
        itemsize,
        f"output_size={output_size!r}, "
        + _window_args(kernel_size, stride, padding, dilation),
        output=out, padded_output=_padded(out, win.p),
    )
    return win, channels


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
    check_max(g, "groups")
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


@_memo
def conv2d_geometry(
    x_shape, w_shape, b_shape, stride, padding, dilation, groups,
    *, itemsize: int = 8,
) -> ConvGeometry:
    check_ndim(x_shape, 4, "input", "N, C_in, H, W")
    check_ndim(w_shape, 4, "weight", "C_out, C_in/groups, KH, KW")
    check_nonzero(w_shape, (0,), "weight", "C_out, C_in/groups, KH, KW")
    if x_shape[0] and x_shape[1]:
        check_nonzero(
            x_shape, (2, 3), "input", "N, C_in, H, W",
            " (only an empty batch or no channels may have an empty plane)",
        )
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
    n, (oh, ow) = x_shape[0], win.out
    check_memory(
        itemsize, f"stride={stride!r}, padding={padding!r}, dilation={dilation!r}",
        columns=(n, c_in * k[0] * k[1], oh * ow),
        output=(n, c_out, oh, ow),
        padded_input=_padded((n, c_in, *hw), win.p),
    )
    return ConvGeometry(win, g, c_in, c_out, extra)


@_memo
def conv_transpose2d_geometry(
    x_shape, w_shape, b_shape, stride, padding, output_padding, groups, dilation,
    *, itemsize: int = 8,
) -> TransposeGeometry:
    """Validate a transposed conv and compute its output size."""
    check_ndim(x_shape, 4, "input", "N, C_in, H, W")
    check_ndim(w_shape, 4, "weight", "C_in, C_out/groups, KH, KW")
    check_nonzero(w_shape, (0, 1, 2, 3), "weight", "C_in, C_out/groups, KH, KW")
    if x_shape[0]:
        check_nonzero(
            x_shape, (2, 3), "input", "N, C_in, H, W",
            " (only an empty batch may have an empty plane)",
        )
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
        o = _transpose_size(size, kk, ss, pp, dd, oo)
        if o < 1:
            raise ValueError(
                f"conv_transpose2d output would be empty ({o}) for input size "
                f"{size}, kernel_size {kk}, stride {ss}, padding {pp}, "
                f"dilation {dd}: padding={padding!r} is too large"
            )
        out.append(o)
    win = Window(k, s, p, d, (x_shape[2], x_shape[3]))
    n, h, w = x_shape[0], x_shape[2], x_shape[3]
    y_shape = (n, c_out, out[0], out[1])
    check_memory(
        itemsize,
        f"stride={stride!r}, padding={padding!r}, output_padding="
        f"{output_padding!r}, dilation={dilation!r}",
        columns=(n, c_out * k[0] * k[1], h * w),
        output=y_shape, padded_output=_padded(y_shape, p),
    )
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


def _blind_window(size: int, o: int, k: int, s: int, p: int, d: int) -> int:
    """The first of ``o`` pooling windows whose taps all fall in the
    padding, or -1 when every window sees an input pixel.

    No loop over all windows: every window starts before ``size`` (the
    output-size rules see to it), so one starting at ``a >= 0`` sees pixel
    ``a``. One starting at ``a < 0`` (the first ``ceil(p/s)``) first lands at
    or past pixel 0 on pixel ``a mod d`` (its ``ceil(-a/d)``-th tap exists,
    since ``p <= k//2``), so it is blind exactly when ``a mod d >= size``.
    That needs ``d > size``, and the residues repeat every ``d/gcd(s, d)``
    windows.
    """
    if d <= size or p == 0:
        return -1
    count = min(o, -(-p // s), d // math.gcd(s, d))
    chunk = 1 << 16
    for first in range(0, count, chunk):
        i = np.arange(first, min(count, first + chunk), dtype=np.int64)
        blind = (i * s - p) % d >= size
        if blind.any():
            return int(i[np.argmax(blind)])
    return -1


def _taps_text(start: int, k: int, d: int) -> str:
    taps = [start + t * d for t in range(min(k, 6))]
    more = f", ..., {start + (k - 1) * d}" if k > 6 else ""
    return ", ".join(map(str, taps)) + more


@_memo
def pool_window(
    x_shape,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode: bool,
    *,
    itemsize: int = 8,
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
    check_nonzero(x_shape, (1, 2, 3), "input", "N, C, H, W")
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
        i = _blind_window(size, o, kk, ss, pp, dd)
        if i >= 0:
            raise ValueError(
                f"every pooling window must see at least one input pixel, but "
                f"window {i} along {axis} (taps [{_taps_text(i * ss - pp, kk, dd)}]) "
                f"lies wholly in the padding of an input of size {size}; reduce "
                f"padding={padding!r} or dilation={dilation!r}"
            )
        out.append(o)
    n, c = x_shape[:2]
    win = Window(k, s, p, d, (out[0], out[1]))
    # the NumPy twins pad to hold every tap, a ceil_mode overhang included
    check_memory(
        max(itemsize, 8),  # the int64 argmax is as large as the output
        _window_args(kernel_size, stride, padding, dilation),
        output=(n, c, *out), argmax=(n, c, *out),
        padded_input=(n, c, *win.padded(x_shape[2:])),
    )
    return win


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
    return check_max(int(divisor_override), "divisor_override")  # type: ignore


def unpool_output_size(
    x_shape, kernel_size, stride, padding, output_size, *, itemsize: int = 8
) -> Pair:
    """max_unpool2d's output ``(OH, OW)``, by torch's rule.

    The default inverts max_pool2d's floor formula:
    ``(H - 1)*stride - 2*padding + kernel_size``. A given ``output_size``
    (``(OH, OW)`` or ``(N, C, OH, OW)``) must lie strictly within one stride
    of that default, since those are the input sizes max_pool2d maps to ``H``.
    A size of 0 gives an empty output, as in torch; a negative one is refused.
    """
    check_ndim(x_shape, 4, "input", "N, C, H, W")
    check_nonzero(x_shape, (1, 2, 3), "input", "N, C, H, W")
    k = pair(kernel_size, "kernel_size", minimum=1)
    s = pool_stride(stride, k)
    p = pair(padding, "padding", minimum=0)
    default = [
        (size - 1) * ss - 2 * pp + kk
        for size, kk, ss, pp in zip(x_shape[2:], k, s, p, strict=True)
    ]
    if output_size is None:
        for axis, o in zip("HW", default, strict=True):
            if o < 0:
                raise ValueError(
                    f"max_unpool2d output size would be negative ({o}) along {axis}: "
                    f"padding={padding!r} is too large for kernel_size="
                    f"{kernel_size!r}, stride={stride!r} and input of shape "
                    f"{tuple(x_shape)}"
                )
        hw = (default[0], default[1])
        check_memory(
            itemsize,
            f"kernel_size={kernel_size!r}, stride={stride!r}, padding={padding!r}",
            output=(*x_shape[:2], *hw),
        )
        return hw
    if not isinstance(output_size, (tuple, list)) or len(output_size) not in (2, 4):
        raise TypeError(
            f"output_size must be None or a sequence of 2 (OH, OW) or 4 "
            f"(N, C, OH, OW) ints, got {output_size!r}"
        )
    hw = pair(tuple(output_size[-2:]), "output_size", minimum=0)
    for axis, o, dflt, ss in zip("HW", hw, default, s, strict=True):
        lo, hi = dflt - ss, dflt + ss
        if not lo < o < hi:
            raise ValueError(
                f"output_size must lie strictly between {lo} and {hi} along "
                f"{axis} (the sizes max_pool2d maps back to the input), got "
                f"output_size={output_size!r}"
            )
    check_memory(itemsize, f"output_size={output_size!r}", output=(*x_shape[:2], *hw))
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
    # an empty output is written nowhere: torch checks no index then
    if plane and indices.size and (indices.min() < 0 or indices.max() >= plane):
        raise ValueError(
            f"indices must lie in [0, OH*OW) = [0, {plane}) for an output of "
            f"{out[0]}x{out[1]}, got values from {indices.min()} to "
            f"{indices.max()}"
        )
    return np.ascontiguousarray(indices, dtype=np.int64)


def adaptive_pool_size(x_shape, output_size, *, itemsize: int = 8) -> Pair:
    """adaptive_avg_pool2d's ``(OH, OW)``; ``None`` keeps that input size.

    An output size of 0 gives an empty output, as in torch. An empty plane
    is refused (torch accepts a few with an empty batch, inconsistently:
    ``(0, 1, 0, 4)`` but not ``(0, 1, 4, 0)``).
    """
    check_ndim(x_shape, 4, "input", "N, C, H, W")
    check_nonzero(x_shape, (2, 3), "input", "N, C, H, W")
    given = output_size
    if isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        output_size = tuple(
            size if o is None else o
            for o, size in zip(output_size, x_shape[2:], strict=True)
        )
    hw = pair(output_size, "output_size", minimum=0)
    check_memory(
        itemsize, f"output_size={given!r}",
        output=(*x_shape[:2], *hw),
        bins=(hw[0] * x_shape[2] + hw[1] * x_shape[3],),
    )
    return hw


def adaptive_bins(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """torch's adaptive windows: bin ``i`` covers ``[start_i, end_i)`` with
    ``start_i = floor(i*size/out)`` and ``end_i = ceil((i+1)*size/out)``."""
    i = np.arange(out)
    starts = (i * size) // out
    ends = -(-((i + 1) * size) // out)
    return starts, ends
