"""Differential check on random straight-line programs: reassignments, tuple swaps, augmented
assignment, math calls and calls to user functions, compared with finite differences.

A small, seeded, fast profile (Python mode, plus a few under Numba); the long hypothesis-based
fuzzer is future work (see README)."""
import importlib.util
import random
import sys

import numpy as np
import pytest

import s2sad
from gradcheck import assert_close, finite_difference

# Random programs often leave a parameter unused; the warning saying so is right, and noise here.
pytestmark = pytest.mark.filterwarnings("ignore::s2sad.ZeroGradientWarning")

HELPERS = '''
import math

import numpy as np


def mix(a, b):
    return a * math.cos(b) + 0.5 * b


def split(a, b):
    return a + b, a * b
'''

UNARY = ["math.sin({})", "math.tanh({})", "math.exp(0.3 * {})", "math.sqrt({} * {} + 1.0)",
         "-{}", "math.atan({})"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / ({} * {} + 1.0)", "mix({}, {})"]


def random_program(rng, n_params=3, n_statements=10):
    names = [f"x{i}" for i in range(n_params)]
    lines = [f"def f({', '.join(names)}):"]
    for _ in range(n_statements):
        kind = rng.random()
        target = rng.choice(names) if rng.random() < 0.4 else f"v{len(names)}"
        a, b = rng.choice(names), rng.choice(names)
        if kind < 0.3:
            template = rng.choice(UNARY)
            lines.append(f"    {target} = " + template.format(*([a] * template.count("{}"))))
        elif kind < 0.7:
            template = rng.choice(BINARY)
            operands = [a, b, b][:template.count("{}")]
            lines.append(f"    {target} = " + template.format(*operands))
        elif kind < 0.8:
            lines.append(f"    {b} {rng.choice(['+=', '-=', '*='])} {a} * 0.5")
            continue
        elif kind < 0.9 and a != b:
            lines.append(f"    {a}, {b} = {b}, {a}")
            continue
        else:
            other = f"v{len(names) + 1}"
            lines.append(f"    {target}, {other} = split({a}, {b})")
            names.append(other) if other not in names else None
        if target not in names:
            names.append(target)
    picked = rng.sample(names, min(3, len(names)))
    lines.append("    return " + " + ".join(picked))
    return "\n".join(lines) + "\n"


ARRAY_UNARY = ["np.sin({})", "np.tanh({})", "np.exp(0.3 * {})", "np.sqrt({} * {} + 1.0)",
               "-{}", "np.abs({}) * {}", "np.square({})"]
ARRAY_BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / ({} * {} + 1.0)"]


def random_array_program(rng, n_statements=8):
    """Programs on a scalar `s`, a vector `a` (3,) and a matrix `B` (2, 3): broadcasting,
    reductions, products."""
    shapes = {"s": (), "a": (3,), "B": (2, 3)}
    lines = ["def f(s, a, B):"]
    for k in range(n_statements):
        names = list(shapes)
        x, y = rng.choice(names), rng.choice(names)
        target = rng.choice(names) if rng.random() < 0.3 else f"v{k}"
        kind = rng.random()
        if kind < 0.35:
            template = rng.choice(ARRAY_UNARY)
            expression, shape = template.format(*([x] * template.count("{}"))), shapes[x]
        elif kind < 0.75:
            template = rng.choice(ARRAY_BINARY)
            expression = template.format(*[x, y, y][:template.count("{}")])
            shape = max(shapes[x], shapes[y], key=len)
        elif kind < 0.85:
            if shapes[x] == (2, 3):
                expression, shape = f"np.sum({x}, axis=0)", (3,)
            else:
                expression, shape = f"np.{rng.choice(['sum', 'mean'])}({x})", ()
        elif kind < 0.93:
            expression, shape = ("np.dot(a, {})".format(x), ()) if shapes[x] == (3,) else \
                (f"np.sum(B @ a) * {x}", shapes[x])
        else:
            expression, shape = f"{x} @ {y}" if shapes[x] == shapes[y] == (3,) else \
                f"np.sum({x})", ()
        if target in ("s", "a", "B") and shape != shapes[target]:
            target = f"v{k}"
        lines.append(f"    {target} = {expression}")
        shapes[target] = shape
    picked = rng.sample(list(shapes), 3)
    lines.append("    return " + " + ".join(f"np.sum({n})" for n in picked))
    return "\n".join(lines) + "\n"


def load_program(tmp_path, index, text):
    path = tmp_path / f"random_program_{index}.py"
    path.write_text(HELPERS + "\n\n" + text)
    spec = importlib.util.spec_from_file_location(f"random_program_{index}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.f


def _check(f, args, jit):
    grads = s2sad.grad(f, wrt=(0, 1, 2), jit=jit)(*args)
    for position, g in enumerate(grads):
        assert_close(g, finite_difference(f, args, position), rtol=1e-5,
                     what=f"d/dx{position}")
    return grads


@pytest.mark.parametrize("batch", range(4))
def test_random_programs_match_finite_differences(tmp_path, batch):
    for index in range(batch * 50, batch * 50 + 50):
        rng = random.Random(index)
        text = random_program(rng)
        f = load_program(tmp_path, index, text)
        args = tuple(np.random.default_rng(index).uniform(-1, 1, size=3))
        try:
            _check(f, args, jit=False)
        except AssertionError as exc:
            raise AssertionError(f"program {index}:\n{text}\n{exc}") from None


@pytest.mark.parametrize("batch", range(2))
def test_random_array_programs_match_finite_differences(tmp_path, batch):
    for index in range(5000 + batch * 50, 5000 + batch * 50 + 50):
        text = random_array_program(random.Random(index))
        f = load_program(tmp_path, index, text)
        rng = np.random.default_rng(index)
        args = (float(rng.uniform(-1, 1)), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, (2, 3)))
        try:
            _check(f, args, jit=False)
        except AssertionError as exc:
            raise AssertionError(f"program {index}:\n{text}\n{exc}") from None


def test_random_programs_jit_equals_python(tmp_path):
    rng = np.random.default_rng(0)
    programs = [(random_program(random.Random(1000 + k), n_statements=12),
                 tuple(rng.uniform(-1, 1, size=3))) for k in range(3)]
    programs += [(random_array_program(random.Random(2000 + k), n_statements=10),
                  (float(rng.uniform(-1, 1)), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, (2, 3))))
                 for k in range(2)]
    for index, (text, args) in enumerate(programs):
        f = load_program(tmp_path, 1000 + index, text)
        on, off = _check(f, args, jit=True), _check(f, args, jit=False)
        for a, b in zip(on, off):
            assert_close(a, b, rtol=1e-12, what=f"program {index}: JIT vs Python\n{text}")
