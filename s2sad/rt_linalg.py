"""Runtime helpers for the derivative templates of linear algebra (templates/numpy_linalg.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_linalg.py.
"""
import numpy as np  # noqa: F401

__all__ = []
