"""Google Tangent's test corpus against s2sad: `make tangent TANGENT=/path/to/tangent/checkout`.

Imports tests/functions.py from a checkout of github.com/google/tangent (read there at run
time, never copied here) and checks s2sad on every function it can run: first order
(`s2sad.grad`; `s2sad.vjp` seeded with ones for an array output) and second order
(`grad(grad(f, wrt=k), wrt=k)`, for functions of the scalars a, b, c), JIT on and off, against
central finite differences in float64, on the inputs of Tangent's tests/conftest.py and
test_reverse_mode.py. A pass: no exception, every gradient matches on every input, and JIT on
and off agree to 1e-12 relative. Functions that cannot run as plain Python here (TensorFlow,
tangent's runtime) or return a tuple are listed as not runnable and not counted.
"""
import argparse
import copy
import inspect
import itertools
import re
import sys
import types
import warnings

import numpy as np

import s2sad

SCALARS = (-1.5, -0.5, 0.5, 1.5, 2.0)
FD_STEP, RTOL, ATOL = 1e-6, 1e-5, 1e-7       # first order: central differences
KINK = 1e-3        # one-sided differences further apart (relative): an input on a kink
FD2_STEP = 1e-3                               # second order: five-point second difference
JIT_RTOL = 1e-12                              # JIT on vs off
WIDTH = 44                                    # of a column of the table
FLOAT_PARAMS = ("a", "b", "c", "x", "sqm")    # the parameters differentiated


def conventional_values(rng):
    """Tangent's conftest.py conventions: the values each parameter name takes."""
    flags = (True, False)
    return {"a": SCALARS, "b": SCALARS, "c": SCALARS, "n": (1, 2, 3),
            "x": [rng.standard_normal(3), rng.standard_normal(5)],
            "sqm": [rng.standard_normal((1, 1)), rng.standard_normal((3, 3))],
            "boolean": flags, "boolean1": flags, "boolean2": flags}


def special_cases(rng):
    """{name: (argument tuples, wrt)} for the functions test_reverse_mode.py calls by hand."""
    abc = list(itertools.product(SCALARS, repeat=3))
    label = np.zeros(5)
    label[1] = 1.0
    return {
        "dict_saxpy": ([(dict(a=a, b=b, c=c),) for a, b, c in abc], (0,)),
        "unpacking_args_saxpy": ([(t,) for t in abc], (0,)),
        "dict_wrapper": ([(t,) for t in abc], (0,)),
        "passthru_unpack": ([(t,) for t in abc], (0,)),
        "passthru_pack": ([t + (i,) for t in abc for i in range(3)], (0, 1, 2)),
        "nested_dict": ([(dict(i=dict(j=3.0, k=4.0)),)], (0,)),
        "logistic_regression": ([(rng.random(3), label, rng.standard_normal((3, 5)),
                                  rng.standard_normal(5)) for _ in range(2)], (2, 3)),
        "rnn": ([(rng.standard_normal((3, 2)), rng.standard_normal((2, 3))) for _ in range(2)],
                (0, 1)),
        "bilinear": ([(rng.standard_normal((1, 3)), rng.standard_normal((1, 3)),
                       rng.standard_normal((3, 3)), rng.standard_normal((3, 3)),
                       rng.standard_normal((1, 3))) for _ in range(2)], (0,)),
    }


def load_corpus(checkout):
    """Import <checkout>/tests/functions.py, with a stub `tangent` if the real one is missing."""
    try:
        import tangent  # noqa: F401
    except ImportError:
        def needs_tangent(*args, **kwargs):
            raise RuntimeError("needs tangent's runtime (the tangent package is stubbed)")
        stub = types.ModuleType("tangent")
        stub.trace = lambda f: f              # a decorator in functions.py at import time
        stub.insert_grad_of = stub.push = stub.pop = stub.Stack = needs_tangent
        needs_tangent.__module__ = "tangent"
        sys.modules["tangent"] = stub
    sys.path.insert(0, f"{checkout}/tests")
    import functions
    return functions


def keys(like):
    return list(like) if isinstance(like, dict) else range(len(like))


def leaves(value, like=None):
    """The float leaves of `value` (nested dicts, tuples, arrays) as one vector, walked in the
    structure of `like` (an argument, when `value` is its gradient)."""
    like = value if like is None else like
    if isinstance(like, (dict, tuple, list)):
        if not isinstance(value, (dict, tuple, list)) or len(value) != len(like):
            raise ValueError(f"gradient {value!r} is not shaped like the argument")
        return np.concatenate([leaves(value[k], like[k]) for k in keys(like)])
    if np.shape(value) != np.shape(like):
        raise ValueError(f"gradient shape {np.shape(value)}, argument shape {np.shape(like)}")
    return np.asarray(value, dtype=float).ravel()


def rebuild(vector, like):
    """`like` with its float leaves replaced by `vector`'s numbers, in leaves() order."""
    if isinstance(like, (dict, tuple, list)):
        ends = np.cumsum([0] + [leaves(like[k]).size for k in keys(like)])
        parts = [rebuild(vector[i:j], like[k]) for i, j, k in zip(ends, ends[1:], keys(like))]
        return dict(zip(keys(like), parts)) if isinstance(like, dict) else type(like)(parts)
    return float(vector[0]) if np.ndim(like) == 0 else vector.reshape(np.shape(like)).copy()


def call(f, args, pos=None, value=None):
    """f on a copy of args (functions write into their arguments), args[pos] set to value."""
    args = copy.deepcopy(list(args))
    if pos is not None:
        args[pos] = value
    return f(*args)


def fd_gradient(f, args, pos, cotangent):
    """Central differences of sum(f * cotangent) w.r.t. every float leaf of args[pos], and
    where the one-sided differences disagree (a kink: an input on a branch's boundary)."""
    def value(moved):
        return np.sum(np.asarray(call(f, args, pos, rebuild(moved, args[pos]))) * cotangent)
    base = leaves(args[pos])
    middle, out, kink = value(base), np.empty_like(base), np.zeros(base.size, dtype=bool)
    for i, step in enumerate(FD_STEP * np.eye(base.size)):
        up, down = value(base + step), value(base - step)
        out[i] = (up - down) / (2 * FD_STEP)
        one_sided = (up - middle) / FD_STEP, (middle - down) / FD_STEP
        kink[i] = abs(one_sided[0] - one_sided[1]) > KINK * max(1.0, abs(out[i]))
    return out, kink


def fd_second(f, args, pos):
    """d2 f / d args[pos]^2 by the five-point second difference."""
    a, h = args[pos], FD2_STEP
    v = [float(call(f, args, pos, a + k * h)) for k in (-2, -1, 0, 1, 2)]
    return (-v[0] + 16 * v[1] - 30 * v[2] + 16 * v[3] - v[4]) / (12 * h * h)


def first_line(error):
    """The error's type and first line (and the next one after "2 problems found:")."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [""]
    text = lines[0] + (" " + lines[1] if lines[0].endswith(":") and len(lines) > 1 else "")
    return f"{type(error).__name__}: {text}"


def plan(name, f, corpus, values, specials):
    """(cases, wrt, second-order positions) for a runnable function, or a reason it is not."""
    if getattr(f, "__module__", None) != corpus.__name__:
        return f"imported from {getattr(f, '__module__', '?')}, not defined in functions.py"
    params = list(inspect.signature(f).parameters)
    if name in specials:
        cases, wrt = specials[name]
    elif all(p in values for p in params):
        cases = list(itertools.product(*(values[p] for p in params)))
        wrt = tuple(i for i, p in enumerate(params) if p in FLOAT_PARAMS)
    else:
        return f"parameters {', '.join(params)}: no conventional inputs (TensorFlow?)"
    kept, errors = [], []
    for args in cases:
        try:
            out = call(f, args)
            if isinstance(out, tuple):
                return "returns a tuple: not a scalar function"
            if np.all(np.isfinite(out)):               # else outside the domain: not an input
                cot = np.ones_like(out) if np.ndim(out) else 1.0   # Tangent seeds with ones
                refs, kinks = zip(*(fd_gradient(f, args, p, cot) for p in wrt))
                kept.append((args, cot, refs, kinks))
        except Exception as e:
            errors.append(e)
    if not kept:
        return f"raises in plain Python: {first_line(errors[0])}" if errors else "no finite input"
    second = wrt if all(p in ("a", "b", "c") for p in params) else ()
    return kept, wrt, second


def run_first(f, cases, wrt, jit):
    """(gradients of every case, failures as (case index, message))."""
    vector_out = any(np.ndim(case[1]) for case in cases)
    got, failures = [], []
    try:
        g = (s2sad.vjp if vector_out else s2sad.grad)(f, wrt=wrt, jit=jit)
    except Exception as e:
        return [], [(k, first_line(e)) for k in range(len(cases))]
    for k, (args, cot, refs, kinks) in enumerate(cases):
        try:
            out = g(*copy.deepcopy(args), *((cot,) if vector_out else ()))
            if not isinstance(out, tuple) or len(out) != len(wrt):  # wrt is a tuple
                raise ValueError(f"expected a tuple of {len(wrt)} gradients, got {out!r}")
            flat = [leaves(o, args[p]) for o, p in zip(out, wrt)]   # checks the shapes
            got.append(np.concatenate(flat))
            bad = [p for p, v, r, kink in zip(wrt, flat, refs, kinks)
                   if not np.allclose(v[~kink], r[~kink], rtol=RTOL, atol=ATOL)]
            if bad:
                failures.append((k, f"wrong gradient at {args!r}, wrt {bad}: got {flat}, "
                                    f"finite differences {list(refs)}"))
        except Exception as e:
            failures.append((k, first_line(e)))
    return got, failures


def run_second(f, cases, positions, jit):
    """(second derivatives of every case, failures), for each scalar parameter in turn."""
    got, failures = [], []
    for i, p in enumerate(positions):
        try:
            g = s2sad.grad(s2sad.grad(f, wrt=p, jit=jit), wrt=p, jit=jit)
        except Exception as e:
            return [], [(k, first_line(e)) for k in range(len(cases))]
        for k, (args, _, _, kinks) in enumerate(cases):
            if kinks[i].any():
                continue                               # f' jumps here: no second derivative
            try:
                value, want = float(call(f, args)), fd_second(f, args, p)
                got.append(float(g(*copy.deepcopy(args))))
                if not np.isclose(got[-1], want, rtol=RTOL, atol=ATOL + 1e-8 * abs(value)):
                    failures.append((k, f"wrong second derivative at {args!r}, wrt {p}: "
                                        f"got {got[-1]}, finite differences {want}"))
            except Exception as e:
                failures.append((k, first_line(e)))
    return got, failures


def cell(failures, total, fell_back):
    """ok, ok* (ran as Python: Numba could not compile it) or FAIL: reason [failed/inputs]."""
    if not failures:
        return "ok*" if fell_back else "ok"
    short = re.sub(r"\S+:\d+:\d+: error: ", "", failures[0][1])   # without file:line:col
    short = short if len(short) <= WIDTH - 18 else short[:WIDTH - 21] + "..."
    return f"FAIL: {short} [{len({k for k, _ in failures})}/{total}]"


def evaluate(f, cases, wrt, second, modes, orders):
    """{(order, jit): (cell text, first failure or None)} for one function."""
    result = {}
    for order in [o for o in orders if o == 1 or second]:
        got = {}
        for jit in modes:
            with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
                warnings.simplefilter("always")
                run = run_first if order == 1 else run_second
                got[jit], fails = run(f, cases, wrt if order == 1 else second, jit)
            fell_back = jit and any(issubclass(w.category, s2sad.JitFallbackWarning)
                                    for w in caught)
            result[order, jit] = (cell(fails, len(cases), fell_back),
                                  fails[0][1] if fails else None)
        if len(modes) == 2 and all(result[order, j][1] is None for j in modes):
            on, off = (np.concatenate([np.ravel(g) for g in got[j]] or [np.zeros(0)])
                       for j in modes)
            if on.shape != off.shape:
                on, off = np.zeros(1), np.ones(1)
            scale = np.maximum(np.abs(on), np.abs(off))
            if np.any(np.abs(on - off) > JIT_RTOL * scale):
                worst = np.max(np.abs(on - off) / np.maximum(scale, 1e-300))
                msg = f"JIT on and off differ by {worst:.0e} (relative)"
                result[order, True] = (f"FAIL: {msg}", msg)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tangent", required=True, help="a checkout of google/tangent")
    parser.add_argument("--jit", choices=("on", "off", "both"), default="both")
    parser.add_argument("--order", choices=("1", "2", "both"), default="both")
    parser.add_argument("--only", metavar="NAME", help="functions whose name contains NAME")
    parser.add_argument("--verbose", action="store_true", help="the first error of each failure")
    parser.add_argument("--strict", action="store_true", help="exit 1 when anything fails")
    opts = parser.parse_args(argv)
    modes = {"on": (True,), "off": (False,), "both": (True, False)}[opts.jit]
    orders = {"1": (1,), "2": (2,), "both": (1, 2)}[opts.order]
    corpus = load_corpus(opts.tangent)
    rng = np.random.default_rng(0)
    values, specials = conventional_values(rng), special_cases(rng)
    columns = [(o, j) for o in (1, 2) for j in (True, False)]
    jit_name = {True: "JIT on", False: "JIT off"}
    print(f"{'function':30} " + " | ".join(f"{f'order {o}, {jit_name[j]}':{WIDTH}}"
                                           for o, j in columns).rstrip())
    skipped, results, kinks, second = [], {}, [], 0
    for name, f in vars(corpus).items():
        if not callable(f) or (opts.only and opts.only not in name):
            continue
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            planned = plan(name, f, corpus, values, specials)
        if isinstance(planned, str):
            skipped.append(f"{name}: {planned}")
            continue
        second += bool(planned[2])
        kinks += [f"{name} at {case[0]}" for case in planned[0] if any(map(np.any, case[3]))]
        results[name] = evaluate(f, *planned, modes, orders)
        print(f"{name:30} " + " | ".join(f"{results[name].get(c, ('-',))[0]:{WIDTH}}"
                                         for c in columns).rstrip(), flush=True)
    if skipped:
        print(f"\nnot runnable, not counted ({len(skipped)}):\n  " + "\n  ".join(skipped))
    if kinks:
        print("\ninputs on a kink (one-sided differences disagree): gradient not compared, "
              "second order skipped\n  " + "\n  ".join(kinks))
    print(f"\nrunnable: {len(results)} first order, {second} second order (a, b, c only)")
    for order in orders:
        counts = [f"{sum(r[order, j][1] is None for r in results.values() if (order, j) in r)}"
                  f"/{sum((order, j) in r for r in results.values())} ({jit_name[j]})"
                  for j in modes]
        print(f"{('first', 'second')[order - 1]} order: " + ", ".join(counts))
    if any(r[c][0] == "ok*" for r in results.values() for c in r):
        print("ok*: passed, with Numba unable to compile it (ran as Python: JitFallbackWarning)")
    failures = {}                                      # {(name, order, message): [jit...]}
    for name, r in results.items():
        for (order, jit), (_, msg) in r.items():
            if msg:
                failures.setdefault((name, order, msg), []).append(jit_name[jit])
    if opts.verbose and failures:
        print("\nfailures, first error of each:")
        for (name, order, msg), jits in failures.items():
            print(f"  {name} (order {order}, {' and '.join(jits)}): {msg}")
    return 1 if opts.strict and failures else 0


if __name__ == "__main__":
    sys.exit(main())
