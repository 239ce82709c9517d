"""Layers as in ``torch.nn``: ``Module``, ``Parameter`` and the usual blocks.

A ``Module`` registers every ``Parameter`` (and every sub-``Module``) that
is assigned to one of its attributes, so ``parameters()`` finds them::

    from convgrad import nn

    nn.manual_seed(0)                      # reproducible initialisation
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 4 * 4, 10),
    )
    logits = model(x)                      # __call__ runs forward

**Initialisation** follows torch's defaults: weights are
``kaiming_uniform(a=sqrt(5))``, which is ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``,
and biases are ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``. The random numbers
come from a ``numpy.random.Generator``: each layer takes ``generator=`` (a
Generator or an int seed); without it, layers draw from the module-level
generator that :func:`manual_seed` resets (seeded with 0 at import, so a
fresh session builds the same weights, as torch's fixed default seed does).
Parameters are float32 unless ``dtype=`` says otherwise.
"""

from __future__ import annotations

import math
import numbers
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from . import functional as F
from . import geometry as geo
from .functional import as_tensor
from .tensor import Tensor

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool2d",
    "BatchNorm2d",
    "Conv2d",
    "ConvTranspose2d",
    "Dropout",
    "Flatten",
    "Identity",
    "Linear",
    "MaxPool2d",
    "Module",
    "Parameter",
    "PixelShuffle",
    "PixelUnshuffle",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "default_generator",
    "manual_seed",
]

# --------------------------------------------------------------------------
# seeding
# --------------------------------------------------------------------------

_DEFAULT_SEED = 0
_generator = np.random.default_rng(_DEFAULT_SEED)


def manual_seed(seed: int) -> np.random.Generator:
    """Reset the generator that layers built without ``generator=`` use."""
    global _generator
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be at least 0, got {seed}")
    _generator = np.random.default_rng(int(seed))
    return _generator


def default_generator() -> np.random.Generator:
    """The module-level generator (reset by :func:`manual_seed`)."""
    return _generator


def _rng(generator: np.random.Generator | int | None) -> np.random.Generator:
    if generator is None:
        return _generator
    return F.generator_from(generator)


def _float_dtype(dtype: Any) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    return dt


def _uniform(
    rng: np.random.Generator, bound: float, shape: tuple[int, ...], dtype: np.dtype
) -> np.ndarray:
    return rng.uniform(-bound, bound, size=shape).astype(dtype)


def init_bound(fan_in: int) -> float:
    """torch's default bound for weights and biases: ``1/sqrt(fan_in)``.

    ``kaiming_uniform(a=sqrt(5))`` has gain ``sqrt(2/(1+5))`` and bound
    ``gain*sqrt(3/fan_in)``, which is exactly ``1/sqrt(fan_in)``.
    """
    return 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0


def _positive_int(value: object, name: str) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


# --------------------------------------------------------------------------
# Parameter and Module
# --------------------------------------------------------------------------


class Parameter(Tensor):
    """A Tensor that a Module registers: ``requires_grad`` is True.

    An array (or list) is copied, as ``torch.tensor`` copies, so training
    never changes the caller's array. A Tensor is wrapped without a copy,
    as ``torch.nn.Parameter(t)`` shares ``t``'s memory: wrap
    :func:`convgrad.from_numpy` of an array to train that array in place.
    """

    def __init__(self, data: Any, requires_grad: bool = True) -> None:
        if isinstance(data, Tensor):
            super().__init__(0.0, requires_grad=requires_grad)
            self.data = data.data
        else:
            super().__init__(data, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


def _buffers_of(m: Module) -> Mapping[str, Tensor | None]:
    """``m``'s buffers (none for a module built before buffers existed)."""
    return m.__dict__.get("_buffers", {})


class Module:
    """Base class of every layer.

    Assigning a ``Parameter`` or a ``Module`` to an attribute registers it;
    ``forward`` holds the computation and ``module(x)`` calls it.
    """

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "training", True)

    # ---------------------------------------------------- registration
    def __setattr__(self, name: str, value: Any) -> None:
        buffers = self.__dict__.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign {type(value).__name__} to buffer "
                    f"'{name}': use a Tensor or None"
                )
            buffers[name] = value
            return
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        if isinstance(value, (Parameter, Module)) and params is None:
            raise AttributeError(
                f"cannot assign {type(value).__name__} '{name}' before "
                f"Module.__init__() has run: call super().__init__() first"
            )
        if isinstance(value, Parameter):
            modules.pop(name, None)
            self.__dict__.pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            params.pop(name, None)
            self.__dict__.pop(name, None)
            modules[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} to parameter "
                    f"'{name}': use a Parameter or None"
                )
            params[name] = None
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} to submodule "
                    f"'{name}': use a Module or None"
                )
            modules[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}'"
        )

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._modules:
            del self._modules[name]
        elif name in self.__dict__.get("_buffers", {}):
            del self._buffers[name]
        else:
            object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (or an empty slot, for ``None``) as ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"param must be a Parameter or None, got {type(param).__name__}"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None) -> None:
        """Register ``tensor`` as state that is not learned (batch norm's
        running statistics): it is in ``state_dict`` and ``buffers()``,
        never in ``parameters()``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError(
                "cannot register a buffer before Module.__init__() has run: "
                "call super().__init__() first"
            )
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(
                f"buffer name must be a non-empty string without '.', got {name!r}"
            )
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"buffer '{name}' must be a Tensor or None, got "
                f"{type(tensor).__name__}"
            )
        if name not in self._buffers and (
            name in self.__dict__ or name in self._parameters or name in self._modules
        ):
            raise KeyError(f"attribute '{name}' already exists")
        self._buffers[name] = tensor

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(
                f"module must be a Module or None, got {type(module).__name__}"
            )
        self._modules[name] = module

    # --------------------------------------------------------- walking
    def named_children(self) -> Iterator[tuple[str, Module]]:
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every descendant, depth first, with dotted names."""
        yield prefix, self
        for name, m in self.named_children():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``("conv1.weight", Parameter)`` pairs; each parameter once."""
        seen: set[int] = set()
        if geo.check_bool(recurse, "recurse"):
            walk = self.named_modules(prefix)
        else:
            walk = iter([(prefix, self)])
        for mod_name, m in walk:
            for name, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mod_name}.{name}" if mod_name else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``("bn.running_mean", Tensor)`` pairs, as :meth:`named_parameters`."""
        if geo.check_bool(recurse, "recurse"):
            walk = self.named_modules(prefix)
        else:
            walk = iter([(prefix, self)])
        for mod_name, m in walk:
            for name, b in _buffers_of(m).items():
                if b is not None:
                    yield (f"{mod_name}.{name}" if mod_name else name), b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def num_parameters(self) -> int:
        """How many numbers the model learns."""
        return sum(p.size for p in self.parameters())

    # ------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> Module:
        """Set ``training`` on this module and every descendant."""
        if not isinstance(mode, (bool, np.bool_)):
            raise TypeError(f"mode must be a bool, got {mode!r}")
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> Module:
        return self.train(False)

    def zero_grad(self) -> None:
        """Forget every parameter's gradient (``grad = None``, as torch)."""
        for p in self.parameters():
            p.grad = None

    def apply(self, fn: Any) -> Module:
        """Call ``fn(m)`` on every descendant, then on this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------ state
    def _named_state(self) -> OrderedDict[str, Tensor]:
        """Every parameter, then every buffer, module by module, as in
        torch's ``state_dict`` order."""
        params = dict(self.named_parameters())
        state: OrderedDict[str, Tensor] = OrderedDict()
        for mod_name, m in self.named_modules():
            dot = f"{mod_name}." if mod_name else ""
            for name in m._parameters:
                if dot + name in params:
                    state[dot + name] = params[dot + name]
            for name, b in _buffers_of(m).items():
                if b is not None:
                    state[dot + name] = b
        return state

    def state_dict(self) -> OrderedDict[str, np.ndarray]:
        """A copy of every parameter's and buffer's data, by dotted name."""
        return OrderedDict((k, t.data.copy()) for k, t in self._named_state().items())

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Copy ``state``'s arrays into the parameters and buffers.

        Keys must match exactly and each shape must equal the parameter's;
        otherwise a ``ValueError`` names the key (and both shapes) and
        nothing is changed.
        """
        own = self._named_state()
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        if missing or unexpected:
            parts = []
            if missing:
                parts.append(f"missing keys {missing}")
            if unexpected:
                parts.append(f"unexpected keys {unexpected}")
            raise ValueError("state_dict does not match the model: " + "; ".join(parts))
        arrays = {}
        for key, p in own.items():
            arr = np.asarray(
                state[key].data if isinstance(state[key], Tensor) else state[key]
            )
            if arr.shape != p.shape:
                raise ValueError(
                    f"state_dict['{key}'] has shape {arr.shape}, but the "
                    f"model's parameter '{key}' has shape {p.shape}"
                )
            if arr.dtype.kind not in "fiub":
                raise TypeError(
                    f"state_dict['{key}'] must hold real numbers, got dtype {arr.dtype}"
                )
            arrays[key] = arr
        for key, p in own.items():
            p.data = arrays[key].astype(p.dtype, copy=True)

    # ---------------------------------------------------------- calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward(...)")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        children = list(self._modules.items())
        if not children:
            return lines[0] + ")"
        for name, m in children:
            body = repr(m).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        return "\n".join(lines) + "\n)"


# --------------------------------------------------------------------------
# layers with parameters
# --------------------------------------------------------------------------


class Linear(Module):
    """``y = x @ weight.T + bias``; ``weight`` is ``(out_features, in_features)``."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        generator: np.random.Generator | int | None = None,
    ) -> None:
        super().__init__()
        self.in_features = _positive_int(in_features, "in_features")
        self.out_features = _positive_int(out_features, "out_features")
        dt, rng = _float_dtype(dtype), _rng(generator)
        bound = init_bound(self.in_features)
        self.weight = Parameter(
            _uniform(rng, bound, (self.out_features, self.in_features), dt)
        )
        if geo.check_bool(bias, "bias"):
            self.bias = Parameter(_uniform(rng, bound, (self.out_features,), dt))
        else:
            self.register_parameter("bias", None)

    def forward(self, x: Any) -> Tensor:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class _ConvNd(Module):
    def _set_common(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any,
        dilation: Any,
        groups: int,
        padding_mode: str,
    ) -> None:
        """Check and store what Conv2d and ConvTranspose2d share."""
        self.in_channels = _positive_int(in_channels, "in_channels")
        self.out_channels = _positive_int(out_channels, "out_channels")
        self.kernel_size = geo.pair(kernel_size, "kernel_size", minimum=1)
        self.stride = geo.pair(stride, "stride", minimum=1)
        self.dilation = geo.pair(dilation, "dilation", minimum=1)
        self.groups = geo.check_groups(groups, self.in_channels, self.out_channels)
        if padding_mode != "zeros":
            raise ValueError(
                f"padding_mode must be 'zeros' (the only mode convgrad "
                f"implements), got {padding_mode!r}"
            )
        self.padding_mode = padding_mode

    def _init(
        self,
        shape: tuple[int, ...],
        fan_in: int,
        bias: bool,
        n_bias: int,
        dtype: Any,
        generator: np.random.Generator | int | None,
    ) -> None:
        dt, rng = _float_dtype(dtype), _rng(generator)
        bound = init_bound(fan_in)
        self.weight = Parameter(_uniform(rng, bound, shape, dt))
        if geo.check_bool(bias, "bias"):
            self.bias = Parameter(_uniform(rng, bound, (n_bias,), dt))
        else:
            self.register_parameter("bias", None)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, "
            f"kernel_size={self.kernel_size}, stride={self.stride}"
        )
        if self.padding not in ((0, 0), "valid"):
            s += f", padding={self.padding}"
        if getattr(self, "output_padding", (0, 0)) != (0, 0):
            s += f", output_padding={self.output_padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv2d(_ConvNd):
    """2-D cross-correlation; ``weight`` is ``(C_out, C_in/groups, KH, KW)``."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] = 1,
        padding: int | tuple[int, int] | str = 0,
        dilation: int | tuple[int, int] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        *,
        dtype: Any = np.float32,
        generator: np.random.Generator | int | None = None,
    ) -> None:
        super().__init__()
        self._set_common(
            in_channels, out_channels, kernel_size, stride, dilation, groups,
            padding_mode,
        )
        self.padding = geo.conv_padding(padding, stride)
        kh, kw = self.kernel_size
        c_in_g = self.in_channels // self.groups
        self._init(
            (self.out_channels, c_in_g, kh, kw),
            c_in_g * kh * kw,
            bias,
            self.out_channels,
            dtype,
            generator,
        )

    def forward(self, x: Any) -> Tensor:
        return F.conv2d(
            x,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self.dilation,
            self.groups,
        )


class ConvTranspose2d(_ConvNd):
    """Transposed convolution; ``weight`` is ``(C_in, C_out/groups, KH, KW)``.

    As in torch, the initialisation's ``fan_in`` is computed from the weight
    layout: ``C_out/groups * KH * KW``.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] = 1,
        padding: int | tuple[int, int] = 0,
        output_padding: int | tuple[int, int] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: int | tuple[int, int] = 1,
        padding_mode: str = "zeros",
        *,
        dtype: Any = np.float32,
        generator: np.random.Generator | int | None = None,
    ) -> None:
        super().__init__()
        self._set_common(
            in_channels, out_channels, kernel_size, stride, dilation, groups,
            padding_mode,
        )
        self.padding = geo.pair(padding, "padding")
        self.output_padding = geo.output_padding_pair(
            output_padding, stride, dilation
        )
        kh, kw = self.kernel_size
        c_out_g = self.out_channels // self.groups
        self._init(
            (self.in_channels, c_out_g, kh, kw),
            c_out_g * kh * kw,
            bias,
            self.out_channels,
            dtype,
            generator,
        )

    def forward(self, x: Any) -> Tensor:
        return F.conv_transpose2d(
            x,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self.output_padding,
            self.groups,
            self.dilation,
        )


# --------------------------------------------------------------------------
# pooling (the ops live in functional's pooling section)
# --------------------------------------------------------------------------


class MaxPool2d(Module):
    """Max over each window; ``stride`` defaults to ``kernel_size``."""

    def __init__(
        self,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] | None = None,
        padding: int | tuple[int, int] = 0,
        dilation: int | tuple[int, int] = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = geo.pair(kernel_size, "kernel_size", minimum=1)
        self.stride = (
            self.kernel_size
            if stride is None
            else geo.pair(stride, "stride", minimum=1)
        )
        self.padding = geo.pair(padding, "padding")
        self.dilation = geo.pair(dilation, "dilation", minimum=1)
        self.return_indices = geo.check_bool(return_indices, "return_indices")
        self.ceil_mode = geo.check_bool(ceil_mode, "ceil_mode")

    def forward(self, x: Any) -> Any:
        return F.max_pool2d(
            x,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, "
            f"padding={self.padding}, dilation={self.dilation}, "
            f"ceil_mode={self.ceil_mode}"
        )


class AvgPool2d(Module):
    """Mean over each window; ``stride`` defaults to ``kernel_size``."""

    def __init__(
        self,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] | None = None,
        padding: int | tuple[int, int] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = geo.pair(kernel_size, "kernel_size", minimum=1)
        self.stride = (
            self.kernel_size
            if stride is None
            else geo.pair(stride, "stride", minimum=1)
        )
        self.padding = geo.pair(padding, "padding")
        self.ceil_mode = geo.check_bool(ceil_mode, "ceil_mode")
        self.count_include_pad = geo.check_bool(
            count_include_pad, "count_include_pad"
        )
        if divisor_override is not None:
            divisor_override = _positive_int(divisor_override, "divisor_override")
        self.divisor_override = divisor_override

    def forward(self, x: Any) -> Tensor:
        return F.avg_pool2d(
            x,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, "
            f"padding={self.padding}"
        )


class AdaptiveAvgPool2d(Module):
    """Average down to a fixed ``output_size`` whatever the input size."""

    def __init__(self, output_size: int | tuple[int, int]) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, x: Any) -> Tensor:
        return F.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


# --------------------------------------------------------------------------
# normalisation
# --------------------------------------------------------------------------


class BatchNorm2d(Module):
    """Normalise each channel of ``(N, C, H, W)`` over ``N, H, W``.

    While training it uses the batch's statistics and updates the
    running ones (``running_mean``, ``running_var``: buffers, in
    ``state_dict`` but not in ``parameters()``) with ``momentum``, or,
    with ``momentum=None``, as the plain average of every batch so far
    (``num_batches_tracked`` counts them). In eval mode it uses the
    running statistics; with ``track_running_stats=False`` there are none
    and it always uses the batch's. ``affine=True`` learns ``weight`` (γ,
    ones at first) and ``bias`` (β, zeros; none with ``bias=False``).
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-05,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        *,
        bias: bool = True,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        self.num_features = c = _positive_int(num_features, "num_features")
        self.eps = F._real(eps, "eps")
        if momentum is not None:
            momentum = F._real(momentum, "momentum")
        self.momentum = momentum
        self.affine = geo.check_bool(affine, "affine")
        self.track_running_stats = geo.check_bool(
            track_running_stats, "track_running_stats"
        )
        dt = _float_dtype(dtype)
        if self.affine:
            self.weight = Parameter(np.ones(c, dtype=dt))
        else:
            self.register_parameter("weight", None)
        if self.affine and geo.check_bool(bias, "bias"):
            self.bias = Parameter(np.zeros(c, dtype=dt))
        else:
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(c, dtype=dt)))
            self.register_buffer("running_var", Tensor(np.ones(c, dtype=dt)))
            self.register_buffer(
                "num_batches_tracked",
                Tensor.wrap(np.array(0, dtype=np.int64)),
            )
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches tracked."""
        if self.track_running_stats:
            self.running_mean.data[...] = 0
            self.running_var.data[...] = 1
            self.num_batches_tracked.data[...] = 0

    def reset_parameters(self) -> None:
        """The running statistics reset, and γ = 1, β = 0."""
        self.reset_running_stats()
        if self.weight is not None:
            self.weight.data[...] = 1
        if self.bias is not None:
            self.bias.data[...] = 0

    def forward(self, x: Any) -> Tensor:
        x = as_tensor(x, "input")
        if x.ndim != 4:
            raise ValueError(
                f"expected 4D input (got {x.ndim}D input): BatchNorm2d takes "
                f"input (N, C, H, W), got shape {x.shape}"
            )
        if x.shape[1] != self.num_features:
            raise ValueError(
                f"input.shape[1] must be num_features={self.num_features}, "
                f"got input of shape {x.shape}"
            )
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.data += 1
                if self.momentum is None:  # the average of all batches
                    momentum = 1.0 / int(self.num_batches_tracked.data)
        # eval mode uses the running statistics, if there are any
        use_batch = self.training or (
            self.running_mean is None and self.running_var is None
        )
        keep = not self.training or self.track_running_stats
        return F.batch_norm(
            x,
            self.running_mean if keep else None,
            self.running_var if keep else None,
            self.weight,
            self.bias,
            use_batch,
            momentum,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


# --------------------------------------------------------------------------
# parameter-free layers
# --------------------------------------------------------------------------


class ReLU(Module):
    def forward(self, x: Any) -> Tensor:
        return F.relu(x)


class Tanh(Module):
    def forward(self, x: Any) -> Tensor:
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x: Any) -> Tensor:
        return F.sigmoid(x)


class Identity(Module):
    def forward(self, x: Any) -> Any:
        return x


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` into one (default: all but batch)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Any) -> Tensor:
        return as_tensor(x, "input").flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class PixelShuffle(Module):
    """``(*, C·r², H, W)`` → ``(*, C, H·r, W·r)``, ``r = upscale_factor``."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = F._factor(upscale_factor, "upscale_factor")

    def forward(self, x: Any) -> Tensor:
        return F.pixel_shuffle(x, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H·r, W·r)`` → ``(*, C·r², H, W)``, ``r = downscale_factor``."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = F._factor(downscale_factor, "downscale_factor")

    def forward(self, x: Any) -> Tensor:
        return F.pixel_unshuffle(x, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class Dropout(Module):
    """Zero elements with probability ``p`` while training; identity in eval.

    Masks are drawn from ``generator`` (a Generator or int seed), else from
    the module-level generator that :func:`manual_seed` resets.
    """

    def __init__(
        self, p: float = 0.5, *, generator: np.random.Generator | int | None = None
    ) -> None:
        super().__init__()
        if not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
        self.p = float(p)
        self._rng = None if generator is None else _rng(generator)

    def forward(self, x: Any) -> Tensor:
        rng = self._rng if self._rng is not None else _generator
        return F.dropout(x, self.p, self.training, rng)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class Sequential(Module):
    """Run the given modules in order; ``model[i]`` picks one."""

    def __init__(self, *modules: Module | Mapping[str, Module]) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], Mapping):
            items: Iterable[tuple[str, Any]] = modules[0].items()
        else:
            items = ((str(i), m) for i, m in enumerate(modules))
        for name, m in items:
            if not isinstance(m, Module):
                raise TypeError(
                    f"Sequential takes Modules, got {type(m).__name__} for "
                    f"entry {name!r}"
                )
            self.add_module(name, m)

    def forward(self, x: Any) -> Any:
        for m in self.children():
            x = m(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self.children())

    def __getitem__(self, index: int | slice) -> Any:
        mods = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(mods[index]))
        if not isinstance(index, numbers.Integral):
            raise TypeError(f"index must be an int or a slice, got {index!r}")
        if not -len(mods) <= index < len(mods):
            raise IndexError(
                f"index {index} is out of range for a Sequential of {len(mods)} modules"
            )
        return mods[index][1]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self._modules)), module)
        return self
