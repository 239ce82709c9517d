"""Tuning answers: sanity_check (tune). Written by the exercise's
author, who knows the checker: tuning material, never a blind measure."""

import math

import numpy as np


def wrong_ln_of_the_batch(net, x, y, classes, steps):
    """Remembered 'the first loss is about log N' and took N from the data it was handed."""
    first = net.loss(x, y)
    ok = abs(first - math.log(len(x))) < 0.15
    for _ in range(steps):
        net.step(x, y)
    return ok, net.loss(x, y) < 0.05


def wrong_log10_of_the_classes(net, x, y, classes, steps):
    """Wrote log10 for 'log', as on a calculator."""
    first = net.loss(x, y)
    for _ in range(steps):
        net.step(x, y)
    return bool(abs(first - np.log10(classes)) < 0.1), bool(
        net.loss(x, y) < 0.05)


def wrong_chance_level(net, x, y, classes, steps):
    """Compared the first loss with chance, 1/C, thinking of accuracy."""
    first = net.loss(x, y)
    chance = 1.0 / classes
    for _ in range(steps):
        net.step(x, y)
    return abs(first - chance) < 0.1, net.loss(x, y) < 0.05


def wrong_loss_went_down(net, x, y, classes, steps):
    """Called the batch fitted when the loss at the end is below the loss at the start."""
    losses = [net.loss(x, y)]
    for _ in range(steps):
        net.step(x, y)
        losses.append(net.loss(x, y))
    first_ok = abs(losses[0] - math.log(classes)) < 0.1
    return first_ok, losses[-1] < losses[0]


def wrong_all_predictions_right(net, x, y, classes, steps):
    """Called the batch fitted when every example's top score is its label."""
    first_ok = abs(net.loss(x, y) - math.log(classes)) < 0.1
    for _ in range(steps):
        net.step(x, y)
    pred = np.argmax(net.logits(x), axis=1)
    return first_ok, bool((pred == np.asarray(y)).all())


def wrong_trained_before_measuring(net, x, y, classes, steps):
    """Ran the training loop first and read the 'first' loss after it."""
    for _ in range(steps):
        net.step(x, y)
    end = net.loss(x, y)
    return abs(end - math.log(classes)) < 0.1, end < 0.05


def wrong_exact_equality(net, x, y, classes, steps):
    """Asked for the first loss to equal ln C to float precision."""
    first = net.loss(x, y)
    for _ in range(steps):
        net.step(x, y)
    return bool(np.isclose(first, np.log(classes))), bool(
        net.loss(x, y) < 0.05)
