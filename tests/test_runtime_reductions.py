"""Python and Numba agree on the helpers of reductions and linear algebra (runtime/reductions.py,
reduction_tangents.py, linalg.py, linalg_square.py), each defined once (runtime/dispatch.py).

Every form Numba compiles gives, compiled, the numbers Python gives, and the same kind of result
(a Python float, or a float64 array of the same shape); the forms Numba declines (an `axis`,
stacked matrices, ...) still run as Python. `make test` compiles a sample of the forms (of each
helper's, the first and every third: runtime_forms.sampled), `make verify` all of them. Whether
the numbers are right is tests/test_templates.py's part (finite differences, JIT on and off).
"""
import numpy as np
import pytest
import sweeps
from runtime_forms import (B, R, case, check_compiled_agrees, of, python_result_of_declined,
                           sampled)


def _with(shape, value, cells):
    def make(rng, _):
        x = rng.uniform(0.5, 1.5, shape)
        for cell in cells:
            x[cell] = value
        return x
    return make


def _spd(n):
    def make(rng, _):
        x = rng.uniform(-1.0, 1.0, (n, n))
        return x @ x.T + n * np.eye(n)
    return make


def _square(n):
    return lambda rng, _: rng.uniform(-1.0, 1.0, (n, n)) + 3.0 * np.eye(n)


def zof(function):
    return of(lambda a, **_: function(a))


COMPILED = [
    # ---- reductions: the whole array (axis None), and scalars
    case("rt.prod_grad(g, a, None)", g=None, a=R),
    case("rt.prod_grad(g, a, None)", g=(), a=(5,)),
    case("rt.prod_grad(g, a, None)", g=None, a=_with(R, 0.0, [(1, 2), (0, 0)])),
    case("rt.prod_grad(g, a, None)", g=None, a=("F",) + R),
    case("rt.prod_grad(g, a, None)", g=None, a=("int",) + R),
    case("rt.prod_grad(g, a, None)", g=None, a=None),
    case("rt.extremum_grad(g, a, z, None)", g=None, a=_with(R, 2.0, [(0, 1), (2, 3)]),
         z=zof(np.max)),
    case("rt.extremum_grad(g, a, z, None)", g=(), a=(5,), z=zof(np.min)),
    case("rt.extremum_grad(g, a, z, None)", g=None, a=_with(R, np.nan, [(0, 1)]),
         z=zof(np.nanmax)),
    case("rt.extremum_grad(g, a, z, None)", g=None, a=None, z=zof(float)),
    # along an int axis (reduction_axes.py): ties split, as NumPy's form splits them
    case("rt.extremum_grad(g, a, z, 1)", g=(3,), a=_with(R, 2.0, [(0, 1), (0, 3)]),
         z=of(lambda g, a: np.max(a, axis=1))),
    case("rt.extremum_grad(g, a, z, -3)", g=(3, 4), a=(2, 3, 4),
         z=of(lambda g, a: np.min(a, axis=-3))),
    case("rt.extremum_grad(g, a, z, 0)", g=(), a=(5,), z=zof(np.max)),
    case("rt.ptp_grad(g, a, None)", g=None, a=_with(R, 2.0, [(0, 1), (2, 3)])),
    case("rt.ptp_grad(g, a, None)", g=None, a=None),
    case("rt.var_grad(g, a, None, 0)", g=None, a=R),
    case("rt.var_grad(g, a, None, 1)", g=(), a=(5,)),
    case("rt.var_grad(g, a, None, 0)", g=None, a=None),
    case("rt.std_grad(g, a, z, None, 0)", g=None, a=R, z=zof(np.std)),
    case("rt.std_grad(g, a, z, None, 1)", g=None, a=np.ones(R), z=0.0),
    case("rt.std_grad(g, a, z, None, 0)", g=None, a=None, z=0.0),
    # keepdims=True and an int axis (reduction_forms.py)
    case("rt.extremum_grad(g, a, z, 1)", g=(3, 1), a=R,
         z=of(lambda g, a: np.max(a, axis=1, keepdims=True))),
    case("rt.extremum_grad(g, a, z, -1)", g=(1,), a=(5,),
         z=of(lambda g, a: np.min(a, axis=-1, keepdims=True))),
    case("rt.var_grad(g, a, 0, 1)", g=(4,), a=R),
    case("rt.var_grad(g, a, -1, 0)", g=(2, 3, 1), a=B),
    case("rt.std_grad(g, a, z, 1, 1)", g=(3,), a=R, z=of(lambda g, a: np.std(a, 1, ddof=1))),
    case("rt.reduce_sum(t, -2, True)", t=B),
    case("rt.reduce_sum(t, (0, -1), True)", t=B),
    case("rt.var_grad(g, a, (0, 2), 1)", g=(3,), a=B),
    case("rt.extremum_grad(g, a, z, (0, 2))", g=(3,), a=_with(B, 2.0, [(0, 1, 1), (1, 1, 3)]),
         z=of(lambda g, a: np.max(a, axis=(0, 2)))),
    case("rt.extremum_grad(g, a, z, (1, 2))", g=(2, 1, 1), a=B,
         z=of(lambda g, a: np.min(a, axis=(1, 2), keepdims=True))),
    case("rt.cumsum_grad(g, a, None)", g=(5,), a=(5,)),
    case("rt.cumsum_grad(g, a, None)", g=(12,), a=R),
    case("rt.cumsum_grad(g, a, None)", g=None, a=None),
    case("rt.cumsum_grad(g, a, None)", g=(1,), a=None),
    case("rt.cumsum_grad(g, a, 0)", g=R, a=R),
    case("rt.cumsum_grad(g, a, 1)", g=R, a=R),
    case("rt.cumsum_grad(g, a, -2)", g=("F",) + B, a=B),
    case("rt.cumsum_grad(g, a, 0)", g=(5,), a=(5,)),
    case("rt.cumprod_grad(g, a, None)", g=(5,), a=_with((5,), 0.0, [2])),
    case("rt.cumprod_grad(g, a, None)", g=(12,), a=R),
    case("rt.norm_grad(g, x, z, None, None, False)", g=None, x=R,
         z=of(lambda x, **_: np.linalg.norm(x))),
    case("rt.norm_grad(g, x, z)", g=(), x=(5,), z=of(lambda x, **_: np.linalg.norm(x))),
    case("rt.norm_grad(g, x, z, None, None, False)", g=None, x=np.zeros(R), z=0.0),
    *[case(f"rt.norm_grad(g, x, z, {ord}, None, False)", g=None, x=(5,),
           z=of(lambda x, _ord=ord, **_: np.linalg.norm(x, eval(_ord, {"np": np}))))
      for ord in ["2", "1", "np.inf", "-np.inf", "3", "0.5", "0"]],
    *[case(f"rt.norm_grad(g, x, z, {ord}, None, False)", g=None, x=R,
           z=of(lambda x, _ord=ord, **_: np.linalg.norm(x, eval(_ord, {"np": np}))))
      for ord in ["2", "-2", "1", "-1", "np.inf", "-np.inf"]],
    case("rt.average_grad_a(g, a, z, None, None, False)", g=None, a=R, z=zof(np.average)),
    case("rt.average_grad_a(g, a, z)", g=None, a=None, z=zof(float)),
    case("rt.average_grad_a(g, a, z, None, w, False)", g=None, a=(5,), w=(5,),
         z=of(lambda a, w, **_: np.average(a, weights=w))),
    case("rt.average_grad_weights(g, a, z, None, w, False)", g=None, a=R, w=R,
         z=of(lambda a, w, **_: np.average(a, weights=w))),
    case("rt.nansum_grad(g, a, None)", g=None, a=_with(R, np.nan, [(0, 1), (2, 2)])),
    case("rt.nansum_grad(g, a, None)", g=None, a=np.nan),
    case("rt.nanmean_grad(g, a, None)", g=(), a=_with(R, np.nan, [(0, 1), (2, 2)])),
    case("rt.nanmean_grad(g, a, None)", g=None, a=None),
    case("rt.median_grad(g, a, None)", g=None, a=(5,)),
    case("rt.median_grad(g, a, None)", g=None, a=("F",) + R),
    case("rt.median_grad(g, a, None)", g=None, a=None),
    # ---- their tangents
    case("rt.extremum_mask(a, z, None)", a=_with(R, 2.0, [(0, 1), (2, 3)]), z=zof(np.max)),
    case("rt.extremum_mask(a, z, None)", a=None, z=zof(float)),
    case("rt.ptp_mask(a, None)", a=R),
    case("rt.median_mask(a, None)", a=R),
    case("rt.prod_tangent(t, a, None, False)", t=R, a=_with(R, 0.0, [(1, 2)])),
    case("rt.prod_tangent(t, a, None)", t=(5,), a=(5,)),
    case("rt.prod_tangent(t, a, None, False)", t=None, a=None),
    case("rt.cumprod_tangent(t, a, None)", t=R, a=_with(R, 0.0, [(1, 2)])),
    case("rt.norm_tangent(t, x, z, 3, None, False)", t=(5,), x=(5,),
         z=of(lambda x, **_: np.linalg.norm(x, 3))),
    case("rt.norm_tangent(t, x, z, 2, None, False)", t=R, x=R,
         z=of(lambda x, **_: np.linalg.norm(x, 2))),
    case("rt.norm_tangent(t, x, z)", t=R, x=R, z=of(lambda x, **_: np.linalg.norm(x))),
    case("rt.average_tangent(ta, 0.0, a, None, z, None, False, False)", ta=R, a=R,
         z=zof(np.average)),
    case("rt.average_tangent(ta, tw, a, w, z, None, False, False)", ta=R, tw=R, a=R, w=R,
         z=of(lambda a, w, **_: np.average(a, weights=w))),
    case("rt.average_tangent(ta, 0.0, a, None, z, None, False, False)", ta=None, a=None,
         z=zof(float)),
    # ---- products
    case("rt.vdot_grad(g, b, a)", g=None, a=(4,), b=(4,)),
    case("rt.vdot_grad(g, b, a)", g=None, a=(2, 3), b=("int", 6)),
    *[case("(rt.outer_grad_a(g, a, b), rt.outer_grad_b(g, a, b))", a=sa, b=sb,
           g=of(lambda a, b: np.outer(a, b) + 0.5))
      for sa, sb in [((3,), (4,)), ((2, 3), (4,)), ((3,), ("F", 2, 2)), (None, (3,)),
                     ((2, 2), None)]],
    *[case("(rt.kron_grad_a(g, a, b), rt.kron_grad_b(g, a, b))", a=sa, b=sb,
           g=of(lambda a, b: np.kron(a, b) + 0.5))
      for sa, sb in [((2, 3), (2, 2)), ((2,), (3,)), ((2,), (3, 2)), (None, (3,)),
                     ((2, 2), None), (("F", 3, 2), (2,))]],
    *[case(call, a=sa, b=sb, g=of(lambda a, b: np.cross(a, b) + 0.5))
      for call in ["(rt.cross_grad_a(g, a, b), rt.cross_grad_b(g, a, b))",
                   "(rt.cross_grad_a(g, a, b, -1, -1, -1, None), "
                   "rt.cross_grad_b(g, a, b, -1, -1, -1, None))"]
      for sa, sb in [((3,), (3,)), ((4, 3), (4, 3)), ((4, 3), (3,)), ((1, 3), (2, 4, 3))]],
    case("rt.cross(a, b, -1, -1, -1, None)", a=(4, 3), b=(3,)),
    *[case(f"rt.trace_grad(g, a, {offset}, {axis1}, {axis2})", g=None, a=shape)
      for shape, offset, axis1, axis2 in [(R, 0, 0, 1), ((3, 3), -1, 0, 1), ((3, 3), -5, 0, 1),
                                           (R, 1, 0, 1), (R, 1, 1, 0), ((4, 3), -2, 1, 0),
                                           (R, 2, -2, -1), (R, 1, -1, -2)]],
    case("rt.trace_grad(g, a)", g=None, a=("F",) + R),
    case("rt.trace(a, 1, 0, 1)", a=R),
    case("rt.trace(a, 0, -2, -1)", a=(3, 3)),
    # ---- square matrices
    case("rt.inv_grad(g, z)", g=(3, 3), z=of(lambda g: np.linalg.inv(g + 3.0 * np.eye(3)))),
    case("(rt.solve_grad_a(g, a, b, z), rt.solve_grad_b(g, a, b))", a=_square(3), b=(3,),
         z=of(lambda a, b: np.linalg.solve(a, b)), g=(3,)),
    case("(rt.solve_grad_a(g, a, b, z), rt.solve_grad_b(g, a, b))", a=_square(3), b=(3, 2),
         z=of(lambda a, b: np.linalg.solve(a, b)), g=(3, 2)),
    case("rt.logdet_grad(g, a)", g=None, a=_square(3)),
    *[case(f"rt.cholesky_grad(g, factor, {upper})", g=(3, 3),
           factor=of(lambda g, _upper=upper: np.linalg.cholesky(_spd(3)(
               np.random.default_rng(1), None), upper=_upper)))
      for upper in [False, True]],
    case("rt.cholesky_grad(g, factor)", g=(1, 1), factor=_spd(1)),
    *[case("(rt.solve_product(m, z, b), rt.solve_product_grad_m(g, m, z, b), "
           "rt.solve_product_grad_z(g, m, z, b))", m=(3, 3), z=shape, b=shape, g=shape)
      for shape in [(3,), (3, 2)]],
    case("(rt.cholesky_lower(x, False), rt.cholesky_lower(x, True), rt.cholesky_lower(x))",
         x=("F", 3, 3)),
    case("rt.cholesky_mask(factor)", factor=(3, 3)),
    # ---- products of a matrix along an axis (pymoo's griewank)
    case("rt.prod_grad(g, a, 0)", g=(4,), a=R),
    case("rt.prod_grad(g, a, -1)", g=(3,), a=R),
    case("(rt.prod_tangent(t, a, 1), rt.prod_tangent(t, a, 0, False))", t=R, a=R),
]


@pytest.mark.parametrize("call, inputs", sampled(COMPILED))
def test_numba_gives_pythons_result(call, inputs):
    check_compiled_agrees(call, inputs, rtol=1e-10, atol=1e-12)


DECLINED = [
    case("rt.prod_grad(g, a, 0)", g=(3, 4), a=B),
    case("rt.cumprod_grad(g, a, None)", g=(1,), a=None),
    case("rt.norm_grad(g, x, z, 'fro', None, False)", g=None, x=R,
         z=of(lambda g, x: np.linalg.norm(x))),
    case("rt.prod_tangent(t, a, None, True)", t=R, a=R),
    case("rt.average_tangent(ta, 0.0, a, None, z, 1, False, False)", ta=R, a=R,
         z=of(lambda ta, a: np.average(a, 1))),
    case("rt.inv_grad(g, z)", g=(2, 3, 3), z=(2, 3, 3)),
    case("rt.cross_grad_a(g, a, b, 0, -1, 0, None)", a=(3, 2), b=(2, 3),
         g=of(lambda a, b: np.cross(a, b, 0, -1, 0))),
    case("rt.trace(a, 0, -2, -1)", a=(2, 3, 3)),
    case("rt.cholesky_mask(factor)", factor=(2, 3, 3)),
]


@pytest.mark.parametrize("call, inputs", DECLINED)
def test_forms_numba_declines_run_as_python(call, inputs):
    result = python_result_of_declined(call, inputs)
    assert isinstance(result, (float, np.ndarray))


# ---- the sum along an axis the JIT flavour of a generated file calls (numpy_cached.py) -------

@pytest.fixture(scope="module")
def sums():
    """Numba's own np.sum(a, axis) and numpy_cached.sum_along, compiled side by side."""
    import numba

    from s2sad.runtime import dispatch, numpy_cached
    dispatch.install()
    along = numpy_cached.sum_along
    return (numba.njit(lambda a, axis: np.sum(a, axis=axis)),
            numba.njit(lambda a, axis: along(a, axis)))


@pytest.fixture(scope="module")
def product_sums():
    """Numba's own np.sum(a * b[, axis]) and numpy_cached's sums of a product, compiled."""
    import numba

    from s2sad.runtime import dispatch, numpy_cached
    dispatch.install()
    whole, along = numpy_cached.sum_product, numpy_cached.sum_product_along
    return (numba.njit(lambda a, b: np.sum(a * b)), numba.njit(lambda a, b: whole(a, b)),
            numba.njit(lambda a, b, axis: np.sum(a * b, axis=axis)),
            numba.njit(lambda a, b, axis: along(a, b, axis)))


def _layouts(shape, seed):
    a = np.random.default_rng(seed).normal(size=shape[:-1] + (2 * shape[-1],)) * 1e3
    return [a[..., :shape[-1]].copy(), np.asfortranarray(a[..., :shape[-1]]), a[..., ::2]]


# The layouts (C, F, strided) of a and b, each pair compiled: `make test` takes (C, C), the one
# the loops serve, and three mixed pairs giving each operand every layout; S2SAD_FULL_SWEEP=1
# (make verify) all nine.
LAYOUT_PAIRS = [(0, 0), (0, 1), (1, 2), (2, 0)] if not sweeps.FULL else \
    [(i, j) for i in range(3) for j in range(3)]


def _pairs(shape):
    a, b = _layouts(shape, 1), _layouts(shape, 2)
    return [(a[i], b[j]) for i, j in LAYOUT_PAIRS]


@pytest.mark.parametrize("shape", [(41,), (37, 23)])
def test_sum_product_gives_numbas_sum_bit_for_bit(product_sums, shape):
    numbas, ours = product_sums[:2]
    for a, b in _pairs(shape):
        assert ours(a, b) == numbas(a, b)
    a, b = _layouts(shape, 1)[0], _layouts(shape[-1:], 2)[0]   # broadcast: NumPy's way
    assert ours(a, b) == numbas(a, b)
    assert ours(a.astype(np.float32), b) == numbas(a.astype(np.float32), b)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_sum_product_along_gives_numbas_sum_bit_for_bit(product_sums, axis):
    numbas, ours = product_sums[2:]
    for a, b in _pairs((37, 23)):
        assert np.array_equal(ours(a, b, axis), numbas(a, b, axis))
    a, b = _layouts((37, 23), 1)[0], _layouts((23,), 2)[0]
    assert np.array_equal(ours(a, b, axis), numbas(a, b, axis))
    with pytest.raises(Exception):
        ours(a, a, 2)


def test_the_jit_flavour_sums_a_product_without_its_array():
    import ast

    from s2sad.runtime import numpy_cached
    text = "s = numpy.sum(m * m, axis=1) + numpy.sum(q * r) + numpy.sum(m, 0)"
    routed = ast.unparse(numpy_cached.for_numba(ast.parse(text)))
    assert routed == ("s = _s2sad_numpy.sum_product_along(m, m, 1) + "
                      "_s2sad_numpy.sum_product(q, r) + _s2sad_numpy.sum_along(m, 0)")


def test_the_jit_flavour_calls_linalg_through_cached_helpers():
    """np.linalg's Numba implementations compile for seconds in every process; through
    numpy_cached's one-line helpers they are compiled once per machine. Keywords, other
    arities and other modules' solve are left alone."""
    import ast

    from s2sad.runtime import numpy_cached
    text = ("L = numpy.linalg.cholesky(K + numpy.eye(n)); a = numpy.linalg.solve(L, y); "
            "s, d = numpy.linalg.slogdet(K); q = numpy.linalg.solve(a=L, b=y); "
            "r = scipy.linalg.solve(L, y); e = numpy.linalg.norm(y) + numpy.mean(y)")
    routed = ast.unparse(numpy_cached.for_numba(ast.parse(text)))
    assert routed == (
        "L = _s2sad_numpy.cholesky(K + _s2sad_numpy.eye(n))\n"
        "a = _s2sad_numpy.solve(L, y)\ns, d = _s2sad_numpy.slogdet(K)\n"
        "q = numpy.linalg.solve(a=L, b=y)\nr = scipy.linalg.solve(L, y)\n"
        "e = numpy.linalg.norm(y) + _s2sad_numpy.mean_all(y)")


def test_cached_linalg_helpers_give_numbas_results():
    import numba

    from s2sad.runtime import dispatch, numpy_cached
    dispatch.install()
    a = np.random.default_rng(4).normal(size=(5, 5))
    spd = a @ a.T + 5 * np.eye(5)
    y = np.arange(5.0)
    ours = numba.njit(lambda m, v: (numpy_cached.solve(m.T, v), numpy_cached.cholesky(m),
                                    numpy_cached.inv(m), numpy_cached.det(m),
                                    numpy_cached.slogdet(m)[1], numpy_cached.eigvalsh(m)))
    theirs = numba.njit(lambda m, v: (np.linalg.solve(m.T, v), np.linalg.cholesky(m),
                                      np.linalg.inv(m), np.linalg.det(m),
                                      np.linalg.slogdet(m)[1], np.linalg.eigvalsh(m)))
    for got, expected in zip(ours(spd, y), theirs(spd, y)):
        assert np.array_equal(got, expected)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_sum_along_gives_numbas_sum_bit_for_bit(sums, layout, axis):
    numbas, ours = sums
    a = np.random.default_rng(3).normal(size=(37, 2 * 23)) * 1e3
    a = {"C": a, "F": np.asfortranarray(a), "strided": a[:, ::2]}[layout]
    expected = numbas(a, axis)
    got = ours(a, axis)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)   # the same additions in the same order


@pytest.mark.parametrize("a", [np.arange(12).reshape(3, 4), np.ones((2, 3, 4)),
                               np.ones(5, np.float32).reshape(5, 1)])
def test_sum_along_other_arrays_is_numbas_sum(sums, a):
    numbas, ours = sums
    for axis in range(a.ndim):
        assert np.array_equal(ours(a, axis), numbas(a, axis))
        assert ours(a, axis).dtype == numbas(a, axis).dtype


def test_sum_along_an_axis_out_of_bounds_is_an_error(sums):
    with pytest.raises(Exception):
        sums[1](np.ones((2, 3)), 2)


@pytest.mark.parametrize("shapes", [((4, 5, 3), (4, 5, 3)), ((4, 1, 3), (1, 5, 3)),
                                    ((2, 3, 1, 2), (2, 1, 4, 2))])
def test_sum_product_along_of_higher_ranks_is_numpys(product_sums, shapes):
    """Ranks 3 and more: loops over the products (broadcast as NumPy does), not Numba's
    `a * b`, whose LLVM IR every caller would compile again (the GP's np.sum(d * d, axis=2))."""
    ours = product_sums[3]
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    for axis in list(range(a.ndim)) + [-1]:
        expected = np.sum(a * b, axis=axis)
        got = ours(a, b, axis)
        assert got.shape == expected.shape and np.allclose(got, expected, rtol=1e-13, atol=0)
    for axis in range(3):
        assert np.allclose(product_sums[3](a, a, axis), np.sum(a * a, axis=axis), rtol=1e-13)
    with pytest.raises(ValueError):
        ours(np.ones((2, 3, 4)), np.ones((2, 2, 4)), 0)
    with pytest.raises(ValueError):
        ours(np.ones((2, 3, 4)), np.ones((2, 3, 4)), 3)
