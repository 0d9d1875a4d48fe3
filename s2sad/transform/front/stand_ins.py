"""Library functions s2sad differentiates through a stand-in written in Python (part of
resolve.py): a call of `scipy.integrate.odeint` is a call of `s2sad.integrate.odeint`, a
function s2sad reads like one of yours and specialises on `func` (docs/rules.md, "ODE
solvers"), its arguments given by position (a container passed by keyword, `args=(A,)`, goes to
a function of yours as its leaves by position):

    odeint(func, y0, t, args=(A,), rtol=1e-6)   -->   odeint(func, y0, t, (A,), 1e-6, None,
                                                             0.0, 0.0, False)   # s2sad's

Keyed by the library function's module and name, so that scipy is imported only where the
code calls it. A function compiled with numba.njit (published kernels call their own helpers
so) stands in for itself by the Python function it compiles, `py_func`, unless a rule names it.
"""
import inspect
import sys

from s2sad import templates

from .. import template

# (module, name) of the library function -> (its public name, module and name of its stand-in)
_STAND_INS = {("scipy.integrate._odepack_py", "odeint"):
              ("scipy.integrate.odeint", "s2sad.integrate", "odeint"),
              ("scipy.integrate._ivp.ivp", "solve_ivp"):
              ("scipy.integrate.solve_ivp", "s2sad.integrate", "solve_ivp")}


def stand_in(call, found, report):
    """The stand-in s2sad differentiates in place of the library function `found` that `call`
    calls (its arguments then by position), or `found` itself. `report(node, message, why,
    fix)`: an argument the stand-in does not take."""
    compiled = getattr(found, "py_func", None)   # a numba.njit function, without a rule
    if type(found).__module__.startswith("numba.") and inspect.isfunction(compiled) and \
            templates.rule_for(found) is None and templates.tangent_for(found) is None:
        return compiled       # (read as a function of yours: what Numba compiles)
    key = (getattr(found, "__module__", None), getattr(found, "__name__", None))
    if key not in _STAND_INS:
        return found
    public, module, name = _STAND_INS[key]
    __import__(module)
    standing = getattr(sys.modules[module], name)
    try:
        return _called_by_position(call, standing)
    except TypeError as error:
        report(call, f"{public} is called with an argument s2sad's "
               f"solver does not take: {error}", why=f"s2sad differentiates {module}.{name}, "
               "an explicit Dormand-Prince solver, in its place (docs/rules.md)",
               fix="leave that argument out (Dfun: s2sad's solver needs no Jacobian; "
                   "full_output: call odeint outside the differentiated function for it)")
        return found


def _called_by_position(call, standing):
    """`standing`, its call `call` given every argument by position, defaults filled in (a
    container passed by keyword, `args=(A,)`, goes to a function of yours as its leaves by
    position). A TypeError where its signature does not take the call's arguments."""
    bound = inspect.signature(standing).bind(*call.args, **{
        k.arg: k.value for k in call.keywords})
    bound.apply_defaults()
    call.args = [template.as_node(bound.arguments[name])
                 for name in inspect.signature(standing).parameters]
    call.keywords = []
    return standing
