"""value_types.py types values for Python's side of the runtime helpers without importing Numba;
a dispatch must see the same answers from it as from Numba's types of the same values, or the
two flavours of a gradient would run different implementations."""
import subprocess
import sys

import numpy as np
import pytest

from s2sad.runtime import dispatch, value_types

_matrix = np.arange(12.0).reshape(3, 4)
_readonly = np.ones(3)
_readonly.setflags(write=False)

VALUES = [
    1, -7, 2 ** 40, 1.5, True, False, 2 + 1j, None, "a string",
    np.float64(1.0), np.float32(2.0), np.int32(3), np.int64(4), np.uint8(5), np.bool_(True),
    np.complex64(1j),
    np.zeros(()), np.zeros(3), _matrix, _matrix.T, _matrix[:, ::2], _matrix[::2], _matrix[1],
    _matrix[:, 1], np.zeros((2, 1, 3)), np.zeros((1, 4))[:, ::2], _readonly,
    np.arange(4), np.arange(4, dtype=np.int32), np.zeros(3, dtype=bool), np.zeros(2, complex),
    np.zeros(3, np.float32), np.array(["a", "b"]), np.array([object()]),
    (), (1,), (1, 2), (1, 2.0), (0, -1, 2), (np.int32(1), 2), (True, 1), (1.0, np.zeros(2)),
    (np.zeros(2), np.zeros(2)), ((1, 2), 3), ("a", 1),
    [0, 2], [1.0, 2.0], [], {}, object(),
]

PREDICATES = [dispatch.is_scalar, dispatch.is_array, dispatch.is_none, dispatch.is_float64,
              dispatch.is_int, dispatch.is_python_object, dispatch.is_list, dispatch.is_tuple,
              dispatch.is_axis, lambda t: dispatch.is_array(t, 1), lambda t: dispatch.is_array(t, 2),
              lambda t: dispatch.is_constant(t, 0, 1, -1, "a string")]


def _numba_type(value, literal):
    from numba import typeof, types
    if literal and isinstance(value, (bool, int, str)):
        return types.literal(value)
    try:
        return typeof(value)
    except (ValueError, TypeError):
        return types.pyobject


def _answers(t):
    """Everything a dispatch may ask of a type, as plain values."""
    out = [p(t) for p in PREDICATES]
    value = dispatch.constant(t)
    out.append(value if value is not t else "itself")
    if dispatch.is_array(t):
        out += [t.ndim, t.layout, dispatch.is_float64(t.dtype), dispatch.is_int(t.dtype),
                dispatch.is_scalar(t.dtype)]
    if dispatch.is_tuple(t):
        out += [len(t), [_answers(e) for e in t]]
    return out


@pytest.mark.parametrize("literal", [False, True])
@pytest.mark.parametrize("index", range(len(VALUES)))
def test_same_answers_as_numba(index, literal):
    value = VALUES[index]
    ours = value_types.typeof(value, literal)
    assert _answers(ours) == _answers(_numba_type(value, literal)), (value, ours)


def test_omitted_argument():
    from numba import types
    for default in (None, 0, "x"):
        assert _answers(value_types.Omitted(default)) == _answers(types.Omitted(default))


def test_types_hash_and_compare_by_value():
    assert value_types.typeof(np.zeros(3)) == value_types.typeof(np.ones(5))
    assert value_types.typeof(np.zeros(3)) != value_types.typeof(np.zeros((3, 1)))
    assert len({value_types.typeof((1, 2)), value_types.typeof((3, 4))}) == 1
    assert value_types.typeof(3, literal=True) != value_types.typeof(4, literal=True)


def test_python_flavour_does_not_import_numba(tmp_path):
    """A gradient run as Python (the tiered default's first call) leaves Numba unimported:
    importing it is most of a first call's time."""
    script = tmp_path / "loss.py"
    script.write_text(
        "import sys\nimport numpy as np\nimport s2sad\n\n\n"
        "def loss(w, x, y):\n"
        "    K = np.exp(-np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=2))\n"
        "    L = np.linalg.cholesky(K + np.eye(x.shape[0]))\n"
        "    r = np.linalg.solve(L, x @ w - y)\n"
        "    return np.sum(r * r) + np.sum(np.log(np.diag(L)))\n\n\n"
        "x = np.random.default_rng(0).normal(size=(6, 3))\n"
        "g = s2sad.grad(loss, jit=False)(np.ones(3), x, np.ones(6))\n"
        "assert g.shape == (3,)\n"
        "print('numba' in sys.modules)\n")
    env = {"S2SAD_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"
