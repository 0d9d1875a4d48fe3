"""Runtime helpers for the derivative templates of elementwise and special functions (templates/math_rules.py, templates/numpy_rules.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_special.py.
"""
import numpy as np  # noqa: F401

__all__ = []
