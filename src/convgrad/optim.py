"""Optimisers with torch's exact update rules: ``SGD`` and ``Adam``.

An optimiser holds parameter groups (``param_groups``, a list of dicts with
``"params"`` and the hyper-parameters), updates ``p.data`` in place from
``p.grad`` in :meth:`step`, and skips parameters whose ``grad`` is None::

    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from .tensor import Tensor

__all__ = ["SGD", "Adam", "Optimizer"]


def _check_real(value: object, name: str, *, low: float = 0.0) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not value >= low:  # also refuses NaN
        raise ValueError(f"{name} must be at least {low}, got {value!r}")
    return float(value)


class Optimizer:
    """Base class: parameter groups, ``zero_grad`` and per-parameter state."""

    defaults: dict[str, Any]

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.param_groups: list[dict[str, Any]] = []
        self.state: dict[int, dict[str, Any]] = {}
        params = list(params)
        if not params:
            raise ValueError("params is empty: the optimiser has nothing to update")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for group in params:
            self.add_param_group(group)

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a dict with ``"params"``; missing hyper-parameters use defaults."""
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError(
                f"a parameter group must be a dict with a 'params' entry, got {group!r}"
            )
        ps = group["params"]
        ps = [ps] if isinstance(ps, Tensor) else list(ps)
        for p in ps:
            if not isinstance(p, Tensor):
                raise TypeError(f"params must be Tensors, got {type(p).__name__}")
            if not p.requires_grad:
                raise ValueError(
                    "params must require grad: a Tensor with "
                    "requires_grad=False cannot be optimised"
                )
        known = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in known for p in ps):
            raise ValueError("a parameter appears in more than one parameter group")
        unknown = set(group) - set(self.defaults) - {"params"}
        if unknown:
            raise ValueError(
                f"unknown hyper-parameters {sorted(unknown)}; "
                f"{type(self).__name__} takes {sorted(self.defaults)}"
            )
        full = {**self.defaults, **group, "params": ps}
        self._check_group(full)
        self.param_groups.append(full)

    def _check_group(self, group: dict[str, Any]) -> None:
        pass

    def zero_grad(self) -> None:
        """Set every parameter's ``grad`` to None (torch's default)."""
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    def step(self) -> None:
        raise NotImplementedError

    @staticmethod
    def _grad(p: Tensor) -> np.ndarray | None:
        """``p.grad`` as an ndarray: after ``backward(create_graph=True)``
        it is a Tensor, whose values are what a step uses (as torch's
        optimizers, which never record their update in the graph)."""
        g = p.grad
        return g.data if isinstance(g, Tensor) else g

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, as ``torch.optim.SGD``.

    For each parameter ``p`` with gradient ``g``::

        g = g + weight_decay * p
        buf = g                                     (first step)
        buf = momentum * buf + (1 - dampening) * g  (later steps)
        g = g + momentum * buf   if nesterov else   g = buf
        p = p - lr * g
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
        dampening: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "weight_decay": weight_decay,
            "dampening": dampening,
            "nesterov": nesterov,
        }
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        for name in ("lr", "momentum", "weight_decay", "dampening"):
            group[name] = _check_real(group[name], name)
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError(
                f"nesterov=True needs momentum > 0 and dampening = 0, got "
                f"momentum={group['momentum']}, dampening={group['dampening']}"
            )

    def step(self) -> None:
        for group in self.param_groups:
            lr, mom = group["lr"], group["momentum"]
            wd, damp = group["weight_decay"], group["dampening"]
            for p in group["params"]:
                g = self._grad(p)
                if g is None:
                    continue
                if wd != 0:
                    g = g + wd * p.data
                if mom != 0:
                    state = self.state.setdefault(id(p), {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = np.array(g, copy=True)
                        state["momentum_buffer"] = buf
                    else:
                        buf *= mom
                        buf += (1 - damp) * g
                    g = g + mom * buf if group["nesterov"] else buf
                p.data -= lr * g


class Adam(Optimizer):
    """Adam, as ``torch.optim.Adam`` (L2 ``weight_decay`` added to the gradient).

    At step ``t``, for each parameter ``p`` with gradient ``g``::

        g = g + weight_decay * p
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        for name in ("lr", "eps", "weight_decay"):
            group[name] = _check_real(group[name], name)
        betas = group["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"betas must be a pair of floats, got {betas!r}")
        for i, b in enumerate(betas):
            b = _check_real(b, f"betas[{i}]")
            if not b < 1.0:
                raise ValueError(f"betas[{i}] must be in [0, 1), got {b!r}")
        group["betas"] = (float(betas[0]), float(betas[1]))

    def step(self) -> None:
        for group in self.param_groups:
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            b1, b2 = group["betas"]
            for p in group["params"]:
                g = self._grad(p)
                if g is None:
                    continue
                if wd != 0:
                    g = g + wd * p.data
                state = self.state.setdefault(id(p), {})
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = np.zeros_like(p.data)
                    state["exp_avg_sq"] = np.zeros_like(p.data)
                state["step"] += 1
                t = state["step"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                # the formulas in the docstring, in place where the result
                # is the same to the bit (x*y == y*x in IEEE arithmetic)
                tmp = g - m  # torch's lerp form of b1*m + (1-b1)*g
                tmp *= 1 - b1
                m += tmp
                v *= b2
                tmp = g * (1 - b2)
                tmp *= g
                v += tmp
                step_size = lr / (1 - b1**t)
                # a NumPy float64 divisor: the rest runs in float64, as
                # np.sqrt(v) / np.sqrt(1 - b2**t) + eps always has
                denom = np.sqrt(v) / np.sqrt(1 - b2**t)
                denom += eps
                update = np.divide(m, denom, out=denom)
                update *= step_size
                p.data -= update
