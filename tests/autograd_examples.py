"""s2sad on HIPS autograd's examples, ported as a user ports them: by changing imports only
(`autograd.numpy` -> `numpy`, `autograd.scipy.stats` -> `scipy.stats`, ...), differentiated by
s2sad and compared with autograd's gradient of the original code at the same point and seed.

    make autograd AUTOGRAD=/path/to/autograd [ARGS="--jit"]
    python tests/autograd_examples.py --autograd PATH [--jit] [NAME ...]

The examples are read from a checkout of github.com/HIPS/autograd (nothing of them is kept
here): their imports are rewritten into a temporary directory. Each example's objective is set
up below as its own `__main__` block sets it up, at small sizes. Runs in .venv-bench, where
autograd is installed (`make bench` makes it); each reference runs in a process of its own
(the originals import each other by module name, as the ports do).

Not set up: plotting-only examples, and two whose objectives are built on autograd's own
extension tools: fixed_points.py (autograd.misc.fixed_point, a primitive with a hand-written
adjoint) and rkhs.py (a vector space of functions defined through autograd.extend). Ported
with more than imports: convnet.py's `autograd.scipy.signal.convolve` takes axes SciPy's does
not, so the port gets one written in NumPy as a user writes it (SIGNAL_PORT); neural_net.py's
`autograd.misc.flatten` becomes `s2sad.flatten`. ode_net.py's odeint is scipy's in the port,
and its gradient is compared with autograd's to the solvers' tolerance (ODE_TOLERANCE). With
--jit, a gradient that falls back to Python (JitFallbackWarning) is reported so, not passed.
"""
import argparse
import importlib
import os
import pickle
import re
import subprocess
import sys
import tempfile
import warnings

import numpy

IMPORTS = [   # (pattern, replacement): the import lines a user changes
    (r"import autograd\.numpy as np.*", "import numpy as np"),
    (r"import autograd\.numpy\.random as npr", "import numpy.random as npr"),
    (r"import autograd\.scipy\.stats\.multivariate_normal as mvn",
     "from scipy.stats import multivariate_normal as mvn"),
    (r"import autograd\.scipy\.stats\.norm as norm", "from scipy.stats import norm"),
    (r"from autograd import grad, hessian_vector_product", "from s2sad import grad"),
    (r"from autograd import (grad|value_and_grad)\b", r"from s2sad import \1"),
    (r"from autograd\.misc\.optimizers import adam", "adam = None"),
    (r"from autograd\.misc\.flatten import flatten\b", "from s2sad import flatten"),
    (r"from autograd\.scipy\.integrate import odeint", "from scipy.integrate import odeint"),
    (r"from autograd\.builtins import tuple", ""),   # (Python's own tuple)
    (r"import matplotlib\.pyplot as plt", "plt = None"),
    (r"import autograd\.scipy\.signal", "import signal_port"),   # (see SIGNAL_PORT)
    (r"autograd\.scipy\.signal\.convolve", "signal_port.convolve"),
    (r"autograd\.numpy\.", "numpy."), (r"autograd\.scipy\.", "scipy."),
]

# autograd.scipy.signal.convolve (convnet.py) takes `axes` and `dot_axes`, which SciPy's does not:
# the port gets it as a user writes it, for the 4-D arguments the example passes (a valid
# convolution over the image axes, contracting input channels).
SIGNAL_PORT = '''import numpy as np


def convolve(A, B, axes=None, dot_axes=None, mode="valid"):
    """A [data, color_in, y, x] convolved with B [color_in, color_out, ky, kx] over y and x,
    summed over color_in: [data, color_out, y - ky + 1, x - kx + 1]."""
    ky, kx = B.shape[2], B.shape[3]
    oy, ox = A.shape[2] - ky + 1, A.shape[3] - kx + 1
    out = np.zeros((A.shape[0], B.shape[1], oy, ox))
    for i in range(ky):
        for j in range(kx):
            window = A[:, :, i:i + oy, j:j + ox]
            out = out + np.einsum("ncyx,cd->ndyx", window, B[:, :, ky - 1 - i, kx - 1 - j])
    return out
'''



def port(source, target):
    for name in os.listdir(source):
        if name.endswith(".py"):
            with open(os.path.join(source, name)) as stream:
                text = stream.read()
            for pattern, replacement in IMPORTS:
                text = re.sub(pattern, replacement, text)
            with open(os.path.join(target, name), "w") as stream:
                stream.write(text)
    with open(os.path.join(target, "signal_port.py"), "w") as stream:
        stream.write(SIGNAL_PORT)


# ---- each example's objective, set up as its __main__ block does (small sizes) ------------------

CASES = {}


def case(func):
    CASES[func.__name__] = func
    return func


def _rs(seed=0):
    return numpy.random.RandomState(seed)


@case
def gaussian_process(m):
    num_params, _, lml = m.make_gp_funs(m.rbf_covariance, num_cov_params=2)
    X, y = m.build_toy_dataset(D=1, n_data=12)
    return (lambda p: -lml(p, X, y)), (0.1 * _rs().randn(num_params),)


@case
def black_box_svi(m):
    from scipy.stats import norm
    if not m.__name__.startswith("ported"):
        from autograd.scipy.stats import norm

    def log_density(x, t):
        mu, log_sigma = x[:, 0], x[:, 1]
        return norm.logpdf(log_sigma, 0, 1.35) + norm.logpdf(mu, 0, m.np.exp(log_sigma))
    objective, _, _ = m.black_box_variational_inference(log_density, 2, num_samples=20)
    return (lambda p: -objective(p, 0)), (numpy.array([-1.0, -1.0, -5.0, -5.0]),)


@case
def negative_binomial_maxlike(m):
    x = numpy.array([3.0, 5.0, 2.0, 8.0, 4.0])
    return (lambda r, p: m.np.sum(m.negbin_loglike(r, p, x))), (2.0, 0.4)


@case
def ica(m):
    _, _, logprob, _ = m.make_ica_funs(3, 2)
    latents, observed = _rs().randn(2, 5), _rs(1).randn(5, 3)
    return (lambda w: logprob(w, latents, 0.3, observed)), (_rs(2).randn(3, 2),)


@case
def rnn(m):
    params = m.create_rnn_params(input_size=4, state_size=3, output_size=4, rs=_rs())
    inputs = numpy.eye(4)[_rs().randint(0, 4, size=(5, 2))]
    return (lambda p: -m.rnn_log_likelihood(p, inputs, inputs)), (params,)


@case
def lstm(m):
    params = m.init_lstm_params(input_size=4, state_size=3, output_size=4, rs=_rs())
    inputs = numpy.eye(4)[_rs().randint(0, 4, size=(5, 2))]
    return (lambda p: -m.lstm_log_likelihood(p, inputs, inputs)), (params,)


@case
def gmm(m):
    params = m.init_gmm_params(num_components=3, D=2, scale=0.1, rs=_rs())
    data = _rs().randn(10, 2)
    return (lambda p: -m.gmm_log_likelihood(p, data)), (params,)


@case
def variational_autoencoder(m):
    gen = m.init_net_params(0.1, [2, 5, 4], rs=_rs())
    rec = m.init_net_params(0.1, [4, 5, 4], rs=_rs(1))
    data = (_rs().rand(3, 4) > 0.5).astype(float)
    rs = _rs(1)   # made once, outside the objective, as the example's __main__ makes it
    return (lambda g, r: m.vae_lower_bound(g, r, data, rs)), (gen, rec)


@case
def bayesian_neural_net(m):
    num_weights, _, logprob = m.make_nn_funs(layer_sizes=[1, 4, 1], L2_reg=0.1,
                                             noise_variance=0.01)
    inputs, targets = m.build_toy_dataset(n_data=8)
    return (lambda w: m.np.sum(logprob(w, inputs, targets))), (0.1 * _rs().randn(1, num_weights),)


@case
def deep_gaussian_process(m):
    X, y = m.build_step_function_dataset(D=1, n_data=8)
    m.n_data, m.X, m.y = 8, X, y      # the globals its __main__ block defines
    num_params, lml = m.build_deep_gp(1, 1, m.rbf_covariance)[:2]
    return (lambda p: -lml(p)), (0.1 * _rs().randn(num_params),)


@case
def mixture_variational_inference(m):
    def logprob(x, t):
        return -0.5 * m.np.sum(x ** 2, axis=1)
    init_var_params, elbo, *_ = m.build_mog_bbsvi(logprob, num_samples=5, k=2)
    return elbo, (init_var_params(2, rs=_rs()), 0)


@case
def generative_adversarial_net(m):
    gen = m.init_random_params(0.1, [2, 4, 3], rs=_rs())
    dsc = m.init_random_params(0.1, [3, 4, 1], rs=_rs(1))
    real = _rs().randn(4, 3)
    rs = _rs(1)
    return (lambda g, d: m.gan_objective(g, d, real, 4, 2, rs)), (gen, dsc)


@case
def neural_net_regression(m):
    params = m.init_random_params(0.1, [1, 4, 4, 1], rs=_rs())
    inputs, targets = m.build_toy_dataset(n_data=10)
    return (lambda w: -m.logprob(w, inputs, targets)), (params,)


@case
def neural_net(m):
    """Its L2 prior flattens the list of (W, b) layers (autograd.misc.flatten; s2sad.flatten in
    the port)."""
    params = m.init_random_params(0.1, [6, 5, 3], rs=_rs())
    inputs, targets = _rs(1).randn(4, 6), numpy.eye(3)[_rs(2).randint(0, 3, 4)]
    return (lambda p: -m.log_posterior(p, inputs, targets, 1.0)), (params,)


@case
def convnet(m):
    """LeNet's layers at a small size: a convolution, max pooling, tanh and softmax layers,
    their weights read from one vector by a parser keyed by the layer objects."""
    layers = [m.conv_layer((3, 3), 2), m.maxpool_layer((2, 2)), m.tanh_layer(5),
              m.softmax_layer(3)]
    num_weights, _, loss, _ = m.make_nn_funs((1, 8, 8), layers, L2_reg=1.0)
    inputs, targets = _rs(1).randn(4, 1, 8, 8), numpy.eye(3)[_rs(2).randint(0, 3, 4)]
    return (lambda w: loss(w, inputs, targets)), (0.1 * _rs().randn(num_weights),)


@case
def rosenbrock(m):
    return m.rosenbrock, (numpy.array([0.3, 0.7]),)


@case
def negative_binomial_newton(m):
    """What fit_maxlike gives scipy.optimize.newton as fprime: the derivative of `rprime`, a
    lambda calling grad of a lambda over the data (m.grad: autograd's, or s2sad's in the port)."""
    x = numpy.array([3.0, 5.0, 2.0, 8.0, 4.0, 9.0, 1.0])
    loglike = lambda r, p: m.np.sum(m.negbin_loglike(r, p, x))  # noqa: E731
    p = lambda r: m.np.sum(x) / m.np.sum(r + x)                   # noqa: E731
    return (lambda r: m.grad(loglike)(r, p(r))), (2.0,)


@case
def ode_net(m):
    """The neural ODE's loss through odeint (rtol=0.01). autograd solves the adjoint ODE with
    LSODA; s2sad differentiates its own Dormand-Prince solver step by step: the two agree to
    the solvers' tolerance (ODE_TOLERANCE), not to rounding."""
    t = numpy.linspace(0.0, m.max_T, m.N)
    start = numpy.array([2.0, 0.0])
    truth = m.odeint(m.func, start, t, (numpy.array([[-0.1, 2.0], [-2.0, -0.1]]),))
    params = m.init_nn_params(0.1, layer_sizes=[m.D, 20, m.D], rs=_rs())
    return (lambda p: m.L1_loss(m.ode_pred(p, start, t), truth)), (params,)


MODULE = {"negative_binomial_newton": "negative_binomial_maxlike"}  # case -> its example
ODE_TOLERANCE = 1e-3   # relative to the gradient's largest entry (docs/rules.md, ODE solvers)
TOLERANCE = {"ode_net": ODE_TOLERANCE}


# ---- running -----------------------------------------------------------------------------------

def _flat(tree):
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in _flat(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in _flat(t)]
    return [numpy.asarray(tree, float).ravel()]


def _wrt(args):
    return tuple(i for i, a in enumerate(args) if not isinstance(a, int))


def _load(directory, package, name):
    """The example module a case sets up (the case's name, unless MODULE says another)."""
    sys.path[:0] = [os.path.dirname(directory), directory]
    return importlib.import_module(f"{package}.{MODULE.get(name, name)}")


def reference(directory, name, output):
    """autograd's gradient of the original example (run in a process of its own)."""
    import autograd
    func, args = CASES[name](_load(directory, "examples", name))
    grads = autograd.grad(func, _wrt(args))(*args)
    with open(output, "wb") as stream:
        pickle.dump(numpy.concatenate(_flat(list(grads))), stream)


def run(name, scratch, jit):
    import s2sad
    output = os.path.join(scratch, f"{name}.pkl")
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--reference", scratch,
                           name], capture_output=True, text=True)
    if done.returncode:
        return "reference failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:150]
    with open(output, "rb") as stream:
        expected = pickle.load(stream)
    try:
        func, args = CASES[name](_load(os.path.join(scratch, "ported"), "ported", name))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", s2sad.JitFallbackWarning)
            got = s2sad.grad(func, wrt=_wrt(args), jit=jit)(*args)
    except Exception as exc:  # noqa: BLE001 -- reported with its first line
        return f"FAIL {type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"
    fallback = [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]
    if fallback:
        return "FELL BACK to Python: " + " ".join(str(fallback[0].message).split())[:300]
    got = numpy.concatenate(_flat(list(got if isinstance(got, tuple) else (got,))))
    tolerance = TOLERANCE.get(name)
    rtol, atol = (1e-7, 1e-9) if tolerance is None else \
        (tolerance, tolerance * numpy.max(numpy.abs(expected)))
    if got.shape != expected.shape or not numpy.allclose(got, expected, rtol=rtol, atol=atol):
        return "WRONG: s2sad and autograd disagree"
    return "pass"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--autograd", help="a checkout of github.com/HIPS/autograd")
    parser.add_argument("--jit", action="store_true", help="compile the gradients (jit=True)")
    parser.add_argument("--reference", nargs=2, metavar=("SCRATCH", "NAME"),
                        help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="only these examples")
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    if options.reference:
        scratch, name = options.reference
        return reference(os.path.join(scratch, "examples"), name,
                         os.path.join(scratch, f"{name}.pkl"))
    if not options.autograd:
        parser.error("--autograd PATH is required")
    scratch = tempfile.mkdtemp(prefix="s2sad-autograd-")
    for package in ("examples", "ported"):
        os.makedirs(os.path.join(scratch, package))
        open(os.path.join(scratch, package, "__init__.py"), "w").close()
    source = os.path.join(options.autograd, "examples")
    port(source, os.path.join(scratch, "ported"))
    for name in os.listdir(source):
        if name.endswith(".py"):
            with open(os.path.join(source, name)) as stream:
                text = stream.read()
            with open(os.path.join(scratch, "examples", name), "w") as stream:
                stream.write(text)
    names = options.names or list(CASES)
    results = {name: run(name, scratch, options.jit) for name in names}
    for name, result in results.items():
        print(f"{name}: {result}")
    passed = sum(r == "pass" for r in results.values())
    print(f"\n{passed} of {len(results)} pass (jit={options.jit})")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
