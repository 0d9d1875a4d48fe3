"""Functions for test_nancheck.py: backward sweeps that make a NaN or an infinity."""
import numpy as np


def root(v):
    return np.sqrt(v)


def log_and_root(x, w):
    y = np.log(x + 1.0) * w
    z = root(x)
    return np.sum(y + z)


def scalar_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sqrt(x[i]) * x[i]
    return s
