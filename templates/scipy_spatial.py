"""scipy.spatial.distance: the distances between two vectors that have a derivative where
they are used (euclidean, sqeuclidean, cityblock, minkowski, cosine, braycurtis), w.r.t. u, v
and the weights w. Generated code calls s2sad's own forms (`call_as`,
s2sad/runtime/scipy_functions.py), which Numba compiles. Loaded when scipy.spatial.distance is
imported (registry.library_rules).

cityblock and braycurtis have |u - v| in them: at u == v their derivative is taken as 0, as
numpy.abs's is. minkowski's p is differentiated too.
"""
import numpy
from scipy.spatial import distance

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, tangent

V = (5,)
POSITIVE = (0.2, 2.0)


def _checks(*extra):
    return [check("{f}(u, v)", u=V, v=V), check("{f}(u, v, w=w)", u=V, v=V, w=V,
                                                  domain=POSITIVE), *extra]


@adjoint(distance.sqeuclidean, call_as=rt.sqeuclidean, checks=_checks())
def sqeuclidean(z, u, v, w=None):
    d[u] = d[z] * 2.0 * rt.weighted(u - v, w)
    d[v] = -d[z] * 2.0 * rt.weighted(u - v, w)
    d[w] = d[z] * (u - v) ** 2


@adjoint(distance.euclidean, call_as=rt.euclidean, checks=_checks())
def euclidean(z, u, v, w=None):
    d[u] = d[z] * rt.weighted(u - v, w) / z
    d[v] = -d[z] * rt.weighted(u - v, w) / z
    d[w] = d[z] * (u - v) ** 2 / (2.0 * z)


@adjoint(distance.cityblock, call_as=rt.cityblock, checks=_checks())
def cityblock(z, u, v, w=None):
    d[u] = d[z] * rt.weighted(numpy.sign(u - v), w)
    d[v] = -d[z] * rt.weighted(numpy.sign(u - v), w)
    d[w] = d[z] * numpy.abs(u - v)


# z = S^(1/p), S = sum w |u - v|^p: dz/dp = z (sum w |u-v|^p log|u-v| / S - log z) / p
@adjoint(distance.minkowski, call_as=rt.minkowski, checks=_checks(
    check("{f}(u, v, 3.0)", u=V, v=V), check("{f}(u, v, p)", u=V, v=V, p=(), domain=(1.2, 3.0)),
    check("{f}(u, v, p, w)", u=V, v=V, p=(), w=V, domain=(1.2, 3.0))))
def minkowski(z, u, v, p=2.0, w=None):
    d[u] = d[z] * rt.weighted(numpy.abs(u - v) ** (p - 1.0) * numpy.sign(u - v), w) * \
        z ** (1.0 - p)
    d[v] = -d[z] * rt.weighted(numpy.abs(u - v) ** (p - 1.0) * numpy.sign(u - v), w) * \
        z ** (1.0 - p)
    d[p] = d[z] * z * (numpy.sum(rt.weighted(rt.xlogy(numpy.abs(u - v) ** p,
                                                      numpy.abs(u - v)), w)) / z ** p -
                       numpy.log(z)) / p
    d[w] = d[z] * numpy.abs(u - v) ** p * z ** (1.0 - p) / p


@adjoint(distance.cosine, call_as=rt.cosine, checks=_checks())
def cosine(z, u, v, w=None):
    d[u] = d[z] * rt.cosine_der(u, v, w)
    d[v] = d[z] * rt.cosine_der(v, u, w)
    d[w] = d[z] * rt.cosine_weights_der(u, v, w)


@adjoint(distance.braycurtis, call_as=rt.braycurtis, checks=_checks())
def braycurtis(z, u, v, w=None):
    d[u] = d[z] * rt.braycurtis_der(u, v, w)
    d[v] = d[z] * rt.braycurtis_der(v, u, w)
    d[w] = d[z] * (numpy.abs(u - v) - z * numpy.abs(u + v)) / \
        numpy.sum(rt.weighted(numpy.abs(u + v), w))


# ---- tangents: the derivatives above, summed against the arguments' tangents ------------------

@tangent(distance.sqeuclidean)
def sqeuclidean_tangent(z, u, v, w=None):
    d[z] = numpy.sum(2.0 * rt.weighted(u - v, w) * (d[u] - d[v]) + d[w] * (u - v) ** 2)


@tangent(distance.euclidean)
def euclidean_tangent(z, u, v, w=None):
    d[z] = numpy.sum(rt.weighted(u - v, w) * (d[u] - d[v]) + 0.5 * d[w] * (u - v) ** 2) / z


@tangent(distance.cityblock)
def cityblock_tangent(z, u, v, w=None):
    d[z] = numpy.sum(rt.weighted(numpy.sign(u - v), w) * (d[u] - d[v]) + d[w] * numpy.abs(u - v))


# (written with NumPy and rt.weighted, which have rules: tangents are differentiated again)
@tangent(distance.cosine)
def cosine_tangent(z, u, v, w=None):
    d[z] = (numpy.sum(rt.weighted(u * v, w)) * (
        numpy.sum(rt.weighted(u * d[u], w)) / numpy.sum(rt.weighted(u * u, w)) +
        numpy.sum(rt.weighted(v * d[v], w)) / numpy.sum(rt.weighted(v * v, w))) -
        numpy.sum(rt.weighted(d[u] * v + u * d[v], w)) + numpy.sum(d[w] * (
            0.5 * numpy.sum(rt.weighted(u * v, w)) * (
                u * u / numpy.sum(rt.weighted(u * u, w)) +
                v * v / numpy.sum(rt.weighted(v * v, w))) - u * v))) / \
        numpy.sqrt(numpy.sum(rt.weighted(u * u, w)) * numpy.sum(rt.weighted(v * v, w)))


@tangent(distance.braycurtis)
def braycurtis_tangent(z, u, v, w=None):
    d[z] = (numpy.sum(rt.weighted(numpy.sign(u - v) * (d[u] - d[v]), w) +
                      d[w] * numpy.abs(u - v)) -
            z * numpy.sum(rt.weighted(numpy.sign(u + v) * (d[u] + d[v]), w) +
                          d[w] * numpy.abs(u + v))) / \
        numpy.sum(rt.weighted(numpy.abs(u + v), w))


@tangent(distance.minkowski)
def minkowski_tangent(z, u, v, p=2.0, w=None):
    d[z] = numpy.sum(rt.weighted(numpy.abs(u - v) ** (p - 1.0) * numpy.sign(u - v), w) *
                     (d[u] - d[v]) + d[w] * numpy.abs(u - v) ** p / p) * z ** (1.0 - p) + \
        d[p] * z * (numpy.sum(rt.weighted(rt.xlogy(numpy.abs(u - v) ** p, numpy.abs(u - v)),
                                          w)) / z ** p - numpy.log(z)) / p
