"""Differentiation rules only: each Function's forward and its rule, one
body (``vjp``, written in these ops).

No loops live here. Scatters and gathers are looked up in
:mod:`convgrad.backend`.

Importing this package gives :class:`~convgrad.tensor.Tensor` its
operators and methods: ``basic`` and ``reduce`` register them.
"""

from . import basic, reduce  # noqa: F401  (they register Tensor's methods)
