"""The public ops, as in ``torch.nn.functional``: validate, then apply.

Every function accepts Tensors or array-likes (arrays become constant
Tensors), checks its arguments in :mod:`convgrad.geometry`, and returns a
Tensor whose ``backward`` knows the op's gradient.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import geometry as geo
from .ops import basic, conv, loss
from .ops import pool as _pool
from .tensor import Tensor

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
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
    "relu",
    "sigmoid",
    "tanh",
    "unfold",
]


def as_tensor(value: Any, name: str) -> Tensor:
    """A Tensor as is; anything array-like becomes a constant Tensor."""
    if isinstance(value, Tensor):
        return value
    try:
        return Tensor(value)
    except TypeError as err:
        raise TypeError(f"{name}: {err}") from None


def _same_dtype(x: Tensor, w: Tensor, b: Tensor | None) -> None:
    """``weight`` and ``bias`` (if any) must have ``input``'s dtype."""
    dt = x.data.dtype
    for name, t in (("weight", w), ("bias", b)):
        if t is not None and t.data.dtype != dt:
            raise TypeError(
                f"{name} must have the same dtype as input: got "
                f"{name}.dtype={t.dtype} and input.dtype={x.dtype}"
            )


# --------------------------------------------------------------------------
# im2col / col2im
# --------------------------------------------------------------------------


def unfold(
    input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """im2col: ``(N, C, H, W)`` → ``(N, C*KH*KW, OH*OW)``, as torch's unfold.

    Row ``(c, ki, kj)`` of the result holds what kernel tap ``(ki, kj)`` of
    channel ``c`` sees at each of the ``OH*OW`` window positions.
    """
    x = as_tensor(input, "input")
    win = geo.unfold_geometry(
        x.shape, kernel_size, dilation, padding, stride, itemsize=x.dtype.itemsize
    )
    return conv.Unfold.apply(x, win)


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
    int, a pair, ``'valid'`` or ``'same'``.
    """
    x, w = as_tensor(input, "input"), as_tensor(weight, "weight")
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
    backward pass of conv2d: ``col2im(wᵀ · x)``.
    """
    x, w = as_tensor(input, "input"), as_tensor(weight, "weight")
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
    on a tie; NaN wins): the routing the backward pass follows.
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
    another size within one stride of it.
    """
    x = as_tensor(input, "input")
    if isinstance(indices, Tensor):
        indices = indices.data
    out_hw = geo.unpool_output_size(
        x.shape, kernel_size, stride, padding, output_size, itemsize=x.dtype.itemsize
    )
    idx = geo.check_unpool_indices(np.asarray(indices), x.shape, out_hw)
    return _pool.MaxUnpool2d.apply(x, idx, out_hw)


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
    the real pixels (``False``).
    """
    x = as_tensor(input, "input")
    win = geo.pool_window(
        x.shape, kernel_size, stride, padding, 1, ceil_mode, itemsize=x.dtype.itemsize
    )
    divisor = geo.avg_pool_options(count_include_pad, divisor_override)
    return _pool.AvgPool2d.apply(x, win, bool(count_include_pad), divisor)


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Tensor:
    """Average into an ``output_size`` grid of torch's adaptive bins.

    Bin ``i`` of ``out`` along an axis of ``size`` covers
    ``[floor(i*size/out), ceil((i+1)*size/out))``. ``output_size=1`` is the
    global average; ``None`` in a pair keeps that input size.
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
    x = as_tensor(input, "input")
    if x.ndim == 0:
        raise ValueError("input must have at least 1 dimension for log_softmax")
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
    if t.dtype.kind == "f" and np.all(t == np.round(t)):
        t = t.astype(np.int64)
    if t.dtype.kind not in "iu":
        raise TypeError(f"target must hold integer class indices, got dtype {t.dtype}")
    if t.shape != (logits.shape[0],):
        raise ValueError(
            f"target must have shape ({logits.shape[0]},) (one class per "
            f"row of input), got {t.shape}"
        )
    n_classes = logits.shape[1]
    if t.size and (t.min() < 0 or t.max() >= n_classes):
        raise ValueError(
            f"target values must lie in [0, {n_classes}), got values from "
            f"{t.min()} to {t.max()}"
        )
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
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    rng = np.random.default_rng(generator)
    return loss.Dropout.apply(x, float(p), rng)
