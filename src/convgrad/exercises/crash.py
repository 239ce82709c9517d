"""What an exception says about the learner's code, when no mistake's model
predicts it: an index past the end of an axis, two shapes that do not fit,
a None used as a number.

Each kind is a code of the vocabulary; the evidence quotes the numbers in
the message and says what they usually mean in a backward pass (a loop
bound one too far, an axis of the padded canvas sized without the
padding), the fix says where to look.
"""

from __future__ import annotations

import re

#: the codes this module names
CODES = ("out-of-bounds", "shapes-mismatch", "none-used")

# IndexError: index 5 is out of bounds for axis 2 with size 5
_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with "
                     r"size (\d+)")
_SHAPES = ("could not be broadcast", "shapes", "not aligned",
           "cannot reshape", "mismatch", "could not broadcast",
           "size of the input", "dimension")


def name(raised: str) -> tuple[str, str, str] | None:
    """``(code, evidence, fix)`` for the exception text ``raised`` (as
    ``"IndexError: ..."``), or ``None`` when it says nothing we can read."""
    kind, _, text = raised.partition(":")
    text = text.strip()
    if kind == "IndexError":
        m = _BOUNDS.search(text)
        if m:
            index, axis, size = (int(g) for g in m.groups())
            past = ("exactly one past the end: a loop bound one too far "
                    "(range(n + 1), <= for <), or a size computed one short"
                    if index == size else
                    f"{index - size + 1} past the end: an index computed "
                    f"without the padding or the stride, or an array sized "
                    f"too small (H where H + 2*padding is meant)"
                    if index > size else
                    "a negative index past the start")
            return ("out-of-bounds",
                    f"your code indexed {index} on axis {axis} of an array "
                    f"whose size there is {size}: {past}",
                    "print the shape of the array you index and the range "
                    "of the index there; size the array for every index "
                    "the loop reaches, or stop the loop at the array's size")
        return ("out-of-bounds", f"your code raised {raised[:160]}",
                "an index, a slice or a number of indices does not match "
                "the array: compare the array's ndim and shape with how "
                "you index it")
    if kind == "ValueError" and (any(k in text for k in _SHAPES)
                                 or "shape" in text):
        shapes = re.findall(r"\(\d+(?:, ?\d+)*,?\)", text)
        seen = f" ({', '.join(dict.fromkeys(shapes))})" if shapes else ""
        return ("shapes-mismatch",
                f"two arrays of different shapes met{seen}: {text[:160]}",
                "check each array's shape where they meet (print them): "
                "an axis in the wrong order, a missing [..., None] to "
                "broadcast, or a size computed from the wrong axis")
    if kind == "TypeError" and "NoneType" in text:
        return ("none-used",
                f"a None was used as a value: {text[:160]}",
                "a function that ends without `return` gives None, and so "
                "does an argument left at its default None (stride=None "
                "means kernel_size in pooling)")
    return None
