"""The ADBench section of the corpus (issue 50): microsoft/ADBench's Python objectives, read from
a checkout of github.com/microsoft/ADBench (nothing of them is kept here), ported as a user
ports them, differentiated by s2sad with the JIT off and on.

    make corpus ADBENCH=/path/to/ADBench          (after the external corpus)
    python tests/adbench_corpus.py --adbench PATH [NAME ...]

The ports, written into a temporary directory:
- gmm: tools/Autograd/gmm_objective.py, `import autograd.numpy as np` -> `import numpy as np`;
  its function attribute `constructL.Lparamidx` and nested `make_L_col` as written.
- ba: tools/Autograd/Autograd_ba.py is a script (it reads sys.argv when imported); its
  objective is taken as written: `cross` (without autograd's `@primitive` and the gradients
  autograd needs for its in-place writes) and the section between "BA objective in Python" and
  "derivative extras".
- lstm, hand: src/python/modules/PyTorch/{lstm,hand}_objective.py, written for PyTorch, with
  each torch call mapped to NumPy's one for one (TORCH: torch.cat -> np.concatenate,
  torch.sigmoid -> scipy.special.expit, torch.transpose(a, i, j) and a.transpose(i, j) ->
  swapaxes, a.clone() -> a.copy(), torch.float64 -> np.float64, the rest by name).

Each objective, on a small random instance (float64): `s2sad.grad` JIT off and on (a fallback
to Python fails the case), each against central finite differences of the ported function
(relative 1e-6 of max(1, |d|)), on == off to 1e-12, and, where autograd is installed, GMM and
BA against autograd's gradient of the original (1e-9; for BA, of its per-observation
functions as ADBench's autograd benchmark takes them, with `cross.defgrad`, autograd's old API,
in today's `defvjp`). Prints a line
per case and "N of M pass"; exits 1 when one fails.
"""
import argparse
import importlib
import os
import re
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def port_gmm(adbench, target):
    text = _read(adbench, "tools/Autograd/gmm_objective.py").lstrip("\ufeff")
    with open(os.path.join(target, "adbench_gmm.py"), "w") as stream:
        stream.write(text.replace("import autograd.numpy as np", "import numpy as np"))
    with open(os.path.join(target, "adbench_gmm_autograd.py"), "w") as stream:
        stream.write(text)   # (the original, for autograd's gradient)


def port_ba(adbench, target):
    text = _read(adbench, "tools/Autograd/Autograd_ba.py")
    cross = text[text.index("def cross(a, b):"):text.index("def make_grad_cross_0")]
    gradients = text[text.index("def make_grad_cross_0"):text.index("cross.defgrad(")]
    body = text[text.index("######### BA objective in Python"):
                text.index("########## derivative extras")]
    extras = text[text.index("def compute_w_err(w):"):text.index("compute_w_err_d =")]
    with open(os.path.join(target, "adbench_ba.py"), "w") as stream:
        stream.write("import numpy as np\n\n\n" + cross + body)
    # the original for autograd's gradient: its `@primitive` cross and the gradients it gives
    # cross with the old `cross.defgrad(g, argnum=k)`, spelled in today's API (defvjp)
    with open(os.path.join(target, "adbench_ba_autograd.py"), "w") as stream:
        stream.write("import autograd.numpy as np\nfrom autograd.extend import defvjp, primitive"
                     "\n\n\n@primitive\n" + cross + gradients
                     + "defvjp(cross, make_grad_cross_0, make_grad_cross_1)\n\n" + body + extras)


TORCH = [(r"^import torch$", "import numpy as np\nfrom scipy.special import expit"),
         (r"torch\.float64", "np.float64"),
         (r"torch\.transpose\(", "np.swapaxes("), (r"\.transpose\(", ".swapaxes("),
         (r"\.clone\(\)\.detach\(\)", ".copy()"), (r"\.clone\(\)", ".copy()"),
         (r"torch\.cat\(", "np.concatenate("), (r"torch\.sigmoid\(", "expit("),
         (r"torch\.(tanh|log|exp|sqrt|sin|cos|sum|stack|zeros|ones|eye)\(", r"np.\1(")]


def port_torch(name):
    def port(adbench, target):
        text = _read(adbench, f"src/python/modules/PyTorch/{name}_objective.py")
        for pattern, replacement in TORCH:
            text = re.sub(pattern, replacement, text, flags=re.M)
        with open(os.path.join(target, f"adbench_{name}.py"), "w") as stream:
            stream.write(text)
    return port


def _read(adbench, path):
    with open(os.path.join(adbench, path)) as stream:
        return stream.read()


def gmm_case(module):
    rng = np.random.default_rng(0)
    d, k, n = 3, 4, 10
    alphas, means = rng.normal(size=k), rng.normal(size=(k, d))
    icf, x = rng.normal(size=(k, d * (d + 1) // 2)), rng.normal(size=(n, d))
    return (lambda a, m, i: module.gmm_objective(a, m, i, x, 1.0, 0)), (alphas, means, icf)


def ba_case(module, xp=np, per_observation=False):
    """per_observation: the loss summed from the original's compute_reproj_err and
    compute_w_err, as ADBench's autograd benchmark differentiates them (its ba_objective writes
    into np.empty, which autograd cannot differentiate)."""
    rng = np.random.default_rng(1)
    n, m, p = 3, 5, 8
    cams = rng.normal(size=(n, 11)) * 0.1
    cams[:, 3:6], cams[:, 6] = rng.normal(size=(n, 3)), 1.0
    X = rng.normal(size=(m, 3)) + np.array([0.0, 0.0, 5.0])
    w = rng.uniform(0.5, 1.0, p)
    obs = np.stack([rng.integers(0, n, p), rng.integers(0, m, p)], axis=1)
    feats = rng.normal(size=(p, 2))

    def loss(cams, X, w):
        errors, w_errors = module.ba_objective(cams, X, w, obs, feats)
        return xp.sum(errors ** 2) + xp.sum(w_errors ** 2)

    def loss_per_observation(cams, X, w):
        total = sum(xp.sum(module.compute_reproj_err(cams[obs[i, 0]], X[obs[i, 1]], w[i],
                                                     feats[i]) ** 2) for i in range(p))
        return total + sum(module.compute_w_err(w[i]) ** 2 for i in range(p))
    return loss_per_observation if per_observation else loss, (cams, X, w)


def lstm_case(module):
    rng = np.random.default_rng(2)
    layers, width, length = 2, 3, 4
    state, sequence = rng.normal(size=(2 * layers, width)), rng.normal(size=(length, width))
    return (lambda main, extra: module.lstm_objective(main, extra, state, sequence)), \
        (0.5 * rng.normal(size=(2 * layers, 4 * width)), 0.5 * rng.normal(size=(3, width)))


def hand_case(module):
    rng = np.random.default_rng(3)
    bones, vertices, points = 22, 30, 10   # (to_pose_params fills 25 rows: 22 bones)

    def rigid():
        m = np.eye(4)
        m[:3, :3], m[:3, 3] = np.linalg.qr(rng.normal(size=(3, 3)))[0], 0.2 * rng.normal(size=3)
        return m
    parents = np.array([-1] + [rng.integers(0, i) for i in range(1, bones)])
    relatives = np.stack([rigid() for _ in range(bones)])
    inverses = np.stack([rigid() for _ in range(bones)])
    positions = np.concatenate([rng.normal(size=(vertices, 3)), np.ones((vertices, 1))], axis=1)
    weights = rng.uniform(size=(vertices, bones))
    weights /= weights.sum(1, keepdims=True)
    targets = rng.normal(size=(points, 3))
    matched = rng.integers(0, vertices, points).astype(float)

    def loss(theta):
        errors = module.hand_objective(theta, bones, parents, relatives, inverses, positions,
                                       weights, 1.0, targets, matched)
        return np.sum(errors ** 2)
    return loss, (0.3 * rng.normal(size=26),)


CASES = {"gmm": (port_gmm, "adbench_gmm", gmm_case),
         "ba": (port_ba, "adbench_ba", ba_case),
         "lstm": (port_torch("lstm"), "adbench_lstm", lstm_case),
         "hand": (port_torch("hand"), "adbench_hand", hand_case)}


def finite_differences(f, args, position, step=1e-6):
    out = np.zeros_like(args[position])
    for index in np.ndindex(out.shape):
        up, down = [np.array(a, copy=True) for a in args], [np.array(a, copy=True) for a in args]
        up[position][index] += step
        down[position][index] -= step
        out[index] = (f(*up) - f(*down)) / (2.0 * step)
    return out


def _worst(got, expected):
    return max(float(np.max(np.abs(g - e) / np.maximum(1.0, np.abs(e))))
               for g, e in zip(got, expected))


def autograd_gradient(name, target, args):
    """autograd's gradient of the original objective, or None (autograd not installed, or
    not for this case: LSTM and hand tracking were written for PyTorch)."""
    if name not in ("gmm", "ba"):
        return None
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None
    original = importlib.import_module(f"adbench_{name}_autograd")
    func, _ = gmm_case(original) if name == "gmm" else ba_case(original, anp, True)
    return autograd.grad(func, tuple(range(len(args))))(*args)


def run(name, target):
    import s2sad
    port, module_name, case = CASES[name]
    func, args = case(importlib.import_module(module_name))
    wrt = tuple(range(len(args)))
    got = {}
    for jit in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("error", s2sad.JitFallbackWarning)
            try:
                got[jit] = s2sad.grad(func, wrt=wrt, jit=jit)(*args)
            except s2sad.JitFallbackWarning as warning:
                return f"FAIL (falls back to Python: {str(warning).splitlines()[1:2]})"
            except Exception as error:  # noqa: BLE001 -- reported with its first line
                return f"FAIL (jit={jit}) {type(error).__name__}: " \
                    f"{str(error).strip().splitlines()[0][:200]}"
    expected = [finite_differences(func, args, k) for k in wrt]
    errors = {"fd (JIT off)": _worst(got[False], expected), "fd (JIT on)": _worst(got[True],
                                                                                  expected),
              "on vs off": _worst(got[True], got[False])}
    reference = autograd_gradient(name, target, args)
    if reference is not None:
        errors["autograd"] = _worst(got[True], reference)
    limits = {"fd (JIT off)": 1e-6, "fd (JIT on)": 1e-6, "on vs off": 1e-12, "autograd": 1e-9}
    text = ", ".join(f"{k} {v:.1e}" for k, v in errors.items())
    failed = [k for k, v in errors.items() if not v <= limits[k]]
    return f"FAIL ({', '.join(failed)}): {text}" if failed else f"pass: {text}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adbench", required=True, help="a checkout of microsoft/ADBench")
    parser.add_argument("names", nargs="*", help="only these cases")
    options = parser.parse_args(argv)
    target = tempfile.mkdtemp(prefix="s2sad-adbench-")
    sys.path.insert(0, target)
    names = options.names or list(CASES)
    results = {}
    for name in names:
        CASES[name][0](options.adbench, target)
        results[name] = run(name, target)
        print(f"adbench {name}: {results[name]}", flush=True)
    passed = sum(r.startswith("pass") for r in results.values())
    print(f"\nadbench: {passed} of {len(results)} pass")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
