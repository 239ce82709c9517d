"""``python -m convgrad.train``: train the reference CNN on 8×8 digits.

Trains conv → relu → maxpool → conv → relu → maxpool → linear (see
:func:`convgrad.training.digits_cnn`) on scikit-learn's bundled digits and
prints the test accuracy. Everything is seeded; nothing is downloaded.
The functions a notebook wants live in :mod:`convgrad.training`.

``--save PATH`` is checked before training starts (its folder must exist
and be writable), so a bad path costs no training. Ctrl-C (SIGINT) stops
training, saves the weights reached so far to ``--save`` if given, and
exits with status 130 and one line. ``--backend`` wins over the
``CONVGRAD_BACKEND`` environment variable.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections.abc import Sequence

from . import data, nn, optim
from .backend import BACKENDS, get_backend, use_backend
from .training import History, _npz_path, digits_cnn, evaluate, fit, save

# the settings the benchmark and benchmarks/RESULTS.md quote
DEFAULTS = {"epochs": 15, "batch_size": 32, "lr": 1e-2, "seed": 0}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m convgrad.train",
        description="Train convgrad's reference CNN on the 8x8 digits.",
    )
    p.add_argument("--epochs", type=int, default=DEFAULTS["epochs"])
    p.add_argument("--batch-size", type=int, default=DEFAULTS["batch_size"])
    p.add_argument("--lr", type=float, default=DEFAULTS["lr"])
    p.add_argument("--optimizer", choices=("adam", "sgd"), default="adam",
                   help="adam, or sgd with momentum 0.9")
    p.add_argument("--seed", type=int, default=DEFAULTS["seed"],
                   help="seeds the split, the initialisation and the shuffling")
    p.add_argument("--backend", choices=BACKENDS, default=None,
                   help="kernel backend (default: CONVGRAD_BACKEND or numba)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--save", metavar="PATH", default=None,
                   help="write the trained weights to PATH (.npz)")
    args = p.parse_args(argv)
    if args.epochs < 1:
        p.error(f"--epochs must be at least 1, got {args.epochs}")
    if args.batch_size < 1:
        p.error(f"--batch-size must be at least 1, got {args.batch_size}")
    if not (math.isfinite(args.lr) and args.lr > 0):
        p.error(f"--lr must be a finite number above 0, got {args.lr}")
    if args.backend is None:
        try:
            get_backend()
        except ValueError as err:
            p.error(f"{err} (or pass --backend)")
    if args.save is not None:
        problem = save_path_problem(args.save)
        if problem:
            p.error(f"--save {args.save}: {problem}")
    return args


def save_path_problem(path: str) -> str | None:
    """Why the weights could not be written to ``path`` (None if they can),
    found by writing a scratch file beside it."""
    target = _npz_path(path)
    for p in (path, target):
        if os.path.isdir(p):
            return f"{p} is a folder"
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        return f"the folder {folder} does not exist"
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as err:
        return f"cannot write in {folder} ({err.strerror or err})"
    if os.path.exists(target) and not os.access(target, os.W_OK):
        return f"{target} cannot be overwritten"
    return None


def run(
    epochs: int = DEFAULTS["epochs"],
    batch_size: int = DEFAULTS["batch_size"],
    lr: float = DEFAULTS["lr"],
    optimizer: str = "adam",
    seed: int = DEFAULTS["seed"],
    progress: bool = True,
    model: nn.Sequential | None = None,
) -> tuple[nn.Sequential, History, float]:
    """Train on digits with the active backend.

    Returns the trained model, its history and the test accuracy. Pass
    ``model`` (a :func:`digits_cnn`) to train one you hold a reference to,
    e.g. to save it when training is interrupted.
    """
    split = data.load_digits(seed=seed)
    model = digits_cnn(generator=seed) if model is None else model
    loader = data.DataLoader(
        split.x_train, split.y_train, batch_size, shuffle=True, seed=seed
    )
    if optimizer == "adam":
        opt: optim.Optimizer = optim.Adam(model.parameters(), lr=lr)
    else:
        opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    history = fit(model, loader, opt, epochs, progress=progress)
    acc = evaluate(model, (split.x_test, split.y_test)).accuracy
    return model, history, acc


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    backend = args.backend or get_backend()
    start = time.perf_counter()
    model = digits_cnn(generator=args.seed)
    try:
        with use_backend(backend):
            model, history, acc = run(
                args.epochs, args.batch_size, args.lr, args.optimizer, args.seed,
                progress=not args.no_progress, model=model,
            )
    except KeyboardInterrupt:
        where = (f"weights so far saved to {save(model, args.save)}"
                 if args.save else "nothing saved (no --save)")
        print(f"\ninterrupted after {time.perf_counter() - start:.1f}s: {where}",
              file=sys.stderr)
        return 130
    seconds = time.perf_counter() - start
    print(
        f"backend={backend} epochs={args.epochs} "
        f"final train loss={history.train_loss[-1]:.4f} "
        f"time={seconds:.1f}s"
    )
    print(f"test accuracy: {100 * acc:.2f}%")
    if args.save:
        path = save(model, args.save)
        print(f"weights saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
