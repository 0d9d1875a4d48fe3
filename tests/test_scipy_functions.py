"""Library functions given to s2sad itself (api/library_functions.py), scipy.optimize.rosen and
scipy.spatial.distance (templates/scipy_optimize.py, templates/scipy_spatial.py), used the way
people use them, against central finite differences and scipy's own derivatives. The rules
themselves are verified one by one by `s2sad verify`; compiled cases here are few."""
import functools
import math
import warnings

import numpy as np
import pytest
import scipy.optimize
import scipy.special
from scipy.spatial import distance

import s2sad
from gradcheck import assert_close, check_gradient, finite_difference

RNG = np.random.default_rng(41)


def test_logsumexp_given_to_grad_goes_through_its_rule_jit_on_and_off():
    x = RNG.normal(size=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)  # it must compile
        for jit in (True, False):
            gradient = s2sad.value_and_grad(scipy.special.logsumexp, jit=jit)
            value, grad = gradient(x)
            assert_close(value, scipy.special.logsumexp(x), rtol=1e-14)
            assert_close(grad, scipy.special.softmax(x), rtol=1e-12)
    assert "_logsumexp.py" not in gradient.source  # scipy's own source is not read
    weights = RNG.uniform(0.5, 2.0, 5)
    value, grad = s2sad.value_and_grad(scipy.special.logsumexp, jit=False)(x, b=weights)
    assert_close(grad, finite_difference(
        lambda a: scipy.special.logsumexp(a, b=weights), (x,), 0))


def test_other_library_functions_given_to_grad():
    assert_close(s2sad.grad(np.sin, jit=False)(0.3), np.cos(0.3))
    assert_close(s2sad.grad(math.sin, jit=False)(0.3), np.cos(0.3))
    assert_close(s2sad.grad(functools.partial(np.add, 1.0), jit=False)(0.3), 1.0)
    assert_close(s2sad.grad(scipy.special.gammaln, jit=False)(2.5),
                 scipy.special.digamma(2.5))
    x = RNG.normal(size=3)
    assert_close(s2sad.grad(np.arctan2, wrt=1, jit=False)(0.4, 1.3),
                 finite_difference(np.arctan2, (0.4, 1.3), 1))
    assert_close(s2sad.grad(np.linalg.norm, jit=False)(x), x / np.linalg.norm(x))
    assert_close(s2sad.grad(np.prod, jit=False)(x), np.prod(x) / x)  # (numpy's _NoValue)
    assert_close(s2sad.jacobian(scipy.special.log_softmax, jit=False)(x),
                 np.eye(3) - scipy.special.softmax(x)[None, :])


def test_rosen_given_to_grad_and_its_hessian():
    x = RNG.uniform(-2.0, 2.0, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        assert_close(s2sad.grad(scipy.optimize.rosen)(x), scipy.optimize.rosen_der(x),
                     rtol=1e-12)
    assert_close(s2sad.grad(scipy.optimize.rosen, jit=False)(x), scipy.optimize.rosen_der(x),
                 rtol=1e-12)
    assert_close(s2sad.hessian(scipy.optimize.rosen, jit=False)(x),
                 scipy.optimize.rosen_hess(x), rtol=1e-12)


def rosen_of_points(X):
    """rosen of a column per point (scipy sums along the first axis)."""
    return np.sum(scipy.optimize.rosen(X) ** 0.5)


def test_rosen_of_many_points():
    X = RNG.uniform(-2.0, 2.0, (4, 3))
    check_gradient(rosen_of_points, (X,), 0, jit=False)


def nearest_centre_loss(points, centres, weights):
    """Soft k-means: each point's distances to the centres, several metrics."""
    total = 0.0
    for i in range(points.shape[0]):
        for j in range(centres.shape[0]):
            p, c = points[i], centres[j]
            total += distance.euclidean(p, c) + 0.5 * distance.sqeuclidean(p, c, weights) + \
                0.1 * distance.cityblock(p, c) + distance.cosine(p, c, w=weights) + \
                distance.braycurtis(p, c) + distance.minkowski(p, c, 3.0, weights)
    return total


def test_distances_in_a_loss():
    points, centres = RNG.uniform(0.5, 2.0, (3, 4)), RNG.uniform(0.5, 2.0, (2, 4))
    weights = RNG.uniform(0.5, 2.0, 4)
    check_gradient(nearest_centre_loss, (points, centres, weights), (0, 1, 2), jit=False)


def minkowski_in_p(u, v, p):
    return distance.minkowski(u, v, p)


def test_minkowski_in_p_and_a_compiled_distance():
    u, v = RNG.normal(size=4), RNG.normal(size=4)
    check_gradient(minkowski_in_p, (u, v, 2.5), (0, 1, 2))


def test_a_library_function_without_a_rule_is_still_refused_clearly():
    with pytest.raises(s2sad.S2sadError, match="chebyshev"):
        s2sad.grad(lambda u: distance.chebyshev(u, np.ones(3)), jit=False)(np.zeros(3))


def signed_mixture(a, b):
    """log|sum b e^a| with weights of both signs, as return_sign=True gives it."""
    value, sign = scipy.special.logsumexp(a, axis=1, b=b, return_sign=True)
    return np.sum(value * sign)


def test_logsumexp_with_return_sign():
    a, b = RNG.normal(size=(3, 4)), RNG.uniform(-1.0, 2.0, (3, 4))
    check_gradient(signed_mixture, (a, b), (0, 1), jit=False)
