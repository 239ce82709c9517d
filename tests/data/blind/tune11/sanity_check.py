"""Blind corpus: sanity_check (tune11), written without reading the checker."""
# ruff: noqa: E501

import numpy as np
import torch


def wrong_classes_from_labels(net, x, y, classes, steps):
    """Counts the classes as the distinct labels present in the batch, so a batch smaller than C (100 classes, 12 examples) gets the wrong ln C."""
    c = len(np.unique(y))
    first = float(net.loss(x, y))
    first_ok = abs(first - np.log(c)) < 0.1
    for _ in range(steps):
        net.step(x, y)
    fits = float(net.loss(x, y)) < 0.05
    return first_ok, fits


def wrong_recomputed_cross_entropy(net, x, y, classes, steps):
    """Recomputes the first loss itself with torch's cross-entropy on the logits instead of using net.loss, so a fault in the pipeline's own loss is never looked at."""
    z = torch.tensor(np.asarray(net.logits(x)), dtype=torch.float64)
    t = torch.tensor(np.asarray(y), dtype=torch.long)
    first = torch.nn.functional.cross_entropy(z, t).item()
    first_ok = abs(first - np.log(classes)) < 0.1
    for _ in range(steps):
        net.step(x, y)
    fits = float(net.loss(x, y)) < 0.05
    return first_ok, fits


def wrong_one_sided_first_loss(net, x, y, classes, steps):
    """Only checks that the first loss is not more than 0.1 above ln C, forgetting the absolute value, so a first loss far too low passes."""
    expected = np.log(classes)
    losses = [net.step(x, y) for _ in range(steps)]
    first = float(losses[0])
    first_ok = first - expected < 0.1
    fits = float(net.loss(x, y)) < 0.05
    return first_ok, fits


def wrong_accuracy_for_fit(net, x, y, classes, steps):
    """Decides that the batch is fitted when every example is classified right (100% accuracy), which a pipeline whose loss stays high also reaches."""
    first_ok = bool(np.isclose(float(net.loss(x, y)), np.log(classes), atol=0.1, rtol=0))
    for _ in range(steps):
        net.step(x, y)
    pred = np.argmax(np.asarray(net.logits(x)), axis=1)
    fits = bool(np.all(pred == np.asarray(y)))
    return first_ok, fits

