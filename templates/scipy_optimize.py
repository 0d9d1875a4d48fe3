"""scipy.optimize's test function: rosen (the Rosenbrock function), whose gradient is scipy's
rosen_der and whose Hessian times a vector is rosen_hess_prod; generated code calls s2sad's own
forms of all three (`call_as`, s2sad/runtime/scipy_functions.py), which Numba compiles.
Loaded when scipy.optimize is imported (registry.library_rules).
"""
from scipy import optimize

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, tangent

# x is 1-D, or 2-D with a column per point (scipy sums along the first axis).
@adjoint(optimize.rosen, call_as=rt.rosen, checks=[
    check("{f}(x)", x=(5,)), check("{f}(x)", x=(2,)), check("{f}(x) * w", x=(4, 3), w=(3,))])
def rosen(z, x):
    d[x] = d[z] * rt.rosen_der(x)


@tangent(optimize.rosen)
def rosen_tangent(z, x):
    d[z] = rt.reduce_sum(rt.rosen_der(x) * d[x], 0)


@adjoint(optimize.rosen_der, call_as=rt.rosen_der, checks=[
    check("{f}(x) * w", x=(5,), w=(5,)), check("{f}(x) * w", x=(4, 3), w=(4, 3))])
def rosen_der(z, x):
    d[x] = rt.rosen_hess_prod(x, d[z])


@tangent(optimize.rosen_der)
def rosen_der_tangent(z, x):
    d[z] = rt.rosen_hess_prod(x, d[x])


# The Hessian is symmetric: d/dp (g . H p) = H g; d/dx is rosen's third derivative T(x), a
# symmetric tensor: rosen_hess_prod_der(x, p, g) = T(x)[p, g], so it is the tangent along x too.
@adjoint(optimize.rosen_hess_prod, call_as=rt.rosen_hess_prod, checks=[
    check("{f}(x, p) * w", x=(5,), p=(5,), w=(5,)), check("{f}(x, p) * w", x=(2,), p=(2,), w=(2,))])
def rosen_hess_prod(z, x, p):
    d[x] = rt.rosen_hess_prod_der(x, p, d[z])
    d[p] = rt.rosen_hess_prod(x, d[z])


@tangent(optimize.rosen_hess_prod)
def rosen_hess_prod_tangent(z, x, p):
    d[z] = rt.rosen_hess_prod(x, d[p]) + rt.rosen_hess_prod_der(x, p, d[x])


# T(x)[p, g] is linear in p and in g (T symmetric: the adjoints are T(x)[d, g] and T(x)[p, d]);
# in x only its 2400 x p g term varies (rosen's fourth derivative, rt.rosen_fourth).
@adjoint(rt.rosen_hess_prod_der, checks=[
    check("{f}(x, p, g) * w", x=(5,), p=(5,), g=(5,), w=(5,))])
def rosen_hess_prod_der(z, x, p, g):
    d[x] = d[z] * rt.rosen_fourth(p, g)
    d[p] = rt.rosen_hess_prod_der(x, d[z], g)
    d[g] = rt.rosen_hess_prod_der(x, p, d[z])


@tangent(rt.rosen_hess_prod_der)
def rosen_hess_prod_der_tangent(z, x, p, g):
    d[z] = rt.rosen_fourth(p, g) * d[x] + rt.rosen_hess_prod_der(x, d[p], g) + \
        rt.rosen_hess_prod_der(x, p, d[g])
