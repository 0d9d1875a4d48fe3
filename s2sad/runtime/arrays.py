"""Building blocks of the runtime helpers: plain array code that runs as Python and compiles
with Numba (see dispatch.py).

Shapes are walked with an "odometer" multi-index, so one implementation serves every ndim and
memory layout; Numba compiles it to a tight loop. Where that loop only stands in for a NumPy
call Numba lacks (np.sum over several axes), Python runs the NumPy call (`compiled_as`).
"""
import functools

import numpy as np

from .dispatch import (by_type, compiled_as, generate, is_array, is_axis, is_float64, is_int,
                       is_scalar, is_tuple, jitable)


@jitable
def advance(idx, shape, strides, j):
    """Step the C-order multi-index idx over shape; return the moved flat offset j."""
    k = len(idx) - 1
    while k >= 0:
        idx[k] += 1
        j += strides[k]
        if idx[k] < shape[k]:
            return j
        j -= strides[k] * shape[k]
        idx[k] = 0
        k -= 1
    return j


@jitable
def filled(shape, value):
    """New float64 array of shape filled with value."""
    out = np.empty(shape)
    out[...] = value    # Numba compiles this in a tenth of the time of reshape + fill
    return out


# ---- loops written out for a given ndim -------------------------------------------------------
# Numba compiles an explicit loop nest over known ranks in ~0.05 s, where the NumPy calls it
# replaces (np.sum(x, axis), np.outer, the odometer loops above) cost 0.3-1.5 s each on a
# gradient's first call. Each generator returns the Numba side of a `dispatch.loops` pair.

def loop_nest(nd, shape, body):
    """Source lines of `for i0 in range(shape[0]): for i1 ...: body` (body: a list of lines)."""
    lines = [f"{'    ' * k}for i{k} in range({shape}[{k}]):" for k in range(nd)]
    return lines + ["    " * nd + line for line in body]


def indices(nd, first=0):
    """`i0, i1, ...` (nd of them, from i<first>); `()` for none, an empty index."""
    return ", ".join(f"i{first + k}" for k in range(nd)) if nd else "()"


@functools.lru_cache(maxsize=None)
def total_loop(nd, arguments=("g",)):
    """Numba's `float(np.sum(g))` for g of nd dims (g the first of `arguments`): the same
    additions in the same (C) order as Numba's np.sum."""
    g = arguments[0]
    return generate(f"total_{nd}", list(arguments),
                    ["acc = 0.0", *loop_nest(nd, f"{g}.shape", [f"acc += {g}[{indices(nd)}]"]),
                     "return acc"], {})


@functools.lru_cache(maxsize=None)
def fill_loop(arguments, like, nd=None):
    """Numba's `filled(like.shape, float(np.sum(v)))`, v the first of `arguments` (a number
    when `nd` is None, else an array of nd dims), as one function with those parameters (a
    helper calling `filled` would compile one more function)."""
    v = arguments[0]
    lines = [] if nd is None else [
        "acc = 0.0", *loop_nest(nd, f"{v}.shape", [f"acc += {v}[{indices(nd)}]"])]
    lines += [f"out = np.empty({like}.shape)", f"out[...] = {v if nd is None else 'acc'}",
              "return out"]
    return generate("fill", list(arguments), lines, {})


def _normalized_axis(nd):
    """Source lines: `ax`, the int `axis` made non-negative for nd dims (or an error)."""
    return ["ax = axis", "if ax < 0:", f"    ax += {nd}", f"if ax < 0 or ax >= {nd}:",
            "    raise ValueError('axis is out of bounds')"]


def _without_axis(nd, name):
    """`name[0] if 0 < ax else name[1], ...`: the nd - 1 entries of name[0..nd-1] but the
    ax-th (`name` an index prefix such as `i` or `a.shape[`)."""
    close = "]" if name.endswith("[") else ""
    return [f"({name}{p}{close} if {p} < ax else {name}{p + 1}{close})" for p in range(nd - 1)]


@functools.lru_cache(maxsize=None)
def axis_sum_loop(nd, arguments):
    """Numba's `f64(np.sum(t, axis=axis))` for t of nd dims and an int axis, t the first of
    `arguments`: a float for nd == 1, else a new float64 array."""
    t = arguments[0]
    lines = _normalized_axis(nd)
    if nd == 1:
        lines += ["acc = 0.0", f"for i0 in range({t}.shape[0]):", f"    acc += {t}[i0]",
                  "return acc"]
        return generate("axis_sum", list(arguments), lines, {})
    shape = _without_axis(nd, f"{t}.shape[")
    target = ", ".join(_without_axis(nd, "i"))
    lines += [f"out = np.empty(({', '.join(shape)},))", "out[...] = 0.0",
              *loop_nest(nd, f"{t}.shape", [f"out[{target}] += {t}[{indices(nd)}]"]),
              "return out"]
    return generate("axis_sum", list(arguments), lines, {})


@functools.lru_cache(maxsize=None)
def axis_sum_product_loop(nd):
    """`np.sum(a * b, axis=axis)` for float64 a and b of nd >= 2 dims each (broadcast against
    each other: a length 1 repeats) and an int axis, without the array of the products: a new
    float64 array. The products are added in the order np.sum adds them along the axis."""
    lines = _normalized_axis(nd)
    for k in range(nd):   # the broadcast length n<k>; a<k>, b<k>: 0 where a length 1 repeats
        lines += [f"n{k} = max(a.shape[{k}], b.shape[{k}])",
                  f"if a.shape[{k}] not in (1, n{k}) or b.shape[{k}] not in (1, n{k}):",
                  "    raise ValueError('operands could not be broadcast together')",
                  f"a{k} = 1 if a.shape[{k}] == n{k} else 0",
                  f"b{k} = 1 if b.shape[{k}] == n{k} else 0"]
    sizes = "(" + "".join(f"n{k}, " for k in range(nd)) + ")"
    shape = [f"({sizes}[{p}] if {p} < ax else {sizes}[{p + 1}])" for p in range(nd - 1)]
    target = ", ".join(_without_axis(nd, "i"))
    left = ", ".join(f"i{k} * a{k}" for k in range(nd))
    right = ", ".join(f"i{k} * b{k}" for k in range(nd))
    lines += [f"out = np.empty(({', '.join(shape)},))", "out[...] = 0.0",
              *loop_nest(nd, sizes, [f"out[{target}] += a[{left}] * b[{right}]"]),
              "return out"]
    return generate("axis_sum_product", ["a", "b", "axis"], lines, {})


@functools.lru_cache(maxsize=None)
def axis_spread_loop(nd, gnd, arguments):
    """Numba's unreduce for an int axis: g (the first of `arguments`: a number when gnd is None,
    else the reduced array of nd - 1 dims or the keepdims one of nd) copied along the axis to
    the shape of `a` (the second, nd dims), a new float64 array."""
    g, a = arguments[:2]
    lines = _normalized_axis(nd) + [f"out = np.empty({a}.shape)"]
    if gnd is None or gnd == 0:
        value = g if gnd is None else f"{g}[()]"
        return generate("axis_spread", list(arguments), lines + [f"out[...] = {value}",
                                                                 "return out"], {})
    if gnd == nd:     # keepdims: g has 1 on the axis
        shape = [f"(1 if {p} == ax else {a}.shape[{p}])" for p in range(nd)]
        source = ", ".join(f"i{p} * ({p} != ax)" for p in range(nd))
    else:
        shape = _without_axis(nd, f"{a}.shape[")
        source = ", ".join(_without_axis(nd, "i"))
    mismatch = " or ".join(f"{g}.shape[{p}] != {n}" for p, n in enumerate(shape))
    lines += [f"if {mismatch}:",
              "    raise ValueError('unreduce: gradient shape does not match the reduced shape')",
              *loop_nest(nd, f"{a}.shape", [f"out[{indices(nd)}] = {g}[{source}]"]),
              "return out"]
    return generate("axis_spread", list(arguments), lines, {})


@functools.lru_cache(maxsize=None)
def summed_to_loop(gnd, nd, same):
    """Numba's reduce_to(g, like.shape) for g of gnd >= nd >= 1 dims: sum g over its leading
    axes and where `like` has 1 (NumPy's broadcasting undone), as a new float64 array. With
    `same` (gnd == nd), g itself when it has like's shape already."""
    extra = gnd - nd
    lines = []
    for k in range(nd):
        lines += [f"e{k} = 1",
                  f"if like.shape[{k}] != g.shape[{extra + k}]:",
                  f"    if like.shape[{k}] != 1:",
                  "        raise ValueError('unbroadcast: gradient shape is not a broadcast of "
                  "the target shape')",
                  f"    e{k} = 0"]
    if same:    # cheaper to compile than comparing the shape tuples
        lines += [f"if {' + '.join(f'e{k}' for k in range(nd))} == {nd}:", "    return g"]
    target = ", ".join(f"i{extra + k} * e{k}" for k in range(nd))
    lines += ["out = np.empty(like.shape)", "out[...] = 0.0",
              *loop_nest(gnd, "g.shape", [f"out[{target}] += g[{indices(gnd)}]"]),
              "return out"]
    return generate(f"summed_to_{gnd}_{nd}", ["g", "like"], lines, {})


def _flat_copy_loop(x):
    out = np.empty(x.size)
    i = 0
    for v in x.flat:
        out[i] = v
        i += 1
    return out


@compiled_as(_flat_copy_loop)
def flat_copy(x):
    """C-order float64 1-D copy of an array of any layout (0-d included)."""
    return np.ravel(x).astype(np.float64)


def _reduce_to_loop(g, shape):
    out = np.zeros(shape)
    nd = g.ndim
    extra = nd - len(shape)
    # Offset step in out per g axis: 0 for leading and broadcast (summed) axes.
    ostrides = np.zeros(nd, np.intp)
    s = 1
    for k in range(nd - 1, extra - 1, -1):
        n = shape[k - extra]
        if n == g.shape[k]:
            ostrides[k] = s
        elif n != 1:
            raise ValueError("unbroadcast: gradient shape is not a broadcast of the target shape")
        s *= n
    flat = out.reshape(out.size)
    idx = np.zeros(nd, np.intp)
    j = 0
    for v in g.flat:
        flat[j] += v
        j = advance(idx, g.shape, ostrides, j)
    return out


@compiled_as(_reduce_to_loop)
def reduce_to(g, shape):
    """Sum g (ndim >= len(shape) >= 1) down to shape, NumPy broadcasting rules: a new float64
    array."""
    extra = g.ndim - len(shape)
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, g.shape[extra:])):
        raise ValueError("unbroadcast: gradient shape is not a broadcast of the target shape")
    axes = tuple(range(extra)) + tuple(
        extra + k for k, n in enumerate(shape) if n == 1 and g.shape[extra + k] != 1)
    return np.asarray(np.sum(g, axis=axes, dtype=np.float64)).reshape(shape)


def _expand_to_loop(src, keep, shape):
    out = np.empty(shape)
    nd = len(shape)
    sstrides = np.zeros(nd, np.intp)
    s = 1
    for k in range(nd - 1, -1, -1):
        if keep[k]:
            sstrides[k] = s
            s *= shape[k]
    if s != src.size:
        raise ValueError("unreduce: gradient shape does not match the reduced shape")
    flat = out.reshape(out.size)
    idx = np.zeros(nd, np.intp)
    j = 0
    for i in range(flat.size):
        flat[i] = src[j]
        j = advance(idx, shape, sstrides, j)
    return out


@compiled_as(_expand_to_loop)
def expand_to(src, keep, shape):
    """Broadcast flat C-order src, laid out over the axes where keep is True, to shape: a new
    float64 array."""
    kept = tuple(n if k else 1 for n, k in zip(shape, keep))
    if src.size != int(np.prod(kept)):
        raise ValueError("unreduce: gradient shape does not match the reduced shape")
    return np.broadcast_to(np.reshape(src, kept), shape).astype(np.float64)


@jitable
def norm_axis(axis, ndim):
    if axis < -ndim or axis >= ndim:
        raise ValueError("axis is out of bounds")
    return axis + ndim if axis < 0 else axis


@by_type
def reduced_mask(axis, ndim):
    """Boolean array, True on the axes reduced by np.sum(..., axis=axis)."""
    if is_int(axis):
        def impl(axis, ndim):
            mask = np.zeros(ndim, np.bool_)
            mask[norm_axis(axis, ndim)] = True
            return mask
        return impl
    if is_tuple(axis) and len(axis) == 0:
        return lambda axis, ndim: np.zeros(ndim, np.bool_)
    if is_axis(axis) and is_tuple(axis):
        def impl(axis, ndim):
            mask = np.zeros(ndim, np.bool_)
            for ax in axis:
                mask[norm_axis(ax, ndim)] = True
            return mask
        return impl
    if is_tuple(axis) and all(map(is_int, axis)):   # constants, each of its own type
        lines = ["mask = np.zeros(ndim, np.bool_)"] + [
            f"mask[norm_axis(axis[{k}], ndim)] = True" for k in range(len(axis))]
        return generate(f"reduced_mask_{len(axis)}", ["axis", "ndim"], lines + ["return mask"],
                        {"norm_axis": norm_axis})
    return None


@jitable
def outer_product(u, v):
    """np.outer(u, v) of 1-D float64 arrays, as the loops Numba compiles in a fraction of the
    time (and IR) of its np.outer."""
    out = np.empty((u.shape[0], v.shape[0]))
    for i in range(u.shape[0]):
        for j in range(v.shape[0]):
            out[i, j] = u[i] * v[j]
    return out


@by_type
def f64(x):
    """x as float64, contiguous (C or F) when an array."""
    if is_scalar(x):
        return lambda x: float(x)
    if is_array(x):
        if is_float64(x.dtype) and x.layout in "CF":
            return lambda x: x
        if is_float64(x.dtype):
            return lambda x: np.ascontiguousarray(x)
        return lambda x: x.astype(np.float64)
    return None
