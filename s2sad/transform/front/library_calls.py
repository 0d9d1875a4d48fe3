"""Part of resolve.py: calls of the methods of scipy.stats distributions, bound to the plain
functions templates/scipy_stats.py writes them as, which s2sad differentiates from source.

scipy's distributions are objects whose methods are bound methods (a new object at each
access), so no rule can be keyed by them: a call is recognised by what its receiver is (a
distribution, or one frozen with its parameters) and rewritten as a call of the function
named after the distribution and the method, its arguments passed as written:

    scipy.stats.norm.logpdf(x, m, s)     -->   stats_norm_logpdf(x, m, s)
    t.logpdf(x, df, scale=s)             -->   stats_t_logpdf(x, df, scale=s)
    D.logpdf(x)     # D = norm(0.5, 2.0) -->   stats_norm_logpdf(x, 0.5, 2.0)

A distribution frozen inside the function, and used only through its methods, keeps its
parameters in names of their own, read where its methods are called (`unfreeze`, before
resolve looks names up):

    d = norm(mu, scale=s)                      d_0 = mu
    return d.logpdf(x)                -->      d_scale = s
                                               return norm.logpdf(x, d_0, scale=d_scale)

A distribution frozen and used at once is the method called with its parameters:
`beta(a, b).cdf(x)` --> `beta.cdf(x, a, b)`.

A distribution frozen outside the function and reached through an argument (an object's
field `self._phi`, a list of them `self._vars`) is a record of its parameters, named as the
functions here name them (`frozen_parameters`); its leaves are inputs like any other, and
container_methods.py binds its methods once the record is known:

    self._phi.logpdf(y)   # self._phi = multivariate_normal(m, c)
        -->   stats_multivariate_normal_logpdf(y, mean=self__phi_mean, cov=self__phi_cov)

A distribution or method templates/scipy_stats.py does not write out is an error naming it.
"""
import inspect
import numbers
import sys

import gast
import numpy

from .. import facts, nodes

# a module-level frozen distribution's parameters are written into the code: arrays up to this
FROZEN_ELEMENTS = 400


def unfreeze(tree, namespace):
    """Rewrite `d = dist(args...)` (a scipy.stats distribution called, `d` assigned once and
    read only as `d.method(...)`) into names holding its arguments, and each `d.method(y)`
    into `dist.method(y, args...)` (see the module docstring)."""
    stores, loads, methods = {}, {}, {}
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name):
            kind = loads if isinstance(node.ctx, gast.Load) else stores
            kind[node.id] = kind.get(node.id, 0) + 1
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, gast.Name):
            methods.setdefault(node.func.value.id, []).append(node)
    taken = set(stores) | set(loads)
    for statements in list(nodes.statement_lists(tree)):
        for index, statement in enumerate(list(statements)):
            target = nodes.assigned_name(statement)
            if target is None or stores.get(target) != 1 or \
                    loads.get(target, 0) != len(methods.get(target, ())) or \
                    not isinstance(statement.value, gast.Call):
                continue
            chain = nodes.dotted_parts(statement.value.func)
            if chain is None or chain[0] in stores or \
                    distribution_of(_value(namespace, chain)) is None:
                continue
            held = _hold(statement, target, taken)
            position = statements.index(statement)
            statements[position:position + 1] = held
            for call in methods.get(target, ()):
                call.func.value = gast.copy_location(nodes.clone(statement.value.func),
                                                     call.func.value)
                call.args[1:1] = [nodes.name(n) for n in held.positional]
                call.keywords += [gast.keyword(k, nodes.name(n)) for k, n in held.named]
    for call in [n for n in nodes.walk(tree) if isinstance(n, gast.Call)]:
        frozen = call.func.value if isinstance(call.func, gast.Attribute) else None
        chain = nodes.dotted_parts(frozen.func) if isinstance(frozen, gast.Call) else None
        if chain is not None and chain[0] not in stores and call.args and \
                distribution_of(_value(namespace, chain)) is not None:
            # frozen and used at once: `beta(a, b).cdf(x)` --> `beta.cdf(x, a, b)`
            call.func.value = frozen.func
            call.args[1:1] = frozen.args
            call.keywords += frozen.keywords


class _Held(list):
    """The assignments holding a frozen distribution's arguments, and their names."""
    positional = ()
    named = ()


def _hold(statement, target, taken):
    call = statement.value
    held = _Held()
    held.positional = [nodes.fresh(f"{target}_", taken) for _ in call.args]
    held.named = [(k.arg, _fresh_named(f"{target}_{k.arg}", taken)) for k in call.keywords]
    for name, value in list(zip(held.positional, call.args)) + \
            [(n, k.value) for (_, n), k in zip(held.named, call.keywords)]:
        held.append(gast.copy_location(nodes.assign(name, value), statement))
    return held


def _fresh_named(name, taken):
    if name not in taken:
        taken.add(name)
        return name
    return nodes.fresh(name + "_", taken)


def bind(resolver, node, chain):
    """The call `node` (of the global `chain`) as a call of the function that writes out the
    scipy.stats method it calls; None when it calls no distribution's method."""
    found = _value(resolver.namespace, chain)
    owner = getattr(found, "__self__", None)
    if distribution_of(found) is not None:  # `norm(mu, s)` called, not a method
        resolver.report(node.func, f"the scipy.stats distribution '{'.'.join(chain)}' is "
                        "called here without being assigned to a name",
                        why="s2sad differentiates the methods of a distribution frozen in "
                            "the function when it is assigned to a name used only by them",
                        fix=f"d = {'.'.join(chain)}(...) then d.logpdf(x), or pass the "
                            "parameters to the method: norm.logpdf(x, loc, scale)")
        return node
    described = distribution_of(owner)
    if described is None:
        return None
    name, frozen = described
    method = getattr(found, "__name__", chain[-1])
    from s2sad.templates import scipy_stats
    function = getattr(scipy_stats, f"{name}_{method}", None)
    if function is None:
        resolver.report(node.func, f"scipy.stats.{name}.{method} has no rule in s2sad",
                        why=f"s2sad writes out {_covered(scipy_stats, name)}",
                        fix="write the function with NumPy and scipy.special in a function "
                            "of your own (s2sad differentiates it), or give that function a "
                            "rule with @s2sad.adjoint (docs/rules.md: Adding a derivative)")
        return node
    args = list(node.args)
    if frozen is not None:
        values = [_written(resolver, node, name, v) for v in frozen[0]]
        args[1:1] = values
        node.keywords += [gast.keyword(k, _written(resolver, node, name, v))
                          for k, v in frozen[1].items()]
    node.keywords = [k for k in node.keywords if not _dropped(resolver, k, name, method)]
    return resolver._user_call(node, ["stats", name, method], function, args)


def _dropped(resolver, keyword, name, method):
    """Whether the keyword is one scipy accepts that the function has no use for (an
    allow_singular=False of multivariate_normal); any other value of it is reported."""
    if keyword.arg != "allow_singular":
        return False
    if not (isinstance(keyword.value, gast.Constant) and keyword.value.value is False):
        resolver.report(keyword.value, f"scipy.stats.{name}.{method}(allow_singular=...) "
                        "is not supported", why="s2sad factors the covariance by Cholesky",
                        fix="pass a positive definite covariance, without allow_singular")
    return True


def _written(resolver, node, name, value):
    """A frozen parameter's value as code: a number, or an array literal."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return nodes.number_node(value)
    array = numpy.asarray(value)
    if array.dtype.kind in "biuf" and array.size <= FROZEN_ELEMENTS:
        call = gast.Call(nodes.dotted("numpy.array", node),
                         [_literal(array.astype(float).tolist())], [])
        facts.REF.put(call, numpy.array)
        return gast.copy_location(call, node)
    resolver.report(node.func, f"a parameter of the frozen scipy.stats.{name} cannot be "
                    "written into the generated code", why="s2sad writes a module-level "
                    f"frozen distribution's numbers in place, up to {FROZEN_ELEMENTS}",
                    fix="pass the parameters to the method as arguments: "
                        f"{name}.logpdf(x, ...)")
    return nodes.number_node(0.0)


def _literal(value):
    if isinstance(value, list):
        return gast.List([_literal(v) for v in value], gast.Load())
    return nodes.number_node(value)


def _covered(module, name):
    methods = sorted(k.split("_")[-1] for k in vars(module)
                     if k.startswith(name + "_") and callable(getattr(module, k)))
    if methods:
        return f"{', '.join(methods)} of scipy.stats.{name}"
    names = sorted({k.rsplit("_", 1)[0] for k, v in vars(module).items()
                    if callable(v) and getattr(v, "__module__", None) == module.__name__})
    return "the densities of " + ", ".join(names)


def _value(namespace, chain):
    """What the dotted name `chain` denotes in `namespace` now, or None."""
    value = namespace.get(chain[0])
    for part in chain[1:]:
        value = getattr(value, part, None)
    return value


def distribution_of(obj):
    """(name, frozen) of a scipy.stats distribution: frozen is None, or its (args, kwds) for a
    frozen one; None for any other object."""
    stats = sys.modules.get("scipy.stats")
    if stats is None or obj is None:
        return None
    infrastructure = sys.modules.get("scipy.stats._distn_infrastructure")
    multivariate = sys.modules.get("scipy.stats._multivariate")
    if isinstance(obj, infrastructure.rv_frozen):
        return obj.dist.name, (tuple(obj.args), dict(obj.kwds))
    if isinstance(obj, infrastructure.rv_generic):
        return obj.name, None
    if isinstance(obj, multivariate.multi_rv_frozen):
        name = type(obj).__name__.removesuffix("_frozen")
        if name == "multivariate_normal":
            return name, ((obj.mean, obj.cov), {})
        if name == "dirichlet":
            return name, ((obj.alpha,), {})
        return name, ((), {})
    if isinstance(obj, multivariate.multi_rv_generic):
        return type(obj).__name__.removesuffix("_gen"), None
    return None



# a frozen distribution held as a record has this type name: scipy.stats.<name>_frozen
_FROZEN_PREFIX, _FROZEN_SUFFIX = "scipy.stats.", "_frozen"


def frozen_parameters(obj):
    """(type name, {parameter: value}) of a distribution frozen with its parameters (numbers or
    arrays), named as the functions of templates/scipy_stats.py name them (arg0, arg1... for a
    distribution that file does not write out); None for any other object."""
    described = distribution_of(obj)
    if described is None or described[1] is None:
        return None
    name, (args, kwds) = described
    function = family_function(name)
    try:
        bound = inspect.signature(function).bind(None, *args, **kwds)
        given = list(bound.arguments.items())[1:]  # (the first is x, or the count k)
    except (TypeError, ValueError):  # (a family with no rule: its methods are reported)
        given = [(f"arg{k}", v) for k, v in enumerate(args)] + list(kwds.items())
    return _FROZEN_PREFIX + name + _FROZEN_SUFFIX, {
        k: numpy.asarray(v, dtype=float) if isinstance(v, (list, tuple)) else v
        for k, v in given}


class Frozen:
    """The frozen distributions of the family `family`, where resolve.classes_of lists the
    classes of the objects an argument holds."""
    __slots__ = ("family",)

    def __init__(self, family):
        self.family = family


def frozen_family(typename):
    """The distribution's name of a frozen distribution's record type name, else None."""
    if isinstance(typename, str) and typename.startswith(_FROZEN_PREFIX) and \
            typename.endswith(_FROZEN_SUFFIX):
        return typename[len(_FROZEN_PREFIX):-len(_FROZEN_SUFFIX)]
    return None


def family_function(name, method=None):
    """The function templates/scipy_stats.py writes for `method` of the distribution `name`
    (for its density or mass function when method is None), or None."""
    from s2sad.templates import scipy_stats
    methods = (method,) if method else ("logpdf", "logpmf")
    return next((getattr(scipy_stats, f"{name}_{m}") for m in methods
                 if callable(getattr(scipy_stats, f"{name}_{m}", None))), None)


def covered(name):
    """What templates/scipy_stats.py writes out, for an error about the distribution `name`."""
    from s2sad.templates import scipy_stats
    return _covered(scipy_stats, name)
