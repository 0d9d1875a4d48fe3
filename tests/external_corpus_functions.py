"""The external corpus (issue 35): objective functions written by other people, taken from
packages installed from PyPI into .venv-corpus (tests/external_corpus.py sets it up and runs
them; `make corpus`). Nothing here copies a package's code: an entry names the package's own
function, method or callable object, or a two-line wrapper below that calls it (the wrapper is
ours, the function body is theirs).

An entry is `Entry(name, package, target, dim, low, high)`:
- `target` is Python text evaluated in this module: what a user passes to `s2sad.grad`, e.g.
  "scipy.optimize.rosen", "cma.ff.rosen" (a bound method), "BF_ACKLEY" (a callable object), or
  "pymoo_zdt1" (a wrapper defined here because the package's call does not return a number);
- `dim` is the length of the input vector, `low`/`high` the box it is sampled from (numbers, or
  one value per coordinate).
A wrapper's objects (problems, models) are made by `load()`, once per process, so that a package
that failed to install only takes its own entries down.
"""
# ruff: noqa: F821  (the objects and modules the wrappers name are made by load())
import dataclasses
import importlib

import numpy as np

PACKAGES = {            # distribution name -> import name
    "scipy": "scipy",
    "cma": "cma",
    "pymoo": "pymoo",
    "opfunu": "opfunu",
    "benchmark-functions": "benchmark_functions",
    "pints": "pints",
}


@dataclasses.dataclass
class Entry:
    name: str
    package: str        # a key of PACKAGES
    target: str         # evaluated in this module after load()
    dim: int
    low: object
    high: object

    def function(self):
        return eval(self.target, globals())

    def box(self):
        return (np.broadcast_to(np.asarray(self.low, float), (self.dim,)),
                np.broadcast_to(np.asarray(self.high, float), (self.dim,)))


MISSING = {}            # package -> why it cannot be imported
MADE = {}               # name of an object the entries use -> the Python text that made it


def make(name, text):
    """OBJECT = text, evaluated here (after the package's import), remembered for the report."""
    globals()[name] = eval(text, globals())
    MADE[name] = text


def load():
    """Import every package and make the objects the wrappers call; fills MISSING."""
    for package, module in PACKAGES.items():
        try:
            importlib.import_module(module)
        except Exception as error:      # noqa: BLE001 (any import failure skips the package)
            MISSING[package] = f"{type(error).__name__}: {error}"
            continue
        try:
            MAKERS[package]()
        except Exception as error:      # noqa: BLE001
            MISSING[package] = f"setting up its objects failed: {type(error).__name__}: {error}"


# ---- scipy ------------------------------------------------------------------------------------

def _scipy():
    import scipy.optimize
    import scipy.spatial.distance
    import scipy.special
    import scipy.stats
    globals().update(scipy=scipy)
    make("SCIPY_MVN", "scipy.stats.multivariate_normal(mean=[0.5, -0.25, 1.0], "
                      "cov=[[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 1.5]])")


def scipy_log_softmax(x):
    return scipy.special.log_softmax(x)[0]


def scipy_norm_logpdf(x):
    return np.sum(scipy.stats.norm.logpdf(x, loc=0.5, scale=2.0))


def scipy_mvn_logpdf(x):
    return SCIPY_MVN.logpdf(x)


def scipy_euclidean(x):
    return scipy.spatial.distance.euclidean(x, np.array([1.0, 2.0, 3.0, 4.0]))


SCIPY = [
    Entry("scipy.optimize.rosen", "scipy", "scipy.optimize.rosen", 5, -2.0, 2.0),
    Entry("scipy.special.logsumexp", "scipy", "scipy.special.logsumexp", 5, -3.0, 3.0),
    Entry("scipy.special.log_softmax", "scipy", "scipy_log_softmax", 5, -3.0, 3.0),
    Entry("scipy.stats.norm.logpdf", "scipy", "scipy_norm_logpdf", 4, -3.0, 3.0),
    Entry("scipy.stats.multivariate_normal.logpdf", "scipy", "scipy_mvn_logpdf", 3, -2.0, 2.0),
    Entry("scipy.spatial.distance.euclidean", "scipy", "scipy_euclidean", 4, -2.0, 2.0),
]


# ---- cma: the module's two functions and the methods of cma.ff ---------------------------------

def _cma():
    import cma
    import cma.fitness_functions
    globals().update(cma=cma)


CMA = [
    Entry("cma.fitness_functions.elli", "cma", "cma.fitness_functions.elli", 5, -1.0, 1.0),
    Entry("cma.fitness_functions.sphere", "cma", "cma.fitness_functions.sphere", 5, -2.0, 2.0),
] + [
    Entry(f"cma.ff.{method}", "cma", f"cma.ff.{method}", dim, low, high)
    for method, dim, low, high in [
        ("sphere", 5, -2.0, 2.0), ("elli", 5, -1.0, 1.0), ("rosen", 5, -2.0, 2.0),
        ("cigar", 5, -1.0, 1.0), ("tablet", 5, -1.0, 1.0), ("cigtab", 5, -1.0, 1.0),
        ("twoaxes", 6, -1.0, 1.0), ("hyperelli", 5, -2.0, 2.0), ("halfelli", 6, -1.0, 1.0),
        ("diffpow", 5, 0.1, 1.0), ("rastrigin", 5, -5.0, 5.0), ("griewank", 5, -5.0, 5.0),
        ("levy", 5, -5.0, 5.0), ("styblinski_tang", 5, -5.0, 5.0), ("trid", 5, -5.0, 5.0),
        ("schaffer", 5, 0.5, 5.0), ("branin", 2, 0.0, 10.0), ("goldsteinprice", 2, -2.0, 2.0),
        ("dixonprice", 5, -2.0, 2.0), ("bohachevsky", 5, -5.0, 5.0),
        ("rosen_chained", 5, -2.0, 2.0), ("rosen_nesterov", 5, -2.0, 2.0),
        ("schwefelelli", 5, -2.0, 2.0),
        ("happycat", 5, 0.5, 2.0),
    ]
]


# ---- pymoo: problems, whose evaluate() returns the objectives as an array -------------------

def _pymoo():
    import pymoo.problems
    globals().update(pymoo=pymoo)
    for name, n_var in PYMOO_PROBLEMS:
        options = "" if name in PYMOO_FIXED else f", n_var={n_var}"
        make("PYMOO_" + name.upper(), f"pymoo.problems.get_problem({name!r}{options})")


PYMOO_PROBLEMS = [("ackley", 4), ("griewank", 4), ("rastrigin", 4), ("rosenbrock", 4),
                  ("sphere", 4), ("zakharov", 4), ("himmelblau", 2),
                  ("zdt1", 6), ("zdt2", 6), ("zdt3", 6), ("zdt4", 6), ("zdt6", 6),
                  ("dtlz1", 7), ("dtlz2", 7), ("dtlz7", 7), ("kursawe", 3)]
PYMOO_FIXED = {"kursawe"}       # get_problem takes no n_var


def pymoo_ackley(x):
    return PYMOO_ACKLEY.evaluate(x)[0]


def pymoo_griewank(x):
    return PYMOO_GRIEWANK.evaluate(x)[0]


def pymoo_rastrigin(x):
    return PYMOO_RASTRIGIN.evaluate(x)[0]


def pymoo_rosenbrock(x):
    return PYMOO_ROSENBROCK.evaluate(x)[0]


def pymoo_sphere(x):
    return PYMOO_SPHERE.evaluate(x)[0]


def pymoo_zakharov(x):
    return PYMOO_ZAKHAROV.evaluate(x)[0]


def pymoo_himmelblau(x):
    return PYMOO_HIMMELBLAU.evaluate(x)[0]


def pymoo_zdt1(x):
    return np.sum(PYMOO_ZDT1.evaluate(x))       # the objectives summed (a weighted sum)


def pymoo_zdt2(x):
    return np.sum(PYMOO_ZDT2.evaluate(x))


def pymoo_zdt3(x):
    return np.sum(PYMOO_ZDT3.evaluate(x))


def pymoo_zdt4(x):
    return np.sum(PYMOO_ZDT4.evaluate(x))


def pymoo_zdt6(x):
    return np.sum(PYMOO_ZDT6.evaluate(x))


def pymoo_dtlz1(x):
    return np.sum(PYMOO_DTLZ1.evaluate(x))


def pymoo_dtlz2(x):
    return np.sum(PYMOO_DTLZ2.evaluate(x))


def pymoo_dtlz7(x):
    return np.sum(PYMOO_DTLZ7.evaluate(x))


def pymoo_kursawe(x):
    return np.sum(PYMOO_KURSAWE.evaluate(x))


_PYMOO_BOX = {"ackley": (-5.0, 5.0), "griewank": (-50.0, 50.0), "rastrigin": (-5.0, 5.0),
              "rosenbrock": (-2.0, 2.0), "sphere": (0.0, 1.0), "zakharov": (-2.0, 2.0),
              "himmelblau": (-5.0, 5.0), "zdt4": ([0.05] + [-4.0] * 5, [0.95] + [4.0] * 5),
              "kursawe": (-4.0, 4.0)}
PYMOO = [Entry(f"pymoo {name}", "pymoo", f"pymoo_{name}", n_var,
               *_PYMOO_BOX.get(name, (0.05, 0.95)))
         for name, n_var in PYMOO_PROBLEMS]


# ---- opfunu: name-based benchmarks, each an object whose evaluate(x) returns the value -------

def _opfunu():
    import opfunu.name_based
    globals().update(opfunu=opfunu)
    for cls, dim, _, _ in OPFUNU_PROBLEMS:
        make("OPFUNU_" + cls.upper(), f"opfunu.name_based.{cls}(ndim={dim})")


OPFUNU_PROBLEMS = [
    ("Ackley01", 4, -5.0, 5.0), ("Adjiman", 2, -1.0, 2.0), ("Alpine02", 4, 0.5, 10.0),
    ("Beale", 2, -4.0, 4.0), ("Booth", 2, -10.0, 10.0), ("Branin01", 2, 0.0, 10.0),
    ("CamelThreeHump", 2, -3.0, 3.0), ("CamelSixHump", 2, -3.0, 3.0), ("Colville", 4, -2.0, 2.0),
    ("DixonPrice", 4, -3.0, 3.0), ("Easom", 2, 1.0, 5.0), ("GoldsteinPrice", 2, -2.0, 2.0),
    ("Griewank", 4, -50.0, 50.0), ("Matyas", 2, -10.0, 10.0), ("McCormick", 2, -1.5, 4.0),
    ("Michalewicz", 2, 0.1, 3.0), ("Qing", 4, -3.0, 3.0), ("Zacharov", 4, -3.0, 3.0),
    ("Zettl", 2, -3.0, 3.0), ("Himmelblau", 2, -5.0, 5.0),
]
OPFUNU = [Entry(f"opfunu {cls}", "opfunu", f"OPFUNU_{cls.upper()}.evaluate", dim, low, high)
          for cls, dim, low, high in OPFUNU_PROBLEMS]


# ---- benchmark-functions: callable objects, f(point) -----------------------------------------

def _benchmark_functions():
    import benchmark_functions
    globals().update(benchmark_functions=benchmark_functions)
    for cls, dim, _, _ in BF_PROBLEMS:
        options = "" if cls in BF_FIXED else f"n_dimensions={dim}"
        make("BF_" + cls.upper(), f"benchmark_functions.{cls}({options})")


BF_PROBLEMS = [
    ("Hypersphere", 4, -3.0, 3.0), ("Hyperellipsoid", 4, -3.0, 3.0),
    ("Rosenbrock", 4, -2.0, 2.0), ("Rastrigin", 4, -5.0, 5.0), ("Griewank", 4, -50.0, 50.0),
    ("Ackley", 4, -5.0, 5.0), ("Michalewicz", 2, 0.1, 3.0), ("EggHolder", 2, -400.0, 400.0),
    ("Easom", 2, 1.0, 5.0), ("GoldsteinAndPrice", 2, -2.0, 2.0),
    ("StyblinskiTang", 4, -5.0, 5.0), ("McCormick", 2, -1.5, 4.0),
    ("MartinGaddy", 2, 0.0, 10.0), ("Himmelblau", 2, -5.0, 5.0),
]
BF_FIXED = {"Easom", "GoldsteinAndPrice", "McCormick", "MartinGaddy", "Himmelblau"}  # 2-D only
BF = [Entry(f"benchmark_functions.{cls}", "benchmark-functions", f"BF_{cls.upper()}", dim,
            low, high)
      for cls, dim, low, high in BF_PROBLEMS]


# ---- pints: toy log-densities (callable objects) and toy forward models ----------------------

def _pints():
    import pints.toy
    globals().update(pints=pints)
    for cls, _, _, _ in PINTS_LOGPDFS:
        make("PINTS_" + cls.upper(), f"pints.toy.{cls}()")
    for cls in ("LogisticModel", "SimpleHarmonicOscillatorModel", "LotkaVolterraModel",
                "FitzhughNagumoModel", "SIRModel", "HodgkinHuxleyIKModel",
                "GoodwinOscillatorModel"):
        make("PINTS_" + cls.upper(), f"pints.toy.{cls}()")
    make("PINTS_CONSTANTMODEL", "pints.toy.ConstantModel(3)")
    make("PINTS_TIMES", "np.linspace(0.0, 10.0, 11)")


PINTS_LOGPDFS = [
    ("RosenbrockLogPDF", 2, -1.0, 3.0), ("GaussianLogPDF", 2, -3.0, 3.0),
    ("TwistedGaussianLogPDF", 10, -3.0, 3.0), ("HighDimensionalGaussianLogPDF", 20, -2.0, 2.0),
    ("NealsFunnelLogPDF", 10, -2.0, 2.0), ("AnnulusLogPDF", 2, 5.0, 12.0),
    ("ConeLogPDF", 2, 0.5, 3.0), ("SimpleEggBoxLogPDF", 2, -5.0, 5.0),
    ("MultimodalGaussianLogPDF", 2, -1.0, 6.0), ("ParabolicError", 2, -3.0, 3.0),
    ("RosenbrockError", 2, -1.0, 3.0),
]


def pints_logistic(p):
    return np.sum(PINTS_LOGISTICMODEL.simulate(p, PINTS_TIMES))


def pints_harmonic_oscillator(p):
    return np.sum(PINTS_SIMPLEHARMONICOSCILLATORMODEL.simulate(p, PINTS_TIMES))


def pints_constant(p):
    return np.sum(PINTS_CONSTANTMODEL.simulate(p, PINTS_TIMES))


def pints_lotka_volterra(p):
    return np.sum(PINTS_LOTKAVOLTERRAMODEL.simulate(p, PINTS_TIMES))


def pints_fitzhugh_nagumo(p):
    return np.sum(PINTS_FITZHUGHNAGUMOMODEL.simulate(p, PINTS_TIMES))


def pints_sir(p):
    return np.sum(PINTS_SIRMODEL.simulate(p, PINTS_TIMES))


def pints_hodgkin_huxley_ik(p):
    return np.sum(PINTS_HODGKINHUXLEYIKMODEL.simulate(p, PINTS_TIMES))


def pints_goodwin_oscillator(p):
    return np.sum(PINTS_GOODWINOSCILLATORMODEL.simulate(p, PINTS_TIMES))


PINTS = [Entry(f"pints.toy.{cls}", "pints", f"PINTS_{cls.upper()}", dim, low, high)
         for cls, dim, low, high in PINTS_LOGPDFS] + [
    Entry("pints.toy.LogisticModel", "pints", "pints_logistic", 2, [0.1, 50.0], [1.0, 200.0]),
    Entry("pints.toy.SimpleHarmonicOscillatorModel", "pints", "pints_harmonic_oscillator", 3,
          [0.5, -0.5, 0.05], [1.5, 0.5, 0.3]),
    Entry("pints.toy.ConstantModel", "pints", "pints_constant", 3, -2.0, 2.0),
    Entry("pints.toy.LotkaVolterraModel", "pints", "pints_lotka_volterra", 4,
          [0.4, 0.1, 0.8, 0.2], [0.6, 0.2, 1.2, 0.4]),
    Entry("pints.toy.FitzhughNagumoModel", "pints", "pints_fitzhugh_nagumo", 3,
          [0.05, 0.3, 2.0], [0.2, 0.7, 4.0]),
    Entry("pints.toy.SIRModel", "pints", "pints_sir", 3, [0.02, 0.2, 30.0], [0.04, 0.4, 45.0]),
    Entry("pints.toy.HodgkinHuxleyIKModel", "pints", "pints_hodgkin_huxley_ik", 5,
          [0.008, 8.0, 8.0, 0.1, 60.0], [0.012, 12.0, 12.0, 0.15, 100.0]),
    Entry("pints.toy.GoodwinOscillatorModel", "pints", "pints_goodwin_oscillator", 5,
          [1.5, 3.0, 0.1, 0.06, 0.08], [2.5, 5.0, 0.14, 0.1, 0.12]),
]


MAKERS = {"scipy": _scipy, "cma": _cma, "pymoo": _pymoo, "opfunu": _opfunu,
          "benchmark-functions": _benchmark_functions, "pints": _pints}
ENTRIES = SCIPY + CMA + PYMOO + OPFUNU + BF + PINTS
