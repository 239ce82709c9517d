"""Blind corpus: sanity_check (fresh11), written without reading the checker."""
# ruff: noqa: E501

import numpy as np
import torch


def wrong_width_of_logits(net, x, y, classes, steps):
    """Reads C from the width of the untrained model's logits instead of the task's classes, so a head of the wrong size judges itself."""
    scores = np.asarray(net.logits(x))
    n_classes = scores.shape[-1]
    first = float(net.loss(x, y))
    first_ok = bool(np.abs(first - np.log(n_classes)) < 0.1)
    loss = first
    for _ in range(steps):
        net.step(x, y)
    loss = float(net.loss(x, y))
    return first_ok, loss < 0.05


def wrong_first_loss_after_step(net, x, y, classes, steps):
    """Takes one training step before reading the 'first' loss (inside the loop), so the initial loss it checks is already the trained one."""
    first = None
    for i in range(steps):
        net.step(x, y)
        if i == 0:
            first = float(net.loss(x, y))
    first_ok = abs(first - np.log(classes)) < 0.1
    fits = float(net.loss(x, y)) < 0.05
    return first_ok, fits


def wrong_loss_fell(net, x, y, classes, steps):
    """Calls the batch fitted when the final loss is below the first one (a loss that fell), not below 0.05."""
    first = float(net.loss(x, y))
    first_ok = abs(first - np.log(classes)) <= 0.1
    for _ in range(steps):
        net.step(x, y)
    last = float(net.loss(x, y))
    fits = last < first
    return first_ok, fits


def wrong_mean_of_trajectory(net, x, y, classes, steps):
    """Tests the mean of all the losses seen during training (including the untrained first one) against 0.05 instead of the loss at the end, so a right pipeline 'fails to fit'."""
    losses = np.array([float(net.step(x, y)) for _ in range(steps)])
    first_ok = abs(losses[0] - np.log(classes)) < 0.1
    fits = losses.mean() < 0.05
    return bool(first_ok), bool(fits)

