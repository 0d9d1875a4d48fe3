"""NumPy reductions and scans: sum, mean, prod, max/min, var/std, cumsum/cumprod, norms, average,
ptp, nansum/nanmean, median.

A reduction's adjoint maps the result's adjoint back onto the argument's shape (`rt.unreduce`
puts the reduced axes back); `axis` may be None, an int, a tuple or negative, and `keepdims`
keeps the reduced axes in the result (the helpers accept the adjoint in either shape).

Numba compiles these primals only without `axis` (except np.sum and np.cumsum, which take an int
or tuple axis) and never with `keepdims` or `ddof`; s2sad's overloads add an int axis to max,
min (runtime/reduction_axes.py), mean, var and std, a tuple of constant axes to all six, and
`keepdims` and `ddof` (runtime/reduction_forms.py). Checks of the other forms say numba=False.
"""
import numpy

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, nondifferentiable, not_implemented, tangent

R = (3, 4)
B = (2, 3, 4)


def _with(shape, value, cells, describe):
    """Inputs of `shape` uniform in (-1, 1) with `value` written at `cells`: ties (a repeated
    extremum), zeros or NaNs exactly where a check wants them."""
    def generate(rng):
        x = rng.uniform(-1.0, 1.0, shape)
        for cell in cells:
            x[cell] = value
        return x
    generate.describe = describe
    return generate


# ---- sums and means ---------------------------------------------------------------------------

@adjoint(numpy.sum, checks=[
    check("numpy.sum(x)", x=R), check("numpy.sum(x)", x=(5,)), check("numpy.sum(x)", x=()),
    check("numpy.sum(x, axis=0)", x=R), check("numpy.sum(x, 1)", x=R),
    check("numpy.sum(x, axis=0)", x=(5,)),
    check("numpy.sum(x, axis=-1)", x=B), check("numpy.sum(x, axis=(0, 2))", x=B),
    check("numpy.sum(x, axis=(-1, 0))", x=B), check("numpy.sum(x, axis=None)", x=R),
    check("numpy.sum(x, axis=1, keepdims=True)", x=R),
    check("numpy.sum(x, axis=(0, 2), keepdims=True)", x=B),
    check("numpy.sum(x, keepdims=True)", x=R),
    check("numpy.sum(x * y, axis=0)", x=R, y=(4,))])
def sum(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = rt.unreduce(d[z], a, axis)


@tangent(numpy.sum)
def sum_tangent(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(d[a], axis, keepdims)


@adjoint(numpy.mean, checks=[
    check("numpy.mean(x)", x=R), check("numpy.mean(x)", x=(5,)), check("numpy.mean(x)", x=()),
    check("numpy.mean(x, axis=0)", x=R),
    check("numpy.mean(x, -1)", x=B),
    check("numpy.mean(x, axis=(0, -1), keepdims=True)", x=B),
    check("numpy.mean(x, keepdims=True)", x=R)])
def mean(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = rt.unreduce(d[z], a, axis) / rt.reduced_size(a, axis)


@tangent(numpy.mean)
def mean_tangent(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(d[a], axis, keepdims) / rt.reduced_size(a, axis)


@adjoint(numpy.average, domain=(0.5, 1.5), checks=[
    check("numpy.average(x)", x=R), check("numpy.average(x)", x=()),
    check("numpy.average(x, axis=1)", x=R, numba=False),
    check("numpy.average(x, weights=w)", x=(5,), w=(5,)),
    check("numpy.average(x, None, w)", x=R, w=R),
    check("numpy.average(x, axis=0, weights=w)", x=R, w=R, numba=False),
    check("numpy.average(x, axis=1, weights=w)", x=R, w=(4,), numba=False),
    check("numpy.average(x, axis=-1, weights=w, keepdims=True)", x=B, w=(4,), numba=False),
    check("numpy.average(x, axis=(0, 2), weights=w)", x=B, w=B, numba=False),
    check("a, s = numpy.average(x, axis=0, weights=w, returned=True)\nout = a * s",
          x=R, w=(3,), numba=False)])
def average(z, a, axis=None, weights=None, returned=False, *, keepdims=False):
    d[a] = rt.average_grad_a(d[z], a, z, axis, weights, returned)
    d[weights] = rt.average_grad_weights(d[z], a, z, axis, weights, returned)


@tangent(numpy.average)
def average_tangent(z, a, axis=None, weights=None, returned=False, *, keepdims=False):
    d[z] = rt.average_tangent(d[a], d[weights], a, weights, z, axis, returned, keepdims)


@adjoint(numpy.nansum, checks=[
    check("numpy.nansum(x)", x=R), check("numpy.nansum(x)", x=(), numba=False),
    check("numpy.nansum(x)", x=_with(R, numpy.nan, [(0, 1), (2, 2)], "R with NaNs")),
    check("numpy.nansum(x, axis=0)", x=_with(R, numpy.nan, [(0, 1), (2, 2)], "R with NaNs"),
          numba=False),
    check("numpy.nansum(x, axis=(0, -1), keepdims=True)",
          x=_with(B, numpy.nan, [(0, 1, 1), (1, 2, 3)], "B with NaNs"), numba=False)])
def nansum(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = rt.nansum_grad(d[z], a, axis)


@tangent(numpy.nansum)
def nansum_tangent(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(numpy.where(numpy.isnan(a), 0.0, d[a]), axis, keepdims)


@adjoint(numpy.nanmean, checks=[
    check("numpy.nanmean(x)", x=R), check("numpy.nanmean(x)", x=(), numba=False),
    check("numpy.nanmean(x)", x=_with(R, numpy.nan, [(0, 1), (2, 2)], "R with NaNs")),
    check("numpy.nanmean(x, axis=1)", x=_with(R, numpy.nan, [(0, 1), (2, 2)], "R with NaNs"),
          numba=False),
    check("numpy.nanmean(x, axis=-1, keepdims=True)",
          x=_with(B, numpy.nan, [(0, 1, 1), (1, 2, 3)], "B with NaNs"), numba=False)])
def nanmean(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = rt.nanmean_grad(d[z], a, axis)


@tangent(numpy.nanmean)
def nanmean_tangent(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(numpy.where(numpy.isnan(a), 0.0, d[a]), axis, keepdims) / \
        rt.reduce_sum(numpy.where(numpy.isnan(a), 0.0, 1.0), axis, keepdims)


# ---- products ---------------------------------------------------------------------------------

@adjoint(numpy.prod, domain=(0.5, 1.5), checks=[
    check("numpy.prod(x)", x=R), check("numpy.prod(x)", x=(5,)), check("numpy.prod(x)", x=()),
    check("numpy.prod(x)", x=_with(R, 0.0, [(1, 2)], "R with a zero")),
    check("numpy.prod(x)", x=_with(R, 0.0, [(1, 2), (0, 0)], "R with two zeros")),
    check("numpy.prod(x, axis=0)", x=_with(R, 0.0, [(1, 2)], "R with a zero")),
    check("numpy.prod(x, axis=-1)", x=B, numba=False),
    check("numpy.prod(x, axis=(0, 2), keepdims=True)", x=B, numba=False)])
def prod(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = rt.prod_grad(d[z], a, axis)


@tangent(numpy.prod)
def prod_tangent(z, a, axis=None, dtype=None, out=None, keepdims=False):
    d[z] = rt.prod_tangent(d[a], a, axis, keepdims)


# ---- extrema ----------------------------------------------------------------------------------

def _extremum_checks(value):
    """Checks for max-like (value 2.0: ties above the inputs) or min-like (-2.0) reductions.
    With exactly two tied elements, central differences also give each half the gradient."""
    pair = _with(R, value, [(0, 1), (2, 3)], "R with a tied pair")
    rows = _with(R, value, [(0, 0), (0, 3), (1, 1), (1, 2), (2, 0), (2, 2)],
                 "R with tied pairs in rows")
    return [
        check("{f}(x)", x=R), check("{f}(x)", x=(5,)), check("{f}(x)", x=()),
        check("{f}(x)", x=pair),
        check("{f}(x, axis=1)", x=R), check("{f}(x, axis=1)", x=rows),   # (one int axis:
        check("{f}(x, 0)", x=R), check("{f}(x, axis=-2)", x=B),        # reduction_axes.py)
        check("{f}(x, axis=(0, 2))", x=B),
        check("{f}(x, axis=-1, keepdims=True)", x=B),
        check("{f}(x * y, axis=0)", x=R, y=(4,))]


@adjoint(numpy.max, numpy.amax, checks=_extremum_checks(2.0) + [
    # logsumexp, stabilised by the row maximum (whose gradient cancels out)
    check("m = numpy.max(x, axis=1, keepdims=True)\n"
          "out = numpy.log(numpy.sum(numpy.exp(x - m), axis=1)) + m[:, 0]", x=R),
    check("m = numpy.max(x)\nout = numpy.log(numpy.sum(numpy.exp(x - m))) + m", x=R)])
def max(z, a, axis=None, out=None, keepdims=False):
    d[a] = rt.extremum_grad(d[z], a, z, axis)


@tangent(numpy.max, numpy.amax)
def max_tangent(z, a, axis=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(d[a] * rt.extremum_mask(a, z, axis), axis, keepdims)


@adjoint(numpy.min, numpy.amin, checks=_extremum_checks(-2.0))
def min(z, a, axis=None, out=None, keepdims=False):
    d[a] = rt.extremum_grad(d[z], a, z, axis)


@tangent(numpy.min, numpy.amin)
def min_tangent(z, a, axis=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(d[a] * rt.extremum_mask(a, z, axis), axis, keepdims)


@adjoint(numpy.nanmax, numpy.nanmin, checks=[
    check("{f}(x)", x=R), check("{f}(x)", x=()),
    check("{f}(x)", x=_with(R, numpy.nan, [(0, 1), (2, 2)], "R with NaNs")),
    check("{f}(x, axis=0)", x=_with(R, numpy.nan, [(0, 1), (2, 2)], "R with NaNs"),
          numba=False)])
def nanmax(z, a, axis=None, out=None, keepdims=False):
    d[a] = rt.extremum_grad(d[z], a, z, axis)   # NaNs never equal the result


@tangent(numpy.nanmax, numpy.nanmin)
def nanmax_tangent(z, a, axis=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(d[a] * rt.extremum_mask(a, z, axis), axis, keepdims)


@adjoint(numpy.ptp, checks=[
    check("numpy.ptp(x)", x=R), check("numpy.ptp(x)", x=(5,)), check("numpy.ptp(x)", x=()),
    check("numpy.ptp(x, axis=1)", x=R, numba=False),
    check("numpy.ptp(x, axis=(0, -1), keepdims=True)", x=B, numba=False)])
def ptp(z, a, axis=None, out=None, keepdims=False):
    d[a] = rt.ptp_grad(d[z], a, axis)


@tangent(numpy.ptp)
def ptp_tangent(z, a, axis=None, out=None, keepdims=False):
    d[z] = rt.reduce_sum(d[a] * rt.ptp_mask(a, axis), axis, keepdims)


@adjoint(numpy.median, checks=[
    check("numpy.median(x)", x=R), check("numpy.median(x)", x=(5,)),
    check("numpy.median(x)", x=(), numba=False),
    check("numpy.median(x, axis=0)", x=R, numba=False),
    check("numpy.median(x, axis=-1)", x=(3, 5), numba=False),
    check("numpy.median(x, axis=(0, 2), keepdims=True)", x=B, numba=False)])
def median(z, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[a] = rt.median_grad(d[z], a, axis)


@tangent(numpy.median)
def median_tangent(z, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[z] = rt.reduce_sum(d[a] * rt.median_mask(a, axis), axis, keepdims)


# ---- moments ----------------------------------------------------------------------------------

@adjoint(numpy.var, checks=[
    check("numpy.var(x)", x=R), check("numpy.var(x)", x=(5,)),
    check("numpy.var(x)", x=(), numba=False),
    check("numpy.var(x, ddof=1)", x=R),
    check("numpy.var(x, axis=0)", x=R),
    check("numpy.var(x, 1, None, None, 1)", x=R),
    check("numpy.var(x, axis=(0, -1), ddof=2, keepdims=True)", x=B)])
def var(z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[a] = rt.var_grad(d[z], a, axis, ddof)


@tangent(numpy.var)
def var_tangent(z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[z] = rt.reduce_sum(d[a] * (a - rt.reduce_sum(a, axis, True) / rt.reduced_size(a, axis)),
                         axis, keepdims) * (2.0 / (rt.reduced_size(a, axis) - ddof))


@adjoint(numpy.std, checks=[
    check("numpy.std(x)", x=R), check("numpy.std(x)", x=(5,)), check("numpy.std(x)", x=()),
    check("numpy.std(x, ddof=1)", x=R),
    check("numpy.std(x, axis=1, ddof=1)", x=R),
    check("numpy.std(x, axis=-1, keepdims=True)", x=B),
    check("numpy.std(x, axis=(0, 2))", x=B)])
def std(z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[a] = rt.std_grad(d[z], a, z, axis, ddof)


# Zero where the deviation is zero (all elements equal: a kink), as the adjoint.
@tangent(numpy.std)
def std_tangent(z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[z] = numpy.where(z > 0.0, rt.reduce_sum(
        d[a] * (a - rt.reduce_sum(a, axis, True) / rt.reduced_size(a, axis)), axis, keepdims) /
        ((rt.reduced_size(a, axis) - ddof) * numpy.where(z > 0.0, z, 1.0)), 0.0)


# ---- scans ------------------------------------------------------------------------------------

@adjoint(numpy.cumsum, checks=[
    check("numpy.cumsum(x)", x=(5,)), check("numpy.cumsum(x)", x=R), check("numpy.cumsum(x)", x=()),
    check("numpy.cumsum(x, axis=0)", x=R), check("numpy.cumsum(x, 1)", x=R),
    check("numpy.cumsum(x, axis=-2)", x=B), check("numpy.cumsum(x, axis=0)", x=(5,))])
def cumsum(z, a, axis=None, dtype=None, out=None):
    d[a] = rt.cumsum_grad(d[z], a, axis)


@tangent(numpy.cumsum)
def cumsum_tangent(z, a, axis=None, dtype=None, out=None):
    d[z] = rt.reshape_like(numpy.cumsum(d[a], axis), z)   # Numba: a scalar's is a scalar


@adjoint(numpy.cumprod, domain=(0.5, 1.5), checks=[
    check("numpy.cumprod(x)", x=(5,)), check("numpy.cumprod(x)", x=R),
    check("numpy.cumprod(x)", x=(), numba=False),
    check("numpy.cumprod(x)", x=_with((5,), 0.0, [2], "(5,) with a zero")),
    check("numpy.cumprod(x)", x=_with((6,), 0.0, [1, 4], "(6,) with two zeros")),
    check("numpy.cumprod(x, axis=1)", x=_with(R, 0.0, [(1, 2)], "R with a zero"), numba=False),
    check("numpy.cumprod(x, axis=-2)", x=B, numba=False)])
def cumprod(z, a, axis=None, dtype=None, out=None):
    d[a] = rt.cumprod_grad(d[z], a, axis)


@tangent(numpy.cumprod)
def cumprod_tangent(z, a, axis=None, dtype=None, out=None):
    d[z] = rt.cumprod_tangent(d[a], a, axis)


# ---- norms ------------------------------------------------------------------------------------

@adjoint(numpy.linalg.norm, checks=[
    # vectors
    check("numpy.linalg.norm(x)", x=(5,)), check("numpy.linalg.norm(x, 2)", x=(5,)),
    check("numpy.linalg.norm(x)", x=(), numba=False),
    check("numpy.linalg.norm(x, ord=1)", x=(5,)), check("numpy.linalg.norm(x, numpy.inf)", x=(5,)),
    check("numpy.linalg.norm(x, -numpy.inf)", x=(5,)), check("numpy.linalg.norm(x, 3)", x=(5,)),
    check("numpy.linalg.norm(x, 0.5)", x=(5,)),
    # matrices
    check("numpy.linalg.norm(x)", x=R), check("numpy.linalg.norm(x, 'fro')", x=R, numba=False),
    check("numpy.linalg.norm(x, 2)", x=R), check("numpy.linalg.norm(x, -2)", x=R),
    check("numpy.linalg.norm(x, 'nuc')", x=R, numba=False),
    check("numpy.linalg.norm(x, 1)", x=R), check("numpy.linalg.norm(x, -1)", x=R),
    check("numpy.linalg.norm(x, numpy.inf)", x=R), check("numpy.linalg.norm(x, -numpy.inf)", x=R),
    # whole arrays, axes and keepdims
    check("numpy.linalg.norm(x)", x=B, numba=False),
    check("numpy.linalg.norm(x, keepdims=True)", x=R, numba=False),
    check("numpy.linalg.norm(x, axis=1)", x=R, numba=False),
    check("numpy.linalg.norm(x, 1, axis=0)", x=R, numba=False),
    check("numpy.linalg.norm(x, numpy.inf, axis=-1, keepdims=True)", x=B, numba=False),
    check("numpy.linalg.norm(x, axis=(1, 2))", x=B, numba=False),
    check("numpy.linalg.norm(x, 'fro', axis=(0, 2), keepdims=True)", x=B, numba=False),
    check("numpy.linalg.norm(x, 2, axis=(-1, 0))", x=B, numba=False),
    check("numpy.linalg.norm(x, 1, axis=(2, 1))", x=B, numba=False),
    check("numpy.linalg.norm(x * y, axis=0)", x=R, y=(4,), numba=False)])
def norm(z, x, ord=None, axis=None, keepdims=False):
    d[x] = rt.norm_grad(d[z], x, z, ord, axis, keepdims)


@tangent(numpy.linalg.norm)
def norm_tangent(z, x, ord=None, axis=None, keepdims=False):
    d[z] = rt.norm_tangent(d[x], x, z, ord, axis, keepdims)


# ---- no gradient, or not yet ------------------------------------------------------------------

# count_nonzero, any, all: numpy_rules.py
nondifferentiable(numpy.nanargmax, numpy.nanargmin, result="discrete")

not_implemented(numpy.nanprod, numpy.nanvar, numpy.nanstd, numpy.nancumsum, numpy.nancumprod,
                numpy.nanmedian,
                note="write it with numpy.where(numpy.isnan(x), <neutral value>, x) and the "
                     "plain reduction")
not_implemented(numpy.nanquantile, numpy.nanpercentile,
                note="write it with numpy.quantile of the values that are not NaN")
