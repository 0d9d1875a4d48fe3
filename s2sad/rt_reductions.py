"""Runtime helpers for the derivative templates of reductions and scans (templates/numpy_reductions.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_reductions.py.
"""
import numpy as np  # noqa: F401

__all__ = []
