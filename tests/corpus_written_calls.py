"""Code as libraries write it around the numbers (issue 35): `**kwargs` passed along, `try`
around conversions, options and callbacks tested against None, dicts filled by helpers and
returned by them, results whose shape a flag chooses, comprehensions over lists of names.
Each case: (function, make_args(rng), wrt)."""
from typing import Any, Optional

import numpy as np

CASES = []


# ---- **kwargs: parameters, and ** in calls ---------------------------------------------------

def _model(x, *, scale=1.0, **options):
    y = scale * np.sum(np.sin(x) ** 2)
    if "shift" in options:
        y = y + options["shift"] * np.sum(x)
    return y + options.get("offset", 0.0)


def kwargs_collected(x):
    return _model(x, scale=2.0, shift=0.5) + _model(x)


def _forward(x, *args, **kwargs):
    return _model(x, *args, **kwargs)


def kwargs_passed_along(x):
    return _forward(x, scale=3.0, offset=1.5)


def kwargs_from_a_dict(x, w):
    options = {"scale": w, "shift": 2.0}
    return _forward(x, **options)


CASES += [
    (kwargs_collected, lambda rng: (rng.normal(size=4),), 0),
    (kwargs_passed_along, lambda rng: (rng.normal(size=4),), 0),
    (kwargs_from_a_dict, lambda rng: (rng.normal(size=3), rng.uniform(0.5, 2.0)), (0, 1)),
]


# ---- try ------------------------------------------------------------------------------------

def try_a_conversion(x):
    try:
        y = x.astype(np.float64)
    except (TypeError, ValueError):
        y = x
    return np.sum(y ** 3)


def try_with_a_handler_that_raises(a, b):
    try:
        r = np.linalg.solve(a, b)
    except np.linalg.LinAlgError as error:
        raise ValueError(f"the system is singular: {error}") from error
    return np.sum(r ** 2)


def try_finally(x):
    total = 0.0
    try:
        total = total + np.sum(np.exp(-x ** 2))
    finally:
        total = total * 2.0
    return total


CASES += [
    (try_a_conversion, lambda rng: (rng.normal(size=4),), 0),
    (try_with_a_handler_that_raises,
     lambda rng: (rng.normal(size=(3, 3)) + 4.0 * np.eye(3), rng.normal(size=3)), (0, 1)),
    (try_finally, lambda rng: (rng.normal(size=3),), 0),
]


# ---- an objective object: options, callbacks and outputs by name -----------------------------

class Objective:
    """An objective as optimisation libraries write one: evaluate() fills a dict of outputs by
    name through the subclass's _compute, formats them, and returns what was asked for."""

    def __init__(self, n, weights=None, callback=None, clip=None):
        self.n = n
        self.n_constraints = 0
        self.weights = np.ones(n) if weights is None else weights
        self.callback = callback
        self.clip = clip

    def evaluate(self, x, *args, names=None, as_dict=False, **kwargs):
        if names is None:
            names = ["f"]
            if self.n_constraints > 0:
                names.append("g")
        assert x.shape[-1] == self.n, f"expected {self.n} variables, got {x.shape[-1]}"
        out = {name: None for name in names}
        self._compute(x, out, *args, **kwargs)
        result = {}
        for name, value in out.items():
            if value is None:
                continue
            if self.clip is not None:
                value = np.minimum(value, self.clip)
            try:
                result[name] = value.astype(np.float64)
            except AttributeError:
                result[name] = value
        if self.callback is not None:
            self.callback(x, result)
        if as_dict:
            return result
        if len(names) == 1:
            return result[names[0]]
        return tuple([result[name] for name in names])

    def _compute(self, x, out, *args, **kwargs):
        raise NotImplementedError


class WeightedSphere(Objective):
    def _compute(self, x, out, *args, **kwargs):
        out["f"] = np.sum(self.weights * x ** 2)


class Bounded(Objective):
    def __init__(self, n):
        super().__init__(n)
        self.n_constraints = 1

    def _compute(self, x, out, *args, **kwargs):
        out["f"] = np.sum(np.cos(x) * x)
        out["g"] = np.sum(x) - 1.0


SPHERE = WeightedSphere(3, weights=np.array([1.0, 2.0, 3.0]))
BOUNDED = Bounded(3)


def objective_value(x):
    return SPHERE.evaluate(x) * 2.0


def objective_outputs(x):
    f, g = BOUNDED.evaluate(x)
    return f + 10.0 * g ** 2


def objective_as_dict(x):
    out = BOUNDED.evaluate(x, as_dict=True)
    return out["f"] - out["g"]


CASES += [
    (objective_value, lambda rng: (rng.normal(size=3),), 0),
    (objective_outputs, lambda rng: (rng.normal(size=3),), 0),
    (objective_as_dict, lambda rng: (rng.normal(size=3),), 0),
]


# ---- helpers that fill a dict, return one, or return a flag with a value ----------------------

def _fill(x, out):
    out["loss"] = np.sum((x - 1.0) ** 2)
    out["penalty"] = np.sum(np.abs(x))


def dict_filled_by_a_helper(x):
    out = {}
    _fill(x, out)
    return out["loss"] + 0.1 * out["penalty"]


def _summary(x, keys=("mean", "spread")):
    stats = {}
    for key in keys:
        if key == "mean":
            stats[key] = np.mean(x)
        elif key == "spread":
            stats[key] = np.std(x)
    return stats


def dict_returned_by_a_helper(x):
    stats = _summary(x)
    return stats["mean"] ** 2 + stats["spread"]


def _as_rows(x: Any, return_flag: bool = False):
    reshaped = False
    if x.ndim == 1:
        x = x[None, :]
        reshaped = True
    if return_flag:
        return x, reshaped
    return x


def flag_returned_with_the_value(x: np.ndarray) -> float:
    rows, was_vector = _as_rows(x, return_flag=True)
    values = np.sum(rows ** 2, axis=1)
    if was_vector:
        values = values[0]
    return values * 3.0


def _norms(x, names: Optional[list] = None):
    if names is None:
        names = ["l1", "l2"]
    table = {"l1": np.sum(np.abs(x)), "l2": np.sqrt(np.sum(x ** 2)), "max": np.max(x)}
    picked = {name: table[name] for name in names}
    return tuple([picked[name] for name in names])


def comprehension_over_names(x):
    l1, l2 = _norms(x)
    return l1 + 2.0 * l2


CASES += [
    (dict_filled_by_a_helper, lambda rng: (rng.normal(size=4),), 0),
    (dict_returned_by_a_helper, lambda rng: (rng.normal(size=5),), 0),
    (flag_returned_with_the_value, lambda rng: (rng.normal(size=3),), 0),
    (comprehension_over_names, lambda rng: (rng.normal(size=4),), 0),
]


# ---- a module stand-in (an object with __getattr__), as pymoo's gradient backend ---------------

class _Backend:
    """Reads its attributes from NumPy on demand (a module replaced by an object)."""

    def __getattr__(self, name):
        return getattr(np, name)


xp = _Backend()


def backend_stand_in(x):
    return xp.sum(xp.sin(xp.pi * x) ** 2) + xp.exp(1) * xp.sum(x)


CASES += [(backend_stand_in, lambda rng: (rng.normal(size=3),), 0)]

# compiled as well as run as Python (the rest run as Python only: Numba compiles are slow)
COMPILED = {"objective_value", "try_a_conversion", "dict_filled_by_a_helper",
            "flag_returned_with_the_value", "backend_stand_in"}
