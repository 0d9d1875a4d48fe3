"""Functions for test_nancheck.py: backward sweeps that make a NaN or an infinity."""
import numpy as np


def root(v):
    if v.shape[0] == 0:  # a branch: not inlined, root keeps its own generated adjoint
        return v
    return np.sqrt(v)


def small_root(v):
    return np.sqrt(v)


def log_and_root(x, w):
    y = np.log(x + 1.0) * w
    z = root(x)
    return np.sum(y + z)


def log_and_small_root(x, w):
    y = np.log(x + 1.0) * w
    z = small_root(x)  # inlined
    return np.sum(y + z)


def scalar_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sqrt(x[i]) * x[i]
    return s
