"""Regression programs from the differential fuzzer (tests/fuzzgen.py): each is the small
program a failure shrank to (by hypothesis, then by hand), with the bug it found.
tests/test_fuzz.py runs every case through the fuzzer's checks (fuzzcheck.check: finite
differences, JIT on and off, forward mode).

`pending` names a bug that is reported but not fixed yet: the case is expected to fail
(`xfail(strict=True)`), so it fails again, asking for the mark to go, once the bug is fixed.
`make fuzz` (tests/fuzz_long.py) appends what it finds here.
"""
import dataclasses


@dataclasses.dataclass
class Case:
    name: str
    bug: str
    source: str      # a module defining f
    args: str        # Python source of f's arguments (numpy as np)
    wrt: tuple
    pending: str = None


CASES = []

CASES.append(Case(
    name="constant_assigned_in_a_branch",
    bug="`s = 0.0` on the path taken left ds flowing to the old s: the gradient was 3.0 for "
        "a function constant in s (an inactive assignment did not drop the target's adjoint)",
    source='''
def f(s, w):
    if w > 0.0:
        s = 0.0
    return s * 3.0
''',
    args="(0.5, 1.0)", wrt=(0,)))

CASES.append(Case(
    name="constant_assigned_in_a_loop",
    bug="each iteration starts from a constant, so s's input does not matter; the return's "
        "ds leaked back through the inactive loop body (gradient 1.0, not 0.0)",
    source='''
import math


def f(s):
    for i in range(3, -1, -1):
        s = 1.4
        s += math.atan2(math.exp(math.sin(s)), 2.0)
    return s
''',
    args="(1.33,)", wrt=(0,)))

CASES.append(Case(
    name="swap_with_a_fresh_array_in_a_branch",
    bug="the first program the fuzzer failed on: after `A, m0 = m0, A` in a taken branch the "
        "output no longer depends on A, yet its gradient was cos(0) = 1 everywhere",
    source='''
import numpy as np


def f(A, w):
    if w > 0.0:
        m0 = np.zeros(3)
        A, m0 = m0, A
    return np.sum(np.sin(A))
''',
    args="(np.array([0.5, -0.1, 0.9]), 0.7)", wrt=(0,)))

CASES.append(Case(
    name="early_return_of_a_tuple",
    bug="several returns of a tuple became `_result = (a, b)`, which s2sad cannot hold: "
        "'cannot differentiate this expression' (fixed in exits.py: one name per element)",
    source='''
import numpy as np


def h(q, n):
    for j in range(n):
        if q[j] > 0.0:
            return q[j] * 2.0, q * 3.0
    return q[0], q


def f(u, n):
    a, b = h(u, n)
    return a + np.sum(np.sin(b))
''',
    args="(np.array([-0.5, 0.25, 0.75]), 3)", wrt=(0,)))

CASES.append(Case(
    name="early_return_of_a_tuple_not_taken",
    bug="as early_return_of_a_tuple, leaving by the last return",
    source='''
def h(q):
    if q > 0.0:
        return q * 2.0, q * 3.0
    return q, q


def f(u):
    a, b = h(u)
    return a * b
''',
    args="(-0.5,)", wrt=(0,)))

CASES.append(Case(
    name="array_written_into_itself",
    bug="`v[::-1] = v`: the backward block added dv[::-1] to dv, then zeroed dv[::-1], "
        "losing the contribution (gradient 0, not [0, 0, 1])",
    source='''
def f(u):
    v = u * 1.0
    v[::-1] = v
    return v[0]
''',
    args="(np.array([1.0, 2.0, 3.0]),)", wrt=(0,)))

CASES.append(Case(
    name="parameter_written_into_itself",
    bug="what hypothesis shrank a failure on main to: `w[:] = w` on a parameter (which s2sad "
        "copies first) zeroed its gradient",
    source='''
import numpy as np


def f(w, n):
    w[:] = w
    return np.sum(w)
''',
    args="(np.array([0.5, -0.25]), 0)", wrt=(0,)))

CASES.append(Case(
    name="stack_pushed_only_in_a_constant_branch",
    bug="a module flag (`DEBUG = 0`) is inlined, Numba prunes the branch as dead, and the "
        "stack whose only append is in it cannot be typed: the gradient runs as Python",
    source='''
import math

DEBUG = 0


def f(x, n):
    if DEBUG > 0:
        for i in range(n):
            if x > 0.5:
                x = math.sin(x)
    return x * x
''',
    args="(0.3, 3)", wrt=(0,)))

CASES.append(Case(
    name="loop_over_a_tuple_rebinding_an_element",
    bug="Python evaluates `(s, s * 2.0)` once, but the unrolled copies read s after the body "
        "rebound it: s2sad computed sin(2 sin(s)), not sin(2 s), in its value and gradient "
        "(fixed in exits.py: such elements are bound before the loop)",
    source='''
import numpy as np


def f(s):
    for e in (s, s * 2.0):
        s = np.sin(e)
    return s
''',
    args="(0.3,)", wrt=(0,)))

CASES.append(Case(
    name="recursive_call_without_tangent",
    bug="the recursive call's argument carries no tangent (q is rebound to a constant), so the "
        "tangent code calls the primal h, which its module does not define: NameError in "
        "forward mode (reverse mode is right). docs/user-guide.md lists recursion with different "
        "arguments differentiated as unsupported; it should then be a clear error or work",
    source='''
def h(q, d):
    if d <= 0:
        return q * 2.0
    q = 0.1
    return q + h(q, d - 1)


def f(s):
    return h(s, 1) + s
''',
    args="(0.3,)", wrt=(0,)))

CASES.append(Case(
    name="early_return_under_a_constant_test",
    bug="`v0 = 0.1; ... if v0 > 0.1: return s` in a loop: Numba folds the test and prunes the "
        "branch, so `_result` is undefined on a path it cannot rule out and the gradient runs as "
        "Python (the function itself compiles); the same pruning leaves stacks untyped "
        "(stack_pushed_only_in_a_constant_branch)",
    source='''
def f(s):
    v0 = 0.1
    c3 = 0
    while c3 < 1:
        c3 = c3 + 1
        if v0 > 0.1:
            return s
    return s * 2.0
''',
    args="(0.3,)", wrt=(0,)))

CASES.append(Case(
    name="temporary_aliasing_an_array_written_later",
    bug="`v /= g` keeps its result in a temporary that the quotient rule reads, the same array "
        "as v; `v[0] = 0.1` writes into it, and after the swap the backward sweep restores a "
        "saved copy of v instead of that array, so the rule read 0.1 (error 1e-2 here, 3e-4 "
        "in the program the fuzzer found)",
    source='''
import numpy as np


def f(x):
    v = x * 1.0
    v /= 2.0 + np.cos(v)
    w = v * 1.0
    v[0] = 0.1
    v, w = w, v
    return np.sum(v) + np.sum(w)
''',
    args="(np.array([0.5, -0.3]),)", wrt=(0,)))

CASES.append(Case(
    name="temporary_aliasing_a_parameter_written_later",
    bug="as temporary_aliasing_an_array_written_later, with a parameter and no swap: after "
        "`A = A.copy()` is undone, A is a saved copy, so restoring A[-2] misses the quotient's "
        "temporary (found by `make fuzz`, chunk seed 125)",
    source='''
import numpy as np


def f(A):
    A /= 2.0 + np.cos(A)
    A[-2] += A[-2]
    A = A.copy()
    return np.sum(A)
''',
    args="(np.array([[0.5, -0.3, 0.8], [0.2, 0.9, -1.1]]),)", wrt=(0,)))

CASES.append(Case(
    name="callee_looping_over_arrays_of_two_layouts",
    bug="s2sad unrolls `for e in (a, b)` in the code it differentiates, but the forward sweep "
        "calls the callee's primal copy as written, and Numba cannot iterate a tuple of a "
        "C and an 'A' layout array: the gradient runs as Python (found by `make fuzz`, chunk "
        "seed 140)",
    source='''
import numpy as np


def h(a, b):
    s = 0.0
    for e in (a, b):
        s = s + np.sum(e * e)
    return s


def f(A):
    return h(A[::-1], A) * 2.0
''',
    args="(np.array([[0.5, -0.3, 0.8], [0.2, 0.9, -1.1]]),)", wrt=(0,)))

CASES.append(Case(
    name="constant_operand_of_and_in_a_branch_test",
    bug="found by `make fuzz` (chunk seed 5): `v0 > 0.1 and s > 0.0` with v0 = 0.1 is a branch "
        "on a constant inside the test (Python evaluates `and` by branching); Numba pruned it, "
        "left `_result` untyped, and the gradient ran as Python",
    source='''
import math

import numpy as np


def h0(q0, d):
    if d <= 0:
        return q0
    return q0 + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0, d):
    if d <= 0:
        return np.ones(2)
    return np.ones(2) + 0.5 * h1(q0 * 0.5 + q0, d - 1)


def f(s, w):
    v0 = 0.1
    c1 = 0
    while c1 < 1:
        c1 = c1 + 1
        if v0 > 0.1 and s > 0.0:
            return v0 + np.sum(w) + s
    return v0
''',
    args="(0.0, np.array([0.0, 0.0]))", wrt=(0,)))

CASES.append(Case(
    name="callee_returning_from_a_loop_over_rows",
    bug="found by `make fuzz` (chunk seed 123), made by this session's fix for "
        "callee_looping_over_arrays_of_two_layouts: primal copies went through exits.py for any "
        "`for e in name`, without the exit test the forward sweep adds, so the loop ran on past "
        "its `return` and h1 returned the last row (a wrong value and gradient)",
    source='''
import math

import numpy as np


C0 = 0.1


def h0(q0, d):
    if d <= 0:
        return np.ones(2)
    return np.ones(2) + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0, q1, q2):
    for e20 in q2:
        if q1 > 0.0:
            return q1, e20.copy()
    else:
        v21 = q1
    return q1, q0.copy()


def f(u, A):
    v0, v1 = h1(u, 0.1, q2=A)
    return np.sum(np.sin(v1))
''',
    args="(np.array([0.0, 0.0, 0.0]), np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.01]]))", wrt=(1,)))

CASES.append(Case(
    name="callee_returning_from_a_loop_over_a_tuple",
    bug="as callee_returning_from_a_loop_over_rows, in a callee whose tuple loop makes its "
        "primal copy go through exits.py: the loop over rows must stop at its `return`",
    source='''
import numpy as np


def h(a, b, A):
    s = 0.0
    for e in (a, b):
        s = s + np.sum(e)
    for row in A:
        if s > -100.0:
            return row * s
    return a


def f(A):
    return np.sum(np.sin(h(A[0], A[1][::-1], A)))
''',
    args="(np.array([[0.5, -0.3, 0.8], [0.2, 0.9, -1.1]]),)", wrt=(0,)))

CASES.append(Case(
    name="callee_copies_its_parameter_in_a_loop",
    bug="found by `make fuzz` (chunk seed 9): a callee writing into its parameter after `q0 = "
        "q0.copy()` in a loop was reported as writing into the caller's array (callee_writes.py "
        "was flow-insensitive)",
    source='''
import math

import numpy as np


K0 = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


def h0(q0, d):
    if d <= 0:
        return q0
    return q0 + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0):
    for e20 in K0:
        v21 = 0.1
        q0 = q0.copy()
        q0 /= 2.0 + np.cos(q0)
    return q0.copy()


def f(s, P):
    v0 = np.dot(P['a'], h1(P['a']))
    return v0
''',
    args="(0.0, {'a': np.array([0.0, 0.0])})", wrt=(0,)))

CASES.append(Case(
    name="callee_copies_its_parameter_in_a_branch",
    bug="found by `make fuzz` (chunk seed 12): as callee_copies_its_parameter_in_a_loop, the copy "
        "and the write in an `else` branch",
    source='''
import math

import numpy as np


C0 = 0.1


def h0(q0, q1):
    if q0[-2] > 0.0:
        v10 = q0.copy()
    else:
        q1 = q1.copy()
        q1 /= 2.0 + np.cos(q1)
    return np.sum(q1)


def h1(q0, d):
    if d <= 0:
        return q0
    return q0 + 0.5 * h1(q0 * 0.5 + q0, d - 1)


def h2(q0, d):
    if d <= 0:
        return np.ones(2)
    return np.ones(2) + 0.5 * h2(q0 * 0.5 + q0, d - 1)


def f(A, P, n):
    v0 = A[:, -3].copy()
    def g1(t2):
        return A[-2]
    v3 = g1(P['a']) + g1(h0(v0, A[0]))
    return np.sum(v3)
''',
    args="(np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), {'a': 0.0}, 0)", wrt=(1,)))

CASES.append(Case(
    name="callee_copies_its_parameter_in_a_loop_of_zero_trips",
    bug="found by `make fuzz` (chunk seed 23): as callee_copies_its_parameter_in_a_loop, over "
        "range(0)",
    source='''
import math

import numpy as np


C0 = 0.1


def h0(q0):
    for i in range(0):
        q0 = q0.copy()
        q0 /= 2.0 + np.cos(q0)
    return q0.copy(), np.ones(3)


def f(s, t, r, w, P):
    v0, v1 = h0(w)
    v2 = w[-2]
    return v2
''',
    args="(0.0, 0.0, 0.0, np.array([0.0, 0.0]), {'a': np.array([0.0, 0.0])})", wrt=(0,)))

CASES.append(Case(
    name="callee_adds_an_element_to_itself",
    bug="found by `make fuzz` (chunk seed 18): `v, w = q0[i, j], 0.1; v += v` was taken for a "
        "write into q0 once callee_writes.py followed tuple assignments (it does not again)",
    source='''
import math

import numpy as np


def h0(q0):
    v10, v11 = q0[-2, -3], 0.1
    v10 += v10
    return v11


def f(s, t, A, n):
    v0 = s + h0(A)
    return v0 + np.sum(A)
''',
    args="(0.0, 0.0, np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), 0)", wrt=(0,)))

CASES.append(Case(
    name="callee_returns_a_parameter_twice",
    bug="found by `make fuzz` (chunk seed 89): `return q0, q0` in a callee that is not inlined "
        "added no gradient (reverse.py dropped the seed's sum d_result[0] + d_result[1])",
    source='''
import math

import numpy as np


C0 = 0.1


def h0(q0, q1):
    return q0, q0


def f(w, P):
    v0, v1 = h0(P['a'], q1=np.ones(3))
    return v1
''',
    args="(np.array([0.0, 0.0]), {'a': 0.0})", wrt=(1,)))

CASES.append(Case(
    name="callee_divides_its_parameter_given_a_number",
    bug="found by `make fuzz` (chunk seed 85): a callee doing `q0 /= ...` was said to write "
        "into the caller's array when given a number (callee_writes.py now says from how many "
        "dimensions a write is in place; aliases.py compares with the argument's)",
    source='''
import math

import numpy as np


C0 = 0.1


def h0(q0, d):
    if d <= 0:
        return q0.copy()
    return q0 + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0=0.5):
    v20 = np.ones(2)
    q0 /= 2.0 + np.cos(q0)
    def g21(t22):
        return np.ones(3)
    v23 = g21(q0) + g21(0.1)
    return v23.copy()


def f(s, t):
    m0 = np.zeros(2)
    v1 = m0[np.array([1, 1])].copy()
    v2 = t
    s, t = t, s
    def g3(t4):
        return m0
    v5 = g3(s) + g3(s)
    c6 = 0
    while c6 < 1:
        c6 = c6 + 1
        v7 = h1(s if s > 0.0 else v1[-2])
    return np.sum(v5)
''',
    args="(0.0, 0.0)", wrt=(0,)))

CASES.append(Case(
    name="callee_adds_to_an_element_it_read",
    bug="found by `make fuzz` (chunk seed 163): `v = q0[-2, -3]; v += v` writes into q0 "
        "only if q0 has 3 dimensions; the caller passes a 2-D array",
    source='''
import math

import numpy as np


K0 = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


def h0(q0, q1, q2):
    v10 = 0.1
    m11 = np.zeros(2)
    for i in range(0):
        v12 = q1.copy()
        v10 = q0[-2, -3]
        v10 += v10
    return K0.copy()


def f(s, t, P, n):
    def g0(t1):
        return K0[-2, -3]
    v2 = g0(K0) + g0(h0(K0, P['c'], q2=P['c']))
    return v2
''',
    args="(0.0, 0.0, {'a': 0.0, 'b': 0.0, 'c': np.array([0.0, 0.0])}, 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_29000026",
    bug="found by `make fuzz` (chunk seed 29000026): Unsupported: "
        "InternalError: transforming f failed: AttributeError: 'NoneT",
    source='''
import math

import numpy as np


K0 = np.array([0.0, 0.0])


def h0(q0, d):
    if d <= 0:
        return q0
    return q0 + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0=0.5):
    return q0


def f(A, u, n):
    v0 = u.copy()
    for i in range(0):
        for j in range(0):
            u[:] = u
            v1 = K0.copy()
            u += A[-2]
        A /= 2.0 + np.cos(A)
    else:
        v2 = K0.copy()
    return np.sum(v0) + np.sum(K0) + np.sum(u)
''',
    args="(np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), np.array([0.0, 0.0, 0.0]), 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_37000037",
    bug="found by `make fuzz` (chunk seed 37000037): GradientMismatch: "
        "d/ds: relative error 3.00e-04 (`for e3 in v2:` read the v2 its body rebinds, not the "
        "array the loop started with; a bug older than issue 20)",
    source='''
import math

import numpy as np


C0 = 0.1


K0 = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


def h0(q0, d):
    if d <= 0:
        return q0
    return q0 + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0, d):
    if d <= 0:
        return 0.1
    return 0.1 + 0.5 * h1(q0 * 0.5 + q0, d - 1)


def f(s, w, A, P, n):
    v0, v1 = s, s
    A[-2] = s
    v2 = A.copy()
    for e3 in v2:
        v2 = np.sin(np.outer(w, e3))
    return np.sum(v2)
''',
    args="(0.0, np.array([0.0, 0.01]), np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), "
         "{'a': np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])}, 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_41000006",
    bug="found by `make fuzz` (chunk seed 41000006), from a change of this session (the shape "
        "of a temporary read from a name bound on one path only): Crash: "
        "Python: UnboundLocalError: cannot access local variable 'g3_",
    source='''
import math

import numpy as np


def f(u, n):
    v0 = 0.1
    if v0 > 0.0:
        v1 = v0
    else:
        v2 = v0
        def g3(t4):
            return v0
        v5 = g3(u) + g3(u)
    return v0 + np.sum(np.sin(u))
''',
    args="(np.array([0.0, 0.0, 0.0]), 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_43000050",
    bug="found by `make fuzz` (chunk seed 43000050): JitMismatch: Numba folded the test "
        "`v0 > 0.0` (v0 = 0.1 there, rebound later) and pruned the branch that keeps `_w_0`, "
        "which the backward sweep reads: UnsupportedError: Unsupported assignment "
        "encountered: Undefined",
    source='''
import math

import numpy as np


def f(w, P, n):
    v0 = 0.1
    if v0 > 0.0:
        v1 = v0
    else:
        v2 = v0
        w = w.copy()
    for i in range(0):
        v3 = np.ones(3)
    else:
        c4 = 0
        while c4 < 1:
            c4 = c4 + 1
            v0 = v0
    return v0
''',
    args="(np.array([0.0, 0.0]), {'a': np.array([0.0, 0.0])}, 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_59000058",
    bug="found by `make fuzz` (chunk seed 59000058), older than the session that found it: "
        "GradientMismatch: the backward sweep put back the elements `A[i % 2, -3] = s` "
        "overwrote at the index of the last trip (`_t2`, not kept), so `w @ A` saw a wrong A",
    source='''
import math

import numpy as np


def f(s, A, t, w, n):
    v0 = np.where(A[-2] > 0.0, (w @ A), s)
    for i in range(4):
        A[i % 2, -3] = s
    return np.sum(v0)
''',
    args="(0.0, np.array([[0.01, 0.0, 0.0], [0.0, 0.0, 0.0]]), 0.0, np.array([0.0, 0.0]), 2)",
    wrt=(3,)))

CASES.append(Case(
    name="fuzz_61000015",
    bug="found by `make fuzz` (chunk seed 61000015), older than the session that found it: "
        "JitMismatch: Numba folded the `while` test `v2 > 0.9` (v2 = C0 = 0.2 there) and "
        "pruned the body that sets `_result`: UnsupportedError: Undefined",
    source='''
import math

import numpy as np


C0 = 0.2


C1 = 1.9


def h0(q0, d):
    if d <= 0:
        return np.ones((2, 3))
    if q0[-3] > -0.4:
        v10 = np.ones((2, 3))
    else:
        v11 = d * 0.25
    return np.ones((2, 3)) + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0, d):
    if d <= 0:
        return d * 0.25
    m20 = np.zeros_like(q0[:, -3])
    return (d * 0.25) + 0.5 * h1(q0 * 0.5 + q0, d - 1)


def h2(q0, d):
    if d <= 0:
        return np.ones(3)
    m30 = np.zeros(3)
    v31 = sum(1.1 for e32 in range(0) if d == 0)
    return m30 + 0.5 * h2(m30[0:2] * 0.5 + q0, d - 1)


def f(s, t, u, w, P, n):
    v0 = np.cumsum(w)
    s, t = t, s
    v1 = C0
    v2 = sum(np.prod(P['b'][np.array([2, 0, 0])]) for e3 in range(len(P['b'])))
    if n % 2 == 0:
        for e4 in (w, v0):
            v5 = np.concatenate((np.abs(P['a'][:, -1]), u[::-1][2:]))
            v6 = np.concatenate((u[:2], P['a'][1][2:]))
    elif h1(P['a'][::-1], 3) >= 0.0:
        v1, v2 = v2, v1
        c7 = 0
        while c7 < 4 and v2 > 0.9:
            c7 = c7 + 1
            if v2 < 0.5:
                return v2 + v1
            v8 = P['a'][n % 2].copy()
    else:
        v9 = np.sum([np.outer(w, u[np.array([2, 0, 0])]) for e10 in v0])
        g11 = lambda t12: 1.9  # noqa: E731
        v13 = g11(np.abs(0.7)) + g11(t * v1)
    return v2
''',
    args="(0.85, 0.75, np.array([0.64, 1.26, -1.42]), np.array([1.26, 1.42]), "
         "{'a': np.array([[-1.31, -0.74, 0.08], [0.93, 1.5, -1.12]]), "
         "'b': np.array([1.02, -0.45, -0.13]), 'c': 0.47}, 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_67000013",
    bug="found by `make fuzz` (chunk seed 67000013): Crash: "
        "Python: IndentationError: expected an indented block after '",
    source='''
import math

import numpy as np


def f(s):
    if s > 0.0:
        s = s
    return s
''',
    args="(0.01,)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_73000045",
    bug="found by `make fuzz` (chunk seed 73000045): JitMismatch: "
        "Numba could not compile it: s2sad: Numba could not compile t",
    source='''
import math

import numpy as np


def f(w):
    for i in range(0):
        m0 = np.zeros(2)
        v1 = w.copy()
        for e2 in (w, w):
            v3 = 0.1
            if v3 > 0.1:
                return v3
    return np.sum(w)
''',
    args="(np.array([0.0, 0.0]),)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_89000051",
    bug="found by `make fuzz` (chunk seed 89000051): ForwardMismatch: "
        "jvp tangent vs reverse gradient: relative error 3.58e-01",
    source='''
import math

import numpy as np


def f(s, t, r, A):
    v0 = A[:, -3] + s
    A[-2, -3] = s
    return np.sum(v0)
''',
    args="(0.0, 0.0, 0.0, np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))", wrt=(3,)))

CASES.append(Case(
    name="fuzz_89000045",
    bug="found by `make fuzz` (chunk seed 89000045): Crash: "
        "Python: IndentationError: expected an indented block after '",
    source='''
import math

import numpy as np


K0 = np.array([0.0, 0.0])


def f(u, v):
    c0 = 0
    while c0 < 1 and u[-3] > 0.0:
        c0 = c0 + 1
        u = u[np.array([2, 0, 0])].copy()
        if (c0 * 0.25) > 0.0:
            u = u.copy()
    return np.sum(K0)
''',
    args="(np.array([0.01, 0.0, 0.0]), np.array([0.0, 0.0, 0.0]))", wrt=(0,)))

CASES.append(Case(
    name="fuzz_97000017",
    bug="found by `make fuzz` (chunk seed 97000017): Unsupported: "
        "UnsupportedError: /tmp/s2sad-fuzz-whd2g7wl/fuzz_b05c8641f618",
    source='''
import math

import numpy as np


def h0(q0, d):
    if d <= 0:
        return q0
    return q0 + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def f(s, P, n):
    v0 = s
    v1 = s
    for i in range(0):
        v0, v1 = v1, v0
        v2 = s
        s += h0(s, 0)
    else:
        v3 = s
    return v1
''',
    args="(0.0, {'a': 0.0}, 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_97000040",
    bug="found by `make fuzz` (chunk seed 97000040): Unsupported: "
        "UnsupportedError: /tmp/s2sad-fuzz-whd2g7wl/fuzz_3fc607c31b96",
    source='''
import math

import numpy as np


C0 = 1.1


def h0(q0, d):
    if d <= 0:
        return np.ones((2, 3))
    c10 = 0
    while c10 < 1 and q0[-3] > -0.9:
        c10 = c10 + 1
        v11 = 0.8
        v12 = q0.copy()
    v13 = q0.copy()
    return np.ones((2, 3)) + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0, d):
    if d <= 0:
        return q0.copy()
    return q0 + 0.5 * h1(q0 * 0.5 + q0, d - 1)


def h2(q0, d):
    if d <= 0:
        return 0.1
    v30 = np.ones((2, 3))
    return v30[-2, -3] + 0.5 * h2(q0 * 0.5 + q0, d - 1)


def f(A, w):
    v0 = C0
    v1, v2 = v0, A[-2, -3]
    v2 = v0 if np.sum(A[::-1]) >= 0.3 else (w[np.array([1, 1])] @ w[np.array([1, 1])])
    if A[1][-3] > 0.1 and A[0][-2] < 0.5:
        if pow(v1, 2) >= 0.3:
            v3 = A[1][-2]
    elif A[1, -2] >= 0.7 and np.min(A) < -0.3:
        if (C0 if v1 <= 0.1 else 1.0) <= -0.9:
            v4 = A.copy()
            v2 = abs(h2(A[-2], 0))
            v2 /= 2.0 + np.cos(math.asinh((v0 if w[-1] < 0.5 else A[-1, 2])))
    v0, v1 = v1, v0
    c5 = 0
    while c5 < 1:
        c5 = c5 + 1
        c6 = 0
        while c6 < A.shape[0]:
            c6 = c6 + 1
            v1 += v2
    return v2 + v1
''',
    args="(np.array([[1.48, 1.41, -0.38], [1.13, -0.59, 0.62]]), np.array([0.44, 0.22]))",
    wrt=(0,)))


CASES.append(Case(
    name="inlined_callee_of_an_inlined_callee",
    bug="h2 inlined into h3 carried a statement h1 replaced in h2 (its `# grad of:` origin): "
        "that statement was not moved to h2's lines in h3's source, so writing the comment "
        "looked it up in h3's source: InternalError, IndexError in parse.segment",
    source='''
import math

import numpy as np


def h1(u, w):
    acc = 0.0
    y1 = w * np.sin(np.tanh(np.dot(u, u)) + u[0])
    acc += math.sqrt(1.0 + 0.95 * 0.95) * (-1.07)
    s1 = np.sin(np.max(y1) * y1[2])
    return 0.45 * s1 - 0.35 * np.sum(u)


def h2(u, p):
    acc = 0.0
    if u[0] <= -0.79:
        acc -= p - 1.04 * p
    acc += 0.47 * np.tanh(h1(u, u))
    for i in range(3, -1, -1):
        acc *= 0.65
        if (0.042 * (u @ u)) ** 2 > 0.42:
            for j in range(1, 4):
                acc /= 2.0 + np.cos(np.sin(np.square(0.5 * u[j - 1]) - (p + u[-2])))
            if np.max(u) >= -0.22:
                s1 = np.tanh(p + acc) + np.tanh(acc + np.dot(u, u))
                s2 = h1(0.474 * np.sqrt(1.0 + u * u), u)
                acc += 0.29 * np.sin(s1)
                acc += 0.43 * np.tanh(s2)
        else:
            for j in range(3, 0, -1):
                y1 = np.sin(u + u)
                acc += np.tanh(np.mean(u[1::2]))
                acc += 0.76 * np.tanh(np.dot(y1, y1))
    return acc - 0.7 * np.sum(u)


def h3(u, p):
    acc = 0.0
    s1 = h2(np.sin(u[1] * u), 1.07)
    acc = np.tanh(s1 - u @ u)
    return 0.25 * (p - np.tanh(s1) * u) + 0.3 * acc


def f(x, a):
    y1 = h3(x, 0.7 - a)
    s1 = a + 0.31 * y1[0]
    return s1 - 1.04 * np.sum(y1)
''',
    args="(np.array([-1.19, 0.29, -0.38, -1.42]), 1.398)", wrt=(0, 1)))

CASES.append(Case(
    name="fuzz_145",
    bug="found by `make fuzz` (chunk seed 145): JitMismatch: "
        "Numba could not type `_result`: a while test on a parameter ",
    source='''
import math

import numpy as np


C0 = 0.1


def h0(q0, d):
    if d <= 0:
        return np.ones(2)
    return np.ones(2) + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def f(s):
    s = C0
    v0 = np.sum([np.ones(2) for e1 in range(0)])
    c2 = 0
    while c2 < 1 and s > 0.1:
        c2 = c2 + 1
        s, v0 = v0, s
        if s > 0.0:
            return v0
    return v0
''',
    args="(0.0,)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_160",
    bug="found by `make fuzz` (chunk seed 160): JitMismatch: "
        "NameError `_stack_s`: a room check outlived its tapes (Numba",
    source='''
import math

import numpy as np


C0 = 0.9


def h0(q0, d):
    if d <= 0:
        return q0
    v10 = q0
    return q0 + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def h1(q0, q1, q2=0.5):
    q2 += 0.5
    v20 = 0.3
    return np.ones((2, 3))


def h2(q0, d):
    if d <= 0:
        return h0(1.7, 0)
    v30 = q0.copy()
    return (d * 0.25) + 0.5 * h2(q0 * 0.5 + q0, d - 1)


def f(w, s, A, B, P, n):
    w = w.copy()
    if not n > 1:
        B[:, -3] += h0((np.square(s) + 1.0) ** B[0, 2], 2)
        def g0(t1):
            return A[::-1] ** 2
        v2 = g0(A) + g0(A[::-1] if P['a'] <= -1.0 else B)
    elif np.sum(B) < -0.2:
        A[n, -3] += B[0, 2] if B[1, -2] >= 0.9 else (C0 if np.var(B[:, 2]) < -0.4 else (n * 0.25))
        if (A[1, 0] * (n * 0.25)) >= 0.8:
            A = (w @ A[:, -1]) / (2.0 + np.cos(A[::-1]))
    else:
        c3 = 0
        while c3 < B.shape[1] and B[1][1] > 0.7:
            c3 = c3 + 1
            v4 = np.sum(np.where(B > -0.9, B[::-1], B[0][-1]), axis=1)
            s = (B[-2] @ B[1]) if h2(B[::-1], 0) >= 0.9 else math.pow(math.cos(B[n, n]) + 2.0, 0.5)
            m5 = np.zeros(3)
        B[:, 1] += w[np.array([1, 1])]
    A[0, 2] *= 1.6
    v6 = sum(P['a'] for e7 in range(n + 1))
    s /= 2.0 + np.cos(abs(A[0, -2]) * np.dot(A[0], B[-1]))
    v8 = B[:, -3].copy()
    return np.sum(v8)
''',
    args=("(np.array([-1.49, 0.82]), -0.58, "
          "np.array([[1.31, -0.21, -0.94], [-0.4, -0.28, -0.51]]), "
          "np.array([[0.48, 1.32, -1.5], [0.15, -0.62, 1.48]]), {'a': 0.0}, 0)"),
    wrt=(1,)))

CASES.append(Case(
    name="fuzz_163",
    bug="found by `make fuzz` (chunk seed 163): UnsupportedError: "
        "refused an in-place write: the rank of `u[np.array([2, 0, 0]",
    source='''
import math

import numpy as np


K0 = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


def h0(q0, q1, q2):
    v10 = 0.1
    m11 = np.zeros(2)
    for i in range(0):
        v10 += v10
        v12 = K0[-2].copy()
        v10 = q0[-2, -3]
    return K0.copy()


def f(w, u, v, x3):
    v0 = 0.1
    v1 = K0.copy()
    if np.sin(v0) > 0.0:
        v2 = v0
        v1 = np.sin(np.maximum(K0, u[np.array([2, 0, 0])]))
        v3 = np.sin(h0(v1, w, q2=w))
    return np.sum(v1)
''',
    args=("(np.array([0.0, 0.0]), np.array([0.0, 0.0, 0.0]), np.array([0.0, 0.0, 0.0]), "
          "np.array([0.0, 0.0, 0.0]))"),
    wrt=(0,)))

CASES.append(Case(
    name="fuzz_1000030",
    bug="found by `make fuzz` (chunk seed 1000030): JitMismatch: "
        "a comparison's bool array kept on a float64 tape (Numba, JIT",
    source='''
import math

import numpy as np


def f(A, w, s, P):
    v0 = np.sum([np.where(w > 0.0, w, w) for e1 in range(0) if s > 0.0])
    return v0
''',
    args="(np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), np.array([0.0, 0.0]), 0.0, {'a': 0.0})",
    wrt=(1,)))

CASES.append(Case(
    name="fuzz_1000075",
    bug="found by `make fuzz` (chunk seed 1000075): UnsupportedError: "
        "refused an in-place write: the kinds of a tuple a user funct",
    source='''

import numpy as np


C0 = 0.1


C1 = 0.1


def h0(q0, q1=0.5):
    for i in range(0):
        v10 = q1
    v11 = np.ones(3)
    q1 += q1
    return q1, q1


def f(s, t, u, n):
    v0, v1 = h0(u[0:2], q1=s)
    v2 = s
    s += t
    c3 = 0
    while c3 < 1:
        c3 = c3 + 1
        v4, v5 = h0(u[0:2], v1)
    return v2
''',
    args="(-1.44, 0.0, np.array([0.0, 0.0, 0.0]), 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_2000004",
    bug="found by `make fuzz` (chunk seed 2000004): GradientMismatch: "
        "a wrong gradient: numpy.flip's view of an array written in p",
    source='''
import math

import numpy as np


def h0(q0, d):
    if d <= 0:
        return np.ones(2)
    return np.ones(2) + 0.5 * h0(q0 * 0.5 + q0, d - 1)


def f(s, w, n):
    w[-2] = np.prod(np.flip(w))
    return np.sum(w)
''',
    args="(0.0, np.array([0.01, 0.0]), 0)", wrt=(1,)))

CASES.append(Case(
    name="fuzz_2000025",
    bug="found by `make fuzz` (chunk seed 2000025): UnsupportedError: "
        "a loop over a container tried and left as a loop left its fr",
    source='''
import math

import numpy as np


def f(u, A, P):
    c5 = 0
    while c5 < A.shape[0]:
        c5 = c5 + 1
        for j in range(3 - 1, -1, -1):
            if not c5 % 2 == 0:
                break
            if c5 == 3:
                continue
            if np.dot(P[2], P[2]) < -0.2:
                return np.sum(P[2]) + np.sum(P[1]) + np.sum(np.sin(P[0]))
        if math.pow(math.cos(P[0][-1]) + 2.0, 0.5) < -0.6:
            break
    return np.sum(u * u) + np.sum(P[2] * P[0][0])
''',
    args=("(np.array([1.28, -0.91, -0.69]), "
          "np.array([[1.06, -1.48, -1.43], [-1.24, 0.2, -0.75]]), "
          "(np.array([-1.23, -1.01]), np.array([[-1.5, 1.02, -0.15], [1.28, -1.36, 1.49]]), "
          "np.array([1.26, 0.54, -1.06])))"),
    wrt=(0, 2)))

CASES.append(Case(
    name="fuzz_2000196",
    bug="found by `make fuzz` (chunk seed 2000196): ForwardMismatch: the tangent of "
        "`q2[:, -3] + q0` (q0 has none) came back from jvp_h0 as a view of dA, and the tangent "
        "of the caller's later `A[-2, -3] = s` changed it (1.0, not 2.0)",
    source='''
import numpy as np


def h0(q0, q1, q2):
    return q0, q2[:, -3] + q0


def f(A, s, P, n):
    v0, v1 = h0(s, s, q2=A)
    A[-2, -3] = s
    return np.sum(v1)
''',
    args="(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 0.3, {'a': 0.0}, 0)", wrt=(0,)))

CASES.append(Case(
    name="fuzz_2000135",
    bug="found by `make fuzz` (chunk seed 2000135): Numba could not compile it (JIT fallback): "
        "`_returned = True` then `if _returned: break` at the end of a while body; Numba folded "
        "the test, pruned the back edge and left `_t4` (set in a branch of the body, read by "
        "the backward sweep) untyped",
    source='''
import numpy as np


def f(w, P):
    for i in range(0, 5, 2):
        c3 = 0
        while c3 < 4 and i % 2 == 0:
            c3 = c3 + 1
            v4 = (i * 0.25) if np.prod(w) <= -0.8 else P['b'][i % 2][0]
            if not i > 1:
                return v4
    return np.sum(P['b'] * P['b'])
''',
    args=("(np.array([0.06, -0.81]), {'a': -0.42, 'b': np.array([[0.57, 1.28, -0.52], "
          "[-0.71, 1.28, -0.5]]), 'c': np.array([-1.16, -1.49, 1.24])})"),
    wrt=(1,)))
