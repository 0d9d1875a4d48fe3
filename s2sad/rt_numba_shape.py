"""Numba implementations of the helpers in rt_shape.py (imported by rt_numba.py)."""
import numpy as np  # noqa: F401
from numba import njit, types  # noqa: F401
from numba.extending import overload  # noqa: F401

from s2sad import rt  # noqa: F401
