"""What s2sad differentiates in place of `scipy.integrate.odeint` and `solve_ivp`: explicit
Dormand–Prince 5(4) solvers with an error controller, written in the Python s2sad transforms,
so that the gradient goes through their steps (docs/rules.md, "ODE solvers"):

    def loss(A, y0, t):                         # s2sad.grad(loss) differentiates
        ys = odeint(func, y0, t, args=(A,))     # s2sad.integrate.odeint(func, y0, t, (A,))
        return np.sum(ys ** 2)                  # specialised on func, as a function of yours

Why the steps and not the adjoint ODE: the steps are code like any other, so `func` may take
containers, read module arrays and closures, and the whole gradient compiles; the derivative is
that of the values the solver returns, exact for them. The step sizes the controller picks are
constants for the gradient (`s2sad.stop_gradient`): a step's size moves with the state only
through the error estimate, whose derivative says nothing about the solution's.

odeint's values are the solution at the times `t` asked for, to the tolerances given (odeint's:
rtol = atol = 1.49012e-8 unless said), not LSODA's numbers digit for digit: a call of the
differentiated function returns these, and a call of your function runs scipy's solver.

solve_ivp (method "RK45", `t_eval` given) takes scipy's own steps: its first step, tableau,
error norm and controller, and its dense output at `t_eval`, so its values are scipy's up to
rounding; there the controller is differentiated too, so the gradient is that of scipy's
computation (it matches central differences of scipy's solve_ivp).
"""
from typing import NamedTuple

import numpy as np

import s2sad

# Dormand–Prince 5(4): the stages' nodes and weights, the 5th-order weights, and the
# difference of the 5th- and 4th-order weights (the error estimate).
_C2, _C3, _C4, _C5 = 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0
_A21 = 1.0 / 5.0
_A31, _A32 = 3.0 / 40.0, 9.0 / 40.0
_A41, _A42, _A43 = 44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0
_A51, _A52, _A53, _A54 = 19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0
_A61, _A62, _A63 = 9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0
_A64, _A65 = 49.0 / 176.0, -5103.0 / 18656.0
_B1, _B3, _B4, _B5, _B6 = 35.0 / 384.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, \
    11.0 / 84.0
_E1, _E3, _E4 = 71.0 / 57600.0, -71.0 / 16695.0, 71.0 / 1920.0
_E5, _E6, _E7 = -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0
_MOST_STEPS = 100000   # between two output times: more means a stiff problem
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0   # solve_ivp's step controller (RK45)
_EXPONENT = -1.0 / 5.0                               # (its error estimate is of order 4)


def odeint(func, y0, t, args=(), rtol=None, atol=None, h0=0.0, hmax=0.0, tfirst=False,
           mxstep=0, hmin=0.0, tcrit=None, ixpr=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0):
    """The solution of dy/dt = func(y, t, *args) at the times `t` (increasing or
    decreasing, t[0] the start), y(t[0]) = y0: an array with a row per time, as
    scipy.integrate.odeint returns it. LSODA's own settings (`mxstep` to `printmessg`) are
    taken and have no effect; `Dfun` and `full_output` are not taken (stand_ins.py)."""
    if tfirst:
        raise ValueError("s2sad.integrate.odeint: tfirst=True is not supported yet; write "
                         "func(y, t, ...) and call odeint without it")
    relative = 1.49012e-8 if rtol is None else rtol
    absolute = 1.49012e-8 if atol is None else atol
    y = np.zeros(np.size(y0)) + y0  # (a number: one equation, as scipy takes it)
    out = np.zeros((len(t), y.shape[0]))
    out[0] = y
    now = t[0]
    step = h0
    for k in range(1, len(t)):
        end = t[k]
        direction = 1.0 if end > now else -1.0
        if step <= 0.0:
            step = s2sad.stop_gradient(_first_step(func, y, now, end, args, relative, absolute))
        taken = 0
        while direction * (end - now) > 0.0:
            if taken > _MOST_STEPS:
                raise RuntimeError("s2sad.integrate.odeint: over 100000 steps between two "
                                   "output times; the problem may be stiff (s2sad's "
                                   "Dormand-Prince solver is explicit)")
            taken = taken + 1
            h = min(step, direction * (end - now))
            if hmax > 0.0:
                h = min(h, hmax)
            h = direction * h
            k1 = func(y, now, *args)
            k2 = func(y + h * (_A21 * k1), now + _C2 * h, *args)
            k3 = func(y + h * (_A31 * k1 + _A32 * k2), now + _C3 * h, *args)
            k4 = func(y + h * (_A41 * k1 + _A42 * k2 + _A43 * k3), now + _C4 * h, *args)
            k5 = func(y + h * (_A51 * k1 + _A52 * k2 + _A53 * k3 + _A54 * k4), now + _C5 * h,
                      *args)
            k6 = func(y + h * (_A61 * k1 + _A62 * k2 + _A63 * k3 + _A64 * k4 + _A65 * k5),
                      now + h, *args)
            moved = y + h * (_B1 * k1 + _B3 * k3 + _B4 * k4 + _B5 * k5 + _B6 * k6)
            k7 = func(moved, now + h, *args)
            error = h * (_E1 * k1 + _E3 * k3 + _E4 * k4 + _E5 * k5 + _E6 * k6 + _E7 * k7)
            scale = absolute + relative * np.maximum(np.abs(y), np.abs(moved))
            size = s2sad.stop_gradient(np.sqrt(np.mean((error / scale) ** 2)))
            if size <= 1.0:
                now = now + h
                y = moved
            grow = 10.0 if size == 0.0 else min(10.0, max(0.2, 0.9 * size ** -0.2))
            step = abs(h) * grow
        out[k] = y
    return out


def _first_step(func, y, start, end, args, relative, absolute):
    """A first step from the sizes of the state and of its rate (Hairer, Nørsett and Wanner's
    rule), no longer than the interval."""
    scale = absolute + relative * np.abs(y)
    rate = func(y, start, *args)
    state_size = np.sqrt(np.mean((y / scale) ** 2))
    rate_size = np.sqrt(np.mean((rate / scale) ** 2))
    h = 1e-6 if state_size < 1e-5 or rate_size < 1e-5 else 0.01 * state_size / rate_size
    return min(h, abs(end - start))


class OdeResult(NamedTuple):
    """What s2sad's solve_ivp returns: the fields of scipy's result that it follows."""
    t: np.ndarray
    y: np.ndarray
    success: bool
    status: int
    message: str


def solve_ivp(fun, t_span, y0, method="RK45", t_eval=None, dense_output=False, events=None,
              vectorized=False, args=(), first_step=None, max_step=np.inf, rtol=1e-3,
              atol=1e-6):
    """scipy.integrate.solve_ivp with method="RK45" and `t_eval` given: scipy's steps (its
    initial step, tableau, error norm and controller) and its dense output at `t_eval`, so the
    values are scipy's up to rounding. Other methods, `events` and `dense_output` raise."""
    if method != "RK45" or t_eval is None or events is not None or dense_output:
        raise ValueError("s2sad differentiates solve_ivp with method='RK45' and t_eval given, "
                         "without events or dense_output (docs/rules.md, ODE solvers)")
    start, end = t_span[0] * 1.0, t_span[1] * 1.0
    y = np.zeros(np.size(y0)) + y0
    n = y.shape[0]
    direction = 1.0 if end >= start else -1.0
    out = np.zeros((n, len(t_eval)))
    now = start
    f = fun(now, y, *args)
    if first_step is None:
        h_abs = _rk45_first_step(fun, now, y, end, max_step, f, direction, rtol, atol, args)
    else:
        h_abs = first_step
    j = 0
    while direction * (end - now) > 0.0:
        h_abs = min(h_abs, max_step)
        accepted = False
        rejected = False
        while not accepted:
            t_new = now + h_abs * direction
            if direction * (t_new - end) > 0.0:
                t_new = end
            h = t_new - now
            h_abs = abs(h)
            k2 = fun(now + _C2 * h, y + h * (_A21 * f), *args)
            k3 = fun(now + _C3 * h, y + h * (_A31 * f + _A32 * k2), *args)
            k4 = fun(now + _C4 * h, y + h * (_A41 * f + _A42 * k2 + _A43 * k3), *args)
            k5 = fun(now + _C5 * h, y + h * (_A51 * f + _A52 * k2 + _A53 * k3 + _A54 * k4),
                     *args)
            k6 = fun(now + h, y + h * (_A61 * f + _A62 * k2 + _A63 * k3 + _A64 * k4 +
                                       _A65 * k5), *args)
            moved = y + h * (_B1 * f + _B3 * k3 + _B4 * k4 + _B5 * k5 + _B6 * k6)
            f_new = fun(now + h, moved, *args)
            error = h * (_E1 * f + _E3 * k3 + _E4 * k4 + _E5 * k5 + _E6 * k6 + _E7 * f_new)
            scale = atol + np.maximum(np.abs(y), np.abs(moved)) * rtol
            size = _rms(error / scale)
            if size < 1.0:
                factor = _MAX_FACTOR if size == 0.0 else \
                    min(_MAX_FACTOR, _SAFETY * size ** _EXPONENT)
                if rejected:
                    factor = min(1.0, factor)
                h_abs = h_abs * factor
                accepted = True
            else:
                h_abs = h_abs * max(_MIN_FACTOR, _SAFETY * size ** _EXPONENT)
                rejected = True
        while j < len(t_eval) and direction * (t_eval[j] - t_new) <= 0.0:
            out[:, j] = _dense(y, h, (t_eval[j] - now) / h, f, k3, k4, k5, k6, f_new)
            j = j + 1
        now = t_new
        y = moved
        f = f_new
    return OdeResult(t_eval * 1.0, out, True, 0,
                     "The solver successfully reached the end of the integration interval.")


def _dense(y, h, x, k1, k3, k4, k5, k6, k7):
    """The step's dense output at x (0 at its start, 1 at its end): Shampine's quartic
    interpolant of the Dormand-Prince pair, scipy's RK45.P, each stage weighed by
    x (p0 + x (p1 + x (p2 + x p3)))."""
    return y + h * (
        _weight(x, 1.0, -8048581381 / 2820520608, 8663915743 / 2820520608,
                -12715105075 / 11282082432) * k1 +
        _weight(x, 0.0, 131558114200 / 32700410799, -68118460800 / 10900136933,
                87487479700 / 32700410799) * k3 +
        _weight(x, 0.0, -1754552775 / 470086768, 14199869525 / 1410260304,
                -10690763975 / 1880347072) * k4 +
        _weight(x, 0.0, 127303824393 / 49829197408, -318862633887 / 49829197408,
                701980252875 / 199316789632) * k5 +
        _weight(x, 0.0, -282668133 / 205662961, 2019193451 / 616988883,
                -1453857185 / 822651844) * k6 +
        _weight(x, 0.0, 40617522 / 29380423, -110615467 / 29380423,
                69997945 / 29380423) * k7)


def _weight(x, p0, p1, p2, p3):
    return x * (p0 + x * (p1 + x * (p2 + x * p3)))


def _rms(x):
    return np.sqrt(np.sum(x * x) / x.shape[0])


def _rk45_first_step(fun, start, y, end, max_step, f, direction, rtol, atol, args):
    """scipy's first step for RK45 (Hairer, Nørsett and Wanner's rule, with the rates' change
    over a trial step)."""
    span = abs(end - start)
    scale = atol + np.abs(y) * rtol
    d0, d1 = _rms(y / scale), _rms(f / scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, span)
    f1 = fun(start + h0 * direction, y + h0 * direction * f, *args)
    d2 = _rms((f1 - f) / scale) / h0
    h1 = max(1e-6, h0 * 1e-3) if d1 <= 1e-15 and d2 <= 1e-15 else \
        (0.01 / max(d1, d2)) ** (1.0 / 5.0)
    return min(100.0 * h0, h1, span, max_step)
