"""The Python numerical code is written in (issue 17): module constants, containers,
comprehensions, closures. Each entry of CASES: (function, argument maker(rng), wrt), checked
like the other corpora (tests/test_corpus.py): central finite differences, JIT on and off.
"""
import dataclasses
from typing import NamedTuple

import numpy as np

# ---- module constants: inputs of the generated code, read at every call ----------------------

W0 = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
BIAS = np.array([0.5, -0.25, 1.0])
STENCIL = np.array([1.0, -2.0, 1.0])
ROWS = np.array([2, 0, 1])
SCALE = 1.5


def dense(x):
    return np.tanh(W0 @ x + BIAS)


def module_matrix(x):
    return np.sum(W0 @ x) * SCALE


def module_in_callee(x):
    h = dense(x)
    return np.sum(h * h)


def module_stencil(u):
    s = 0.0
    for i in range(1, u.shape[0] - 1):
        s = s + (STENCIL[0] * u[i - 1] + STENCIL[1] * u[i] + STENCIL[2] * u[i + 1]) ** 2
    return s


def module_index_table(x):
    return np.sum(x[ROWS] * BIAS)


def module_in_loop(w, x):
    y = x
    for _ in range(3):
        y = np.sin(W0.T @ (W0 @ y) * w)
    return np.sum(y)


def table_callee(x, scale=2.0):
    y = W0 @ x
    if scale > 1.0:  # (a branch: not inlined, a call of its own generated code)
        y = y * scale
    return np.sum(np.sin(y)) + np.sum(BIAS)


def module_in_called_function(x):
    return table_callee(x) * table_callee(2.0 * x, 0.5)


LAYERS = (W0, np.linspace(0.5, -0.5, 6).reshape(2, 3))
TABLE = {"w": np.array([1.0, 2.0]), "k": 3.0}
SCALES = [1.5, 0.5]


def module_containers(x):
    h = x
    for W in LAYERS:
        h = np.tanh(W @ h)
    return np.sum(h * TABLE["w"]) * SCALES[0] + TABLE["k"] * sum(SCALES)


def last_layer(h):
    if h[0] > -5.0:  # (a branch: not inlined)
        h = np.sin(LAYERS[-1] @ h)
    return np.sum(h)


def module_container_in_callee(x):
    return last_layer(np.tanh(W0 @ x)) * 2.0


def _vec4(rng):
    return (rng.normal(size=4),)


CASES = [
    (module_matrix, _vec4, 0),
    (module_in_callee, _vec4, 0),
    (module_in_called_function, _vec4, 0),
    (module_containers, _vec4, 0),
    (module_container_in_callee, _vec4, 0),
    (module_stencil, lambda rng: (rng.normal(size=7),), 0),
    (module_index_table, lambda rng: (rng.normal(size=3),), 0),
    (module_in_loop, lambda rng: (rng.uniform(0.1, 0.5), rng.normal(size=4)), (0, 1)),
]
NOT_NUMBA = set()


# ---- comprehensions, enumerate/zip/reversed -------------------------------------------------

def listcomp_sum(x):
    return sum([xi * xi for xi in x])


def genexp_neighbours(x):
    return sum(x[i] * x[i + 1] for i in range(len(x) - 1))


def genexp_filtered_nested(x, y):
    return sum(a * b for a in x for b in y if b > 0.0) + np.sum([np.sin(v) for v in x])


def genexp_max(x):
    return max(v * v for v in x) + min(np.cos(v) for v in x)


def max_min_of_many(x):
    """Builtin max/min of three or more values (issue 48), in a loop: a clipped hinge."""
    s = 0.0
    for i in range(x.shape[0] - 1):
        s = s + max(x[i], 0.25 * x[i + 1], -0.5, x[i] * x[i + 1]) * min(x[i], 1.0, x[i + 1] + 0.5)
    return s


def _cell(w, h, c):
    c2 = np.tanh(w * h) + 0.5 * c
    return np.sin(c2) * h, c2


def unpack_into_rows(w, x):
    """Subscripts as unpacking targets (issue 50, ADBench's LSTM: `(s2[i], s2[i + 1]) =
    lstm(...)`), from a call and from a tuple display that swaps two elements."""
    state = np.ones((4, x.shape[0])) * 0.1
    out = np.zeros((4, x.shape[0]))
    inp = x
    for layer in range(2):
        (out[2 * layer], out[2 * layer + 1]) = _cell(w[layer], inp, state[2 * layer + 1])
        inp = out[2 * layer] * 1.0
    v = x * 1.0
    v[0], v[1] = v[1] * 2.0, v[0]
    return np.sum(inp * inp) + np.sum(out[3]) + v[0] * v[1]


PARENTS = np.array([-1, 0, 1, 1, 0])


def appended_in_both_branches(relatives):
    """A list grown by an append at the end of each branch (issue 50: ADBench hand tracking's
    relatives_to_absolutes), read in its loop before the append."""
    absolutes = []
    for i in range(len(PARENTS)):
        if PARENTS[i] == -1:
            absolutes.append(relatives[i])
        else:
            absolutes.append(absolutes[PARENTS[i]] @ relatives[i])
    return np.sum(np.stack(absolutes) ** 2)


def absolutes_of_products(relatives):
    """appended_in_both_branches as a callee given a stack it cannot tell the rank of (ADBench
    hand tracking: its list is None until the first append, and stays untyped)."""
    products = np.stack([relatives[i] @ relatives[-1 - i] for i in range(len(PARENTS))])
    return np.sum(_absolutes(products) ** 2)


def _absolutes(relatives):
    absolutes = []
    for i in range(len(PARENTS)):
        if PARENTS[i] == -1:
            absolutes.append(relatives[i])
        else:
            absolutes.append(absolutes[PARENTS[i]] @ relatives[i])
    return np.stack(absolutes)


def filtered_comprehension(x):
    """Rows appended on some trips only: the array has room for one per trip, cut after."""
    kept = np.array([v * np.sin(v) for v in x if v > -0.5])
    return np.sum(kept ** 2) + kept[0]


def appended_by_path(x, flags):
    """Two appends on one path, one on the other, none on a third, read back in the loop."""
    out = [x[0]]
    for i in range(1, x.shape[0]):
        if flags[i] > 0:
            out.append(np.tanh(x[i]) * out[-1])
            out.append(x[i] * 2.0)
        elif flags[i] < 0:
            out.append(out[len(out) - 1] * x[i])
    return np.sum(np.stack(out) ** 2)


def enumerate_zip(a, b):
    s = 0.0
    for i, (u, v) in enumerate(zip(a, b)):
        s = s + i * u * v
    return s


def over_reversed(x):
    s = 0.0
    for v in reversed(x):
        s = s * 0.5 + np.sin(v)
    return s


# ---- nested functions, closures, lambdas -----------------------------------------------------

def nested_helper(x):
    def h(y):
        z = y * y
        return z + x
    return np.sum(h(x) * h(2.0 * x))


def closure_lambda(x, w):
    scaled = lambda v: v * w  # noqa: E731
    return np.sum(np.tanh(scaled(x)) + scaled(1.0))


def nested_in_loop(a, n):
    def step(v, k):
        return v * np.cos(k * v)
    for k in range(n):
        a = step(a, 0.3)
    return a


# ---- tuples, lists, dicts as values ----------------------------------------------------------

def called_through_a_local_name(x):
    h = pair
    op = np.tanh
    return np.sum(op(h(x)[0]) * x)


def max_of_a_list(x):
    vals = [np.sum(x), np.sum(x * x), 0.5]
    return max(vals) + min(vals[:2]) + np.max(np.stack([x, 2.0 * x]))


def tuple_display(x, y):
    t = (x * y, x + y)
    return np.sum(t[0] * t[1])


def list_appended(x):
    hs = []
    h = x
    for _ in range(3):
        h = np.sin(h) + 0.1 * h
        hs.append(h)
    return np.sum(np.stack(hs)[-1]) + np.sum(hs[0] * hs[-2])


def list_with_constants(a):
    b = [1.0, a * a, 2.0]
    return np.sum(b) * b[1]


def dict_display(x, y):
    d = {"w": x, "b": y}
    d["out"] = d["w"] * d["b"]
    return d["out"] + dict(k=x)["k"] ** 2


def run_time_index(a, b, c, i):
    t = a, b, c
    return t[i] * t[-1]


def starred_unpack(a, b, c):
    first, *rest = [a, b * 2.0, c]
    return first * rest[0] + sum(rest)


def tuple_of_call(x):
    return np.sum(pair(x)[0]) * pair(x)[1]


def pair(x):
    return x * 2.0, np.sum(x)


def slogdet_subscript(m):
    return np.linalg.slogdet(m)[1]


def container_in_branch(x):
    t = [x, 2.0 * x]
    if x > 0.0:
        t[0] = x * x
    else:
        t[1] = -x
    return t[0] + t[1]


def early_return_elif(x):
    if x > 0:
        y = x * x
    elif x > -1:
        y = -x
    else:
        return 3.0 * x
    return y + 1.0


def _spd(rng):
    a = rng.normal(size=(3, 3))
    return (a @ a.T + 3.0 * np.eye(3),)


CASES += [
    (listcomp_sum, _vec4, 0),
    (genexp_neighbours, _vec4, 0),
    (genexp_filtered_nested, lambda rng: (rng.normal(size=3), rng.normal(size=4)), (0, 1)),
    (genexp_max, _vec4, 0),
    (max_min_of_many, _vec4, 0),
    (appended_in_both_branches, lambda r: (0.5 * r.normal(size=(5, 3, 3)),), 0),
    (filtered_comprehension, lambda r: (np.array([0.3, -0.9, 1.2, -0.2, 0.8]),), 0),
    (absolutes_of_products, lambda r: (0.5 * r.normal(size=(5, 3, 3)),), 0),
    (appended_by_path, lambda r: (r.normal(size=(6, 2)), np.array([0, 1, -1, 0, 1, -1])), 0),
    (unpack_into_rows, lambda r: (r.normal(size=(2, 3)), r.normal(size=3)), (0, 1)),
    (enumerate_zip, lambda rng: (rng.normal(size=4), rng.normal(size=5)), (0, 1)),
    (over_reversed, _vec4, 0),
    (nested_helper, _vec4, 0),
    (closure_lambda, lambda rng: (rng.normal(size=4), rng.normal()), (0, 1)),
    (nested_in_loop, lambda rng: (rng.uniform(0.5, 1.5), 4), 0),
    (called_through_a_local_name, _vec4, 0),
    (max_of_a_list, lambda rng: (rng.normal(size=4) + np.array([0.0, 0.0, 0.0, 3.0]),), 0),
    (tuple_display, lambda rng: (rng.normal(size=4), rng.normal(size=4)), (0, 1)),
    (list_appended, _vec4, 0),
    (list_with_constants, lambda rng: (rng.normal(),), 0),
    (dict_display, lambda rng: (rng.normal(), rng.normal()), (0, 1)),
    (run_time_index, lambda rng: (rng.normal(), rng.normal(), rng.normal(),
                                  int(rng.integers(-3, 3))), (0, 1, 2)),
    (starred_unpack, lambda rng: (rng.normal(), rng.normal(), rng.normal()), (0, 1, 2)),
    (tuple_of_call, _vec4, 0),
    (slogdet_subscript, _spd, 0),
    (container_in_branch, lambda rng: (rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 2.0),), 0),
    (early_return_elif, lambda rng: (rng.choice([1.3, -0.5, -3.0]) + 0.1 * rng.normal(),), 0),
]


# ---- containers as arguments (pytrees): leaves become parameters, gradients come back shaped
#      like the argument --------------------------------------------------------------------------

def mlp_dict(params, x):
    h = np.tanh(params["W1"] @ x + params["b1"])
    return np.sum((params["W2"] @ h) ** 2)


def weight_list(ws, x):
    h = x
    for w in ws:
        h = np.tanh(w @ h)
    return np.sum(h) + np.sum(ws[-1]) * len(ws)


def mixed_tuple(t, y):
    scale, v = t
    return scale * np.sum(v * y) + t[0] ** 2


class Affine(NamedTuple):
    weight: np.ndarray
    bias: float


def namedtuple_fields(layer, x):
    return np.sum(np.sin(layer.weight @ x + layer.bias)) * layer[1]


@dataclasses.dataclass
class Oscillator:
    k: float
    damping: float
    state: np.ndarray


def dataclass_fields(p, dt):
    v = p.state
    for _ in range(3):
        v = v + dt * (-p.k * v - p.damping * v * v)
    return np.sum(v * v)


def affine_step(x, w):
    """A NamedTuple and a dataclass made in the code, one returned by a function of yours and
    read through a field of the call (issue 50: a solver's result, `solve(...).y`)."""
    layer = Affine(w * x, bias=0.5)
    state = Oscillator(k=np.sum(x), damping=0.1, state=np.tanh(layer.weight))
    return np.sum(_settled(state, 0.2).state ** 2) + layer.bias * _settled(state, 0.1).k


def _settled(p, dt):
    return Oscillator(p.k, p.damping, p.state - dt * p.k * p.state)


def layers_by_index(params, x):
    """A list of (W, b) layers indexed by ints known only when the function runs (issue 50):
    each leaf picked by the index."""
    order = np.array([2, 0, 1, 2, 1])
    h = x
    for k in range(len(order)):
        W, b = params[order[k]]
        h = np.tanh(W @ h + b)
    return np.sum(h ** 2) + np.sum(params[-1 - order[0] % 2][1])


def nested_tree(model, x):
    h = x
    for layer in model["layers"]:
        h = np.tanh(layer[0] @ h + layer[1])
    return np.sum(h * model["head"]) + model["scale"] * np.sum(h)


def dict_views(params, x):
    total = 0.0
    for name, w in params.items():
        total = total + np.sum(w * x)
    for name in params.keys():
        total = total + np.sum(params[name]) ** 2
    return total + sum(np.sum(w) for w in params.values())


def zipped_lists(ws, bs, x):
    s = 0.0
    for i in range(len(ws)):
        s = s + np.sum(ws[i] * x) * bs[i]
    for w, b in zip(ws, bs):
        s = s + np.sum(np.cos(w)) * b
    return s


def dict_comprehension(params, x):
    scaled = {name: 2.0 * w for name, w in params.items()}
    squares = {k: scaled[k] * scaled[k] for k in scaled}
    return np.sum(squares["a"] * x) + np.sum(scaled["b"])


def config_not_differentiated(x, config):
    y = x
    for _ in range(config["steps"]):
        y = y - config["rate"] * np.sin(y)
    return np.sum(y * config["weights"])


def _mlp(rng):
    return ({"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=3),
             "W2": rng.normal(size=(2, 3))}, rng.normal(size=4))


CASES += [
    (mlp_dict, _mlp, (0, 1)),
    (weight_list, lambda rng: ([rng.normal(size=(3, 3)) * 0.5 for _ in range(3)],
                               rng.normal(size=3)), (0, 1)),
    (mixed_tuple, lambda rng: ((1.3, rng.normal(size=3)), rng.normal(size=3)), (0, 1)),
    (namedtuple_fields, lambda rng: (Affine(rng.normal(size=(2, 3)), rng.normal()),
                                     rng.normal(size=3)), (0, 1)),
    (dataclass_fields, lambda rng: (Oscillator(rng.uniform(0.5, 1.0), rng.uniform(0.0, 0.3),
                                               rng.normal(size=3)), 0.1), 0),
    (affine_step, lambda rng: (rng.normal(size=3), rng.normal(size=3)), (0, 1)),
    (layers_by_index, lambda rng: ([(0.5 * rng.normal(size=(3, 3)), rng.normal(size=3))
                                    for _ in range(3)], rng.normal(size=3)), (0, 1)),
    (nested_tree, lambda rng: ({"layers": [(rng.normal(size=(3, 3)), rng.normal(size=3)),
                                           (rng.normal(size=(3, 3)), rng.normal(size=3))],
                                "head": rng.normal(size=3), "scale": rng.normal()},
                               rng.normal(size=3)), (0, 1)),
    (dict_views, lambda rng: ({"a": rng.normal(size=3), "b": rng.normal(size=3)},
                              rng.normal(size=3)), (0, 1)),
    (zipped_lists, lambda rng: ([rng.normal(size=2), rng.normal(size=2)],
                                [rng.normal(), rng.normal()], rng.normal(size=2)), (0, 1, 2)),
    (dict_comprehension, lambda rng: ({"a": rng.normal(size=3), "b": rng.normal(size=3)},
                                      rng.normal(size=3)), (0, 1)),
    (config_not_differentiated, lambda rng: (rng.normal(size=3), {
        "steps": 3, "rate": 0.1, "weights": rng.normal(size=3)}), 0),
]


# ---- containers passed to functions of yours: the callee is specialised on their structure ---

def predict(params, x):
    return np.tanh(params["W"] @ x + params["b"])


def loss_through_callee(params, x):
    return np.sum(predict(params, x) ** 2) + np.sum(predict(params, -x))


def apply_layers(layers, x):
    h = x
    for layer in layers:
        h = np.sin(layer.weight @ h + layer.bias)
    return h


def namedtuples_to_callee(layers, x):
    return np.sum(apply_layers(layers, x) * x)


def weighted(t, x):
    total = 0.0
    for v in t:
        total = total + v * x
    return total


def display_to_callee(a, x):
    return np.sum(weighted((a, a * x, 2.0), x))


CASES += [
    (loss_through_callee, lambda rng: ({"W": rng.normal(size=(3, 3)), "b": rng.normal(size=3)},
                                       rng.normal(size=3)), (0, 1)),
    (namedtuples_to_callee, lambda rng: ([Affine(rng.normal(size=(3, 3)), rng.normal()),
                                          Affine(rng.normal(size=(3, 3)), rng.normal())],
                                         rng.normal(size=3)), (0, 1)),
    (display_to_callee, lambda rng: (rng.normal(), rng.normal(size=3)), (0, 1)),
]



# ---- lists grown in loops whose trip count is known only at run time: one array ---------------

def listcomp_over_array(x, w):
    ys = np.array([np.sin(v * w) for v in x])
    return np.sum(ys ** 2) + ys[-1]


def appended_in_runtime_loop(x, n):
    hs = []
    h = x
    for _ in range(n):
        h = np.tanh(h * 1.5 + 0.1)
        hs.append(h)
    return np.sum(np.stack(hs)[-1]) + np.sum(sum(hs)) * len(hs)


CASES += [
    (listcomp_over_array, lambda rng: (rng.normal(size=4), rng.normal()), (0, 1)),
    (appended_in_runtime_loop, lambda rng: (rng.normal(size=3), int(rng.integers(1, 4))), 0),
]
