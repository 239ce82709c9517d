"""A replay's frames kept as what each step changed (``trace.Frames``).

Every frame must equal :func:`convgrad.trace.replay_frames`'s (the whole
state after every step, the way views were played before) bit for bit,
reached in any order, across many checkpoints; and what the frames hold
must grow with the changes, not with frames × cells.
"""

from __future__ import annotations

import numpy as np
import pytest

from convgrad import trace

RNG = np.random.default_rng(11)


def _r(*shape, dtype=np.float64):
    return np.round(RNG.uniform(-1, 1, shape), 1).astype(dtype)


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _traces():
    x = _r(1, 1, 6, 6)
    x[0, 0, 1, 1] = x[0, 0, 1, 2] = 0.9  # a tie: the scan keeps the first
    return {
        # stride 1 over 12x12: 900 changes, six checkpoints of 144
        "col2im-many-checkpoints": trace.col2im(_r(1, 1, 3, 3, 10, 10), (12, 12), 3),
        "col2im-float32": trace.col2im(_r(1, 2, 3, 3, 4, 4, dtype=np.float32),
                                       (7, 7), 3, stride=2, padding=1),
        "im2col-padding": trace.im2col(_r(1, 1, 5, 4), 3, padding=1),
        "maxpool-scan": trace.maxpool_forward(x, 3, stride=2, padding=1),
        "conv-dw": trace.conv2d_weight(_r(1, 1, 6, 6), (1, 1, 3, 3), _r(1, 1, 4, 4)),
        "batch-norm": trace.batch_norm_backward(
            _r(2, 1, 2, 2), _r(2, 1, 2, 2), np.array([1.5]), np.array([0.7])),
    }  # fmt: skip


TRACES = _traces()


@pytest.mark.parametrize("name", list(TRACES))
def test_every_frame_is_replay_frames_bit_for_bit_in_any_order(name):
    t = TRACES[name]
    states, touched = trace.replay_frames(t)
    frames = trace.replay_changes(t)
    n = len(states)
    assert len(frames) == n and frames.shape == t.shape and frames.dtype == t.dtype
    dense, written = frames.dense()
    assert dense.dtype == states.dtype
    np.testing.assert_array_equal(_bits(dense), _bits(states))
    np.testing.assert_array_equal(written, touched)
    # forwards, backwards and at random: each from its nearest checkpoint
    order = [*range(n), *range(n - 1, -1, -1), *RNG.integers(0, n, 50)]
    for i in order:
        state, seen = frames.at(int(i))
        assert _bits(state).tobytes() == _bits(states[i]).tobytes(), i
        np.testing.assert_array_equal(seen, touched[i])
    np.testing.assert_array_equal(frames[-1], trace.replay(t))


@pytest.mark.parametrize("name", list(TRACES))
def test_only_the_changes_are_kept(name):
    t = TRACES[name]
    states, touched = trace.replay_frames(t)
    frames = trace.replay_changes(t)
    flat = _bits(states.reshape(len(states), -1))
    seen = touched.reshape(len(states), -1)
    before = np.vstack([np.zeros_like(flat[:1]), flat[:-1]])
    seen_before = np.vstack([np.zeros_like(seen[:1]), seen[:-1]])
    changed = (flat != before) | (seen != seen_before)
    # one cell at most per event, and exactly the cells whose bits or flag moved
    assert len(frames.cells) == changed.sum() <= len(states)
    for i in range(len(states)):
        cells, values, shown = frames.step(i)
        np.testing.assert_array_equal(cells, np.flatnonzero(changed[i]))
        np.testing.assert_array_equal(_bits(values), flat[i][cells])
        np.testing.assert_array_equal(shown, seen[i][cells])
    # what a frame may show: frame 0's whole state and every later change
    shows = set(_bits(states.ravel()).tolist())
    assert set(_bits(frames.seen()).tolist()) == shows


def test_a_change_is_new_bits_or_a_first_write():
    g = trace.GatherEvent
    events = [
        g((0, 0), (0,), 0.0, 0.0),  # the same bits as before, but written now
        g((0, 1), (0,), 0.0, 0.0),  # the same bits, written already: nothing
        g((0, 2), (0,), -0.0, -0.0),  # -0.0: new bits
        g((0, 3), (1,), 0.5, 0.5),
        g((0, 4), (1,), 0.5, 0.5),  # nothing
    ]
    frames = trace.replay_changes(events, (2,))
    assert [frames.step(i)[0].tolist() for i in range(5)] == [[0], [], [0], [1], []]
    assert np.signbit(frames.step(2)[1][0]) and np.signbit(frames[-1][0])


def test_frames_of_whole_states_equal_the_replays_changes():
    t = TRACES["col2im-many-checkpoints"]
    states, touched = trace.replay_frames(t)

    def one_by_one():  # the same arrays, changed in place between frames
        state, seen = np.zeros(t.shape), np.zeros(t.shape, bool)
        for s, w in zip(states, touched, strict=True):
            state[...], seen[...] = s, w
            yield state, seen

    made = trace.Frames.of_states(one_by_one(), t.shape)
    kept = trace.replay_changes(t)
    for part in ("start", "cells", "values", "shown"):
        np.testing.assert_array_equal(getattr(made, part), getattr(kept, part))
    with pytest.raises(TypeError, match="shape"):
        trace.Frames.of_states(iter(()))


def test_moved_and_reshaped_frames_show_the_same_cells():
    t = TRACES["conv-dw"]  # dw as (1, 1, 3, 3); shown turned over
    frames = trace.replay_changes(t)
    where = np.arange(9).reshape(3, 3).T  # new cell (r, c) shows old (c, r)
    turned = frames.moved(where)
    states, _ = trace.replay_frames(t)
    for i in range(len(frames)):
        np.testing.assert_array_equal(turned[i], states[i].reshape(3, 3).T)
        cells = turned.step(i)[0]
        assert (np.diff(cells) > 0).all()  # still in order within a step
    flat = frames.reshape((9,))
    np.testing.assert_array_equal(flat[-1], states[-1].ravel())
    with pytest.raises(ValueError, match="as"):
        frames.reshape((4, 2))
    with pytest.raises(ValueError, match="permutation"):
        frames.moved(np.zeros((3, 3), int))


def test_a_frame_out_of_range_is_an_index_error():
    frames = trace.replay_changes(TRACES["maxpool-scan"])
    n = len(frames)
    with pytest.raises(IndexError, match=str(n)):
        frames.at(n)
    with pytest.raises(TypeError, match="int"):
        frames.at(1.0)
    np.testing.assert_array_equal(frames[-n], frames[0])


def test_checkpoints_hold_no_more_cells_than_the_changes():
    t = TRACES["col2im-many-checkpoints"]
    frames = trace.replay_changes(t)
    frames.at(len(frames) - 1)  # every checkpoint made
    held = sum(state.size for state, _ in frames._checkpoints.values())
    assert len(frames._checkpoints) > 3
    assert held <= len(frames.cells) + frames.size
