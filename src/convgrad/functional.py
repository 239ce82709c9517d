"""The public ops, as in ``torch.nn.functional``: validate, then apply.

Every function accepts Tensors or array-likes (arrays become constant
Tensors), checks its arguments in :mod:`convgrad.geometry`, and returns a
Tensor whose ``backward`` knows the op's gradient.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from . import geometry as geo
from .ops import basic, conv, loss
from .ops import norm as _norm
from .ops import pool as _pool
from .ops import shape as _shape
from .tensor import Tensor, as_float_array

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "conv2d",
    "conv_transpose2d",
    "cross_entropy",
    "dropout",
    "fold",
    "linear",
    "log_softmax",
    "max_pool2d",
    "max_unpool2d",
    "mse_loss",
    "pixel_shuffle",
    "pixel_unshuffle",
    "relu",
    "sigmoid",
    "tanh",
    "unfold",
]


def as_tensor(value: Any, name: str) -> Tensor:
    """A Tensor as is; anything array-like becomes a constant Tensor.

    The constant reads the array without a copy (an op only reads its
    inputs, and the saved-array check catches a write before backward)."""
    if isinstance(value, Tensor):
        return value
    return Tensor.wrap(as_float_array(value, name))


def _same_dtype(x: Tensor, w: Tensor, b: Tensor | None) -> None:
    """``weight`` and ``bias`` (if any) must have ``input``'s dtype."""
    dt = x.data.dtype
    for name, t in (("weight", w), ("bias", b)):
        if t is not None and t.data.dtype != dt:
            raise TypeError(
                f"{name} must have the same dtype as input: got "
                f"{name}.dtype={t.dtype} and input.dtype={x.dtype}"
            )


def accepts_unbatched(ndim: int, layout: str) -> Callable:
    """Decorate an op on batched ``input`` (``ndim`` dimensions, ``layout``)
    so that it also takes one unbatched item (``ndim - 1``), as torch's
    ops do: it runs as a batch of one, and the result (and max-pool's
    indices) loses the batch axis again. The reshapes are differentiable,
    so the gradient has the input's shape, first order or not. An argument
    error then says the input was read as a batch of one."""

    def wrap(op: Callable) -> Callable:
        @functools.wraps(op)
        def run(input: Any, *args: Any, **kwargs: Any) -> Any:
            x = as_tensor(input, "input")
            if not geo.is_unbatched(x.shape, ndim, layout):
                return op(x, *args, **kwargs)
            try:
                out = op(x.reshape((1, *x.shape)), *args, **kwargs)
            except ValueError as err:
                raise ValueError(
                    f"{err} (the unbatched input of shape {x.shape} runs as a "
                    f"batch of one, of shape {(1, *x.shape)})"
                ) from None
            if isinstance(out, tuple):  # max_pool2d's (y, indices)
                y, indices = out
                return y.reshape(y.shape[1:]), indices[0]
            return out.reshape(out.shape[1:])

        return run

    return wrap


# --------------------------------------------------------------------------
# im2col / col2im
# --------------------------------------------------------------------------


@accepts_unbatched(4, "N, C, H, W")
def unfold(
    input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """im2col: ``(N, C, H, W)`` → ``(N, C*KH*KW, OH*OW)``, as torch's unfold.

    Row ``(c, ki, kj)`` of the result holds what kernel tap ``(ki, kj)`` of
    channel ``c`` sees at each of the ``OH*OW`` window positions. An
    unbatched ``(C, H, W)`` gives ``(C*KH*KW, OH*OW)``.
    """
    x = as_tensor(input, "input")
    win = geo.unfold_geometry(
        x.shape, kernel_size, dilation, padding, stride, itemsize=x.dtype.itemsize
    )
    return conv.Unfold.apply(x, win)


@accepts_unbatched(3, "N, C*KH*KW, L")
def fold(
    input: Any,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """col2im: scatter-*add* columns back onto an ``output_size`` image.

    The adjoint of :func:`unfold`, not its inverse: overlapping windows add.
    An unbatched ``(C*KH*KW, L)`` gives ``(C, H, W)``.
    """
    col = as_tensor(input, "input")
    win, channels = geo.fold_geometry(
        col.shape, output_size, kernel_size, dilation, padding, stride,
        itemsize=col.dtype.itemsize,
    )
    hw = geo.pair(output_size, "output_size", minimum=1)
    return conv.Fold.apply(col, win, channels, hw)


# --------------------------------------------------------------------------
# convolutions
# --------------------------------------------------------------------------


@accepts_unbatched(4, "N, C_in, H, W")
def conv2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D cross-correlation, as ``torch.nn.functional.conv2d``.

    ``weight`` is ``(C_out, C_in/groups, KH, KW)``; ``padding`` may be an
    int, a pair, ``'valid'`` or ``'same'``. An unbatched ``(C_in, H, W)``
    input gives a ``(C_out, OH, OW)`` result.
    """
    x = as_tensor(input, "input")
    w = as_tensor(weight, "weight")
    b = None if bias is None else as_tensor(bias, "bias")
    geom = geo.conv2d_geometry(
        x.shape,
        w.shape,
        None if b is None else b.shape,
        stride,
        padding,
        dilation,
        groups,
        itemsize=x.dtype.itemsize,
    )
    _same_dtype(x, w, b)
    return conv.Conv2d.apply(x, w, b, geom)


@accepts_unbatched(4, "N, C_in, H, W")
def conv_transpose2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """Transposed convolution, as ``torch.nn.functional.conv_transpose2d``.

    ``weight`` is ``(C_in, C_out/groups, KH, KW)``. The forward pass is the
    backward pass of conv2d: ``col2im(wᵀ · x)``. An unbatched
    ``(C_in, H, W)`` input gives a ``(C_out, OH, OW)`` result.
    """
    x = as_tensor(input, "input")
    w = as_tensor(weight, "weight")
    b = None if bias is None else as_tensor(bias, "bias")
    geom = geo.conv_transpose2d_geometry(
        x.shape,
        w.shape,
        None if b is None else b.shape,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        itemsize=x.dtype.itemsize,
    )
    _same_dtype(x, w, b)
    return conv.ConvTranspose2d.apply(x, w, b, geom)


# --------------------------------------------------------------------------
# pooling (max_pool2d, max_unpool2d, avg_pool2d, adaptive_avg_pool2d)
# --------------------------------------------------------------------------


@accepts_unbatched(4, "N, C, H, W")
def max_pool2d(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor | tuple[Tensor, np.ndarray]:
    """Each window's maximum, as ``torch.nn.functional.max_pool2d``.

    Padding counts as -inf. With ``return_indices`` also return the int64
    flat index ``h*W + w`` of each maximum in its input plane (first maximum
    on a tie; NaN wins): the routing the backward pass follows. An
    unbatched ``(C, H, W)`` input gives ``(C, OH, OW)`` results.
    """
    x = as_tensor(input, "input")
    win = geo.pool_window(
        x.shape, kernel_size, stride, padding, dilation, ceil_mode,
        itemsize=x.dtype.itemsize,
    )
    want_indices = geo.check_bool(return_indices, "return_indices")
    y, ctx = _pool.MaxPool2d.apply_with_ctx(x, win)
    if want_indices:
        return y, ctx.argmax.copy()
    return y


@accepts_unbatched(4, "N, C, H, W")
def max_unpool2d(
    input: Any,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Scatter ``input`` to ``indices`` of a zero plane, as torch's unpool.

    ``indices`` are what ``max_pool2d(..., return_indices=True)`` returned.
    The default output size undoes max_pool2d's:
    ``(H - 1)*stride - 2*padding + kernel_size``; ``output_size`` picks
    another size within one stride of it. An unbatched ``(C, H, W)``
    input takes ``(C, H, W)`` indices and gives a ``(C, OH, OW)`` result.
    """
    x = as_tensor(input, "input")
    if isinstance(indices, Tensor):
        indices = indices.data
    indices = np.asarray(indices)
    if indices.ndim == 3 and x.shape[0] == 1:  # an unbatched pool's indices
        indices = indices[None]
    out_hw = geo.unpool_output_size(
        x.shape, kernel_size, stride, padding, output_size, itemsize=x.dtype.itemsize
    )
    idx = geo.check_unpool_indices(indices, x.shape, out_hw)
    return _pool.MaxUnpool2d.apply(x, idx, out_hw)


@accepts_unbatched(4, "N, C, H, W")
def avg_pool2d(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """Each window's mean, as ``torch.nn.functional.avg_pool2d``.

    Padding reads 0. The divisor is ``divisor_override`` if given, else the
    window's size counting the padding (``count_include_pad=True``) or only
    the real pixels (``False``). An unbatched ``(C, H, W)`` input gives a
    ``(C, OH, OW)`` result.
    """
    x = as_tensor(input, "input")
    win = geo.pool_window(
        x.shape, kernel_size, stride, padding, 1, ceil_mode, itemsize=x.dtype.itemsize
    )
    divisor = geo.avg_pool_options(count_include_pad, divisor_override)
    return _pool.AvgPool2d.apply(x, win, bool(count_include_pad), divisor)


@accepts_unbatched(4, "N, C, H, W")
def adaptive_avg_pool2d(input: Any, output_size: Any) -> Tensor:
    """Average into an ``output_size`` grid of torch's adaptive bins.

    Bin ``i`` of ``out`` along an axis of ``size`` covers
    ``[floor(i*size/out), ceil((i+1)*size/out))``. ``output_size=1`` is the
    global average; ``None`` in a pair keeps that input size. An unbatched
    ``(C, H, W)`` input gives a ``(C, OH, OW)`` result.
    """
    x = as_tensor(input, "input")
    oh, ow = geo.adaptive_pool_size(x.shape, output_size, itemsize=x.dtype.itemsize)
    rows = geo.adaptive_bins(x.shape[2], oh)
    cols = geo.adaptive_bins(x.shape[3], ow)
    return _pool.AdaptiveAvgPool2d.apply(x, rows, cols)


# --------------------------------------------------------------------------
# activations, linear, losses
# --------------------------------------------------------------------------


def relu(input: Any) -> Tensor:
    return basic.ReLU.apply(as_tensor(input, "input"))


def tanh(input: Any) -> Tensor:
    return basic.Tanh.apply(as_tensor(input, "input"))


def sigmoid(input: Any) -> Tensor:
    return basic.Sigmoid.apply(as_tensor(input, "input"))


def _dim(dim: Any, ndim: int) -> int:
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {dim!r}")
    if not -ndim <= dim < ndim:
        raise ValueError(f"dim must be in [-{ndim}, {ndim}), got {dim}")
    return int(dim) % ndim


def log_softmax(input: Any, dim: int = -1) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``dim``. A 0-d input is a softmax over
    one value, as in torch: its result is 0 (``dim`` is 0 or -1)."""
    x = as_tensor(input, "input")
    if x.ndim == 0:
        _dim(dim, 1)
        return loss.LogSoftmax.apply(x.reshape(1), 0).reshape(())
    return loss.LogSoftmax.apply(x, _dim(dim, x.ndim))


def linear(input: Any, weight: Any, bias: Any = None) -> Tensor:
    """``input @ weight.T + bias``, with ``weight`` of shape (out, in)."""
    x, w = as_tensor(input, "input"), as_tensor(weight, "weight")
    b = None if bias is None else as_tensor(bias, "bias")
    if w.ndim != 2:
        raise ValueError(
            f"weight must be 2-D (out_features, in_features), got shape {w.shape}"
        )
    if x.ndim < 1 or x.shape[-1] != w.shape[1]:
        raise ValueError(
            f"input.shape[-1] must equal in_features = weight.shape[1] = "
            f"{w.shape[1]}, got input of shape {x.shape}"
        )
    if b is not None and b.shape != (w.shape[0],):
        raise ValueError(f"bias must have shape ({w.shape[0]},), got {b.shape}")
    _same_dtype(x, w, b)
    return loss.Linear.apply(x, w, b)


_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction: Any) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    return reduction


def cross_entropy(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    """Softmax cross-entropy of ``(N, C)`` logits against class indices."""
    logits = as_tensor(input, "input")
    if logits.ndim != 2:
        raise ValueError(f"input must be 2-D (N, C) logits, got shape {logits.shape}")
    t = target.data if isinstance(target, Tensor) else np.asarray(target)
    n_classes = logits.shape[1]

    def check_range(t: np.ndarray) -> None:
        if t.size and (t.min() < 0 or t.max() >= n_classes):
            raise ValueError(
                f"target values must lie in [0, {n_classes}), got values "
                f"from {t.min():g} to {t.max():g}"
            )

    if t.dtype.kind == "f":
        if not np.all(np.isfinite(t)):
            raise ValueError(
                f"target must hold class indices in [0, {n_classes}), got "
                f"non-finite values (inf or NaN)"
            )
        if np.all(t == np.round(t)):  # whole numbers: indices, once in range
            check_range(t)  # before the cast, which 1e20 would overflow
            t = t.astype(np.int64)
    if t.dtype.kind not in "iu":
        raise TypeError(f"target must hold integer class indices, got dtype {t.dtype}")
    if t.shape != (logits.shape[0],):
        raise ValueError(
            f"target must have shape ({logits.shape[0]},) (one class per "
            f"row of input), got {t.shape}"
        )
    check_range(t)
    return loss.CrossEntropy.apply(logits, t.astype(np.intp), _reduction(reduction))


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    a, b = as_tensor(input, "input"), as_tensor(target, "target")
    if a.shape != b.shape:
        raise ValueError(f"target must have the input's shape {a.shape}, got {b.shape}")
    return loss.MSELoss.apply(a, b, _reduction(reduction))


def dropout(
    input: Any,
    p: float = 0.5,
    training: bool = True,
    generator: np.random.Generator | int | None = None,
) -> Tensor:
    """Zero elements with probability ``p`` and scale the rest by 1/(1-p).

    ``generator`` is a ``numpy.random.Generator`` or a seed, so a lesson's
    dropout mask is reproducible.
    """
    x = as_tensor(input, "input")
    if not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    training = geo.check_bool(training, "training")
    rng = None if generator is None else generator_from(generator)  # checked
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    if rng is None:
        rng = np.random.default_rng()
    return loss.Dropout.apply(x, float(p), rng)


def generator_from(generator: Any) -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``generator``: a Generator as is,
    an int seed (at least 0), or None (fresh entropy)."""
    if generator is None:
        return np.random.default_rng()
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, numbers.Integral) and not isinstance(generator, bool):
        if generator < 0:
            raise ValueError(
                f"generator, as a seed, must be at least 0, got {generator}"
            )
        return np.random.default_rng(int(generator))
    raise TypeError(
        f"generator must be a numpy.random.Generator, an int seed or None, "
        f"got {generator!r}"
    )


# --------------------------------------------------------------------------
# pixel shuffle (channels to space and back)
# --------------------------------------------------------------------------


def _factor(value: Any, name: str) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


def pixel_shuffle(input: Any, upscale_factor: int) -> Tensor:
    """``(*, C·r², H, W)`` → ``(*, C, H·r, W·r)``, ``r = upscale_factor``.

    Channel ``c·r² + i·r + j`` becomes pixel ``(i, j)`` of each ``r × r``
    block of channel ``c``. Its backward is :func:`pixel_unshuffle`.
    """
    x = as_tensor(input, "input")
    r = _factor(upscale_factor, "upscale_factor")
    if x.ndim < 3:
        raise ValueError(
            f"input must have at least 3 dimensions (*, C*r^2, H, W), got "
            f"shape {x.shape}"
        )
    if x.shape[-3] % (r * r):
        raise ValueError(
            f"input.shape[-3] (the channels) must be divisible by "
            f"upscale_factor^2 = {r * r}, got {x.shape[-3]} channels"
        )
    return _own_memory(_shape.PixelShuffle.apply(x, r), x)


def _own_memory(y: Tensor, x: Tensor) -> Tensor:
    """``y`` with memory of its own. A shuffle's reshape is a view of ``x``
    when nothing moves (factor 1, or 1×1 planes), and torch's result never
    is: a write into it must not reach ``x`` (issue 43). The rules save no
    array, so nothing the graph holds points at the view replaced."""
    if np.may_share_memory(y.data, x.data):
        y.data = y.data.copy()
    return y


def pixel_unshuffle(input: Any, downscale_factor: int) -> Tensor:
    """``(*, C, H·r, W·r)`` → ``(*, C·r², H, W)``: the inverse of
    :func:`pixel_shuffle`, and (as it only moves numbers) its adjoint."""
    x = as_tensor(input, "input")
    r = _factor(downscale_factor, "downscale_factor")
    if x.ndim < 3:
        raise ValueError(
            f"input must have at least 3 dimensions (*, C, H*r, W*r), got "
            f"shape {x.shape}"
        )
    for axis, name in ((-2, "height"), (-1, "width")):
        if x.shape[axis] % r:
            raise ValueError(
                f"input.shape[{axis}] (the {name}) must be divisible by "
                f"downscale_factor={r}, got {x.shape[axis]}"
            )
    return _own_memory(_shape.PixelUnshuffle.apply(x, r), x)


# --------------------------------------------------------------------------
# batch normalisation
# --------------------------------------------------------------------------


def _real(value: Any, name: str) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a float, got {value!r}")
    return float(value)


def _per_channel(value: Any, name: str, c: int) -> Any:
    """A ``(C,)`` vector: ``weight``, ``bias`` or a running statistic."""
    t = value.data if isinstance(value, Tensor) else as_float_array(value, name)
    if t.shape != (c,):
        raise ValueError(
            f"{name} must have shape ({c},) (one number per channel of "
            f"input.shape[1]={c}), got shape {t.shape}"
        )
    return t


def _running_stats(
    running_mean: Any, running_var: Any, c: int, training: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    """The running statistics' arrays, which training updates in place."""
    if (running_mean is None) != (running_var is None):
        raise ValueError(
            "running_mean and running_var must either both be None or "
            "neither be None"
        )
    if running_mean is None:
        return None
    stats = []
    for value, name in ((running_mean, "running_mean"),
                        (running_var, "running_var")):  # fmt: skip
        arr = _per_channel(value, name, c)
        if training and not (
            isinstance(value, (Tensor, np.ndarray))
            and arr.dtype.kind == "f"
            and arr.flags.writeable
        ):
            raise TypeError(
                f"{name} must be a Tensor or a writable float ndarray while "
                f"training: it is updated in place, got {type(value).__name__}"
            )
        stats.append(arr)
    return stats[0], stats[1]


def batch_norm(
    input: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-05,
) -> Tensor:
    """Normalise each channel of ``(N, C)``, ``(N, C, L)`` or ``(N, C, H, W)``.

    ``training=True``: with the batch's mean and biased variance over
    every axis but 1; the backward pass is the hand-derived rule of
    :mod:`convgrad.ops.norm`. If ``running_mean`` and ``running_var`` are
    given they are updated in place, as in torch:
    ``running = (1 - momentum) * running + momentum * batch``, with the
    *unbiased* variance. ``training=False``: with the running statistics,
    which must be given. ``weight`` (γ) and ``bias`` (β) are ``(C,)``.
    """
    x = as_tensor(input, "input")
    if x.ndim < 2:
        raise ValueError(
            f"input must have at least 2 dimensions (N, C, *), got shape "
            f"{x.shape}"
        )
    c = x.shape[1]
    training = geo.check_bool(training, "training")
    momentum, eps = _real(momentum, "momentum"), _real(eps, "eps")
    stats = _running_stats(running_mean, running_var, c, training)
    w = None if weight is None else as_tensor(weight, "weight")
    b = None if bias is None else as_tensor(bias, "bias")
    for t, name in ((w, "weight"), (b, "bias")):
        if t is not None:
            _per_channel(t, name, c)
    _same_dtype(x, w, b)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if not training:
        if stats is None:
            raise ValueError(
                "running_mean and running_var must be given in evaluation "
                "mode (training=False)"
            )
        mean, var = (a.astype(x.dtype).reshape(shape) for a in stats)
        y = (x - mean) * (1 / np.sqrt(var + x.dtype.type(eps)))
        if w is not None:
            y = y * w.reshape(shape)
        return y if b is None else y + b.reshape(shape)
    if x.size == c:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got "
            f"input size {x.shape}"
        )
    if eps <= 0:
        raise ValueError(f"eps must be positive during training, got {eps}")
    y, ctx = _norm.BatchNorm.apply_with_ctx(x, w, b, eps)
    if stats is not None and ctx.count:  # an empty batch leaves them, as torch
        m = ctx.count
        unbiased = ctx.var * (m / max(m - 1, 1))
        for running, batch in zip(stats, (ctx.mean, unbiased), strict=True):
            running *= 1 - momentum
            running += momentum * batch
    return y
