"""The table of NumPy result ranks (s2sad/transform/result_ranks.py) says what NumPy does: each
call's claimed rank is checked against numpy.ndim of the call run on arrays of those ranks, and
what a call does not show stays unknown."""
import gast
import numpy
import pytest

from s2sad.transform.analysis import result_ranks

ENV = {"numpy": numpy, "s": 1.5, "v": numpy.linspace(0.5, 1.5, 4), "w": numpy.ones(4),
       "m": numpy.linspace(0.0, 1.0, 12).reshape(3, 4), "q": numpy.eye(4) + 0.5,
       "t": numpy.ones((2, 3, 4)), "k": 1, "n": 3}
ENV.update(b=ENV["v"] > 1.0, c=ENV["m"] > 0.5)  # conditions are names in ANF

KNOWN = [
    "numpy.diag(v)", "numpy.diag(m)", "numpy.diag(v, 1)", "numpy.diag(m, k=-1)",
    "numpy.outer(v, w)", "numpy.dot(m, v)", "numpy.dot(v, w)", "numpy.dot(s, m)",
    "numpy.dot(m, q)", "numpy.matmul(m, v)", "numpy.inner(v, w)", "numpy.trace(q)",
    "numpy.linalg.det(q)", "numpy.linalg.solve(q, v)", "numpy.linalg.solve(q, q)",
    "numpy.linalg.inv(q)",
    "numpy.sum(m, axis=1)", "numpy.sum(m, 0)", "numpy.sum(t, axis=(0, 2))",
    "numpy.sum(m, axis=1, keepdims=True)", "numpy.sum(m, axis=None)", "numpy.mean(t, axis=k)",
    "numpy.max(m, axis=-1)", "numpy.min(v, axis=0)", "numpy.prod(m, axis=0)",
    "numpy.var(m, axis=1, ddof=1)", "numpy.std(t, 1)", "numpy.sum(v, keepdims=True)",
    "numpy.cumsum(m)", "numpy.cumsum(m, axis=1)", "numpy.triu(m)", "numpy.tril(q, -1)",
    "numpy.zeros_like(t)", "numpy.ones_like(s)", "numpy.full_like(m, 2.0)",
    "numpy.where(b, v, 0.0)", "numpy.where(c, m, v)", "numpy.clip(m, 0.2, 0.8)",
    "numpy.ravel(t)", "numpy.linspace(0.0, 1.0, n)", "numpy.arange(n)", "numpy.eye(n)",
    "numpy.identity(n)", "numpy.full((n, 2), s)", "numpy.full(n, 2.0)",
    "numpy.reshape(m, (4, 3))", "numpy.reshape(m, (2, 2, n))", "numpy.reshape(m, 12)",
    "numpy.expand_dims(v, 0)", "numpy.stack((v, w))", "numpy.stack([m, m, m])",
    "numpy.concatenate((v, w))", "numpy.concatenate([m, m])", "numpy.flip(m)",
    "numpy.roll(v, 1)", "numpy.sort(v)",
]

UNKNOWN = [
    "numpy.sum(m, axis=v)",            # an array as an axis: an error in NumPy
    "numpy.sum(m, axis=(0, 0))",       # a repeated axis: an error in NumPy
    "numpy.reshape(m, m.shape)",       # a shape held in a value
    "numpy.linspace(v, w, n)",         # array end points: one more dimension
    "numpy.stack((v, m))",             # parts of different ranks: an error in NumPy
    "numpy.sort(m, axis=0)",           # keywords the table does not read
    "numpy.squeeze(m)",                # not in the table
]


def _call(text):
    call = gast.parse(text, mode="eval").body
    call.s2sad_ref = eval(text.split("(")[0], ENV)  # what resolve.py marks it with
    return call


def _rank(atom):
    if isinstance(atom, gast.Constant):
        return 0
    if isinstance(atom, gast.Name):
        return numpy.ndim(ENV[atom.id])
    return None


def _is_int(atom):
    if isinstance(atom, gast.Constant):
        return type(atom.value) is int
    if isinstance(atom, gast.UnaryOp):
        return _is_int(atom.operand)
    return isinstance(atom, gast.Name) and type(ENV.get(atom.id)) is int


@pytest.mark.parametrize("text", KNOWN)
def test_the_rank_claimed_is_numpys(text):
    call = _call(text)
    claimed = result_ranks.of_call(call.s2sad_ref, call, _rank, _is_int)
    assert claimed is not None, f"{text}: the table should know it"
    assert claimed == numpy.ndim(eval(text, dict(ENV))), text


@pytest.mark.parametrize("text", UNKNOWN)
def test_what_the_call_does_not_show_stays_unknown(text):
    call = _call(text)
    assert result_ranks.of_call(call.s2sad_ref, call, _rank, _is_int) is None, text
