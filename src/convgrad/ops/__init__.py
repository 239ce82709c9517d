"""Differentiation rules only: each Function's forward and backward.

No loops live here. Scatters and gathers are looked up in
:mod:`convgrad.backend`.
"""
