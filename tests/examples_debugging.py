"""Functions for the debugging tests (s2sad reads their source, so they live in a file).

Line numbers matter to the tests only through the source text they search for, never as
constants, so editing this file does not break them.
"""
import math


def backward_fails(x):
    y = math.sqrt(x)
    return 3.0 * y


def forward_fails(x, k):
    return x[k] * 2.0


def calls_failing_helper(x):
    z = x * x
    return backward_fails(z) + z


def pdb_target(x, w):
    y = w * math.sin(x)
    z = y * y
    return z + x
