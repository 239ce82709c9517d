"""Optimisers against torch.optim, data, the training loop, save/load, CLI."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import convgrad as cg
from convgrad import data, nn, optim
from convgrad import functional as F
from convgrad.training import (
    History,
    digits_cnn,
    evaluate,
    fit,
    load,
    plot_history,
    save,
)


def _torch_cnn(torch, model: nn.Module, dtype):
    """torch's twin of :func:`digits_cnn` with ``model``'s weights."""
    tnn = torch.nn
    twin = tnn.Sequential(
        tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Flatten(), tnn.Linear(128, 10),
    ).to(dtype)
    twin.load_state_dict({k: torch.tensor(v) for k, v in model.state_dict().items()})
    return twin


def _batch(rng, n=12, dtype=np.float32):
    split = data.load_digits(seed=0, dtype=dtype)
    idx = rng.choice(len(split.x_train), size=n, replace=False)
    return split.x_train[idx], split.y_train[idx]


def _run_both(torch, make_opt, make_topt, steps, dtype, rng):
    """``steps`` optimiser steps on one fixed batch, ours and torch's."""
    x, y = _batch(rng, dtype=dtype)
    model = digits_cnn(generator=5, dtype=dtype)
    twin = _torch_cnn(torch, model, getattr(torch, np.dtype(dtype).name))
    opt, topt = make_opt(model.parameters()), make_topt(twin.parameters())
    tx, ty = torch.tensor(x), torch.tensor(y)
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        topt.zero_grad()
        tloss = torch.nn.functional.cross_entropy(twin(tx), ty)
        tloss.backward()
        topt.step()
        tol = 1e-5 if dtype == np.float32 else 1e-12
        assert abs(loss.item() - tloss.item()) < tol * 10
    return model, twin


def _assert_same_params(model, twin, start, dtype):
    theirs = {k: v.detach().numpy() for k, v in twin.state_dict().items()}
    rtol, atol = (2e-4, 2e-6) if dtype == np.float32 else (1e-9, 1e-12)
    for name, p in model.named_parameters():
        # the update itself (not just the weights) must agree
        np.testing.assert_allclose(
            p.data - start[name], theirs[name] - start[name], rtol=rtol, atol=atol,
            err_msg=name,
        )
        assert np.any(p.data != start[name]), f"{name} did not move"


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": 0.1},
        {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-2},
        {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 5e-3},
        {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3},
    ],
    ids=["plain", "momentum-wd", "dampening", "nesterov"],
)
def test_sgd_updates_match_torch(torch, rng, dtype, kwargs):
    start = digits_cnn(generator=5, dtype=dtype).state_dict()
    model, twin = _run_both(
        torch,
        lambda ps: optim.SGD(ps, **kwargs),
        lambda ps: torch.optim.SGD(ps, **kwargs),
        steps=3,
        dtype=dtype,
        rng=rng,
    )
    _assert_same_params(model, twin, start, dtype)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"lr": 3e-3, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 1e-2},
    ],
    ids=["defaults", "custom"],
)
def test_adam_updates_match_torch(torch, rng, dtype, kwargs):
    start = digits_cnn(generator=5, dtype=dtype).state_dict()
    model, twin = _run_both(
        torch,
        lambda ps: optim.Adam(ps, **kwargs),
        lambda ps: torch.optim.Adam(ps, **kwargs),
        steps=4,
        dtype=dtype,
        rng=rng,
    )
    _assert_same_params(model, twin, start, dtype)


def test_optimisers_skip_params_without_grad_and_zero_grad():
    a = nn.Parameter(np.ones(3, dtype=np.float32))
    b = nn.Parameter(np.ones(3, dtype=np.float32))
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    opt.step()
    np.testing.assert_allclose(a.data, [0.9, 1.1, 0.9], rtol=1e-5)
    np.testing.assert_array_equal(b.data, 1.0)
    assert a.data.dtype == np.float32
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_param_groups_use_their_own_hyperparameters():
    a = nn.Parameter(np.zeros(2))
    b = nn.Parameter(np.zeros(2))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    a.grad = np.ones(2)
    b.grad = np.ones(2)
    opt.step()
    np.testing.assert_allclose(a.data, -0.1)
    np.testing.assert_allclose(b.data, -0.5)


@pytest.mark.parametrize(
    "make, err, words",
    [
        (lambda p: optim.SGD(p, lr=-1), ValueError, "lr must be at least 0"),
        (lambda p: optim.SGD(p, lr=0.1, nesterov=True), ValueError, "nesterov"),
        (lambda p: optim.SGD(p, lr="fast"), TypeError, "lr must be a real number"),
        (lambda p: optim.Adam(p, betas=(0.9, 1.0)), ValueError, r"betas\[1\]"),
        (lambda p: optim.Adam(p, betas=0.9), TypeError, "betas must be a pair"),
        (lambda p: optim.Adam([]), ValueError, "params is empty"),
        (lambda p: optim.Adam([np.zeros(2)]), TypeError, "params must be Tensors"),
        (lambda p: optim.Adam([cg.Tensor(np.zeros(2))]), ValueError,
         "must require grad"),
        (lambda p: optim.SGD([{"params": p, "betas": 1}], lr=0.1), ValueError,
         "unknown hyper-parameters"),
    ],
)
def test_bad_optimiser_arguments(make, err, words):
    with pytest.raises(err, match=words):
        make([nn.Parameter(np.zeros(2))])


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------


def test_load_digits_split():
    s = data.load_digits(seed=0)
    assert s.x_train.shape[1:] == (1, 8, 8) and s.x_train.dtype == np.float32
    assert s.y_train.dtype == np.int64
    assert len(s.x_train) + len(s.x_test) == 1797
    assert abs(len(s.x_test) / 1797 - 0.2) < 0.01
    assert s.x_train.min() == 0.0 and s.x_train.max() == 1.0
    # stratified: every class keeps about a fifth of its samples for testing
    counts_test = np.bincount(s.y_test, minlength=10)
    counts_all = counts_test + np.bincount(s.y_train, minlength=10)
    np.testing.assert_allclose(counts_test / counts_all, 0.2, atol=0.01)
    # no image is in both halves (rows of the full set are distinct enough)
    train_keys = {r.tobytes() for r in s.x_train}
    assert sum(r.tobytes() in train_keys for r in s.x_test) < 5
    again, other = data.load_digits(seed=0), data.load_digits(seed=1)
    np.testing.assert_array_equal(again.y_test, s.y_test)
    assert not np.array_equal(other.y_test, s.y_test)


def test_dataloader_is_deterministic_and_covers_every_sample():
    x = np.arange(10, dtype=np.float32).reshape(10, 1)
    y = np.arange(10)

    def epochs(loader, k=2):
        return [[yb.tolist() for _, yb in loader] for _ in range(k)]

    a = epochs(data.DataLoader(x, y, 4, shuffle=True, seed=3))
    b = epochs(data.DataLoader(x, y, 4, shuffle=True, seed=3))
    c = epochs(data.DataLoader(x, y, 4, shuffle=True, seed=4))
    assert a == b and a != c
    assert a[0] != a[1]  # a new order each epoch
    for ep in a:
        assert [len(batch) for batch in ep] == [4, 4, 2]
        assert sorted(sum(ep, [])) == list(range(10))
    plain = data.DataLoader(x, y, 4)
    assert len(plain) == 3
    xb, yb = next(iter(plain))
    assert isinstance(xb, cg.Tensor) and not xb.requires_grad
    np.testing.assert_array_equal(xb.data[:, 0], yb)
    dropped = data.DataLoader(x, y, 4, drop_last=True)
    assert len(dropped) == 2 and [len(b) for _, b in dropped] == [4, 4]
    with pytest.raises(ValueError, match="batch_size must be an int >= 1"):
        data.DataLoader(x, y, 0)
    with pytest.raises(ValueError, match="same length"):
        data.DataLoader(x, y[:5])


def test_make_shapes():
    x, y = data.make_shapes(50, size=20, seed=1)
    assert x.shape == (50, 1, 20, 20) and x.dtype == np.float32
    assert np.bincount(y).tolist() == [10] * 5
    x2, y2 = data.make_shapes(50, size=20, seed=1)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(y, y2)
    clean, labels = data.make_shapes(40, size=28, noise=0.0, seed=2,
                                     classes=("hbar", "vbar"))
    assert clean.min() >= 0 and clean.max() <= 1
    rows = clean[:, 0].sum(axis=2).max(axis=1)  # brightest row
    cols = clean[:, 0].sum(axis=1).max(axis=1)  # brightest column
    # a horizontal bar puts its ink in a few rows, a vertical bar in columns
    assert np.all((rows > cols) == (labels == 0))
    rings, _ = data.make_shapes(5, size=16, noise=0.0, seed=0, classes=("ring",))
    assert np.all(rings.sum(axis=(1, 2, 3)) > 5)  # every ring has ink
    with pytest.raises(ValueError, match="unknown shape 'star'"):
        data.make_shapes(5, classes=("star",))
    with pytest.raises(ValueError, match="size must be"):
        data.make_shapes(5, size=4)


# --------------------------------------------------------------------------
# training loop
# --------------------------------------------------------------------------


def test_short_training_run_drives_the_loss_down():
    s = data.load_digits(seed=0)
    x, y = s.x_train[:320], s.y_train[:320]
    model = digits_cnn(generator=0)
    loader = data.DataLoader(x, y, batch_size=16, shuffle=True, seed=0)
    start = evaluate(model, (x, y))
    assert start.loss > 2.0  # untrained: about log(10)
    hist = fit(model, loader, optim.Adam(model.parameters(), lr=1e-2), epochs=12,
               test_data=(s.x_test, s.y_test), progress=False)
    assert len(hist) == 12 and hist.epoch == list(range(1, 13))
    # 240 steps: the loss falls far (typically to ~0.05) and test accuracy rises
    assert hist.train_loss[-1] < 0.4 < start.loss / 5
    assert hist.train_loss[-1] < hist.train_loss[0] / 3
    assert hist.test_acc[-1] > 0.85
    end = evaluate(model, (x, y))
    assert end.loss < 0.4 and end.accuracy > 0.9
    assert model.training  # evaluate restores the mode


def test_fit_appends_to_history_shows_progress_and_checks_arguments(capsys):
    x, y = data.make_shapes(32, size=8, seed=0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 5, generator=0))
    loader = data.DataLoader(x, y, 8)
    opt = optim.SGD(model.parameters(), lr=0.1)
    hist = fit(model, loader, opt, 2, progress=True)
    assert "step" in capsys.readouterr().err  # tqdm's text bar went to stderr
    assert all(math.isnan(v) for v in hist.test_acc)
    hist = fit(model, loader, opt, 1, history=hist, progress=False)
    assert hist.epoch == [1, 2, 3] and len(hist.seconds) == 3
    assert "train_loss" in repr(hist)
    with pytest.raises(ValueError, match="epochs must be an int >= 0"):
        fit(model, loader, opt, -1, progress=False)
    with pytest.raises(TypeError, match="optimizer must be"):
        fit(model, loader, "sgd", 1, progress=False)


def test_plot_history_draws_the_recorded_curves():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h = History(
        epoch=[1, 2, 3], train_loss=[2.0, 1.0, 0.5], train_acc=[0.3, 0.6, 0.8],
        test_loss=[2.1, 1.2, 0.7], test_acc=[0.25, 0.55, 0.75], seconds=[1, 1, 1],
    )
    fig = plot_history(h)
    try:
        ax_loss, ax_acc = fig.axes
        lines = {ln.get_label(): ln.get_ydata() for ln in ax_loss.get_lines()}
        np.testing.assert_array_equal(lines["train"], h.train_loss)
        np.testing.assert_array_equal(lines["test"], h.test_loss)
        accs = {ln.get_label(): ln.get_ydata() for ln in ax_acc.get_lines()}
        np.testing.assert_array_equal(accs["test"], h.test_acc)
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------
# save / load
# --------------------------------------------------------------------------


def test_save_load_round_trip(tmp_path, rng):
    model = digits_cnn(generator=1)
    path = save(model, tmp_path / "weights")
    assert path.endswith("weights.npz")
    other = digits_cnn(generator=2)
    x = rng.random((3, 1, 8, 8)).astype(np.float32)
    assert not np.allclose(other(x).data, model(x).data)
    assert load(other, tmp_path / "weights") is other
    np.testing.assert_array_equal(other(x).data, model(x).data)
    for (n1, p1), (n2, p2) in zip(
        model.named_parameters(), other.named_parameters(), strict=True
    ):
        assert n1 == n2 and p1.dtype == p2.dtype
        np.testing.assert_array_equal(p1.data, p2.data)


def test_load_refuses_mismatched_file(tmp_path):
    wide = nn.Sequential(nn.Flatten(), nn.Linear(64, 12, generator=0))
    narrow = nn.Sequential(nn.Flatten(), nn.Linear(64, 10, generator=1))
    before = narrow.state_dict()
    path = save(wide, tmp_path / "wide.npz")
    with pytest.raises(ValueError) as info:
        load(narrow, path)
    msg = str(info.value)
    assert "wide.npz" in msg and "'1.weight'" in msg
    assert "(12, 64)" in msg and "(10, 64)" in msg
    np.testing.assert_array_equal(narrow.state_dict()["1.weight"], before["1.weight"])
    with pytest.raises(ValueError, match="missing keys"):
        load(digits_cnn(generator=0), path)


# --------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------


def test_cli_trains_and_reports_accuracy(capsys, tmp_path):
    from convgrad import train

    assert train.main(
        ["--epochs", "1", "--no-progress", "--save", str(tmp_path / "w.npz")]
    ) == 0
    out = capsys.readouterr().out
    line = [ln for ln in out.splitlines() if ln.startswith("test accuracy:")][0]
    assert float(line.split()[-1].rstrip("%")) > 50  # one epoch is plenty for that
    load(digits_cnn(), tmp_path / "w.npz")
    with pytest.raises(SystemExit):
        train.main(["--epochs", "0"])


# --------------------------------------------------------------------------
# hostile files and command lines
# --------------------------------------------------------------------------


def _bad_files(tmp_path):
    good = Path(save(digits_cnn(generator=0), tmp_path / "good"))
    raw = good.read_bytes()
    files = {
        "truncated": raw[: len(raw) // 2],
        "empty": b"",
        "random": bytes(np.random.default_rng(0).integers(0, 256, 600, np.uint8)),
        "zip header, then garbage": b"PK\x03\x04" + bytes(200),
    }
    paths = {}
    for name, content in files.items():
        paths[name] = tmp_path / f"{name.split(',')[0]}.npz"
        paths[name].write_bytes(content)
    paths["pickled objects"] = tmp_path / "objects.npz"
    np.savez(paths["pickled objects"], a=np.array([{"x": 1}], dtype=object))
    return paths


WHY = {
    "truncated": "truncated or damaged",
    "empty": "the file is empty",
    "random": "not an .npz archive",
    "zip header, then garbage": "truncated or damaged",
    "pickled objects": "pickled objects",
}


def test_a_bad_model_file_is_a_value_error_naming_it_and_what_is_wrong(tmp_path):
    model = digits_cnn(generator=3)
    before = model.state_dict()
    for name, path in _bad_files(tmp_path).items():
        with pytest.raises(ValueError) as info:
            load(model, path)
        msg = str(info.value)
        assert str(path) in msg and WHY[name] in msg, (name, msg)
    with pytest.raises(ValueError, match="is a folder"):
        load(model, tmp_path)
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(value, before[key])


@pytest.mark.parametrize("lr", ["inf", "-inf", "nan", "0", "-0.1"])
def test_train_rejects_a_non_finite_or_non_positive_lr(lr, capsys):
    from convgrad import train

    with pytest.raises(SystemExit):
        train.parse_args([f"--lr={lr}"])
    assert "--lr must be a finite number above 0" in capsys.readouterr().err


def test_train_checks_the_save_path_before_training(tmp_path, capsys, monkeypatch):
    from convgrad import train

    monkeypatch.setattr(train, "run", lambda *a, **k: pytest.fail("it trained"))
    (tmp_path / "file").write_text("")
    for bad, why in [
        (tmp_path / "no-such-folder" / "w.npz", "does not exist"),
        (tmp_path, "is a folder"),
        (tmp_path / "file" / "w.npz", "does not exist"),
    ]:
        with pytest.raises(SystemExit):
            train.main(["--save", str(bad)])
        err = capsys.readouterr().err
        assert f"--save {bad}" in err and why in err, err
    assert train.save_path_problem(str(tmp_path / "fine")) is None


def test_the_backend_flag_wins_over_a_bad_environment_variable(monkeypatch, capsys):
    from convgrad import backend, train

    monkeypatch.setenv("CONVGRAD_BACKEND", "bogus")
    monkeypatch.setattr(backend, "_current", None)
    monkeypatch.setattr(backend._choice, "name", None)  # no thread's own choice
    assert train.parse_args(["--backend", "numpy"]).backend == "numpy"
    with backend.use_backend("numpy"):
        assert backend.get_backend() == "numpy"
        F.max_pool2d(np.ones((1, 1, 2, 2)), 2)
    with pytest.raises(SystemExit):
        train.parse_args([])
    assert "CONVGRAD_BACKEND must be one of" in capsys.readouterr().err


def test_ctrl_c_in_training_saves_a_checkpoint_and_exits_with_one_line(
    tmp_path, monkeypatch, capsys
):
    from convgrad import train

    def interrupted(*args, model, **kwargs):
        model[0].weight.data += 1.0  # some training happened
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "run", interrupted)
    path = tmp_path / "ckpt.npz"
    assert train.main(["--save", str(path), "--seed", "5"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("interrupted after")
    assert str(path) in err[0]
    want = digits_cnn(generator=5)[0].weight.data + 1.0
    np.testing.assert_array_equal(load(digits_cnn(), path)[0].weight.data, want)
    assert train.main([]) == 130
    assert "nothing saved (no --save)" in capsys.readouterr().err


_SIGINT = """
import os, signal, sys, threading
# as at a terminal: a shell's background job inherits SIGINT ignored, and
# then Python installs no KeyboardInterrupt handler of its own
signal.signal(signal.SIGINT, signal.default_int_handler)
from convgrad import train
threading.Timer(3.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
sys.exit(train.main(["--epochs", "500", "--no-progress", "--backend", "numpy",
                     "--save", sys.argv[1]]))
"""


def test_a_real_sigint_saves_and_exits_130_without_a_traceback(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "w.npz"
    done = subprocess.run([sys.executable, "-c", _SIGINT, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("interrupted after")
    load(digits_cnn(), path)
