"""Read derivative templates and fill their placeholders.

A template (see `templates/__init__.py`) is parsed once into its parameters and one contribution
expression per argument. Filling it substitutes the call's actual atoms for the parameters and
the result's adjoint for `d[z]`:

    @adjoint(numpy.sin)                 call:   z = numpy.sin(_t0)      adjoint of z: dz
    def sin(z, x):              -->     yields: [("_t0", dz * numpy.cos(_t0))]
        d[x] = d[z] * numpy.cos(x)

Tangent templates (forward mode) are read the same way: one line `d[z] = expression` over the
arguments' tangents `d[x]`. Elementwise rules without one get a tangent derived from their
adjoint template (see `tangent_rule`). Filling a tangent substitutes each argument's tangent;
an argument without one contributes nothing, and the expression is simplified around it:

    @tangent(operator.matmul)           call: z = a @ b, only b varies (tangent db)
    def matmul(z, x, y):        -->     yields: a @ db
        d[z] = d[x] @ y + x @ d[y]

A template that breaks the rules (unknown names, a line that is not `d[arg] = ...`) is reported
at its own file:line, so a user writing a rule sees what is wrong with it.
"""
import copy
import dataclasses
import functools
import inspect
import sys
import textwrap
import types

import gast

from s2sad import templates
from s2sad.errors import Diagnostic, Location, TemplateError

from . import facts
from . import nodes

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
        filled = _Filler(values, template.result, result_atom,
                         {template.result: result_adjoint}).visit(nodes.clone(expression))
        out.append((values[argument], filled))
    return out


class BindError(Exception):
    """A call whose arguments do not fit its template's signature."""


@functools.lru_cache(maxsize=None)
def load(function):
    """Parse and check a template function (cached per function)."""
    return _load(function, tangent=False)


@dataclasses.dataclass
class Tangent:
    name: str
    result: str                  # name of the result parameter
    signature: inspect.Signature  # of the arguments (result removed)
    expression: gast.expr        # the result's tangent, reading d[argument]


def tangent_rule(primal):
    """The Tangent of a library function: its tangent template, or one derived from the
    adjoint template of an elementwise function (`d[x] = d[z] * numpy.cos(x)` gives the term
    `d[x] * numpy.cos(x)`; the terms of all arguments are added). None if there is neither."""
    try:
        return _tangent_rule(primal, templates.generation())
    except TypeError:  # unhashable: no rule
        return None


@functools.lru_cache(maxsize=None)
def _tangent_rule(primal, generation):
    explicit = templates.tangent_for(primal)
    if explicit is not None:
        parsed = _load(explicit, tangent=True)
        return Tangent(parsed.name, parsed.result, parsed.signature, parsed.contributions[0][1])
    rule = templates.rule_for(primal)
    if rule is None or rule.kind != "adjoint" or not templates.elementwise(primal):
        return None
    adjoint = load(rule.template)
    terms = [_Renamed(adjoint.result, argument).visit(copy.deepcopy(expression))
             for argument, expression in adjoint.contributions]
    total = terms[0]
    for term in terms[1:]:
        total = gast.BinOp(total, gast.Add(), term)
    return Tangent(adjoint.name, adjoint.result, adjoint.signature, total)


class _Renamed(nodes.Transformer):
    """d[result] -> d[argument]."""

    def __init__(self, result, argument):
        self.result, self.argument = result, argument

    def visit_Subscript(self, node):
        if _adjoint_subject(node) == self.result:
            return gast.Subscript(gast.Name("d", gast.Load(), None, None),
                                  gast.Name(self.argument, gast.Load(), None, None), gast.Load())
        return self.generic_visit(node)


def tangent_expression(tangent, call_args, call_keywords, result_atom, tangent_of):
    """The tangent of one call's result, or None when it is zero. `tangent_of(atom)` gives an
    argument's tangent expression, or None when it has none."""
    try:
        bound = tangent.signature.bind(*call_args, **call_keywords)
    except TypeError as exc:
        raise BindError(f"the tangent template of {tangent.name} does not accept these "
                        f"arguments ({exc})") from None
    bound.apply_defaults()
    values = {name: as_node(value) for name, value in bound.arguments.items()}
    tangents = {name: _tangent_of_value(value, tangent_of) for name, value in values.items()}
    filled = _Filler(values, tangent.result, result_atom, tangents).visit(
        copy.deepcopy(tangent.expression))
    filled = _simplify(filled)
    return None if isinstance(filled, _Zero) else filled


class _Zero(gast.expr):
    """A tangent known to be zero, of the shape of `like`; simplified away or spelled
    `rt.zeros_like(like)`."""
    _fields = ("like",)


def _tangent_of_value(value, tangent_of):
    if isinstance(value, gast.Tuple):  # a sequence argument: one tangent per element
        parts = [_tangent_of_value(v, tangent_of) for v in value.elts]
        if all(isinstance(p, _Zero) for p in parts):
            return _Zero(value)
        return gast.Tuple([_spelled_zero(p) for p in parts], gast.Load())
    found = tangent_of(value) if isinstance(value, gast.Name) else None
    return _Zero(value) if found is None else found


def _spelled_zero(node):
    if isinstance(node, _Zero):
        return nodes.call("rt.zeros_like", copy.deepcopy(node.like))
    return node


def _simplify(node):
    """Drop zero tangents: 0 + e = e, 0 * e = 0, f(0) = zeros for any other call."""
    if isinstance(node, _Zero):
        return node
    if isinstance(node, gast.BinOp):
        left, right = _simplify(node.left), _simplify(node.right)
        lz, rz = isinstance(left, _Zero), isinstance(right, _Zero)
        if isinstance(node.op, gast.Add) and (lz or rz):
            return left if rz else right
        if isinstance(node.op, gast.Add) and isinstance(right, gast.UnaryOp) and \
                isinstance(right.op, gast.USub):  # a + -b: a - b (exact)
            node.op, right = gast.Sub(), right.operand
        if isinstance(node.op, gast.Sub) and (lz or rz):
            return left if rz else gast.UnaryOp(gast.USub(), right)
        if isinstance(node.op, (gast.Mult, gast.MatMult)) and (lz or rz):
            return left if lz else right
        if isinstance(node.op, gast.Div) and lz:
            return left
        node.left, node.right = _spelled_zero(left), _spelled_zero(right)
        return node
    if _refusal(node) and node.args and isinstance(_simplify(node.args[0]), _Zero):
        return node.args[0]  # rt.no_derivative(0, ...): the argument it refuses does not vary
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        operand = _simplify(node.operand)
        if isinstance(operand, _Zero):
            return operand
        node.operand = operand
        return node
    for field, value in gast.iter_fields(node):
        if isinstance(value, list):
            setattr(node, field, [_spelled_zero(_simplify(v)) if isinstance(v, gast.expr) else
                                  _simplify(v) if isinstance(v, gast.keyword) else v
                                  for v in value])
        elif isinstance(value, gast.expr):
            setattr(node, field, _spelled_zero(_simplify(value)))
    return node


def refused(expression):
    """Why the filled contribution or tangent `expression` cannot be had, when its template
    says so with `rt.no_derivative(t, "why")` (a derivative w.r.t. an argument s2sad does not
    have: a shape parameter of an incomplete gamma function); else None."""
    for node in nodes.walk(expression):
        if _refusal(node):
            why = node.args[1] if len(node.args) > 1 else None
            return why.value if isinstance(why, gast.Constant) else "no derivative"
    return None


def refusal_message(call, argument=None):
    """What to say of a call that cannot be differentiated w.r.t. `argument` (refused)."""
    ref, name = facts.REF.of(call), operation_name(call)
    for module in ("numpy", "scipy.special", getattr(ref, "__module__", None)):
        if module and getattr(sys.modules.get(module), getattr(ref, "__name__", ""), 0) is ref:
            name = f"{module}.{ref.__name__}"
    said = f"'{argument}'" if argument else "one of its arguments"
    return f"{name} cannot be differentiated w.r.t. {said} here"


def _refusal(node):
    return isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == ["rt",
                                                                            "no_derivative"]


def _load(function, tangent):
    """Parse and check an adjoint template, or a tangent template (`tangent=True`)."""
    lines, first_line = inspect.getsourcelines(function)
    path = inspect.getsourcefile(function)
    indent = len(lines[0]) - len(lines[0].lstrip())
    tree = gast.parse(textwrap.dedent("".join(lines))).body[0]
    parameters = {a.id for a in nodes.walk(tree.args) if isinstance(a, gast.Name)}
    _Modules(function.__globals__, parameters).visit(tree)
    problems = []

    def problem(node, message):
        problems.append(Diagnostic(Location(path, first_line + node.lineno - 1,
                                            node.col_offset + indent),
                                   f"malformed derivative template: {message}",
                                   fix=("write one line `d[result] = expression`, using only the "
                                        "parameters, d[argument], numpy, math, rt and functions of "
                                        "the template's module")
                                   if tangent else
                                   ("write each line as `d[argument] = expression`, using only "
                                    "the parameters, d[result], numpy, math, rt and functions "
                                    "of the template's module")))

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
            problem(statement, f"each line must be `d[{'result' if tangent else 'argument'}] "
                               "= expression`")
            continue
        if tangent and (name != result or found):
            problem(target, f"a tangent template has one line, `d[{result}] = expression`")
            continue
        if not tangent and name not in arguments:
            problem(target, f"d[{name}] is not an argument of the template")
            continue
        for node in nodes.walk(statement.value):
            subject = _adjoint_subject(node)
            if tangent and subject is not None and subject not in arguments:
                problem(node, f"d[{subject}] is not an argument's tangent")
            elif not tangent and subject is not None and subject != result:
                problem(node, f"only d[{result}] (the result's adjoint) may be read")
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    node.id not in arguments | {result, "d"} | TEMPLATE_MODULES:
                helper = function.__globals__.get(node.id)
                if callable(helper) and not isinstance(helper, (type, types.ModuleType)):
                    facts.EXTERNAL.put(node, helper)  # a function of the template's module
                else:
                    problem(node, f"unknown name '{node.id}'")
        found.append((name, statement.value))
    if tangent and not found and not problems:
        problem(tree, f"a tangent template needs the line `d[{result}] = expression`")
    if problems:
        raise TemplateError(problems)
    signature = inspect.signature(function)
    signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    return Template(function.__name__, result, signature, found)


class _Modules(nodes.Transformer):
    """Spell module aliases the emitter's way (`np.cos` in a user's template -> `numpy.cos`)."""

    def __init__(self, namespace, parameters):
        self.namespace = namespace
        self.parameters = parameters

    def visit_Name(self, node):
        module = None if node.id in self.parameters else self.namespace.get(node.id)
        if isinstance(module, types.ModuleType):
            name = module.__name__
            canonical = "rt" if name == "s2sad.runtime.rt" else name
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
    return nodes.number_node(value)


class _Filler(nodes.Transformer):
    """Substitute the call's atoms for the template's parameters, and `marked[x]` for `d[x]`
    (the result's adjoint in an adjoint template, the arguments' tangents in a tangent one)."""

    def __init__(self, values, result, result_atom, marked):
        self.values = values
        self.result = result
        self.result_atom = result_atom
        self.marked = marked

    def visit_Subscript(self, node):
        subject = _adjoint_subject(node)
        if subject is not None and subject in self.marked:
            return nodes.clone(self.marked[subject])
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.result:
            return nodes.clone(self.result_atom)
        if node.id in self.values:
            return nodes.clone(self.values[node.id])
        return node


def operation_name(value):
    """How messages name an operation: 'numpy.sin', '+', 'unary -'."""
    if isinstance(value, gast.Call):
        return ".".join(nodes.dotted_parts(value.func) or ["?"])
    return {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
            gast.MatMult: "@", gast.Mod: "%", gast.FloorDiv: "//", gast.USub: "unary -",
            gast.UAdd: "unary +"
            }.get(type(getattr(value, "op", None)), "?")


def bind_positional(call):
    """The call's arguments in parameter order, defaults filled in as literals."""
    signature = inspect.signature(facts.REF.of(call))
    bound = signature.bind(*call.args, **{k.arg: k.value for k in call.keywords})
    bound.apply_defaults()
    args = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError("*args/**kwargs parameters")
        args.append(as_node(bound.arguments[parameter.name]))
    return args


def draw_problem(call):
    """(message, why, fix) for a random draw whose arguments carry a gradient
    (`rng.normal(mu, sigma)` with mu a parameter)."""
    name = operation_name(call)
    return (f"{name} draws random numbers from parameters being differentiated",
            "a sample's derivative w.r.t. the parameters of its distribution is not defined by "
            "the draw; s2sad differentiates samples written as a function of fixed noise",
            "reparameterise: draw the noise from fixed parameters and transform it, e.g. "
            "mu + sigma * rng.standard_normal(shape) instead of rng.normal(mu, sigma, shape), "
            "or low + (high - low) * rng.random(shape) instead of rng.uniform(low, high, "
            "shape); a discrete choice depending on parameters has no gradient")
