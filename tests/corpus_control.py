"""Functions with control flow and mutation the reverse mode must differentiate (branches, loops,
early returns, recursion, in-place updates and indexed writes).

Each entry of CASES: (function, argument maker(rng), wrt). Inputs stay inside each function's
domain, and every branch condition, loop exit and break test stays well away from its threshold
at the generated inputs, so a finite-difference perturbation never changes the path taken. The
makers of the branch cases steer their inputs so that seeds 0..3 between them reach every arm.
"""
import math

import numpy as np


# ---- helpers (module-level user functions called from branches, loops and cases) ----------------

def square(u):
    return u * u


def bump(s, y):
    return s * math.tanh(y) + math.sin(s)


def soft(v):
    return v / (1.0 + v * v)


def decay_rhs(t, y, k):
    return -k * y + math.sin(t)


def oscillator_rhs(z, omega):
    d = np.zeros(2)
    d[0] = z[1]
    d[1] = -omega * omega * z[0] - 0.1 * z[1]
    return d


# ---- branches -------------------------------------------------------------------------------

def if_elif_else(x):
    # if/elif/else chain on a scalar
    if x < -1.0:
        y = x * x + 2.0 * x
    elif x < 1.0:
        y = math.sin(x) * 3.0
    else:
        y = math.exp(0.5 * x) - x
    return y * x


def nested_if(x, y):
    # nested if/else, both levels data-dependent
    if x > 0.0:
        if y > 0.0:
            z = x * y
        else:
            z = x - y * y
    else:
        if y > x:
            z = math.cos(x * y)
        else:
            z = x * x * y
    return z + x


def if_on_array(x):
    # branch on a reduction of an array, array values assigned in both arms
    s = np.sum(x)
    if s > 0.0:
        y = np.sin(x) * s
    else:
        y = np.exp(x) - x * x
    return np.sum(y * y)


def conditional_expression(x, y, v):
    # `a if c else b` on scalars and on arrays, and inside the return
    a = x * y if x > y else x + y
    w = v * a if np.sum(v) > 0.0 else np.cos(v)
    return np.sum(w) + (a * a if a > 0.0 else -a)


def bool_ops(x, y, z):
    # `and`, `or`, `not` in conditions
    if x > 0.0 and y > 0.0 or not z < 1.0:
        r = x * y + z
    elif not x > 0.0 and y < 0.0:
        r = x - y * z
    else:
        r = math.sin(x + y) * z
    return r


# ---- for loops ------------------------------------------------------------------------------

def range_n(x, n):
    # for over range(n), n an int parameter; the counter is added to an active value
    s = 0.0
    for i in range(n):
        s = s * x + i
    return s + x * n


def range_bounds(x, lo, hi):
    # for over range(a, b) with int parameters; indices computed from the counter
    s = 0.0
    for i in range(lo, hi):
        s += x[i] * x[i - 1] - 0.5 * x[i - lo]
    return s


def range_step(x):
    # for over range(a, len(x), step) with a positive step
    p = 1.0
    for i in range(1, len(x), 3):
        p = p * (1.0 + 0.5 * math.sin(x[i]))
    return p + np.sum(x[1::3])


def range_negative_step(x):
    # for over range(len(x) - 1, 0, -2): computed bounds, negative step
    s = 0.0
    for i in range(len(x) - 1, 0, -2):
        s = s * 0.5 + x[i] * x[i - 1]
    return s


def cell_lookup(x, table):
    """A table interpolated at a point that moves (issue 48): the cell's index is an int
    computed in the loop, kept for the backward sweep as an int."""
    n = table.shape[0]
    s = 0.0
    for _ in range(30):
        i = min(max(int(np.floor(x)), 0), n - 2)
        w = x - i
        v = (1.0 - w) * table[i] + w * table[i + 1]
        x = x + 0.05 * v
        s = s + v * v
    return s


def loop_counter_arithmetic(x):
    # int loop counter used in arithmetic with an active float (x * i, x ** i, / (i + 1))
    s = 0.0
    for i in range(5):
        s += x * i + x ** i / (i + 1)
    return s


def loop_rows(A, v):
    # for over the rows of a 2-D array
    total = 0.0
    for row in A:
        h = np.tanh(row * v)
        total = total + np.dot(h, h) + row[0]
    return total


def loop_tuple(x, y, z):
    # for over a tuple of arrays, with an int counter weighting each
    acc = 0.0
    k = 1
    for a in (x, y, z):
        acc = acc + k * np.sum(np.sin(a) * a)
        k += 1
    return acc


def loop_list(x, y, z):
    # for over a list of arrays built in the function; an array accumulator
    arrays = [x, y * 2.0, np.cos(z)]
    acc = np.zeros_like(x)
    for a in arrays:
        acc = acc * 0.5 + a * a
    return np.sum(acc)


# ---- while loops ----------------------------------------------------------------------------

def while_scalar(x):
    # while with a data-dependent exit (1 or 4 iterations at the generated inputs)
    t = x
    n = 0
    while t < 5.0:
        t = t * 1.5 + x
        n += 1
    return t * n + x


def while_array(x):
    # while on a reduction of an array (1 or 2 iterations at the generated inputs)
    y = x * 1.0
    count = 0
    while np.sum(y) < 5.0:
        y = y + x
        count += 1
    return np.sum(y * y) + count * np.sum(x)


def newton_cubic(x):
    # Newton iteration in a while loop: y ** 3 + y = x, until |step| < 1e-12 (capped)
    y = x / 2.0
    step = 1.0
    it = 0
    while math.fabs(step) > 1e-12 and it < 50:
        step = (y ** 3 + y - x) / (3.0 * y ** 2 + 1.0)
        y = y - step
        it += 1
    return y * y + y


def series_until_small(x):
    # while True with a data-dependent break: exp(x) by its Taylor series
    term = 1.0
    total = 1.0
    k = 1
    while True:
        term = term * x / k
        total = total + term
        if math.fabs(term) < 1e-18:
            break
        k += 1
    return total


# ---- break, continue, for-else, nested loops --------------------------------------------------

def break_search(x):
    # break after a data-dependent test
    s = 0.0
    for i in range(len(x)):
        if x[i] > 1.5:
            s = s * x[i]
            break
        s = s + x[i] * x[i]
    return s


def continue_skip(x):
    # continue skips negative entries
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0.0:
            continue
        s = s + math.sqrt(x[i]) * i
    return s + np.sum(x)


def for_else(x, y):
    # for ... else: the else arm runs only when the loop did not break
    s = 1.0
    for i in range(len(x)):
        if x[i] * y > 2.0:
            s = s + x[i]
            break
        s = s * (1.0 + 0.1 * x[i])
    else:
        s = s * y - 1.0
    return s


def nested_loops_break(A):
    # nested loops, break in the inner loop only
    total = 0.0
    for i in range(len(A)):
        for j in range(len(A[0])):
            if A[i, j] > 1.0:
                break
            total = total + A[i, j] * (i + 1)
        total = total * 0.9 + A[i, 0]
    return total


# ---- returns --------------------------------------------------------------------------------

def piecewise_early_return(x):
    # piecewise function with early returns
    if x < -1.0:
        return -2.0 * x - 1.0
    if x < 1.0:
        return x * x
    return math.log(x) + 1.0


def return_in_loop(x):
    # return from inside a loop, another return after it
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
        if s > 4.0:
            return s * i + math.sin(x[0])
    return -s


def returns_with_arrays(x, w):
    # if/elif early returns of array reductions, fall-through return
    m = np.mean(x)
    if m > 0.5:
        return np.sum(np.sin(x * w))
    elif m < -0.5:
        return np.sum(np.exp(x) * w)
    v = x * w
    return np.dot(v, v)


# ---- calls and recursion --------------------------------------------------------------------

def helper_in_loop(x, y):
    # helper functions called from a loop and from its branches (int and data conditions)
    s = x
    for i in range(6):
        if i < 3:
            s = s + square(x * i)
        elif s > 0.0:
            s = bump(s, y)
        else:
            s = s - square(y)
    return s


def helper_in_branch(x, v):
    # helper functions on arrays and scalars called from the arms of a data-dependent branch
    if np.sum(v) > 0.0:
        w = soft(v) * x
    else:
        w = soft(v * x) + square(x)
    return np.sum(w * w) + square(x)


def recursive_power(x, n):
    # recursion on an int parameter
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def recursive_halves(x):
    # recursion on the even and odd halves of an array (step slices)
    if len(x) == 1:
        return math.sin(x[0]) + x[0] * x[0]
    return recursive_halves(x[::2]) + 0.5 * recursive_halves(x[1::2])


# ---- mutation -------------------------------------------------------------------------------

def augmented_assign(x, a):
    # +=, *=, -=, /= on a scalar and on a local array
    s = x
    s += x * x
    s *= 1.5
    y = a * 1.0
    y += a * s
    y *= x
    y -= 0.5
    y /= 2.0
    return np.sum(y * y) + s


def mutate_input(x):
    # writes into the input array itself (the caller's array changes in plain Python)
    x[0] = x[0] * x[1]
    x[-1] += x[0]
    return np.sum(x * x)


def index_accumulate(x):
    # a[i] += v into an array from np.zeros, including a[-1] at i == 0
    a = np.zeros(len(x))
    for i in range(len(x)):
        a[i] += x[i] * x[i - 1]
        a[i - 1] += 0.5 * x[i]
    return np.sum(np.sin(a))


def write_2d(A):
    # a[i, j] writes in nested loops into a 2-D array from np.zeros, then a matrix product
    n = len(A)
    B = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            B[i, j] = A[i, j] * A[j, i] + i * A[i, j]
        B[i, i] += 1.0
    return np.sum(B @ B) / n


def negative_index_write(x):
    # reads and writes at negative indices of a local copy
    y = x * 1.0
    y[-1] = y[-2] * y[0]
    y[-2] += y[-1]
    y[0] = -y[-3]
    return np.sum(np.sin(y)) + y[-1]


def slice_write(x):
    # slice writes: start:stop, open end, step, and a negative step
    y = np.zeros(6)
    y[1:4] = x[0:3] * 2.0
    y[4:] = np.sin(x[4:])
    y[::2] = y[::2] * x[1::2]
    y[4:1:-1] = y[1:4] + x[3:0:-1]
    return np.sum(y * y) + y[0]


def tuple_index_write(A, v):
    # writes with tuple indices: (int, slice), (slice, int), reversed row, (neg, neg) +=
    B = A * 1.0
    B[1, 1:3] = v * B[0, 0:2]
    B[:, 0] = B[:, 1] * 2.0
    B[2, ::-1] = B[0] + B[1]
    B[-1, -1] *= v[0]
    return np.sum(np.tanh(B))


def fancy_index(x):
    # fancy-index reads and writes with int arrays made by np.arange
    even = np.arange(0, len(x), 2)
    odd = np.arange(1, len(x), 2)
    y = np.zeros_like(x)
    y[even] = x[odd] * x[even]
    y[odd] = np.sin(x[even])
    y[even] += x[even]
    return np.sum(y * y) + np.sum(x[odd] * y[even])


def fancy_index_param(x, idx):
    # fancy-index read and write with an int array passed in (a permutation)
    y = x[idx] * x
    z = np.zeros_like(x)
    z[idx] = np.cos(y)
    return np.sum(z * x) + np.sum(x[idx] ** 2)


def batched_skew_scatter(vec, rows, cols, n):
    # m[:, rows, cols] = vec into np.zeros (a batch of skew-symmetric matrices), then m @ m
    m = np.zeros((len(vec), n, n))
    m[:, rows, cols] = vec
    m[:, cols, rows] = -vec
    return np.sum(np.sin(m @ m))


def skew_from_slices(w, n):
    # skew-symmetric matrix built by sliced assignment into np.zeros, bounds computed in a loop
    K = np.zeros((n, n))
    start = 0
    for i in range(n - 1):
        stop = start + n - 1 - i
        K[i, i + 1:] = w[start:stop]
        K[i + 1:, i] = -w[start:stop]
        start = stop
    return np.sum(np.sin(K @ K)) + np.sum(K[0] * K[1])


def overwrite_then_read(x):
    # a value used, then overwritten in place, then the array read again
    y = x * 2.0
    t = np.sum(y * y)
    y[1] = 5.0
    return t + np.sum(y)


def overwrite_in_loop(x):
    # in-place recurrence: each write reads the element written just before
    y = x * 1.0
    for i in range(1, len(y)):
        y[i] = y[i - 1] * 0.5 + np.sin(y[i])
    return np.sum(y * y)


# ---- long loops -----------------------------------------------------------------------------

def rk4_scalar(y0, k):
    # RK4, 1000 steps of dy/dt = -k y + sin(t), helper called in the loop
    h = 0.01
    y = y0
    for i in range(1000):
        t = i * h
        k1 = decay_rhs(t, y, k)
        k2 = decay_rhs(t + h / 2, y + h / 2 * k1, k)
        k3 = decay_rhs(t + h / 2, y + h / 2 * k2, k)
        k4 = decay_rhs(t + h, y + h * k3, k)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y * y + y


def rk4_oscillator(z0, omega):
    # RK4, 1000 steps of a damped 2-D oscillator on arrays
    h = 0.01
    z = z0 * 1.0
    for i in range(1000):
        k1 = oscillator_rhs(z, omega)
        k2 = oscillator_rhs(z + h / 2 * k1, omega)
        k3 = oscillator_rhs(z + h / 2 * k2, omega)
        k4 = oscillator_rhs(z + h * k3, omega)
        z = z + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(z * z) + z[0]


def contractive_recurrence(x, a):
    # 300 iterations of a contractive scalar recurrence
    s = x
    for i in range(300):
        s = 0.5 * a * math.sin(s) + 0.3 * x + 0.01 * math.cos(i * 0.1)
    return s


def local_variable_types(x, v, n):
    # int, float and array locals updated together in a loop
    count = 0
    scale = 0.5
    acc = np.zeros(len(v))
    for i in range(n):
        count = count + 2
        scale = scale * x
        acc = acc + v * scale * count
    return np.sum(acc) + scale * count


# ---- argument makers ------------------------------------------------------------------------

def _pos(rng, *shape):
    return rng.uniform(0.5, 2.0, size=shape) if shape else float(rng.uniform(0.5, 2.0))


def _any(rng, *shape):
    return rng.normal(size=shape) if shape else float(rng.normal())


def _arm(rng, k):
    """Which of k branches to steer the inputs into. Makers draw it first, so that seeds
    0..k-1 take k different arms (for k <= 4) and seeds 0 and 1 always take different ones."""
    return int(rng.integers(0, 113)) % k


def _near(rng, centers, spread):
    """A scalar within spread of one of centers (keeps it away from thresholds between them)."""
    return float(centers[_arm(rng, len(centers))] + rng.uniform(-spread, spread))


def _signed(rng, table):
    """A row of signs from table, chosen by _arm."""
    return table[_arm(rng, len(table))]


def _mul(factors, values):
    return tuple(f * v for f, v in zip(factors, values))


def _add(values, offsets):
    return tuple(v + o for v, o in zip(values, offsets))


# Sign patterns steering the inputs of the branch cases into each arm in turn.
SIGNS2 = ((1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0))
SIGNS3 = ((1.0, 1.0, 1.0), (1.0, -1.0, -1.0), (-1.0, -1.0, 1.0), (-1.0, 1.0, -1.0))
BOOL_OPS_SIGNS = ((1.0, 1.0, 0.0), (-1.0, -1.0, 0.0), (1.0, -1.0, 0.0), (-1.0, 1.0, 2.0))


def _one_big(rng, n, small, big, present=True):
    """n values in small and, if present, one of them (not the first) in big."""
    x = rng.uniform(*small, size=n)
    if present:
        x[rng.integers(1, n)] = rng.uniform(*big)
    return x


def _rows_with_big(rng, rows, cols):
    A = rng.uniform(0.1, 0.5, size=(rows, cols))
    for i in range(rows):
        if rng.uniform() < 0.75:
            A[i, rng.integers(0, cols)] = rng.uniform(1.5, 2.5)
    return A


def _skew_args(rng, batch=2, n=3):
    rows, cols = np.triu_indices(n, 1)
    return _any(rng, batch, len(rows)), rows, cols, n


# Functions Numba is expected not to compile (a guess; they would fall back to Python). The
# forward functions all compile; the two fancy-index cases are here
# because the adjoint of a fancy read is a scatter-add (numpy.add.at), which Numba lacks.
# ---- found by hand while building the transformer ----------------------------------------

def branch_defined_in_loop(x, n):
    s = 0.0
    for i in range(n):
        if (i % 2 == 0) if i < 2 else i > 1:
            t = math.sin(x * i)
            s = s + t * t
        else:
            s = s + x
    return s

def carried_temp(x, n):
    s = 0.0
    t = x
    for i in range(n):
        s = s + t * x
        t = math.cos(t) * x
    return s + t

def nested_saves(x, n):
    for i in range(n):
        y = x
        for j in range(3):
            y = y * 0.5 + math.sin(y)
        x = y * x
    return x

def dup_fancy(x):
    idx = np.array([0, 1, 1, 2, 0])
    return np.sum(x[idx] ** 2)

def rows_inplace(A):
    B = A * 1.0
    for k in range(B.shape[0] - 1):
        B[k + 1] = B[k + 1] + 0.5 * B[k] * B[k]
    return np.sum(B)

def while_array_capped(x):
    y = x * 1.0
    k = 0
    while np.sum(y * y) > 0.1 and k < 50:
        y = y * 0.7
        k = k + 1
    return np.sum(y ** 3)

def early_in_nested(x, n):
    acc = 0.0
    for i in range(n):
        for j in range(n):
            acc = acc + x * i - j * 0.1
            if acc > 3.0:
                return acc * x
    return acc

def accumulate_array(x, n):
    out = np.zeros(3)
    for i in range(n):
        out += x * i
        out[i % 3] *= 1.1 if i > 0 else 1.0
    return np.sum(out * out)

def shadow_param(x, c):
    for i in range(3):
        c = c * x
        x = x + c
    return x * c

def cond_expr_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + (x * x if s < 1.0 else math.sqrt(x))
    return s


NOT_NUMBA = set()   # (batched_skew_scatter's `m @ m` of 3-D arrays compiles: runtime/products.py)

# Functions that write into their input arrays on purpose: in plain Python the caller's arrays
# change, so skip the "inputs unchanged" check for the plain call (not for the gradient).
MUTATES_INPUTS = ("mutate_input",)

def modulo_index(x, n):
    """An index computed with % inside a loop is an int (it was saved as a float)."""
    s = 0.0
    for i in range(n):
        j = i % 3
        s = s + x[j] * x[j] * i
    return s


def gated_recurrence(w, b, xs):
    """Values made fresh in each trip, of one shape whatever the carried state holds, are kept
    in an array of rows; the state, which broadcasts from one element to the shape of b in its
    first trip, stays on a list."""
    state = np.zeros(1)
    total = 0.0
    for t in range(xs.shape[0]):
        gate = np.tanh(w @ xs[t] + b)
        part = gate[:2] * gate[1:3]
        state = 0.5 * state + gate
        total = total + np.sum(part * state[:2]) + np.sum(state * state)
    return total


def growing_slices(x, n):
    """A value kept in a loop whose shape changes every trip (x[:i + 1]) keeps its list."""
    total = 0.0
    for i in range(n):
        head = x[:i + 1]
        total = total + np.sum(np.sin(head) * head)
    return total


def zeros_of_a_slice_in_a_nest(x, n):
    """The gradient of `head`, a slice that grows every trip, starts at zeros of the slice
    made in that trip (the one the inner loop reads), not of the last one."""
    total = 0.0
    for i in range(n):
        head = x[:i + 1]
        s = 0.0
        for j in range(i + 1):
            s = s + np.sin(head[j]) * head[j]
        total = total + s
    return total


def rebinds_its_rows(x, w):
    """`for e in v:` whose body rebinds v goes on over the array it started with."""
    v = x * 1.0
    total = 0.0
    for e in v:
        v = np.sin(np.outer(w, e)) + v[0]
        total = total + np.sum(v * v)
    return total


def rebinds_enumerated(x, w):
    v = x * 1.0
    total = 0.0
    for i, e in enumerate(v):
        v = np.sin(w * e) + v
        total = total + np.sum(v) * i
    for e in reversed(v):
        v = np.cos(w * e) * v
    return total + np.sum(v)


CASES = [
    (if_elif_else, lambda r: (_near(r, (-2.0, 0.0, 2.0), 0.6),), 0),
    (nested_if, lambda r: _mul(_signed(r, SIGNS2), (r.uniform(0.5, 1.0), r.uniform(1.5, 2.0))),
     (0, 1)),
    (if_on_array, lambda r: (_signed(r, (1.0, -1.0)) * _pos(r, 5) * 0.5,), 0),
    (conditional_expression, lambda r: _mul(_signed(r, SIGNS3),
                                            (r.uniform(0.5, 1.0), r.uniform(1.5, 2.0), _pos(r, 4))),
     (0, 1, 2)),
    (bool_ops, lambda r: _add(_mul(_signed(r, BOOL_OPS_SIGNS),
                                   (r.uniform(0.5, 1.5), r.uniform(0.5, 1.5), 1.0)),
                              (0.0, 0.0, r.uniform(-0.5, 0.5))), (0, 1, 2)),
    (range_n, lambda r: (r.uniform(-1.0, 1.0), 6), 0),
    (range_bounds, lambda r: (_any(r, 8), 2, 7), 0),
    (range_step, lambda r: (_any(r, 11),), 0),
    (range_negative_step, lambda r: (_any(r, 9),), 0),
    (loop_counter_arithmetic, lambda r: (r.uniform(-1.0, 1.0),), 0),
    (cell_lookup, lambda r: (r.uniform(1.1, 1.9), _pos(r, 8)), (0, 1)),
    (loop_rows, lambda r: (_any(r, 4, 3), _any(r, 3)), (0, 1)),
    (loop_tuple, lambda r: (_any(r, 3), _any(r, 5), _any(r, 2)), (0, 1, 2)),
    (loop_list, lambda r: (_any(r, 4), _any(r, 4), _any(r, 4)), (0, 1, 2)),
    (while_scalar, lambda r: (r.uniform(*((0.5, 0.6), (2.2, 2.6))[_arm(r, 2)]),), 0),
    (while_array, lambda r: ((1.0, 2.0)[_arm(r, 2)] * r.uniform(0.5, 0.6, size=4),), 0),
    (newton_cubic, lambda r: (_any(r) * 2.0,), 0),
    (series_until_small, lambda r: (r.uniform(-1.0, 1.0),), 0),
    (break_search, lambda r: (_one_big(r, 8, (0.2, 0.8), (2.0, 3.0)),), 0),
    (continue_skip, lambda r: (r.choice([-1.0, 1.0], size=7) * r.uniform(0.3, 1.5, size=7),), 0),
    (for_else, lambda r: (_one_big(r, 6, (0.2, 0.6), (3.0, 4.0), _arm(r, 2) == 0),
                           r.uniform(1.0, 1.2)),
     (0, 1)),
    (nested_loops_break, lambda r: (_rows_with_big(r, 4, 5),), 0),
    (piecewise_early_return, lambda r: (_near(r, (-2.0, 0.0, 2.0), 0.6),), 0),
    (return_in_loop, lambda r: (_one_big(r, 8, (0.3, 0.5), (2.5, 3.0), _arm(r, 2) == 0),), 0),
    (returns_with_arrays, lambda r: ((1.5, 0.0, -1.5)[_arm(r, 3)] + r.uniform(-0.3, 0.3, size=5),
                                     _any(r, 5)), (0, 1)),
    (helper_in_loop, lambda r: (r.uniform(*((0.5, 1.0), (-0.15, -0.1))[_arm(r, 2)]),
                                r.uniform(0.5, 1.0)), (0, 1)),
    (helper_in_branch, lambda r: _mul((1.0, _signed(r, (1.0, -1.0))), (_any(r), _pos(r, 4))),
     (0, 1)),
    (recursive_power, lambda r: (r.uniform(-1.5, 1.5), 5), 0),
    (recursive_halves, lambda r: (_any(r, 7),), 0),
    (augmented_assign, lambda r: (r.uniform(-1.0, 1.0), _any(r, 4)), (0, 1)),
    (mutate_input, lambda r: (_any(r, 5),), 0),
    (index_accumulate, lambda r: (_any(r, 6),), 0),
    (write_2d, lambda r: (_any(r, 3, 3),), 0),
    (negative_index_write, lambda r: (_any(r, 5),), 0),
    (slice_write, lambda r: (_any(r, 6),), 0),
    (tuple_index_write, lambda r: (_any(r, 3, 4), _any(r, 2)), (0, 1)),
    (fancy_index, lambda r: (_any(r, 6),), 0),
    (fancy_index_param, lambda r: (_any(r, 5), r.permutation(5)), 0),
    (batched_skew_scatter, _skew_args, 0),
    (skew_from_slices, lambda r: (_any(r, 6) * 0.5, 4), 0),
    (overwrite_then_read, lambda r: (_any(r, 4),), 0),
    (overwrite_in_loop, lambda r: (_any(r, 6),), 0),
    (rk4_scalar, lambda r: (_any(r), _pos(r)), (0, 1)),
    (rk4_oscillator, lambda r: (_any(r, 2), _pos(r)), (0, 1)),
    (contractive_recurrence, lambda r: (_any(r), r.uniform(-1.5, 1.5)), (0, 1)),
    (local_variable_types, lambda r: (r.uniform(-1.0, 1.0), _any(r, 3), 5), (0, 1)),
    (branch_defined_in_loop, lambda r: (r.uniform(0.3, 0.9), 5), 0),
    (carried_temp, lambda r: (r.uniform(0.2, 0.6), 6), 0),
    (nested_saves, lambda r: (r.uniform(0.2, 0.4), 4), 0),
    (dup_fancy, lambda r: (r.normal(size=3),), 0),
    (rows_inplace, lambda r: (r.normal(size=(4, 3)) * 0.5,), 0),
    (while_array_capped, lambda r: (r.uniform(0.5, 0.9, size=3) * np.array([1.0, -1.0, 1.0]),),
     0),
    (early_in_nested, lambda r: (r.uniform(0.3, 0.4), 5), 0),
    (accumulate_array, lambda r: (r.normal(size=3) * 0.5, 5), 0),
    (shadow_param, lambda r: (r.uniform(0.2, 0.4), r.uniform(0.5, 0.8)), (0, 1)),
    (cond_expr_loop, lambda r: (r.uniform(0.3, 0.45), 6), 0),
    (modulo_index, lambda r: (r.normal(size=3), 7), 0),
    (gated_recurrence, lambda r: (0.5 * r.normal(size=(4, 3)), 0.3 * r.normal(size=4),
                                  r.normal(size=(5, 3))), (0, 1)),
    (growing_slices, lambda r: (r.normal(size=5), 5), 0),
    (zeros_of_a_slice_in_a_nest, lambda r: (r.normal(size=5), 5), 0),
    (rebinds_its_rows, lambda r: (r.normal(size=(3, 2)), r.normal(size=2)), (0, 1)),
    (rebinds_enumerated, lambda r: (r.normal(size=(3, 2)), r.normal(size=2)), (0, 1)),
]
