"""Objects an argument holds, whose methods the function calls: scipy.stats distributions frozen
outside the function and kept in an object's field, a list or a dict (as pints' toy
log-densities keep them), and objects of the user's classes in a list
(front/container_methods.py). Gradients against central finite differences; one compiled case.
"""
import warnings

import numpy as np
import pytest
import scipy.stats as stats
from scipy.stats import multivariate_normal, norm, t

import s2sad
from gradcheck import assert_close, check_gradient, finite_difference

RNG = np.random.default_rng(53)


class Gaussian:
    """A log-density object, as pints writes them: the distribution is frozen in __init__."""

    def __init__(self, mean, cov):
        self._n = len(mean)
        self._phi = multivariate_normal(mean, cov)

    def __call__(self, x):
        y = np.asarray(x).reshape(self._n)
        return self._phi.logpdf(y)


class Mixture:
    def __init__(self, modes, scales, weights):
        self._vars = [multivariate_normal(m, s * np.eye(len(m))) for m, s in zip(modes, scales)]
        self._weights = weights

    def __call__(self, x):
        f = np.sum([w * var.pdf(x) for w, var in zip(self._weights, self._vars)])
        return np.log(f)


def test_a_frozen_distribution_in_a_field_jit_on_and_off():
    model = Gaussian(np.array([0.5, -1.0, 0.25]), np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2],
                                                            [0.1, 0.2, 0.7]]))
    x = RNG.normal(size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)  # it must compile
        for jit in (True, False):
            value, grad = s2sad.value_and_grad(model, jit=jit)(x)
            assert_close(value, model._phi.logpdf(x), rtol=1e-12)
            assert_close(grad, finite_difference(model, (x,), 0))


def test_a_list_of_frozen_distributions():
    model = Mixture([[0.0, 0.0], [1.5, -1.0], [-1.0, 2.0]], [1.0, 0.5, 2.0], [0.2, 0.5, 0.3])
    x = np.array([0.4, -0.3])
    gradient = s2sad.value_and_grad(model, jit=False)
    value, grad = gradient(x)
    assert_close(value, model(x), rtol=1e-12)
    assert_close(grad, finite_difference(model, (x,), 0))
    text = gradient.source
    assert "stats_multivariate_normal_pdf(x, mean=self__vars_1_mean, cov=" in text


def prior_log_density(theta, priors):
    return priors["rate"].logpdf(theta[0]) + priors["shift"].logcdf(theta[1]) + \
        np.sum(priors["noise"].logpdf(theta[2:]))


def test_frozen_distributions_in_a_dict_argument():
    priors = {"rate": stats.gamma(2.0, scale=1.5), "shift": t(3.0, loc=0.5),
              "noise": norm(0.0, 0.1)}
    theta = np.array([1.2, 0.3, 0.05, -0.02])
    check_gradient(prior_log_density, (theta, priors), 0, jit=False)


def student_log_likelihood(x, d):
    return np.sum(d.logpdf(x))


def test_the_gradient_wrt_a_frozen_distribution_is_by_its_parameters():
    x = np.array([0.3, -1.2, 2.5])
    value, grad = s2sad.value_and_grad(student_log_likelihood, wrt=1, jit=False)(
        x, t(3.0, loc=0.5, scale=2.0))
    assert sorted(grad) == ["df", "loc", "scale"]
    for k, name in enumerate(("df", "loc", "scale")):
        params = [3.0, 0.5, 2.0]

        def along(v, k=k):
            return np.sum(t.logpdf(x, *params[:k], v, *params[k + 1:]))

        assert_close(grad[name], finite_difference(along, (params[k],), 0), what=name)


class Layer:
    def __init__(self, W):
        self.W = W

    def forward(self, h):
        return np.tanh(self.W @ h)


class Network:
    def __init__(self, shapes):
        self.layers = [Layer(RNG.normal(size=s)) for s in shapes]

    def loss(self, x):
        h = x
        for layer in self.layers:
            h = layer.forward(h)
        return np.sum(h ** 2) + self.layers[0].forward(x)[0]


def test_methods_of_objects_in_a_list():
    net = Network([(4, 3), (2, 4)])
    x = RNG.normal(size=3)
    check_gradient(net.loss, (x,), 0, jit=False)


class Weibull:
    def __init__(self):
        self.d = stats.weibull_min(1.5)

    def __call__(self, x):
        return np.sum(self.d.logpdf(x))


def test_a_frozen_distribution_without_a_rule_is_an_error_naming_it():
    with pytest.raises(s2sad.UnsupportedError) as error:
        s2sad.grad(Weibull(), jit=False)(np.ones(3))
    text = str(error.value)
    assert "scipy.stats.weibull_min.logpdf has no rule in s2sad" in text
    assert "self.d.logpdf(x)" in text


# ---- held by module-level objects and containers -------------------------------------------------

PRIORS = [norm(0.0, 1.0), t(3.0, loc=1.0)]
PAIR = (norm(0.5, 2.0), norm(-1.0, 0.5))
MODEL = Gaussian(np.array([0.0, 1.0]), np.array([[2.0, 0.3], [0.3, 1.0]]))


def module_priors(x):
    total = 0.0
    for d in PRIORS:
        total += np.sum(d.logpdf(x))
    return total + np.sum(PAIR[1].logcdf(x)) + MODEL(x) + MODEL._phi.logpdf(x)


def test_frozen_distributions_in_module_lists_and_objects():
    check_gradient(module_priors, (np.array([0.3, -0.2]),), 0, jit=False)
