"""Rules for s2sad's own runtime helpers, so that generated code can be differentiated again
(second derivatives differentiate the generated forward-mode code in reverse mode)."""
from s2sad.runtime import rt

from .registry import adjoint, check, d, nondifferentiable, tangent

nondifferentiable(rt.zeros_like, rt.rows, result="shape")
nondifferentiable(rt.some_trips, result="discrete")
nondifferentiable(rt.draw_state, rt.replay, result="stop")  # states (replay.py)


@adjoint(rt.broadcast_like, checks=[
    check("{f}(t, x)", t=(), x=(3,)), check("{f}(t, x)", t=(3,), x=(2, 3)),
    check("{f}(t, x)", t=(2, 3), x=(2, 3)), check("{f}(t, x)", t=(), x=())])
def broadcast_like(z, t, like):
    d[t] = rt.unbroadcast(d[z], t)


@tangent(rt.broadcast_like)
def broadcast_like_tangent(z, t, like):
    d[z] = rt.broadcast_like(d[t], like)


@adjoint(rt.stacked_rows, checks=[
    check("{f}(x, 'vstack')", x=(3,)), check("{f}(x, 'vstack')", x=(3, 4)),
    check("{f}(x, 'concatenate')", x=(3, 4)), check("{f}(x, 'vstack')", x=(2, 3, 4)),
    check("{f}(x, 'concatenate')", x=(2, 3, 4))])
def stacked_rows(z, rows, kind):
    d[rows] = rt.reshape_like(d[z], rows)


@tangent(rt.stacked_rows)
def stacked_rows_tangent(z, rows, kind):
    d[z] = rt.stacked_rows(d[rows], kind)


@adjoint(rt.number, checks=[check("{f}(x)", x=())])
def number(z, x):
    d[x] = d[z]


@tangent(rt.number)
def number_tangent(z, x):
    d[z] = rt.number(d[x])


@adjoint(rt.copy, checks=[check("{f}(x)", x=(3,)), check("{f}(x)", x=())])
def copy(z, x):
    d[x] = d[z]


@tangent(rt.copy)
def copy_tangent(z, x):
    d[z] = rt.copy(d[x])


@adjoint(rt.unbroadcast, checks=[
    check("{f}(g, x)", g=(2, 3), x=(3,)), check("{f}(g, x)", g=(3,), x=()),
    check("{f}(g, x)", g=(2, 3), x=(2, 3))])
def unbroadcast(z, g, like):
    d[g] = rt.broadcast_like(d[z], g)


@tangent(rt.unbroadcast)
def unbroadcast_tangent(z, g, like):
    d[z] = rt.unbroadcast(d[g], like)


# ---- helpers of the tangent templates --------------------------------------------------------
# Tangent code calls these; second derivatives differentiate it again, so each has an adjoint
# and a tangent rule (helpers whose derivative is zero where it exists are declared so).

nondifferentiable(rt.reduced_size, rt.cholesky_mask, result="shape")
# 0/1 weights picking the elements a max, ptp, median takes: locally constant in their inputs.
nondifferentiable(rt.extremum_mask, rt.ptp_mask, rt.median_mask, result="stop")

R, B = (3, 4), (2, 3, 4)


@adjoint(rt.reduce_sum, checks=[
    check("{f}(t)", t=R), check("{f}(t)", t=()), check("{f}(t, 1, False)", t=R),
    check("{f}(t, (0, 2), False)", t=B), check("{f}(t, None, True)", t=R),
    check("{f}(t, -1, True)", t=B, numba=False)])
def reduce_sum(z, t, axis=None, keepdims=False):
    d[t] = rt.unreduce(d[z], t, axis)


@tangent(rt.reduce_sum)
def reduce_sum_tangent(z, t, axis=None, keepdims=False):
    d[z] = rt.reduce_sum(d[t], axis, keepdims)


@adjoint(rt.total, checks=[
    check("{f}((x, y))", x=(), y=()), check("{f}((x, y, x))", x=(3,), y=(3,)),
    check("{f}((x, y))", x=(), y=(2, 3))])
def total(z, items):
    d[items] = rt.sum_grads(d[z], items)


@tangent(rt.total)
def total_tangent(z, items):
    d[z] = rt.total(d[items])


@adjoint(rt.sigmoid, checks=[check("{f}(x)", x=(4,)), check("{f}(x)", x=()),
                             check("{f}(x)", x=(2, 3), domain=(-30.0, 30.0))])
def sigmoid(z, x):
    d[x] = d[z] * z * (1.0 - z)


@tangent(rt.sigmoid)
def sigmoid_tangent(z, x):
    d[z] = d[x] * z * (1.0 - z)


@adjoint(rt.sinc_grad, checks=[check("{f}(x)", x=()), check("{f}(x)", x=(4,)),
                               check("{f}(x)", x=(2, 3), domain=(-0.5, 0.5))])
def sinc_grad(z, x):
    d[x] = d[z] * rt.sinc_deriv(x, 2)


@tangent(rt.sinc_grad)
def sinc_grad_tangent(z, x):
    d[z] = d[x] * rt.sinc_deriv(x, 2)


@adjoint(rt.sinc_deriv, checks=[check("{f}(x, 2)", x=(4,)), check("{f}(x, 3)", x=()),
                                check("{f}(x, 2)", x=(3,), domain=(-0.5, 0.5))])
def sinc_deriv(z, x, n):
    d[x] = d[z] * rt.sinc_deriv(x, n + 1)


@tangent(rt.sinc_deriv)
def sinc_deriv_tangent(z, x, n):
    d[z] = d[x] * rt.sinc_deriv(x, n + 1)


@adjoint(rt.digamma, checks=[check("{f}(x)", x=(4,), domain=(0.2, 8.0)),
                             check("{f}(x)", x=(), domain=(-0.9, -0.1))])
def digamma(z, x):
    d[x] = d[z] * rt.polygamma(1, x)


@tangent(rt.digamma)
def digamma_tangent(z, x):
    d[z] = d[x] * rt.polygamma(1, x)


@adjoint(rt.polygamma, checks=[check("{f}(1, x)", x=(4,), domain=(0.2, 8.0)),
                               check("{f}(2, x)", x=(), domain=(-1.9, -1.1))])
def polygamma(z, n, x):
    d[x] = d[z] * rt.polygamma(n + 1, x)


@tangent(rt.polygamma)
def polygamma_tangent(z, n, x):
    d[z] = d[x] * rt.polygamma(n + 1, x)


# ---- linear helpers: their adjoint is an adjoint helper, their tangent themselves -------------

@adjoint(rt.reshape_grad, checks=[
    check("{f}(g, a, 'C')", g=(12,), a=R), check("{f}(g, a, 'C')", g=R, a=(2, 6)),
    check("{f}(g, a, 'F')", g=(12,), a=R, numba=False)])
def reshape_grad(z, g, a, order):
    d[g] = rt.reshape_grad(d[z], g, order)


@tangent(rt.reshape_grad)
def reshape_grad_tangent(z, g, a, order):
    d[z] = rt.reshape_grad(d[g], a, order)


@adjoint(rt.reshape_like, checks=[
    check("{f}(g, a)", g=(12,), a=R), check("{f}(g, a)", g=(1,), a=()),
    check("{f}(g, a)", g=R, a=(3, 1, 4))])
def reshape_like(z, g, like):
    d[g] = rt.reshape_like(d[z], g)


@tangent(rt.reshape_like)
def reshape_like_tangent(z, g, like):
    d[z] = rt.reshape_like(d[g], like)


@adjoint(rt.atleast_tangents, checks=[
    check("{f}((t,), numpy.atleast_2d(t))", t=(3,)),
    check("a, b = {f}((t, u), numpy.atleast_2d(t, u))\nout = numpy.sum(a) + numpy.sum(b * b)",
          t=(3,), u=R)])
def atleast_tangents(z, tangents, results):
    d[tangents] = rt.atleast_grads(d[z], tangents)


@tangent(rt.atleast_tangents)
def atleast_tangents_tangent(z, tangents, results):
    d[z] = rt.atleast_tangents(d[tangents], results)


@adjoint(rt.flip_grad, checks=[check("{f}(g, None)", g=R), check("{f}(g, 1)", g=R, numba=False)])
def flip_grad(z, g, axis):
    d[g] = rt.flip_grad(d[z], axis)


@tangent(rt.flip_grad)
def flip_grad_tangent(z, g, axis):
    d[z] = rt.flip_grad(d[g], axis)


@adjoint(rt.delete, checks=[
    check("{f}(x, 1)", x=(4,)), check("{f}(x, numpy.array([0, 2]))", x=R),
    check("{f}(x, [0, -1], 0)", x=R, numba=False)])
def delete(z, arr, obj, axis=None):
    d[arr] = rt.delete_grad(d[z], arr, obj, axis)


@tangent(rt.delete)
def delete_tangent(z, arr, obj, axis=None):
    d[z] = rt.delete(d[arr], obj, axis)


@adjoint(rt.repeat, checks=[
    check("{f}(x, 2)", x=R), check("{f}(x, 3, -1)", x=B, numba=False)])
def repeat(z, a, repeats, axis=None):
    d[a] = rt.repeat_grad(d[z], a, repeats, axis)


@tangent(rt.repeat)
def repeat_tangent(z, a, repeats, axis=None):
    d[z] = rt.repeat(d[a], repeats, axis)


@adjoint(rt.roll, checks=[
    check("{f}(x, 2)", x=R), check("{f}(x, (1, -2), (0, 2))", x=B, numba=False)])
def roll(z, a, shift, axis=None):
    d[a] = rt.roll_grad(d[z], shift, axis)


@tangent(rt.roll)
def roll_tangent(z, a, shift, axis=None):
    d[z] = rt.roll(d[a], shift, axis)


@adjoint(rt.take, checks=[
    check("{f}(x, numpy.array([0, 5, 5, -1]))", x=R), check("{f}(x, 3)", x=R),
    check("{f}(x, numpy.array([0, 2, 2]), 1)", x=R),
    check("{f}(x, [4, -5], None, 'wrap')", x=(4,), numba=False)])
def take(z, a, indices, axis=None, mode="raise"):
    d[a] = rt.take_grad(d[z], a, indices, axis, mode)


@tangent(rt.take)
def take_tangent(z, a, indices, axis=None, mode="raise"):
    d[z] = rt.take(d[a], indices, axis, mode)


@adjoint(rt.sort_permute, checks=[
    check("{f}(t, a)", t=(5,), a=(5,)), check("{f}(t, a, -1)", t=R, a=R),
    check("{f}(t, a, 0)", t=R, a=R, numba=False), check("{f}(t, a, None)", t=R, a=R, numba=False)])
def sort_permute(z, t, a, axis=-1):
    d[t] = rt.sort_grad(d[z], a, axis)


@tangent(rt.sort_permute)
def sort_permute_tangent(z, t, a, axis=-1):
    d[z] = rt.sort_permute(d[t], a, axis)


@adjoint(rt.cross, checks=[
    check("{f}(x, y)", x=(3,), y=(3,)), check("{f}(x, y)", x=(4, 3), y=(3,)),
    check("{f}(x, y, 0, -1, 0)", x=(3, 2), y=(2, 3), numba=False)])
def cross(z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[a] = rt.cross_grad_a(d[z], a, b, axisa, axisb, axisc, axis)
    d[b] = rt.cross_grad_b(d[z], a, b, axisa, axisb, axisc, axis)


@tangent(rt.cross)
def cross_tangent(z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[z] = rt.cross(d[a], b, axisa, axisb, axisc, axis) + rt.cross(a, d[b], axisa, axisb, axisc,
                                                                   axis)


@adjoint(rt.trace, checks=[
    check("{f}(x, 0, 0, 1)", x=(3, 3)), check("{f}(x, 1, 0, 1)", x=R),
    check("{f}(x, 0, -2, -1)", x=(3, 3)), check("{f}(x, 0, -2, -1)", x=(2, 3, 3), numba=False)])
def trace(z, a, offset=0, axis1=0, axis2=1):
    d[a] = rt.trace_grad(d[z], a, offset, axis1, axis2)


@tangent(rt.trace)
def trace_tangent(z, a, offset=0, axis1=0, axis2=1):
    d[z] = rt.trace(d[a], offset, axis1, axis2)


@adjoint(rt.solve_product, checks=[
    check("{f}(m, z, b)", m=(3, 3), z=(3,), b=(3,)),
    check("{f}(m, z, b)", m=(3, 3), z=(3, 2), b=(3, 2)),
    check("{f}(m, z, b)", m=(2, 3, 3), z=(2, 3), b=(3,), numba=False)])
def solve_product(r, m, z, b):
    d[m] = rt.solve_product_grad_m(d[r], m, z, b)
    d[z] = rt.solve_product_grad_z(d[r], m, z, b)


@tangent(rt.solve_product)
def solve_product_tangent(r, m, z, b):
    d[r] = rt.solve_product(d[m], z, b) + rt.solve_product(m, d[z], b)


@adjoint(rt.cholesky_lower, checks=[
    check("{f}(x, False)", x=(3, 3)), check("{f}(x, True)", x=(3, 3)),
    check("{f}(x, True)", x=(2, 3, 3), numba=False)])
def cholesky_lower(z, x, upper=False):
    d[x] = rt.cholesky_lower(d[z], upper)


@tangent(rt.cholesky_lower)
def cholesky_lower_tangent(z, x, upper=False):
    d[z] = rt.cholesky_lower(d[x], upper)


# ---- tangent helpers: linear in the tangents, with second-order helpers for the rest ----------
# (Python only: Numba has none of the second-order helpers.)

@adjoint(rt.einsum_tangent, numba=False, checks=[
    check("{f}('ij,jk->ik', (x, y), (u, v))", x=(2, 3), y=(3, 4), u=(2, 3), v=(3, 4)),
    check("{f}('i,i->', (x, y), (u, 0.0))", x=(3,), y=(3,), u=(3,))])
def einsum_tangent(z, subscripts, operands, tangents):
    d[tangents] = rt.einsum_grads(d[z], subscripts, operands)
    d[operands] = rt.einsum_tangent_grads(d[z], subscripts, operands, tangents)


@tangent(rt.einsum_tangent)
def einsum_tangent_tangent(z, subscripts, operands, tangents):
    d[z] = rt.einsum_tangent(subscripts, operands, d[tangents]) + \
        rt.einsum_tangent2(subscripts, operands, tangents, d[operands])


@adjoint(rt.multi_dot_tangent, numba=False, checks=[
    check("{f}((x, y, w), (u, v, s))", x=(2, 3), y=(3, 3), w=(3, 2), u=(2, 3), v=(3, 3),
          s=(3, 2)),
    check("{f}((x, y), (u, v))", x=(3,), y=(3, 2), u=(3,), v=(3, 2))])
def multi_dot_tangent(z, arrays, tangents):
    d[tangents] = rt.multi_dot_grads(d[z], arrays)
    d[arrays] = rt.multi_dot_tangent_grads(d[z], arrays, tangents)


@tangent(rt.multi_dot_tangent)
def multi_dot_tangent_tangent(z, arrays, tangents):
    d[z] = rt.multi_dot_tangent(arrays, d[tangents]) + \
        rt.multi_dot_tangent2(arrays, tangents, d[arrays])


def _with_zero(shape):
    def generate(rng):
        x = rng.uniform(0.5, 1.5, shape)
        x.reshape(-1)[1] = 0.0
        return x
    generate.describe = f"{shape} with a zero"
    return generate


@adjoint(rt.prod_tangent, numba=False, domain=(0.5, 1.5), checks=[
    check("{f}(t, a, None)", t=R, a=R), check("{f}(t, a, 1)", t=R, a=R),
    check("{f}(t, a, (0, 2), True)", t=B, a=B), check("{f}(t, a, None)", t=(5,), a=_with_zero(5))])
def prod_tangent(z, t, a, axis, keepdims=False):
    d[t] = rt.prod_grad(d[z], a, axis)
    d[a] = rt.prod_tangent_grad(d[z], t, a, axis)


@tangent(rt.prod_tangent)
def prod_tangent_tangent(z, t, a, axis, keepdims=False):
    d[z] = rt.prod_tangent(d[t], a, axis, keepdims) + rt.prod_tangent2(t, d[a], a, axis, keepdims)


@adjoint(rt.cumprod_tangent, numba=False, domain=(0.5, 1.5), checks=[
    check("{f}(t, a, None)", t=R, a=R), check("{f}(t, a, 1)", t=R, a=R),
    check("{f}(t, a, -2)", t=B, a=B), check("{f}(t, a, None)", t=(5,), a=_with_zero(5))])
def cumprod_tangent(z, t, a, axis):
    d[t] = rt.cumprod_grad(d[z], a, axis)
    d[a] = rt.cumprod_tangent_grad(d[z], t, a, axis)


@tangent(rt.cumprod_tangent)
def cumprod_tangent_tangent(z, t, a, axis):
    d[z] = rt.cumprod_tangent(d[t], a, axis) + rt.cumprod_tangent2(t, d[a], a, axis)


@adjoint(rt.norm_tangent, numba=False, checks=[
    check("{f}(t, x, numpy.linalg.norm(x))", t=(5,), x=(5,)),
    check("{f}(t, x, numpy.linalg.norm(x, 3), 3)", t=(5,), x=(5,)),
    check("{f}(t, x, numpy.linalg.norm(x, 1), 1)", t=(5,), x=(5,)),
    check("{f}(t, x, numpy.linalg.norm(x, 'fro'), 'fro')", t=R, x=R),
    check("{f}(t, x, numpy.linalg.norm(x, numpy.inf), numpy.inf)", t=R, x=R),
    check("{f}(t, x, numpy.linalg.norm(x, axis=1), None, 1)", t=R, x=R),
    check("{f}(t, x, numpy.linalg.norm(x, axis=-1, keepdims=True), None, -1, True)", t=B, x=B)])
def norm_tangent(r, t, x, z, ord=None, axis=None, keepdims=False):
    d[t] = rt.norm_grad(d[r], x, z, ord, axis, keepdims)
    d[x] = rt.norm_tangent_grad_x(d[r], t, x, z, ord, axis, keepdims)
    d[z] = rt.norm_tangent_grad_z(d[r], t, x, z, ord, axis, keepdims)


@tangent(rt.norm_tangent)
def norm_tangent_tangent(r, t, x, z, ord=None, axis=None, keepdims=False):
    d[r] = rt.norm_tangent(d[t], x, z, ord, axis, keepdims) + \
        rt.norm_tangent2(t, d[x], d[z], x, z, ord, axis, keepdims)


@adjoint(rt.average_tangent, numba=False, domain=(0.5, 1.5), checks=[
    check("{f}(ta, tw, x, w, numpy.average(x, weights=w))", ta=R, tw=R, x=R, w=R),
    check("{f}(ta, 0.0, x, None, numpy.average(x, 1), 1)", ta=R, x=R),
    check("{f}(ta, tw, x, w, numpy.average(x, 1, w), 1)", ta=R, tw=(4,), x=R, w=(4,)),
    check("{f}(ta, tw, x, w, numpy.average(x, (0, 2), w, keepdims=True), (0, 2), False, True)",
          ta=B, tw=B, x=B, w=B)])
def average_tangent(r, ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    d[ta] = rt.average_grad_a(d[r], a, z, axis, weights, returned)
    d[tw] = rt.average_grad_weights(d[r], a, z, axis, weights, returned)
    d[a] = rt.average_tangent_grad_a(d[r], ta, tw, a, weights, z, axis, returned, keepdims)
    d[weights] = rt.average_tangent_grad_weights(d[r], ta, tw, a, weights, z, axis, returned,
                                                 keepdims)
    d[z] = rt.average_tangent_grad_z(d[r], ta, tw, a, weights, z, axis, returned, keepdims)


@tangent(rt.average_tangent)
def average_tangent_tangent(r, ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    d[r] = rt.average_tangent(d[ta], d[tw], a, weights, z, axis, returned, keepdims) + \
        rt.average_tangent2(ta, tw, a, weights, z, d[a], d[weights], d[z], axis, returned,
                            keepdims)
