"""The normalisation views: batch norm's backward, and whose statistics
are shared under batch, layer, group and instance norm.

Batch norm (training mode) normalises each channel by its own batch
statistics, so every position of a channel moved the mean and the
variance every other position was normalised by. Its backward pass is two
sums per channel and one formula that needs them both::

    dβ[c] = Σ_{n,h,w} dy           dγ[c] = Σ_{n,h,w} dy · x̂
    dx = γ/σ · (dy − dβ/M − x̂ · dγ/M),   M = N·H·W

The view plays :func:`convgrad.trace.batch_norm_backward`: the two sums
grow position by position over both images, and only then is ``dx``
written, each cell from its own ``dy`` and ``x̂`` and the finished sums
(outlined as ``read``).

:class:`NormSetsView` walks the sets of elements that share one mean and
variance, one set per step, under each of the four norms: they differ
only in the axes of their statistics, ``(N, H, W)``, ``(C, H, W)``,
``(C/G, H, W)`` or ``(H, W)``, and the set is also the one whose ``dy``
reaches each member's ``dx`` through the mean's and variance's terms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import geometry as geo
from .. import trace
from ..trace import Frames
from . import _limits
from ._base import Control, Model, View
from ._limits import bounded
from ._panel import Panel


def normalise(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """``(x̂, σ)`` of training-mode batch norm over (N, H, W): the batch's
    mean and biased variance per channel, ``σ = sqrt(var + eps)``."""
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    sigma = np.sqrt(x.var(axis=(0, 2, 3), keepdims=True) + eps)
    return (x - mean) / sigma, sigma.reshape(-1)


def _count(v: object, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return int(v)


def _eps(eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (
            np.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    return float(eps)

class BatchNormBackwardView(View):
    """``dβ``, ``dγ`` and ``dx`` of batch norm for every channel: each sum
    runs over all ``N·H·W`` positions of the channel, and ``dx`` waits
    for both."""

    title = "batch norm backward: dβ and dγ sum over N, H, W; dx needs both"
    defaults = dict(
        batch=2,
        channels=1,
        input_size=(3, 3),
        eps=1e-5,
        seed=0,
        x=None,
        dy=None,
        gamma=None,
    )
    controls = (Control("batch", 1, 3),)

    def model(self, p):
        n, c = _count(p["batch"], "batch"), _count(p["channels"], "channels")
        h, w = geo.pair(p["input_size"], "input_size", minimum=1)
        eps = _eps(p["eps"])
        shape = (n, c, h, w)
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", shape, 0, synthetic)
        dy = self.data(p, "dy", shape, 6, synthetic)
        gamma = self.data(p, "gamma", (c,), 5, synthetic)
        if p["gamma"] is None:  # a stand-in scale: positive, near 1
            gamma = 1 + np.abs(gamma)
        x_hat, sigma = normalise(x, eps)
        t = trace.batch_norm_backward(dy, x_hat, gamma, sigma)
        events = bounded(t)
        frames = trace.replay_changes(events, t.shape, t.dtype)
        planes = {"x": x, "dy": dy, "x_hat": x_hat, "gamma": gamma,
                  "sigma": sigma}
        return Model(events, None, planes, frames, synthetic)

    def panels(self, m):
        dy, x_hat = m.planes["dy"], m.planes["x_hat"]
        n, c, h, w = dy.shape
        size = n * c * h * w

        def grid(name, title, b, k, **kw):
            return Panel(f"{name}{b}_{k}", f"{title}[{b},{k}]", h, w,
                         column=name, **kw)

        ch = [f"c{k}" for k in range(c)]  # one cell per channel
        return [
            *(grid("dy", "dy", b, k, values=dy[b, k], marks=("src",))
              for b in range(n) for k in range(c)),
            *(grid("xh", "x̂", b, k, values=x_hat[b, k], marks=("src",))
              for b in range(n) for k in range(c)),
            Panel("dbeta", "dβ = Σ dy", 1, c, plane=(size,),
                  marks=("dst", "read"), column="sums", col_labels=ch,
                  row_labels=[""]),
            Panel("dgamma", "dγ = Σ dy·x̂", 1, c, plane=(size + c,),
                  marks=("dst", "read"), column="sums", col_labels=ch,
                  row_labels=[""]),
            *(grid("dx", "dx", b, k, plane=(b * c * h * w + k * h * w,),
                   marks=("dst",), colored=True)
              for b in range(n) for k in range(c)),
        ]

    def marks(self, e):
        b, k, r, q = e.src
        shown = dict.fromkeys(self.mark_keys)
        shown[f"dy{b}_{k}.src"] = (r, q)
        if e.term == "dbeta":
            return shown | {"dbeta.dst": (0, k)}
        if e.term == "dgamma":
            return shown | {f"xh{b}_{k}.src": (r, q), "dgamma.dst": (0, k)}
        return shown | {f"xh{b}_{k}.src": (r, q), "dbeta.read": (0, k),
                        "dgamma.read": (0, k), f"dx{b}_{k}.dst": (r, q)}

    def describe(self, e):
        return e.describe()

    def gradients(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(dx, dgamma, dbeta)`` as the last frame holds them."""
        return trace.batch_norm_parts(self.model_.frames[-1],
                                      self.model_.planes["dy"].shape)


#: the four norms: which (n, c) planes share one mean and variance
KINDS = ("batch", "layer", "group", "instance")
#: per norm: the axes its statistics are taken over, and M's formula
_AXES = {
    "batch": ("(N, H, W)", "N·H·W"),
    "layer": ("(C, H, W)", "C·H·W"),
    "group": ("(C/G, H, W)", "(C/G)·H·W"),
    "instance": ("(H, W)", "H·W"),
}


def norm_labels(kind: str, shape: tuple[int, int, int, int],
                groups: int = 1) -> np.ndarray:  # fmt: skip
    """Which set each element of an ``(N, C, H, W)`` input belongs to under
    ``kind`` norm: an int array of ``shape``, the sets numbered in the
    order a view walks them (batch: by channel; layer: by image; group: by
    image, then group of ``C // groups`` consecutive channels; instance: by
    image, then channel). A set is always whole ``H×W`` planes."""
    n, c, h, w = shape
    img, ch = np.meshgrid(np.arange(n), np.arange(c), indexing="ij")
    plane = {
        "batch": ch,
        "layer": img,
        "group": img * groups + ch // max(c // groups, 1),
        "instance": img * c + ch,
    }[kind]
    return np.broadcast_to(plane[:, :, None, None], shape).copy()


@dataclass(frozen=True)
class NormSet:
    """Step ``index`` of ``count``: one set of elements that share a mean
    ``mean`` and a ``sigma = sqrt(var + eps)`` under ``kind`` norm, the
    planes of ``images`` × ``channels`` (``size`` = M elements). ``box``
    is where it lies in the view's grid, ``(r, c, h, w)`` in cells."""

    kind: str
    index: int
    count: int
    images: tuple[int, ...]
    channels: tuple[int, ...]
    size: int
    factors: tuple[int, ...]  # M as the product of its axes' lengths
    mean: float
    sigma: float
    box: tuple[int, int, int, int]

    @property
    def where(self) -> str:
        """The set in words: which images and channels."""
        imgs, chs = self.images, self.channels
        if self.kind == "batch":
            return f"channel {chs[0]} of every image"
        if self.kind == "layer":
            return f"image {imgs[0]}, every channel"
        if self.kind == "group":
            g = chs[0] // len(chs)
            return f"image {imgs[0]}, group {g} (channels {chs[0]}–{chs[-1]})"
        return f"image {imgs[0]}, channel {chs[0]} alone"

    def describe(self) -> str:
        axes, formula = _AXES[self.kind]
        product = "·".join(str(f) for f in self.factors)
        return (f"{self.where}: one μ, σ over {axes}, M = {formula} = "
                f"{product} = {self.size}")


class NormSetsView(View):
    """Which elements share a mean and a variance under batch, layer, group
    and instance norm (``kind``), one set per step.

    The input ``(N, C, H, W)`` is drawn as an ``N × C`` grid of its ``H×W``
    planes (rows: images, columns: channels). Each step outlines one set
    and writes its ``x̂ = (x − μ)/σ`` there, with the set's own ``μ`` and
    ``σ``: batch norm's sets are the channels across the batch, layer
    norm's the images, group norm's each image's blocks of ``C/G``
    consecutive channels, instance norm's each plane alone. The same set
    is the one whose ``dy`` reaches each of its elements' ``dx`` through
    the mean's and the variance's terms (``Σ dy`` and ``Σ dy·x̂`` over
    it). A click on an element goes to its set's step (in any page: the
    browser knows each cell's step); :meth:`sets` lists the sets, and the
    last frame is ``x̂``."""

    defaults = dict(
        batch=2,
        channels=6,
        input_size=(3, 2),
        groups=2,
        kind="batch",
        eps=1e-5,
        seed=0,
        x=None,
    )
    controls = (
        Control("kind", kind="choice", choices=KINDS),
        Control("groups", 1, 6),
        Control("batch", 1, 3),
    )

    @property
    def title(self) -> str:  # type: ignore[override]
        return (f"{self._params['kind']} norm: each outlined set shares one "
                "μ and σ; backward, its dy reach its dx")

    def model(self, p):
        kind = p["kind"]
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}"
                             f"; got {kind!r}")
        n, c = _count(p["batch"], "batch"), _count(p["channels"], "channels")
        h, w = geo.pair(p["input_size"], "input_size", minimum=1)
        groups = _count(p["groups"], "groups")
        if kind == "group" and c % groups:
            raise ValueError(f"groups must divide channels: {c} channels do "
                             f"not split into {groups} groups")
        eps = _eps(p["eps"])
        shape = (n, c, h, w)
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", shape, 0, synthetic)
        if 2 * x.size > _limits.MAX_CELLS:
            raise ValueError(
                f"input_size is too large for a view: 2 grids of {x.size:,} "
                f"cells, and a view draws at most {_limits.MAX_CELLS:,}. A "
                "smaller input shows the same sets, such as input_size=(3, 3)")
        labels = norm_labels(kind, shape, groups)
        count = int(labels.max()) + 1
        x_hat = np.zeros(shape)
        written = np.zeros(shape, bool)
        per = c // groups if kind == "group" else None
        factors = {"batch": (n, h, w), "layer": (c, h, w),
                   "group": (per, h, w), "instance": (h, w)}[kind]
        events, states = [], []
        for k in range(count):
            inside = labels == k
            vals = x[inside]
            mean = vals.mean()
            sigma = np.sqrt(vals.var() + eps)
            x_hat[inside] = (vals - mean) / sigma
            written |= inside
            imgs = tuple(int(i) for i in np.flatnonzero(inside.any(axis=(1, 2, 3))))
            chs = tuple(int(i) for i in np.flatnonzero(inside.any(axis=(0, 2, 3))))
            box = (imgs[0] * h, chs[0] * w, len(imgs) * h, len(chs) * w)
            events.append(NormSet(kind, k, count, imgs, chs, int(inside.sum()),
                                  factors, float(mean), float(sigma), box))
            states.append((_grid(x_hat), _grid(written)))
        frames = Frames.of_states(states, (n * h, c * w))
        planes = {"x": x, "x_hat": x_hat, "labels": labels}
        return Model(tuple(events), None, planes, frames, synthetic)

    def panels(self, m):
        n, c, h, w = m.planes["x"].shape
        rows = [f"n{i // h}" if i % h == h // 2 else "" for i in range(n * h)]
        cols = [f"c{j // w}" if j % w == w // 2 else "" for j in range(c * w)]
        # one grid: image n's plane of channel c at block (n, c); its
        # cells fill set by set, and a click on one goes to its set's step
        return [
            Panel("xh", "x̂ = (x − μ)/σ, set by set: rows n, columns c "
                  "(click an element)", n * h, c * w, row_labels=rows,
                  col_labels=cols, blocks=(h, w), marks=("set",),
                  colored=True, picks=_grid(m.planes["labels"])),
        ]

    def marks(self, e):
        return {"xh.set": e.box}

    def describe(self, e):
        return e.describe()

    def sets(self) -> list[np.ndarray]:
        """Every set as a boolean mask of the input's shape ``(N, C, H,
        W)``, in the order the steps walk them."""
        labels = self.model_.planes["labels"]
        return [labels == k for k in range(self.n_frames)]

    @property
    def x_hat(self) -> np.ndarray:
        """``x̂`` of every set, ``(N, C, H, W)``: the last frame."""
        return self.model_.planes["x_hat"].copy()


def _grid(a: np.ndarray) -> np.ndarray:
    """``(N, C, H, W)`` as one ``(N·H, C·W)`` grid: image ``n``'s plane of
    channel ``c`` at block ``(n, c)``."""
    n, c, h, w = a.shape
    return a.transpose(0, 2, 1, 3).reshape(n * h, c * w)
