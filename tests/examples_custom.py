"""User-registered rules for a user's own functions and a third-party one
(tests/test_custom_rules.py). Importing this module registers them."""
import numba
import numpy as np
import scipy.special

import s2sad
from s2sad import d


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x):
    """Has source s2sad could read; the rules below win over it."""
    return np.log1p(np.exp(x))


@s2sad.adjoint(softplus)
def softplus_adjoint(z, x):
    d[x] = d[z] * sigmoid(x)


@s2sad.tangent(softplus)
def softplus_tangent(z, x):
    d[z] = d[x] * sigmoid(x)


def opaque(x):
    """Code s2sad cannot read (try/except): usable through its rules only."""
    try:
        return x * x * x
    except ValueError:
        return x


@s2sad.adjoint(opaque)
def opaque_adjoint(z, x):
    d[x] = d[z] * 3.0 * x * x


@s2sad.tangent(opaque)
def opaque_tangent(z, x):
    d[z] = d[x] * 3.0 * x * x


@numba.njit
def cube(x):
    return x * x * x


@s2sad.adjoint(cube)
def cube_adjoint(z, x):
    d[x] = d[z] * 3.0 * x * x


@s2sad.tangent(cube)
def cube_tangent(z, x):
    d[z] = 3.0 * x * x * d[x]


@s2sad.adjoint(scipy.special.erf)
def erf_adjoint(z, x):
    d[x] = d[z] * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


@s2sad.tangent(scipy.special.erf)
def erf_tangent(z, x):
    d[z] = d[x] * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


def model(x, w):
    """Calls the user-rule function and the njit one."""
    return np.sum(softplus(x * w)) + cube(w[0])


def unreadable(x):
    """Calls a function whose source s2sad cannot read."""
    return opaque(x[1]) * x[0]


def with_erf(x):
    return np.sum(scipy.special.erf(x) * x)
