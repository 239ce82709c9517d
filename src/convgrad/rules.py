"""The textbook conv rules, by name: where the ops and a backend meet.

``ops/conv.py`` registers its rules here as it loads (:func:`register`).
A backend's whole rules (``kernels/conv_rules.py``) subclass them
(:func:`textbook`), and :func:`convgrad.backend.rule` falls back on them.
This module imports nothing of convgrad, so the ops (which ask the backend
for kernels) and the backend's rules (which the backend loads) never
import each other: ``tests/test_imports.py`` holds the package free of
cycles.
"""

from __future__ import annotations

#: the ops a backend may run with a whole rule of its own; ``"conv2d_weight"``
#: is conv2d's ``dw`` as an op (double backward builds it)
NAMES = ("conv2d", "conv_transpose2d", "conv2d_weight")

_TEXTBOOK: dict[str, type] = {}


def check(name: object) -> str:
    """``name`` if it is one of :data:`NAMES`, else a ValueError."""
    if name not in NAMES:
        raise ValueError(f"rule must be one of {NAMES}, got {name!r}")
    return name  # type: ignore[return-value]


def register(**rules: type) -> None:
    """Name the textbook rule of each op (``ops/conv.py`` does, once)."""
    for name in rules:
        check(name)
    _TEXTBOOK.update(rules)


def textbook(name: str) -> type:
    """The textbook rule of op ``name`` (a ``Function`` of ``ops/conv.py``)."""
    try:
        return _TEXTBOOK[check(name)]
    except KeyError:
        raise RuntimeError(
            f"the textbook rule {name!r} is not registered: import "
            f"convgrad.ops.conv (import convgrad does) before a backend's rules"
        ) from None
