"""The wire: messages between a parent and a process that runs a learner's
code (the grade command's sealed worker, :mod:`convgrad.course.worker`, and
the checker's forked child, :mod:`.isolation`).

A message is a JSON header and zero or more binary blobs, each prefixed by
its length (8 bytes, big-endian); the header says how many blobs follow.

The two directions are not trusted alike. The parent writes to the worker
whatever the worker needs to rebuild an exercise's inputs, pickles
included (the parent is trusted). The worker's messages are read as data
only: JSON, and arrays in NumPy's ``.npy`` format loaded with
``allow_pickle=False``. Every length is bounded (:data:`MAX_MESSAGE`), so a
submission that writes garbage, or too much, to its end of the pipe breaks
only its own grading.

Values from the worker (what an answer returned, the arrays it was called
with after the call, a callback's arguments) are encoded by
:func:`encode` as a tree of ``None``, booleans, numbers, strings, lists,
tuples and arrays; anything else becomes a stand-in that keeps its type's
name and a short repr (:class:`Shown`), or an :class:`Unreadable` read.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import struct
from typing import Any

import numpy as np

#: the most bytes one message from a worker may hold
MAX_MESSAGE = 256 * 2**20
#: the most blobs (arrays) one message from a worker may hold
MAX_BLOBS = 4096
_DEPTH = 8  # nesting of lists and tuples in a value
_ITEMS = 100_000  # items of one list or tuple
_TEXT = 4000  # characters of a string or a repr
_LEN = struct.Struct(">Q")


class WireError(Exception):
    """A message that breaks the protocol (cut short, too long, garbled)."""


# ----------------------------------------------------------------------------
# framing
# ----------------------------------------------------------------------------


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def send(fd: int, header: dict, blobs: list[bytes] = ()) -> None:
    """Write one message to the file descriptor ``fd``."""
    head = json.dumps({**header, "blobs": len(blobs)},
                      allow_nan=False).encode()
    parts = [_LEN.pack(len(head)), head]
    for blob in blobs:
        parts += [_LEN.pack(len(blob)), blob]
    _write_all(fd, b"".join(parts))


class Reader:
    """Reads messages from a file descriptor, within a byte budget each.

    ``wait(seconds)`` (optional) is called before each read and returns
    False when no data came in time; :meth:`read` then raises
    :class:`TimeoutError`.
    """

    def __init__(self, fd: int, wait=None, limit: int = MAX_MESSAGE) -> None:
        self.fd, self.wait, self.limit = fd, wait, limit

    def _exact(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            if self.wait is not None and not self.wait():
                raise TimeoutError("no message in time")
            chunk = os.read(self.fd, min(left, 1 << 20))
            if not chunk:
                raise EOFError("the worker closed its pipe")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _length(self, budget: int) -> int:
        (n,) = _LEN.unpack(self._exact(_LEN.size))
        if n > budget:
            raise WireError(f"a message part of {n} bytes is over the limit")
        return n

    def read(self) -> tuple[dict, list[bytes]]:
        budget = self.limit
        n = self._length(budget)
        budget -= n
        try:
            header = json.loads(self._exact(n))
        except (ValueError, UnicodeDecodeError) as err:
            raise WireError(f"a header that is not JSON: {err}") from None
        if not isinstance(header, dict):
            raise WireError("a header that is not an object")
        count = header.get("blobs", 0)
        if not isinstance(count, int) or not 0 <= count <= MAX_BLOBS:
            raise WireError(f"a bad blob count {count!r}")
        blobs = []
        for _ in range(count):
            n = self._length(budget)
            budget -= n
            blobs.append(self._exact(n))
        return header, blobs


# ----------------------------------------------------------------------------
# values
# ----------------------------------------------------------------------------


class Shown:
    """A stand-in for a value of a type that does not cross the wire: its
    type's name and its repr, as the worker saw them."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return self.text


def _stand_in(type_name: str, text: str) -> Any:
    # a class of the same name, so a report says "dict {...}", not "Shown"
    cls = type(type_name if type_name.isidentifier() else "object",
               (Shown,), {})
    return cls(type_name, text)


class Unreadable:
    """A value whose reading as numbers raised, in the worker: reading it
    here raises the same error's type and message."""

    def __init__(self, error_type: str, message: str) -> None:
        self.error_type, self.message = error_type, message

    @property
    def data(self) -> Any:
        raise exception(self.error_type, self.message)


def _array_blob(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _short(text: str) -> str:
    return text if len(text) <= _TEXT else text[:_TEXT] + "…"


def _float(x: float) -> Any:
    return x if math.isfinite(x) else {"float": repr(x)}


def encode(value: Any, blobs: list[bytes], *, numbers: bool = False,
           depth: int = 0) -> Any:
    """``value`` as JSON, arrays appended to ``blobs``. With ``numbers``,
    a value that is neither a list nor a tuple is read as the checker reads
    an answer (a Tensor's ``.data``, then ``np.asarray``); its error, if it
    raises, travels as an :class:`Unreadable`."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return {"str": _short(value)}
    if isinstance(value, int) and not numbers:
        return value if abs(value) < 2**53 else {"int": str(value)[:_TEXT]}
    if isinstance(value, float) and not numbers:
        return _float(value)
    if isinstance(value, (list, tuple)) and depth < _DEPTH \
            and len(value) <= _ITEMS:
        return {type(value).__name__: [
            encode(v, blobs, numbers=numbers, depth=depth + 1) for v in value]}
    if numbers or isinstance(value, (np.ndarray, np.generic)):
        try:
            array = np.asarray(getattr(value, "data", value))
        except BaseException as err:  # noqa: BLE001 (the answer's object)
            return {"unreadable": [type(err).__name__, _short(str(err))]}
        if array.dtype.kind in "biufc" and not array.dtype.hasobject:
            blobs.append(_array_blob(array))
            return {"array": len(blobs) - 1}
        if array.dtype.kind in "US" and array.size <= _ITEMS:
            return {"strings": [array.shape, [_short(str(x))
                                              for x in array.ravel()]]}
        if array.dtype == object and array.shape == () \
                and array.item() is None:
            return None
    return {"shown": [type(value).__name__, _short(_repr(value))]}


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except BaseException as err:  # noqa: BLE001 (the answer's object)
        return f"<repr raised {type(err).__name__}>"


def decode(tree: Any, blobs: list[bytes], depth: int = 0) -> Any:
    """The value :func:`encode` wrote (arrays loaded without pickles)."""
    if depth > _DEPTH + 1:
        raise WireError("a value nested too deep")
    if tree is None or isinstance(tree, (bool, int, float)):
        return tree
    if not isinstance(tree, dict) or len(tree) != 1:
        raise WireError(f"a value of an unknown form: {str(tree)[:80]}")
    (kind, body), = tree.items()
    if kind in ("list", "tuple"):
        if not isinstance(body, list) or len(body) > _ITEMS:
            raise WireError("a bad list")
        items = [decode(v, blobs, depth + 1) for v in body]
        return items if kind == "list" else tuple(items)
    if kind == "array":
        if not isinstance(body, int) or not 0 <= body < len(blobs):
            raise WireError("an array that is not there")
        try:
            return np.load(io.BytesIO(blobs[body]), allow_pickle=False)
        except (ValueError, OSError, EOFError) as err:
            raise WireError(f"an array that does not load: {err}") from None
    if kind == "str" and isinstance(body, str):
        return body[:_TEXT + 1]
    if kind == "int" and isinstance(body, str):
        try:
            return int(body[:_TEXT])
        except ValueError:
            raise WireError("a bad int") from None
    if kind == "float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if kind == "strings" and isinstance(body, list) and len(body) == 2:
        try:
            return np.array(body[1], dtype=str).reshape(body[0])
        except (ValueError, TypeError):
            raise WireError("bad strings") from None
    if kind in ("shown", "unreadable") and isinstance(body, list) \
            and len(body) == 2 and all(isinstance(x, str) for x in body):
        name, text = body[0][:80], body[1][:_TEXT + 1]
        if kind == "shown":
            return _stand_in(name, text)
        return Unreadable(name, text)
    raise WireError(f"a value of an unknown kind {kind!r}")


def exception(type_name: str, message: str) -> BaseException:
    """An exception to raise here for one the worker's answer raised: the
    built-in of that name when there is one (so ``NotImplementedError`` is
    still a stub), else an ``Exception`` subclass of that name."""
    import builtins

    cls = getattr(builtins, type_name, None) if type_name.isidentifier() \
        else None
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:  # a built-in that wants other arguments
            pass
    if type_name == "SystemExit":
        return SystemExit(message)
    name = type_name if type_name.isidentifier() else "Exception"
    # "ShapeMismatch: ...", not "convgrad.exercises.wire.ShapeMismatch: ..."
    return type(name, (Exception,), {"__module__": "builtins"})(message)


# ----------------------------------------------------------------------------
# the parent's side: inputs, pickled where they must be
# ----------------------------------------------------------------------------


def encode_input(value: Any, blobs: list[bytes]) -> Any:
    """An input of a call, parent to worker: a tree when it is one, else a
    pickle (the parent is trusted; the worker never sends one back)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        blobs.append(_array_blob(value))
        return {"array": len(blobs) - 1}
    if value is None or isinstance(value, (bool, int, float, str)):
        return encode(value, blobs)
    if isinstance(value, (list, tuple)) and all(
            x is None or isinstance(x, (bool, int, float, str))
            for x in value):
        return encode(value, blobs)
    blobs.append(pickle.dumps(value))
    return {"pickle": len(blobs) - 1}


def decode_input(tree: Any, blobs: list[bytes]) -> Any:
    """In the worker: an input the parent sent."""
    if isinstance(tree, dict) and set(tree) == {"pickle"}:
        return pickle.loads(blobs[tree["pickle"]])  # noqa: S301 (from the parent)
    return decode(tree, blobs)
