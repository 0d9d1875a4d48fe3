"""Part of containers.py: method calls on objects an argument holds, bound once the object is
known (resolve.py leaves them with facts.METHOD: `var` in `var.pdf(y)` is a loop variable
over a list, known only when the loop is unrolled).

A frozen scipy.stats distribution is a record of its parameters (library_calls.py): the call
becomes a call of the function templates/scipy_stats.py writes for the method, its parameters
passed by name. An object of a class of the user's: its method called with it, specialised on
its fields as any call passing a container is (container_arguments.pass_leaves):

    for var in self._vars:             # [multivariate_normal(m, c), ...]
        total += var.pdf(y)      -->   total += stats_multivariate_normal_pdf(
                                           y, mean=self__vars_0_mean, cov=self__vars_0_cov)
                                       ...
    layer.forward(x)             -->   Layer_forward(layer_W, layer_b, x)

Any other receiver keeps the error an unknown array method has.
"""
import inspect
import types

import gast

from s2sad.errors import Diagnostic

from .. import facts, nodes
from . import container_arguments as arguments
from . import library_calls, resolve, unresolved
from .container_values import Container


def bind(owner, call, reads, like):
    """The call `call` (facts.METHOD) with its receiver known: a call of a function; or the
    call itself, reported."""
    receiver, name = call.func.value, call.func.attr
    made = owner.container(receiver, like)
    if isinstance(made, Container) and made.kind == "record":
        family = library_calls.frozen_family(made.typename)
        if family is not None:
            return _distribution(owner, call, reads, made, family)
        method = inspect.getattr_static(resolve.class_named(made.typename), name, None)
        if isinstance(method, types.FunctionType):
            return _method(owner, call, reads, like, method)
    owner.problems.append(unresolved.unknown_attribute(owner.source, call))
    return call


def _distribution(owner, call, reads, made, family):
    name = call.func.attr
    function = library_calls.family_function(family, name)
    if function is None:
        owner.problems.append(Diagnostic(
            owner.source.loc(call.func), f"scipy.stats.{family}.{name} has no rule in s2sad",
            why=f"s2sad writes out {library_calls.covered(family)}",
            fix="write the function with NumPy and scipy.special in a function of your own "
                "(s2sad differentiates it), or give that function a rule with @s2sad.adjoint "
                "(docs/rules.md: Adding a derivative)"))
        return call
    emitted = owner.specialised_name(nodes.name(f"stats_{family}_{name}"), function)
    bound = gast.Call(gast.copy_location(nodes.name(emitted), call.func),
                      [reads.visit(a) for a in call.args],
                      [reads.visit(k) for k in call.keywords] +
                      [gast.keyword(field, nodes.clone(item))
                       for field, item in zip(made.fields, made.items)])
    facts.REF.put(bound, function)
    facts.USER.put(bound, True)
    return gast.copy_location(bound, call)


def _method(owner, call, reads, like, method):
    """`obj.name(args)` -> `Class_name(obj, args)`, the object passed as its leaves."""
    method_call = gast.Call(
        gast.copy_location(nodes.name(method.__qualname__.replace(".", "_")), call.func),
        [call.func.value, *call.args], call.keywords)
    gast.copy_location(method_call, call)
    facts.REF.put(method_call, method)
    facts.USER.put(method_call, True)
    return arguments.pass_leaves(owner, method_call, like)
