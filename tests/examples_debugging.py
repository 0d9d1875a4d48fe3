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


def fails_past_a_branch(x):
    """Not small (a second `return`): a call with its own generated file, not inlined."""
    if x > 1e300:
        return x
    root = math.sqrt(x)
    return 3.0 * root


def calls_failing_helper(x):
    z = x * x
    return fails_past_a_branch(z) + z


def pdb_target(x, w):
    y = w * math.sin(x)
    z = y * y
    return z + x
