"""Assignments to objects' attributes inside differentiated code (`self.n_fe += 1`): a field
that a method of the object's class assigns, holding a number or a bool, is passed in a cell,
and after a call of s2sad's function the object holds what the user's function would have
left there. Reads after a write see the new value; gradients go through it."""
import copy
import dataclasses

import numpy as np
import pytest

import s2sad
from gradcheck import SAME, assert_close, finite_difference


class Problem:
    """A benchmark problem as optimisation libraries write them (opfunu's Benchmark)."""

    def __init__(self, shift, scale):
        self.shift = np.asarray(shift, dtype=float)
        self.scale = scale
        self.n_fe = 0
        self.last = 0.0
        self.seen = False

    @property
    def ndim(self):
        return self.shift.shape[0]

    def check_solution(self, x):
        if len(x) != self.ndim:
            raise ValueError("the solution has the wrong length")

    def evaluate(self, x):
        self.check_solution(x)
        self.n_fe += 1
        z = x - self.shift
        self.last = self.scale * np.sum(z * z) / self.ndim
        self.seen = True
        return self.last * 2.0 + np.sum(np.sin(x))     # read after the write

    def evaluate_twice(self, x):
        a = self.evaluate(x)
        return a + self.evaluate(2.0 * x)               # a method calling one that writes

    def alternating(self, x):
        self.n_fe = self.n_fe + 1
        if self.n_fe % 2 == 0:                          # what the count decides
            return np.sum(x * x)
        return np.sum(np.cos(x))


PROBLEM = Problem([0.5, -0.25, 1.0], 3.0)
X = np.array([0.3, -0.7, 1.2])


def both(x):
    before = PROBLEM.last
    return PROBLEM.evaluate_twice(x) + PROBLEM.alternating(x) * before


def read_after_a_call(x):
    return PROBLEM.evaluate(x) * PROBLEM.last


def state(problem):
    return problem.n_fe, problem.last, problem.seen


def finite_differences(f, problem, x):
    """Central differences of f at x, each evaluation from the object's state now."""
    before = copy.deepcopy(vars(problem))

    def from_here(x):
        problem.__dict__.update(copy.deepcopy(before))
        return f(x)

    gradient = finite_difference(from_here, [x], 0)
    problem.__dict__.update(before)
    return gradient


def check(made, f, problem, x, calls=3):
    """`made(x)` (value and gradient) called `calls` times leaves `problem` as `f(x)` called
    `calls` times does, with f's value each time and its gradient (finite differences)."""
    start = copy.deepcopy(vars(problem))
    expected = []
    for _ in range(calls):
        gradient = finite_differences(f, problem, x)
        expected.append((f(x), gradient))
    after = state(problem)
    problem.__dict__.update(copy.deepcopy(start))
    got = [made(x) for _ in range(calls)]
    assert state(problem) == pytest.approx(after, rel=1e-12)
    assert type(problem.n_fe) is int and type(problem.last) is float and \
        type(problem.seen) is bool
    for (value, gradient), (want, fd) in zip(got, expected):
        assert value == pytest.approx(want, rel=1e-12)
        assert_close(gradient, fd)
    problem.__dict__.update(copy.deepcopy(start))
    return got


@pytest.mark.parametrize("jit", [False, True])
def test_a_module_object_counts_its_evaluations(jit):
    got = check(s2sad.value_and_grad(both, jit=jit), both, PROBLEM, X)
    assert PROBLEM.n_fe == 0 and PROBLEM.last == 0.0
    if jit:  # JIT on == JIT off
        PROBLEM.__dict__.update(n_fe=0, last=0.0, seen=False)
        plain = [s2sad.value_and_grad(both, jit=False)(X) for _ in range(3)]
        for (value, gradient), (value_py, gradient_py) in zip(got, plain):
            assert value == pytest.approx(value_py, rel=SAME)
            assert_close(gradient, gradient_py, rtol=SAME)
        PROBLEM.__dict__.update(n_fe=0, last=0.0, seen=False)


@pytest.mark.parametrize("jit", [False, True])
def test_a_bound_method_writes_its_object(jit):
    problem = Problem([1.0, 2.0], 0.5)
    check(s2sad.value_and_grad(problem.evaluate, jit=jit), problem.evaluate, problem,
          np.array([0.25, -1.5]))
    grad = s2sad.grad(problem.evaluate, jit=jit)
    grad(np.array([0.25, -1.5]))
    grad(np.array([0.25, -1.5]))
    assert problem.n_fe == 2 and problem.seen is True


def test_the_generated_code_writes_the_cell_and_hands_it_back():
    problem = Problem([1.0, 2.0], 0.5)
    grad = s2sad.grad(problem.evaluate, jit=False)
    grad(np.array([0.25, -1.5]))
    code = s2sad.source(grad)
    assert "self_n_fe[0] = self_n_fe[0] + 1" in code
    assert "self_n_fe_given[0] = self_n_fe[0]" in code


def test_a_count_that_decides_a_branch_in_a_callee():
    """The callee's adjoint runs its forward sweep again from the count the call saw."""
    def f(x):
        return PROBLEM.alternating(x) * 2.0

    for start in (0, 1):
        PROBLEM.n_fe = start
        value, gradient = s2sad.value_and_grad(f, jit=False)(X)
        assert PROBLEM.n_fe == start + 1
        PROBLEM.n_fe = start
        assert value == pytest.approx(f(X))
        PROBLEM.n_fe = start
        expected = 4.0 * X if start == 1 else -2.0 * np.sin(X)
        assert_close(gradient, expected)
    PROBLEM.n_fe = 0


class Counted:
    """(No bare call of a check: forward mode differentiates one, which must return a value.)"""

    def __init__(self, shift):
        self.shift = np.asarray(shift, dtype=float)
        self.n_fe = 0
        self.last = 0.0

    def evaluate(self, x):
        self.n_fe += 1
        z = x - self.shift
        self.last = 0.5 * np.sum(z * z)
        return self.last + np.sum(np.sin(x))


def test_forward_mode_vjp_and_jacobians_count_one_call():
    problem = Counted([1.0, 2.0])
    x, v = np.array([0.25, -1.5]), np.array([1.0, 0.5])
    value, tangent = s2sad.jvp(problem.evaluate, jit=False)(x, v)
    assert problem.n_fe == 1
    assert s2sad.vjp(problem.evaluate, jit=False)(x, 1.0) == \
        pytest.approx(s2sad.grad(problem.evaluate, jit=False)(x))
    assert problem.n_fe == 3
    def value_of(x):
        return problem.evaluate(x)

    with pytest.raises(s2sad.ArgumentError, match="second derivatives of such a function"):
        s2sad.hessian(value_of, jit=False)(x)
    assert problem.n_fe == 3
    jacobian = s2sad.jacobian(problem.evaluate, jit=False)(x)
    assert problem.n_fe == 4
    assert_close(jacobian, s2sad.grad(problem.evaluate, jit=False)(x))
    assert tangent == pytest.approx(float(jacobian @ v))
    assert value == pytest.approx(0.5 * np.sum((x - problem.shift) ** 2) + np.sum(np.sin(x)))


@dataclasses.dataclass
class Scaled:
    w: float
    calls: int = 0

    def apply(self, x):
        self.calls += 1
        return self.w * np.sum(x * x)


def loss(s, x):
    return s.apply(x)


def test_the_gradient_of_an_object_with_a_cell():
    s, x = Scaled(2.0), np.array([1.0, -3.0])
    gradient = s2sad.grad(loss, wrt=0, jit=False)(s, x)
    assert gradient == Scaled(10.0, 0.0) and type(gradient.calls) is float
    assert s.calls == 1


@dataclasses.dataclass
class Params:
    w: float
    calls: int = 0


def count_in_a_free_function(x, p):
    p.calls = p.calls + 1
    return p.w * np.sum(x)


class Holder:
    def __init__(self):
        self.buffer = np.zeros(2)

    def keep(self, x):
        self.buffer = x * 2.0
        return np.sum(self.buffer)


def test_what_is_not_written_back_is_refused_where_it_is_written():
    with pytest.raises(s2sad.UnsupportedError) as error:
        s2sad.grad(count_in_a_free_function, jit=False)(np.ones(2), Params(2.0))
    message = str(error.value)
    assert "test_attribute_writes.py" in message and "p.calls" in message
    assert "no method of its class assigns it" in message
    s = Scaled(2.0)  # the same, of a class whose method assigns it: written back
    s2sad.grad(count_in_a_free_function, jit=False)(np.ones(2), s)
    assert s.calls == 1
    with pytest.raises(s2sad.UnsupportedError) as error:
        s2sad.grad(Holder().keep, jit=False)(np.ones(2))
    message = str(error.value)
    assert "self.buffer" in message and "holds an array" in message and "fix:" in message


def test_a_field_read_after_a_call_that_assigns_it_is_refused():
    with pytest.raises(s2sad.UnsupportedError) as error:
        s2sad.grad(read_after_a_call, jit=False)(X)
    message = str(error.value)
    assert "PROBLEM.last is read after the call of 'evaluate', which assigns it" in message
    assert "read PROBLEM.last before the call" in message


class Checked:
    def __init__(self):
        self._ndim = 2
        self.n_fe = 0

    def evaluate(self, x):
        if len(x) != self._ndim:
            raise ValueError(f"The length of solution should have {self._ndim} variables!")
        self.n_fe += 1
        return np.sum(x * x)


def test_a_raise_reads_the_object_s_fields():
    """(opfunu's check_solution: the fields in a `raise` are read like any other.)"""
    checked = Checked()
    grad = s2sad.grad(checked.evaluate, jit=False)
    assert_close(grad(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(ValueError, match="should have 2 variables"):
        grad(np.ones(3))
    assert checked.n_fe == 1


class Tracker:
    def __init__(self):
        self.last = 0.0
        self.count = 0

    def step(self, x):
        self.last, self.count = np.sum(x * x), self.count + 1   # fields in a tuple target
        return self.last * np.cos(x[0])


TRACKER = Tracker()


def tracked(x):
    return TRACKER.step(x) + np.sum(x)


@pytest.mark.parametrize("jit", [False, True])
def test_fields_assigned_in_a_tuple_target(jit):
    TRACKER.last, TRACKER.count = 0.0, 0
    expected = finite_difference(tracked, [X], 0)
    TRACKER.last, TRACKER.count = 0.0, 0
    gradient = s2sad.grad(tracked, jit=jit)(X)
    assert TRACKER.count == 1 and type(TRACKER.count) is int
    assert TRACKER.last == pytest.approx(np.sum(X * X), rel=1e-12)
    assert_close(gradient, expected)
