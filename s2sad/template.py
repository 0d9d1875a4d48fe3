"""Read derivative templates and fill their placeholders.

A template (see `templates/__init__.py`) is parsed once into its parameters and one contribution
expression per argument. Filling it substitutes the call's actual atoms for the parameters and
the result's adjoint for `d[z]`:

    @adjoint(numpy.sin)                 call:   z = numpy.sin(_t0)      adjoint of z: dz
    def sin(z, x):              -->     yields: [("_t0", dz * numpy.cos(_t0))]
        d[x] = d[z] * numpy.cos(x)

A template that breaks the rules (unknown names, a line that is not `d[arg] = ...`) is reported
at its own file:line, so a user writing a rule sees what is wrong with it.
"""
import copy
import dataclasses
import functools
import inspect
import textwrap
import types

import gast

from . import nodes
from .errors import Diagnostic, Location, TemplateError
from .resolve import number_node

TEMPLATE_MODULES = {"numpy", "math", "rt"}


@dataclasses.dataclass
class Template:
    name: str
    result: str                  # name of the result parameter
    signature: inspect.Signature  # of the arguments (result removed)
    contributions: list          # [(argument name, expression)]


def contributions(rule, call_args, call_keywords, result_atom, result_adjoint):
    """[(argument atom, contribution expression)] for one call; raises TemplateError on a
    template that cannot be filled (with the call's own location filled in by the caller)."""
    template = load(rule.template)
    try:
        bound = template.signature.bind(*call_args, **call_keywords)
    except TypeError as exc:
        raise BindError(f"the derivative template of {template.name} does not accept these "
                         f"arguments ({exc})") from None
    bound.apply_defaults()
    values = {name: as_node(value) for name, value in bound.arguments.items()}
    out = []
    for argument, expression in template.contributions:
        filled = _Filler(values, template.result, result_atom, result_adjoint).visit(
            copy.deepcopy(expression))
        out.append((values[argument], filled))
    return out


class BindError(Exception):
    """A call whose arguments do not fit its template's signature."""


@functools.lru_cache(maxsize=None)
def load(function):
    """Parse and check a template function (cached per function)."""
    lines, first_line = inspect.getsourcelines(function)
    path = inspect.getsourcefile(function)
    indent = len(lines[0]) - len(lines[0].lstrip())
    tree = gast.parse(textwrap.dedent("".join(lines))).body[0]
    parameters = {a.id for a in gast.walk(tree.args) if isinstance(a, gast.Name)}
    _Modules(function.__globals__, parameters).visit(tree)
    problems = []

    def problem(node, message):
        problems.append(Diagnostic(Location(path, first_line + node.lineno - 1,
                                            node.col_offset + indent),
                                   f"malformed derivative template: {message}",
                                   fix="write each line as `d[argument] = expression`, using "
                                       "only the parameters, d[result], numpy, math and rt"))

    params = [a.id for a in tree.args.posonlyargs + tree.args.args]
    if not params:
        problem(tree, "the first parameter must name the primal's result")
        raise TemplateError(problems)
    result, arguments = params[0], set(params[1:]) | {a.id for a in tree.args.kwonlyargs}
    if tree.args.vararg is not None:  # `*operands`: one sequence argument
        arguments.add(tree.args.vararg.id)
    found = []
    for statement in tree.body:
        if isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant):
            continue  # docstring
        target = statement.targets[0] if isinstance(statement, gast.Assign) else None
        name = _adjoint_subject(target)
        if name is None or len(statement.targets) != 1:
            problem(statement, "each line must be `d[argument] = expression`")
            continue
        if name not in arguments:
            problem(target, f"d[{name}] is not an argument of the template")
            continue
        for node in gast.walk(statement.value):
            subject = _adjoint_subject(node)
            if subject is not None and subject != result:
                problem(node, f"only d[{result}] (the result's adjoint) may be read")
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    node.id not in arguments | {result, "d"} | TEMPLATE_MODULES:
                problem(node, f"unknown name '{node.id}'")
        found.append((name, statement.value))
    if problems:
        raise TemplateError(problems)
    signature = inspect.signature(function)
    signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    return Template(function.__name__, result, signature, found)


class _Modules(gast.NodeTransformer):
    """Spell module aliases the emitter's way (`np.cos` in a user's template -> `numpy.cos`)."""

    def __init__(self, namespace, parameters):
        self.namespace = namespace
        self.parameters = parameters

    def visit_Name(self, node):
        module = None if node.id in self.parameters else self.namespace.get(node.id)
        if isinstance(module, types.ModuleType):
            name = module.__name__
            canonical = "rt" if name == "s2sad.rt" else name
            if canonical.split(".")[0] in TEMPLATE_MODULES:
                return nodes.dotted(canonical, node)
        return node


def _adjoint_subject(node):
    """'x' for the node `d[x]`, else None."""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
            node.value.id == "d" and isinstance(node.slice, gast.Name):
        return node.slice.id
    return None


def as_node(value):
    if isinstance(value, gast.AST):
        return value
    if isinstance(value, tuple):
        return gast.Tuple([as_node(v) for v in value], gast.Load())
    if isinstance(value, (str, bool)) or value is None:
        return gast.Constant(value, None)
    return number_node(value)


class _Filler(gast.NodeTransformer):
    def __init__(self, values, result, result_atom, result_adjoint):
        self.values = values
        self.result = result
        self.result_atom = result_atom
        self.result_adjoint = result_adjoint

    def visit_Subscript(self, node):
        if _adjoint_subject(node) == self.result:
            return copy.deepcopy(self.result_adjoint)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.result:
            return copy.deepcopy(self.result_atom)
        if node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node
