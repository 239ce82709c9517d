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

import math
import numbers
from collections.abc import Iterable
from typing import Any, NamedTuple

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
        if not isinstance(group["nesterov"], (bool, np.bool_)):
            raise TypeError(f"nesterov must be a bool, got {group['nesterov']!r}")
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
        self._flat: dict[int, _FlatMoments] = {}  # group index -> moments
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
        for i, group in enumerate(self.param_groups):
            live = [(p, g) for p in group["params"] if (g := self._grad(p)) is not None]
            if not self._step_flat(i, group, live):
                for p, g in live:
                    self._step_one(group, p, g)

    def _step_one(self, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        """The docstring's update of one parameter."""
        lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
        b1, b2 = group["betas"]
        if wd != 0:
            g = g + wd * p.data
        state = self.state.setdefault(id(p), {})
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(p.data)
            state["exp_avg_sq"] = np.zeros_like(p.data)
        state["step"] += 1
        _update(p.data, g, state["exp_avg"], state["exp_avg_sq"], state["step"],
                lr, b1, b2, eps)

    def _step_flat(self, index: int, group: dict[str, Any], live: list) -> bool:
        """Update every parameter of ``live`` at once: the same elementwise
        update on one flat copy of their gradients and on flat moment
        buffers, of which each state's ``exp_avg`` and ``exp_avg_sq`` are
        views. Ten NumPy calls instead of ten per parameter: the small
        layers of a lesson's network spend more in the calls than in the
        arithmetic. Returns False, having changed nothing, unless the
        parameters and gradients share one dtype and their shapes, and
        every state is new or is this optimizer's view at the same step.
        """
        if len(live) < 2:
            return False
        dtype = live[0][0].data.dtype
        for p, g in live:
            if p.data.dtype != dtype or g.dtype != dtype or g.shape != p.data.shape:
                return False
        key = tuple(id(p) for p, _ in live)
        if len(set(key)) != len(key):
            return False
        states = [self.state.get(k) for k in key]
        flat = self._flat.get(index)
        if not any(states):  # a first step: the buffers, and views of them
            flat = _FlatMoments.new([p.data.shape for p, _ in live], dtype)
            states = [{"step": 0, "exp_avg": m, "exp_avg_sq": v}
                      for m, v in zip(flat.m_views, flat.v_views, strict=True)]
            self.state.update(zip(key, states, strict=True))
            self._flat[index] = flat = flat._replace(key=key)
        elif flat is None or flat.key != key or not flat.owns(states):
            return False
        for st in states:
            st["step"] += 1
        g = np.concatenate([g.reshape(-1) for _, g in live])
        if group["weight_decay"] != 0:
            pd = np.concatenate([p.data.reshape(-1) for p, _ in live])
            g = g + group["weight_decay"] * pd
        b1, b2 = group["betas"]
        update = _update(None, g, flat.m, flat.v, states[0]["step"], group["lr"],
                         b1, b2, group["eps"])
        start = 0
        for p, _ in live:
            stop = start + p.data.size
            p.data -= update[start:stop].reshape(p.data.shape)
            start = stop
        return True


class _FlatMoments(NamedTuple):
    """Adam's moment buffers for a parameter group, flat, and the views of
    them that the group's states hold."""

    key: tuple
    m: np.ndarray
    v: np.ndarray
    m_views: list
    v_views: list

    @classmethod
    def new(cls, shapes: list, dtype: np.dtype) -> _FlatMoments:
        sizes = [math.prod(s) for s in shapes]
        m, v = np.zeros(sum(sizes), dtype), np.zeros(sum(sizes), dtype)
        bounds = np.cumsum([0, *sizes]).tolist()
        cut = [(a, b, s) for a, b, s in zip(bounds, bounds[1:], shapes, strict=False)]
        return cls((), m, v, [m[a:b].reshape(s) for a, b, s in cut],
                   [v[a:b].reshape(s) for a, b, s in cut])

    def owns(self, states: list) -> bool:
        """Whether ``states`` still hold these views, all at one step (a
        copied optimizer's are copies: their base is no longer ``m``)."""
        t = states[0]["step"] if states[0] else None
        return all(
            st and st.get("step") == t and st.get("exp_avg") is m
            and st.get("exp_avg_sq") is v and m.base is self.m and v.base is self.v
            for st, m, v in zip(states, self.m_views, self.v_views, strict=True)
        )


def _update(p, g, m, v, t, lr, b1, b2, eps):
    """Adam's update at step ``t``, in place on ``m``, ``v`` and (unless
    None) ``p``; returns the update. In place where the result is the same
    to the bit (x*y == y*x in IEEE arithmetic)."""
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
    if p is not None:
        p -= update
    return update
