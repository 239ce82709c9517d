"""Numba kernels: the fast twins of :mod:`convgrad.reference`.

Same names and signatures; outputs are passed in last; gathers fill them,
scatters add into an output the caller zeroed (``avgpool2d_backward``
fills its ``dx``). Arrays are C-contiguous
float32 or float64 (the ops pass ``np.ascontiguousarray``); ``argmax`` and
``indices`` are int64. The jit policy lives in :mod:`._jit`.

What this backend offers ``backend.py`` besides its kernels, by name:

- :data:`FORWARDS`: its own forwards of the three convs (:mod:`.forwards`,
  over the blocked pipeline of :mod:`.conv_fast` and :mod:`.winograd`),
  which the NumPy reference does not have; ``ops/conv.py`` runs one in
  place of the textbook forward for a call of at least
  ``SETTINGS.min_work`` multiply-adds;
- :data:`SETTINGS`: what is tuned to a machine (:mod:`.settings`);
- :data:`EXAMPLES`: the warm-up's calls that compile this backend's own
  kernels (:mod:`.examples`);
- :data:`HOOKS`: ``backend.hook("checksum")`` gives
  :func:`convgrad.function.fingerprint` its one-pass checksum.

Importing this package changes nothing elsewhere.
"""

from __future__ import annotations

from numba import config as _numba_config

from . import checksum as _checksum
from .examples import examples as EXAMPLES
from .forwards import FORWARDS
from .im2col import col2im, im2col
from .pool import (
    avgpool2d_backward,
    avgpool2d_forward,
    maxpool2d_backward,
    maxpool2d_forward,
    maxunpool2d,
)
from .settings import SETTINGS

#: this backend's hooks (``backend.HOOK_NAMES``): the saved arrays'
#: fingerprint in one pass, where Numba compiles (run as Python, under
#: ``NUMBA_DISABLE_JIT``, the loop is far slower than NumPy's two passes)
HOOKS = {} if _numba_config.DISABLE_JIT else {"checksum": _checksum.checksum}

__all__ = [
    "EXAMPLES",
    "FORWARDS",
    "HOOKS",
    "SETTINGS",
    "avgpool2d_backward",
    "avgpool2d_forward",
    "col2im",
    "im2col",
    "maxpool2d_backward",
    "maxpool2d_forward",
    "maxunpool2d",
]
