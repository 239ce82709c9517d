"""Blind corpus: maxpool_backward (heldout), written without reading the checker."""

import numpy as np


def wrong_channel_loop_uses_batch_size(dy, argmax, input_shape):
    """Typo in the loops: the channel loop runs over range(N), so channels are skipped (or it crashes when N > C)."""
    N, C, H, W = input_shape
    dx = np.zeros(input_shape)
    for n in range(N):
        for c in range(N):
            plane = dx[n, c].reshape(-1)
            np.add.at(plane, argmax[n, c].ravel(), dy[n, c].ravel())
    return dx


def wrong_integer_canvas(dy, argmax, input_shape):
    """Made dx with np.zeros_like(argmax, shape=input_shape), an integer array, so every dy is truncated."""
    dx = np.zeros_like(argmax, shape=input_shape)
    N, C, H, W = input_shape
    for n in range(N):
        for c in range(C):
            for k, g in zip(argmax[n, c].ravel(), dy[n, c].ravel()):
                dx[n, c, k // W, k % W] += g
    return dx


def wrong_shared_winner_gets_average(dy, argmax, input_shape):
    """Thought a pixel that wins several windows should get the average of their dy, so divides by the win count."""
    N, C, H, W = input_shape
    total = np.zeros((N, C, H * W))
    count = np.zeros((N, C, H * W))
    for n in range(N):
        for c in range(C):
            np.add.at(total[n, c], argmax[n, c].ravel(), dy[n, c].ravel())
            np.add.at(count[n, c], argmax[n, c].ravel(), 1)
    dx = total / np.maximum(count, 1)
    return dx.reshape(input_shape)
