"""Train, evaluate, plot and save: the loop every lesson would otherwise repeat.

::

    from convgrad import data, nn, optim
    from convgrad.training import digits_cnn, fit, plot_history

    split = data.load_digits(seed=0)
    model = digits_cnn(generator=0)
    loader = data.DataLoader(split.x_train, split.y_train, 32, shuffle=True, seed=0)
    history = fit(model, loader, optim.Adam(model.parameters(), lr=1e-2),
                  epochs=10, test_data=(split.x_test, split.y_test))
    plot_history(history)

The progress bar comes from ``tqdm.auto``: a widget in JupyterLab, text in a
terminal; ``progress=False`` turns it off.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np

from . import functional as F
from . import nn
from .data import DataLoader
from .display import display_mode
from .optim import Optimizer
from .tensor import Tensor, no_grad

__all__ = [
    "History",
    "Score",
    "digits_cnn",
    "evaluate",
    "fit",
    "load",
    "plot_history",
    "save",
]

LossFn = Callable[[Tensor, Any], Tensor]


def digits_cnn(
    generator: np.random.Generator | int | None = None, dtype: Any = np.float32
) -> nn.Sequential:
    """The reference CNN for 8×8 digits.

    conv(1→16, 3×3, pad 1) → relu → maxpool 2 → conv(16→32, 3×3, pad 1) →
    relu → maxpool 2 → flatten → linear(128→10).
    """
    rng = nn._rng(generator)
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, dtype=dtype, generator=rng),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1, dtype=dtype, generator=rng),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10, dtype=dtype, generator=rng),
    )


# --------------------------------------------------------------------------
# history
# --------------------------------------------------------------------------


@dataclass
class History:
    """Per-epoch records of a :func:`fit` run (one list entry per epoch).

    ``test_loss``/``test_acc`` hold NaN when no test data was given;
    accuracies are fractions in ``[0, 1]``.
    """

    epoch: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    train_acc: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    test_acc: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.epoch)

    def as_dict(self) -> dict[str, list]:
        return asdict(self)

    def __repr__(self) -> str:
        if not self.epoch:
            return "History(no epochs)"
        rows = [
            f"History({len(self)} epochs, {sum(self.seconds):.1f} s)",
            " epoch  train_loss  train_acc  test_loss  test_acc",
        ]
        for e, tl, ta, vl, va in zip(
            self.epoch, self.train_loss, self.train_acc, self.test_loss,
            self.test_acc, strict=True,
        ):
            rows.append(f"{e:6d}  {tl:10.4f}  {ta:9.4f}  {vl:9.4f}  {va:8.4f}")
        return "\n".join(rows)


class Score(NamedTuple):
    loss: float
    accuracy: float


# --------------------------------------------------------------------------
# evaluate and fit
# --------------------------------------------------------------------------


def _as_loader(data: Any, batch_size: int) -> Iterable[tuple[Tensor, np.ndarray]]:
    if isinstance(data, DataLoader):
        return data
    if isinstance(data, (tuple, list)) and len(data) == 2:
        return DataLoader(data[0], data[1], batch_size=batch_size)
    raise TypeError(
        f"data must be a DataLoader or an (x, y) pair, got {type(data).__name__}"
    )


def _n_correct(out: Tensor, y: np.ndarray) -> float:
    """Correct argmax predictions, or NaN when outputs are not class scores."""
    yy = np.asarray(y)
    if out.ndim != 2 or yy.shape != (out.shape[0],) or yy.dtype.kind not in "iu":
        return math.nan
    return float(np.count_nonzero(out.data.argmax(axis=1) == yy))


def evaluate(
    model: nn.Module,
    data: Any,
    *,
    loss_fn: LossFn = F.cross_entropy,
    batch_size: int = 256,
) -> Score:
    """Mean loss and accuracy of ``model`` on ``data`` (a loader or ``(x, y)``).

    Runs in eval mode without building a graph, then restores the mode.
    """
    was_training = model.training
    model.eval()
    total = correct = 0.0
    n = 0
    try:
        with no_grad():
            for xb, yb in _as_loader(data, batch_size):
                out = model(xb)
                m = len(yb)
                total += float(loss_fn(out, yb).item()) * m
                correct += _n_correct(out, yb)
                n += m
    finally:
        model.train(was_training)
    if n == 0:
        raise ValueError("data is empty: nothing to evaluate")
    return Score(total / n, correct / n)


def progress_bar(**kwargs: Any):
    """tqdm's bar as the display mode wants it (:func:`convgrad.display.display_as`):
    the notebook widget when views are live; else one line of text, printed
    once when the bar closes (a widget in an exported page is an empty box,
    and a text bar's every update would stay in the page)."""
    if display_mode() == "live":
        from tqdm.auto import tqdm

        return tqdm(**kwargs)
    return _quiet_bar()(**kwargs)


def _quiet_bar():
    import io
    import sys

    from tqdm.std import tqdm as std

    class QuietBar(std):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["file"] = io.StringIO()
            kwargs.setdefault("ncols", 90)
            super().__init__(*args, **kwargs)

        def close(self) -> None:
            if self.disable:
                return
            line, leave = str(self), self.leave
            super().close()
            if leave:
                print(line, file=sys.stdout, flush=True)

    return QuietBar


def fit(
    model: nn.Module,
    train_loader: Iterable[tuple[Any, Any]],
    optimizer: Optimizer,
    epochs: int,
    test_data: Any = None,
    *,
    loss_fn: LossFn = F.cross_entropy,
    progress: bool = True,
    history: History | None = None,
) -> History:
    """Train ``model`` for ``epochs`` passes over ``train_loader``.

    Each step: forward, ``loss_fn(output, y)``, ``zero_grad``, ``backward``,
    ``optimizer.step()``. After each epoch the mean training loss and
    accuracy (over the epoch's batches, as they were trained) and, if
    ``test_data`` is given, the test loss and accuracy are recorded.
    Pass ``history`` to append to an earlier run.
    """
    if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 0:
        raise ValueError(f"epochs must be an int >= 0, got {epochs!r}")
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"optimizer must be a convgrad.optim optimiser, got "
            f"{type(optimizer).__name__}"
        )
    history = History() if history is None else history
    first = history.epoch[-1] + 1 if history.epoch else 1
    try:
        steps: int | None = epochs * len(train_loader)  # type: ignore[arg-type]
    except TypeError:  # an iterable without a length: the bar just counts
        steps = None
    bar = progress_bar(total=steps, disable=not progress, unit="step", leave=True)
    try:
        for epoch in range(first, first + epochs):
            bar.set_description(f"epoch {epoch}/{first + epochs - 1}")
            model.train()
            start = time.perf_counter()
            total = correct = 0.0
            n = 0
            for xb, yb in train_loader:
                out = model(xb)
                loss = loss_fn(out, yb)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                m = len(yb)
                total += float(loss.item()) * m
                correct += _n_correct(out, yb)
                n += m
                bar.update(1)
                bar.set_postfix(loss=f"{loss.item():.4f}", refresh=False)
            seconds = time.perf_counter() - start
            test = (
                Score(math.nan, math.nan)
                if test_data is None
                else evaluate(model, test_data, loss_fn=loss_fn)
            )
            history.epoch.append(epoch)
            history.train_loss.append(total / max(n, 1))
            history.train_acc.append(correct / max(n, 1))
            history.test_loss.append(test.loss)
            history.test_acc.append(test.accuracy)
            history.seconds.append(seconds)
            post = {"loss": f"{total / max(n, 1):.4f}"}
            if test_data is not None:
                post["test_acc"] = f"{test.accuracy:.3f}"
            bar.set_postfix(post)
    finally:
        bar.close()
    return history


def plot_history(history: History, figsize: tuple[float, float] = (8, 3.2)) -> Any:
    """A figure with loss (left) and accuracy (right) per epoch.

    8 in at matplotlib's 100 dpi is 800 px: it fits JupyterLab's output
    area with the file browser open (848 px at a 1280-px window).
    """
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=figsize)
    ep = history.epoch
    ax_loss.plot(ep, history.train_loss, "o-", label="train")
    ax_acc.plot(ep, history.train_acc, "o-", label="train")
    if not all(math.isnan(v) for v in history.test_loss):
        ax_loss.plot(ep, history.test_loss, "s--", label="test")
        ax_acc.plot(ep, history.test_acc, "s--", label="test")
    ax_loss.set(xlabel="epoch", ylabel="loss", title="loss")
    ax_acc.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0, 1.02))
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# save / load
# --------------------------------------------------------------------------


def _npz_path(path: str | os.PathLike) -> str:
    p = os.fspath(path)
    return p if p.endswith(".npz") else p + ".npz"


def save(model: nn.Module, path: str | os.PathLike) -> str:
    """Write ``model.state_dict()`` to an ``.npz`` file; return its path.

    ``.npz`` is appended when ``path`` lacks it (numpy would do so anyway).
    """
    p = _npz_path(path)
    np.savez(p, **model.state_dict())
    return p


def _read_npz(p: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` at ``p``; a ValueError naming ``p`` and
    what is wrong when it is not one (empty, truncated, garbage, pickles)."""
    with open(p, "rb") as f:
        head = f.read(4)
    if not head:
        why = "the file is empty"
    elif head != b"PK\x03\x04":
        why = "it is not an .npz archive (no zip header)"
    else:
        try:  # our own handle: np.load leaks its own when the zip is bad
            with open(p, "rb") as fh, np.load(fh, allow_pickle=False) as f:
                return {k: f[k] for k in f.files}
        except ValueError as err:  # object arrays, refused unpickled
            why = f"it holds pickled objects, which convgrad never writes ({err})"
        except Exception as err:  # BadZipFile, EOFError, zlib.error, ...
            why = f"it is truncated or damaged ({type(err).__name__}: {err})"
    raise ValueError(
        f"cannot load {p!r}: not a model file written by convgrad.training."
        f"save: {why}"
    )


def load(model: nn.Module, path: str | os.PathLike) -> nn.Module:
    """Load an ``.npz`` written by :func:`save` into ``model`` (in place).

    A file that is no such ``.npz`` (empty, truncated, random bytes, pickled
    objects) or whose keys or shapes do not match the model raises a
    ``ValueError`` naming the file and what is wrong; the model is then
    left unchanged.
    """
    p = os.fspath(path)
    if not os.path.exists(p) and os.path.exists(_npz_path(p)):
        p = _npz_path(p)
    if os.path.isdir(p):
        raise ValueError(f"cannot load {p!r}: it is a folder, not a model file")
    state = _read_npz(p)
    try:
        model.load_state_dict(state)
    except ValueError as err:
        raise ValueError(f"cannot load {p!r} into the model: {err}") from None
    return model
