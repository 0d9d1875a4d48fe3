"""Runtime helpers for the derivative templates of numpy.linalg's decompositions and the
functions built on them (eigh, eigvalsh, svd, svdvals, qr, lstsq, pinv;
templates/linalg_more.py).

Each is defined once (dispatch.py). Numba compiles them for one matrix, as the same code Python
runs for it; stacked matrices are `python_only` (Numba's np.linalg takes single matrices too).

Eigen- and singular vectors are differentiated with the matrix of inverse gaps
F[i, j] = 1 / (w[j] - w[i]) (0 on the diagonal; w the eigenvalues, or the squared singular
values): degenerate (repeated) eigen- or singular values make it infinite, and their vectors
have no derivative. Values alone (eigvalsh, svd without vectors) have none of that problem
where they are distinct.
"""
import numpy as np

from .arrays import f64
from .dispatch import by_type, constant, is_array, is_constant, is_scalar, jitable, python_only

__all__ = ["eig_gaps", "eig_gaps_grad", "eig_gaps_tangent", "hermitian_part",
           "hermitian_part_grad", "eigh_grad", "eigh_factor", "eigh_factor_grad",
           "eigh_factor_tangent", "svd_grad", "svd_factor", "svd_factor_grad",
           "svd_factor_tangent", "qr_grad", "lstsq_grad_a", "lstsq_grad_b", "residuals_like",
           "residuals_like_grad", "pinv_grad"]


def _one_matrix(*types):
    """Whether Numba types are each a scalar, a vector or a single matrix."""
    return all(is_scalar(t) or is_array(t, 1) or is_array(t, 2) or t is None for t in types)


# ---- the matrix of inverse gaps, and symmetric matrices read from one triangle ---------------

@jitable
def _gaps(w):
    n = w.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                out[i, j] = 1.0 / (w[j] - w[i])
    return out


@by_type
def eig_gaps(w):
    """F[..., i, j] = 1 / (w[..., j] - w[..., i]), 0 on the diagonal."""
    if is_array(w, 1):
        return lambda w: _gaps(f64(w))
    return python_only(lambda w: _gaps_stacked(np.asarray(w, dtype=np.float64)))


def _gaps_stacked(w):
    diff = w[..., None, :] - w[..., :, None]
    n = w.shape[-1]
    eye = np.eye(n, dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, diff))


@jitable
def eig_gaps_grad(g, w):
    """Gradient w.r.t. w of F = eig_gaps(w): dF[i, j] = -F[i, j]^2 (dw[j] - dw[i])."""
    f = eig_gaps(w)
    h = g * f * f
    return np.sum(h, axis=-1) - np.sum(h, axis=-2)


@jitable
def eig_gaps_tangent(t, w):
    """Tangent of eig_gaps(w) along t."""
    f = eig_gaps(w)
    return -(f * f) * (np.expand_dims(t, -2) - np.expand_dims(t, -1))


@jitable
def hermitian_part(t, UPLO="L"):
    """The symmetric matrix numpy.linalg.eigh reads from t: its lower triangle (UPLO 'L') or
    its upper one ('U') mirrored."""
    if UPLO == "U":
        return np.triu(t) + np.swapaxes(np.triu(t, 1), -1, -2)
    return np.tril(t) + np.swapaxes(np.tril(t, -1), -1, -2)


@jitable
def hermitian_part_grad(g, UPLO="L"):
    """Adjoint of hermitian_part: the gradient folded onto the triangle that is read."""
    both = g + np.swapaxes(g, -1, -2)
    if UPLO == "U":
        return np.triu(both) - np.triu(np.tril(g))
    return np.tril(both) - np.triu(np.tril(g))


# ---- eigh -----------------------------------------------------------------------------------

@jitable
def _eigh_grad(gw, gv, w, v, UPLO):
    vt = np.ascontiguousarray(v.T)
    inner = np.diag(gw * np.ones(w.shape[0])) + _gaps(w) * np.dot(vt, gv * np.ones(v.shape))
    return hermitian_part_grad(np.dot(np.dot(v, inner), vt), UPLO)


def _eigh_grad_stacked(gw, gv, w, v, UPLO="L"):
    gw = np.broadcast_to(gw, np.shape(w))
    gv = np.broadcast_to(gv, np.shape(v))
    vt = np.swapaxes(v, -1, -2)
    inner = gw[..., None] * np.eye(w.shape[-1]) + _gaps_stacked(w) * (vt @ gv)
    return hermitian_part_grad(v @ inner @ vt, UPLO)


@by_type
def eigh_grad(gw, gv, w, v, UPLO="L"):
    """Gradient w.r.t. a of (w, v) = numpy.linalg.eigh(a, UPLO), from the gradients gw of the
    eigenvalues and gv of the eigenvectors (either may be 0.0): v (diag(gw) + F * v^T gv) v^T,
    folded onto the triangle eigh reads. Repeated eigenvalues: not differentiable."""
    if is_array(w, 1) and _one_matrix(gw, gv, v):
        return lambda gw, gv, w, v, UPLO="L": _eigh_grad(gw, f64(gv), f64(w), f64(v), UPLO)
    return python_only(_eigh_grad_stacked)


@jitable
def _eigh(a, UPLO):
    if UPLO == "U":   # Numba's eigh reads the lower triangle only
        return np.linalg.eigh(np.ascontiguousarray(hermitian_part(a, "U")))
    return np.linalg.eigh(a)


@by_type
def eigh_factor(a, UPLO="L", k=0):
    """numpy.linalg.eigh(a, UPLO)[k]: the eigenvalues (k=0) or the eigenvectors (k=1)."""
    if is_array(a, 2) and is_constant(k, 0):
        return lambda a, UPLO="L", k=0: _eigh(f64(a), UPLO)[0]
    if is_array(a, 2) and is_constant(k, 1):
        return lambda a, UPLO="L", k=0: _eigh(f64(a), UPLO)[1]
    return python_only(lambda a, UPLO="L", k=0: np.linalg.eigh(a, UPLO)[k])


def _eigh_factor_grad(g, a, UPLO="L", k=0):
    w, v = np.linalg.eigh(a, UPLO)
    return eigh_grad(g, 0.0, w, v, UPLO) if k == 0 else eigh_grad(0.0, g, w, v, UPLO)


@by_type
def eigh_factor_grad(g, a, UPLO="L", k=0):
    """Gradient w.r.t. a of eigh_factor(a, UPLO, k)."""
    if is_array(a, 2) and is_constant(k, 0):
        def values(g, a, UPLO="L", k=0):
            w, v = _eigh(f64(a), UPLO)
            return _eigh_grad(f64(g), 0.0, w, v, UPLO)
        return values
    if is_array(a, 2) and is_constant(k, 1):
        def vectors(g, a, UPLO="L", k=0):
            w, v = _eigh(f64(a), UPLO)
            return _eigh_grad(0.0, f64(g), w, v, UPLO)
        return vectors
    return python_only(_eigh_factor_grad)


def _eigh_factor_tangent(t, a, UPLO="L", k=0):
    w, v = np.linalg.eigh(a, UPLO)
    p = np.swapaxes(v, -1, -2) @ hermitian_part(t, UPLO) @ v
    if k == 0:
        return np.diagonal(p, 0, -2, -1).copy()
    return v @ (p * eig_gaps(w))


@by_type
def eigh_factor_tangent(t, a, UPLO="L", k=0):
    """Tangent of eigh_factor(a, UPLO, k) along t: diag(v^T S v) for the eigenvalues,
    v (F * v^T S v) for the eigenvectors, S the symmetric matrix t stands for."""
    if is_array(a, 2) and is_array(t, 2) and is_constant(k, 0):
        def values(t, a, UPLO="L", k=0):
            w, v = _eigh(f64(a), UPLO)
            p = np.dot(np.dot(np.ascontiguousarray(v.T), hermitian_part(f64(t), UPLO)), v)
            return np.diag(p).copy()
        return values
    if is_array(a, 2) and is_array(t, 2) and is_constant(k, 1):
        def vectors(t, a, UPLO="L", k=0):
            w, v = _eigh(f64(a), UPLO)
            p = np.dot(np.dot(np.ascontiguousarray(v.T), hermitian_part(f64(t), UPLO)), v)
            return np.dot(v, p * _gaps(w))
        return vectors
    return python_only(_eigh_factor_tangent)


# ---- svd ------------------------------------------------------------------------------------

def _thin(u, s, vh):
    k = s.shape[-1]
    if u.shape[-1] != k or vh.shape[-2] != k:
        raise NotImplementedError(
            "the derivative of numpy.linalg.svd with full_matrices=True is defined for square "
            "matrices only: call it with full_matrices=False")


@jitable
def _svd_grad(gu, gs, gvh, u, s, vh):
    k = s.shape[0]
    if u.shape[1] != k or vh.shape[0] != k:
        raise NotImplementedError("numpy.linalg.svd: full_matrices=True on a non-square matrix")
    ut = np.ascontiguousarray(u.T)
    v = np.ascontiguousarray(vh.T)
    gu = gu * np.ones(u.shape)
    gv = np.ascontiguousarray((gvh * np.ones(vh.shape)).T)
    f = _gaps(s * s)
    j = f * np.dot(ut, gu)
    kk = f * np.dot(vh, gv)
    inner = (j + j.T) * s + np.expand_dims(s, 1) * (kk + kk.T) + np.diag(gs * np.ones(k))
    out = np.dot(np.dot(u, inner), vh)
    out += np.dot((gu - np.dot(u, np.dot(ut, gu))) / s, vh)
    out += np.dot(u, np.ascontiguousarray(((gv - np.dot(v, np.dot(vh, gv))) / s).T))
    return out


def _svd_grad_stacked(gu, gs, gvh, u, s, vh):
    _thin(u, s, vh)
    gu = np.broadcast_to(gu, np.shape(u))
    gs = np.broadcast_to(gs, np.shape(s))
    gv = np.swapaxes(np.broadcast_to(gvh, np.shape(vh)), -1, -2)
    ut, v = np.swapaxes(u, -1, -2), np.swapaxes(vh, -1, -2)
    f = _gaps_stacked(s * s)
    j = f * (ut @ gu)
    kk = f * (vh @ gv)
    inner = (j + np.swapaxes(j, -1, -2)) * s[..., None, :] + \
        s[..., :, None] * (kk + np.swapaxes(kk, -1, -2)) + gs[..., None] * np.eye(s.shape[-1])
    return u @ inner @ vh + ((gu - u @ (ut @ gu)) / s[..., None, :]) @ vh + \
        u @ np.swapaxes((gv - v @ (vh @ gv)) / s[..., None, :], -1, -2)


@by_type
def svd_grad(gu, gs, gvh, u, s, vh):
    """Gradient w.r.t. a of (u, s, vh) = numpy.linalg.svd(a, full_matrices=False) (or of a
    square a), from the gradients of the three factors (any may be 0.0), with
    F[i, j] = 1 / (s[j]^2 - s[i]^2), J = F * u^T gu, K = F * v^T gv:
    u ((J + J^T) s + s (K + K^T) + diag(gs)) v^T + (1 - u u^T) gu s^-1 v^T
    + u s^-1 gv^T (1 - v v^T). Repeated singular values: not differentiable."""
    if is_array(s, 1) and _one_matrix(gu, gs, gvh, u, vh):
        return lambda gu, gs, gvh, u, s, vh: _svd_grad(gu, gs, gvh, f64(u), f64(s), f64(vh))
    return python_only(_svd_grad_stacked)


@by_type
def svd_factor(a, k=1):
    """The thin SVD's factors of a: u (k=0), s (k=1), v = vh^T (k=2)."""
    if is_array(a, 2) and is_constant(k, 0):
        return lambda a, k=1: np.linalg.svd(f64(a), False)[0]
    if is_array(a, 2) and is_constant(k, 1):
        return lambda a, k=1: np.linalg.svd(f64(a), False)[1]
    if is_array(a, 2) and is_constant(k, 2):
        return lambda a, k=1: np.ascontiguousarray(np.linalg.svd(f64(a), False)[2].T)
    return python_only(_svd_factor)


def _svd_factor(a, k=1):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u, s, np.swapaxes(vh, -1, -2))[k]


@by_type
def svd_factor_grad(g, a, k=1):
    """Gradient w.r.t. a of svd_factor(a, k)."""
    if is_array(a, 2) and is_constant(k, 0, 1, 2):
        kind = constant(k)

        def matrix(g, a, k=1):
            u, s, vh = np.linalg.svd(f64(a), False)
            if kind == 0:
                return _svd_grad(f64(g), 0.0, 0.0, u, s, vh)
            if kind == 1:
                return _svd_grad(0.0, f64(g), 0.0, u, s, vh)
            return _svd_grad(0.0, 0.0, np.ascontiguousarray(f64(g).T), u, s, vh)
        return matrix
    return python_only(_svd_factor_grad)


def _svd_factor_grad(g, a, k=1):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    parts = [0.0, 0.0, 0.0]
    parts[k] = np.swapaxes(g, -1, -2) if k == 2 else g
    return svd_grad(*parts, u, s, vh)


def svd_tangents(t, u, s, vh):
    """The tangents (du, ds, dv) of the thin SVD u s vh of a along t (Python, any stack)."""
    v = np.swapaxes(vh, -1, -2)
    ut = np.swapaxes(u, -1, -2)
    p = ut @ t @ v
    f = eig_gaps(s * s)
    ps = p * s[..., None, :]
    pt = np.swapaxes(p, -1, -2)
    pts = pt * s[..., None, :]
    du = u @ (f * (ps + np.swapaxes(ps, -1, -2))) + (t @ v - u @ p) / s[..., None, :]
    dv = v @ (f * (pts + np.swapaxes(pts, -1, -2))) + \
        (np.swapaxes(t, -1, -2) @ u - v @ pt) / s[..., None, :]
    return du, np.diagonal(p, 0, -2, -1).copy(), dv


def _svd_factor_tangent(t, a, k=1):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return svd_tangents(np.asarray(t, dtype=np.float64), u, s, vh)[k]


@by_type
def svd_factor_tangent(t, a, k=1):
    """Tangent of svd_factor(a, k) along t (svd_tangents, for one matrix)."""
    if is_array(a, 2) and is_array(t, 2) and is_constant(k, 0, 1, 2):
        kind = constant(k)

        def matrix(t, a, k=1):
            u, s, vh = np.linalg.svd(f64(a), False)
            t = f64(t)
            v = np.ascontiguousarray(vh.T)
            p = np.dot(np.dot(np.ascontiguousarray(u.T), t), v)
            f = _gaps(s * s)
            if kind == 1:
                return np.diag(p).copy()
            if kind == 0:
                ps = p * s
                return np.dot(u, f * (ps + ps.T)) + (np.dot(t, v) - np.dot(u, p)) / s
            pt = np.ascontiguousarray(p.T)
            pts = pt * s
            return np.dot(v, f * (pts + pts.T)) + \
                (np.dot(np.ascontiguousarray(t.T), u) - np.dot(v, pt)) / s
        return matrix
    return python_only(_svd_factor_tangent)


# ---- qr ---------------------------------------------------------------------------------------

@jitable
def _qr_grad(gq, gr, q, r):
    gq = gq * np.ones(q.shape)
    gr = gr * np.ones(r.shape)
    m = np.dot(gr, np.ascontiguousarray(r.T)) - np.dot(np.ascontiguousarray(q.T), gq)
    omega = m - np.tril(m, -1) + np.tril(np.ascontiguousarray(m.T), -1)
    x = gq + np.dot(q, omega)
    # x r^-T, as (r^-1 x^T)^T
    return np.ascontiguousarray(np.linalg.solve(r, np.ascontiguousarray(x.T)).T)


def _qr_grad_stacked(gq, gr, q, r):
    gq = np.broadcast_to(gq, np.shape(q))
    gr = np.broadcast_to(gr, np.shape(r))
    m = gr @ np.swapaxes(r, -1, -2) - np.swapaxes(q, -1, -2) @ gq
    omega = m - np.tril(m, -1) + np.tril(np.swapaxes(m, -1, -2), -1)
    return np.swapaxes(np.linalg.solve(r, np.swapaxes(gq + q @ omega, -1, -2)), -1, -2)


@by_type
def qr_grad(gq, gr, q, r):
    """Gradient w.r.t. a (m x n, m >= n) of (q, r) = numpy.linalg.qr(a): with
    M = gr r^T - q^T gq, (gq + q (M - tril(M, -1) + tril(M^T, -1))) r^-T."""
    if is_array(q, 2) and is_array(r, 2) and _one_matrix(gq, gr):
        return lambda gq, gr, q, r: _qr_grad(gq, gr, f64(q), f64(r))
    return python_only(_qr_grad_stacked)


# ---- lstsq --------------------------------------------------------------------------------------

@jitable
def _outer_or_product(x, y):
    """x y^T for matrices, outer(x, y) for vectors."""
    if x.ndim == 1:
        return np.outer(x, y)
    return np.dot(x, np.ascontiguousarray(y.T))


@jitable
def _lstsq_parts(a, b, x, gx, gres, res):
    """The residual r = b - a x, u = (a^T a)^-1 gx, and the residual sums' weights 2 r gres
    (zero without residual sums)."""
    r = b - np.dot(a, x)
    u = np.linalg.solve(np.dot(np.ascontiguousarray(a.T), a), gx * np.ones(x.shape))
    if res.size > 0:
        return r, u, 2.0 * r * gres
    return r, u, np.zeros(r.shape)


@by_type
def lstsq_grad_a(gx, gres, gsv, a, b, x, res):
    """Gradient w.r.t. a (full column rank) of (x, res, rank, sv) = numpy.linalg.lstsq(a, b):
    r u^T - a u x^T with r = b - a x and u = (a^T a)^-1 gx; -2 r gres x^T for the residual
    sums `res` (present when a has more rows than columns); u diag(gsv) v^T for the singular
    values."""
    if is_array(a, 2) and (is_array(b, 1) or is_array(b, 2)):
        def matrix(gx, gres, gsv, a, b, x, res):
            a, b, x = f64(a), f64(b), f64(x)
            r, u, rw = _lstsq_parts(a, b, x, gx, gres, res)
            out = _outer_or_product(r, u) - np.dot(a, _outer_or_product(u, x))
            if res.size > 0:
                out -= _outer_or_product(rw, x)
            if not _is_zero(gsv):
                uu, s, vh = np.linalg.svd(a, False)
                out += _svd_grad(0.0, gsv, 0.0, uu, s, vh)
            return out
        return matrix
    return None


@by_type
def lstsq_grad_b(gx, gres, a, b, x, res):
    """Gradient w.r.t. b of numpy.linalg.lstsq(a, b): a (a^T a)^-1 gx, plus 2 r gres for the
    residual sums."""
    if is_array(a, 2) and (is_array(b, 1) or is_array(b, 2)):
        def matrix(gx, gres, a, b, x, res):
            a, b, x = f64(a), f64(b), f64(x)
            r, u, rw = _lstsq_parts(a, b, x, gx, gres, res)
            out = np.dot(a, u)
            if res.size > 0:
                out += rw
            return out
        return matrix
    return None


@by_type
def _is_zero(g):
    if is_scalar(g):
        return lambda g: g == 0.0
    return lambda g: False


@jitable
def residuals_like(t, res):
    """t as the tangent of lstsq's residual sums `res`: empty where they are (rank-deficient
    or square systems)."""
    if res.size == 0:
        return np.zeros(0)
    return np.zeros(res.shape) + t


@by_type
def residuals_like_grad(g, t, res):
    """Adjoint of residuals_like w.r.t. t."""
    if is_scalar(t):
        return lambda g, t, res: 0.0 if res.size == 0 else float(np.sum(g))
    return lambda g, t, res: np.zeros(t.shape) if res.size == 0 else np.zeros(t.shape) + g


# ---- pinv ---------------------------------------------------------------------------------------

@by_type
def pinv_grad(g, a, z):
    """Gradient w.r.t. a (full rank) of z = numpy.linalg.pinv(a):
    -z^T g z^T + (1 - a z) g^T z z^T + z^T z g^T (1 - z a)."""
    if is_array(a, 2) and is_array(z, 2):
        def matrix(g, a, z):
            a, z, g = f64(a), f64(z), f64(g)
            zt, gt = np.ascontiguousarray(z.T), np.ascontiguousarray(g.T)
            left = np.dot(gt, np.dot(z, zt))
            right = np.dot(np.dot(zt, z), gt)
            return -np.dot(np.dot(zt, g), zt) + left - np.dot(a, np.dot(z, left)) + \
                right - np.dot(np.dot(right, z), a)
        return matrix
    return python_only(_pinv_grad_stacked)


def _pinv_grad_stacked(g, a, z):
    zt, gt = np.swapaxes(z, -1, -2), np.swapaxes(g, -1, -2)
    left = gt @ z @ zt
    right = zt @ z @ gt
    return -zt @ g @ zt + left - a @ (z @ left) + right - right @ z @ a


