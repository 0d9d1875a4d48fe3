"""Objectives that draw their noise where people draw it: from a generator in a closure (a
factory of objectives), in a global passed on to a function, and in functions the
differentiated function calls (a lambda around an objective, a sampler called in a loop).
tests/test_draw_holders.py checks each against the same objective with the noise passed in."""
import numpy as np
import numpy.random as npr


def with_noise(params, eps):
    """The objective, its noise given: what each objective below computes."""
    mean, log_std = params[:2], params[2:]
    samples = eps * np.exp(log_std) + mean
    return np.mean(np.sum(samples ** 2, axis=1)) - np.sum(log_std)


def make_objective(num_samples, seed=0):
    """A factory, as black-box variational inference code is written: the generator is a
    closure variable of the objective it returns."""
    rs = npr.RandomState(seed)

    def objective(params, t):
        eps = rs.randn(num_samples, 2)
        return with_noise(params, eps)
    return objective


def make_generator_objective(num_samples, seed=0):
    rng = np.random.default_rng(seed)

    def objective(params):
        return with_noise(params, rng.standard_normal((num_samples, 2)))
    return objective


SHARED = npr.RandomState(3)


def sample_noise(num_samples, rs):
    return rs.randn(num_samples, 2)


def global_passed_on(params):
    return with_noise(params, sample_noise(5, SHARED))


def make_sampler(scale):
    def sampled_loss(params, rs):     # a closure: called, not inlined; it draws
        eps = scale * rs.randn(3, 2)
        return with_noise(params, eps)
    return sampled_loss


SAMPLED_LOSS = make_sampler(1.0)


def draws_in_a_loop(params, rs):
    total = 0.0
    for k in range(3):
        total = total + (k + 1.0) * SAMPLED_LOSS(params * (1.0 + 0.1 * k), rs)
    return total


def sample_diag_gaussian(mean, log_std, rs):
    return rs.randn(*mean.shape) * np.exp(log_std) + mean


def vae_like_bound(params, rs):
    mean, log_std = params[:2].reshape(1, 2), params[2:].reshape(1, 2)
    latents = sample_diag_gaussian(mean, log_std, rs)
    return np.sum(latents ** 2) - np.sum(log_std)
