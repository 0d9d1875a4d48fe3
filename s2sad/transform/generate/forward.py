"""The tangent function, in one pass over the ANF body.

Each statement is followed by the statement computing its result's tangent, from the tangent
templates (template.py); control flow is kept as it is, so there is nothing to save:

    def f(x, w, n):                      def jvp_f(x, w, n, dx):
        for i in range(n):                   for i in range(n):
            x = numpy.sin(x) * w                 # x = numpy.sin(x) * w   [f.py:3]
        return x                                 _t0 = numpy.sin(x)
                                                 d_t0 = dx * numpy.cos(x)
                                                 x = _t0 * w
                                                 dx = d_t0 * w
                                             return x, dx

`dx` is the tangent of x. Every name that carries a tangent somewhere gets one at each of its
assignments (zeros where the assigned value does not vary), so all paths through a branch or
a loop agree. Writes into arrays are mirrored into the tangent array (`dy[i] = d_t1`); a
parameter written in place is copied first, with its tangent. Calls to user functions call the
callee's own tangent function, `y, dy = jvp_g(x, dx)`. Tangent functions return the values
then their tangents as one flat tuple (`a, b, da, db = jvp_g(x, dx)` for a pair), so that the
generated code stays within what reverse mode differentiates again.
"""
import inspect

import gast

from s2sad import templates
from s2sad.errors import Diagnostic, TemplateError

from .. import facts
from .. import nodes, template
from ..front import normalize, resolve
from ..analysis import activity, aliases, returns
from ..analysis import kinds as kinds_module
from . import checkpoint, effects
from .blocks import BINARY, REFUSED_FIX, UNARY, is_scalar


def forward(source, body, wrt, namer, link, name, kinds):
    """The tangent FunctionDef of ANF `body` (annotated by activity.analyse). It returns
    `(value, tangent)`, or for a tuple `return a, b` the flat `(a, b, da, db)`.

    `wrt`: the parameters given a tangent; `link(func, positions, kinds)` gives the name of a
    callee's tangent function for those argument positions and how many values it returns (0
    for one value, n for a tuple of n); `kinds` = (parameters known to be Python
    scalars, those known to be ints)."""
    return _Forward(source, body, wrt, namer, link).build(name, kinds)


class _Forward:
    def __init__(self, source, body, wrt, namer, link):
        self.source = source
        self.body = body
        self.wrt = list(wrt)
        self.namer = namer
        self.link = link
        self.params = [a.id for a in resolve.parameters(source.tree.args)]
        self.problems = []
        self.carrying = _carrying(body, wrt)   # names that hold a tangent somewhere
        self.discard = None
        self.written = activity.written_arrays(body)
        self.returned = {name for statement in body for node in nodes.walk(statement)
                         if isinstance(node, gast.Return)
                         for name in activity.names_read(node)}

    def build(self, function_name, kinds):
        kinds_module.mark(self.body, *kinds[:3], results=returns.of_call)
        kinds_module.type_placeholders(self.body)
        aliases.check(self.source, self.body, self.namer.given)
        code, end, copied = effects.cells(self.source, self.body, self.params, self.namer)
        written = activity.written_arrays(self.body)
        for p in self.params:
            if p in written and p not in copied:
                code += [nodes.Comment(f"{p} is written in place: work on a copy"),
                         nodes.assign(p, gast.Call(gast.Attribute(
                             nodes.name(p), "copy", gast.Load()), [], []))]
            if p in self.wrt and written and not kinds_module.is_scalar(
                    nodes.name(p), kinds[0]):
                # the tangent may be written in place under another name (`x = x0; x[0] = c`)
                code.append(nodes.assign(self.d(p), nodes.call("rt.copy", self.dn(p))))
            if p in self.carrying and p not in self.wrt:
                code.append(nodes.assign(self.d(p), nodes.call("rt.zeros_like", nodes.name(p))))
        code += self._block(self.body)
        if end:  # (before the `return`)
            at = len(code) - 1 if code and isinstance(code[-1], gast.Return) else len(code)
            code[at:at] = end
        if self.problems:
            raise TemplateError(sorted(self.problems, key=lambda d: (d.where.line, d.where.col)))
        params = [nodes.name(p) for p in self.params] + [self.dn(p) for p in self.wrt]
        args = gast.arguments(params, [], None, [], [], None, [])
        return gast.FunctionDef(function_name, args, code, [], None, None, [])

    # ---- names ---------------------------------------------------------------------------------

    def d(self, primal):
        return self.namer.adjoint(primal)

    def dn(self, primal, store=False):
        return nodes.name(self.d(primal), store)

    def _tangent_of(self, statement):
        """atom -> its tangent at `statement`, or None (flow-sensitive: facts.VARIED)."""
        varied = facts.VARIED.of(statement)

        def tangent_of(atom):
            if isinstance(atom, gast.Name) and atom.id in varied:
                return self.dn(atom.id)
            return None
        return tangent_of

    # ---- statements ----------------------------------------------------------------------------

    def _block(self, statements):
        out, previous = [], None
        for statement in statements:
            code = self._statement(statement)
            origin = facts.ORIGIN.of(statement, statement)
            if code and origin is not previous and not facts.GUARD.of(statement):
                out.append(nodes.Comment(self._comment(statement, origin)))
            previous = origin
            out.extend(code)
        return out

    def _statement(self, statement):
        if isinstance(statement, gast.If):
            return [gast.If(statement.test, self._block(statement.body) or [gast.Pass()],
                            self._block(statement.orelse))]
        if isinstance(statement, (gast.For, gast.While)):
            body = self._block(statement.body)
            exits = facts.EXITS.of(statement, [])
            if exits:
                body.append(checkpoint.exit_test(exits, body))
            loop = type(statement)(**{f: getattr(statement, f) for f in statement._fields})
            loop.body, loop.orelse = body or [gast.Pass()], []
            return [loop]
        if isinstance(statement, gast.Return):  # the values, then their tangents, flat
            values, tangents = statement.value, self._returned(statement)
            if isinstance(values, gast.Tuple):
                return [gast.Return(gast.Tuple(values.elts + tangents.elts, gast.Load()))]
            return [gast.Return(gast.Tuple([values, tangents], gast.Load()))]
        if normalize.is_hook(statement):
            return []  # `with s2sad.grad_of(...)`: reverse mode only
        if activity.written_array(statement) is not None:
            return self._write(statement)
        names = sorted(activity.targets(statement) & self.carrying)
        if not names:
            return [statement]
        if not facts.RESULT_VARIED.of(statement):
            return [statement] + self._zeros(names, statement.value)
        return self._varied(statement)

    def _returned(self, statement):
        tangent_of = self._tangent_of(statement)

        def of(atom):
            if isinstance(atom, gast.Tuple):
                return gast.Tuple([of(e) for e in atom.elts], gast.Load())
            found = tangent_of(atom)
            if found is not None:
                return found
            if isinstance(atom, gast.Name):
                return nodes.call("rt.zeros_like", nodes.name(atom.id))
            return nodes.constant(0.0)
        return of(statement.value)

    def _zeros(self, names, value=None):
        if isinstance(value, gast.Constant) and isinstance(value.value, float):
            return [nodes.assign(self.d(n), nodes.constant(0.0)) for n in names]
        return [nodes.assign(self.d(n), nodes.call("rt.zeros_like", nodes.name(n)))
                for n in names]

    def _write(self, statement):
        """`a[index] = v` -> also `da[index] = dv` (0.0 when v does not vary)."""
        subscript = statement.targets[0]
        array = subscript.value.id
        if array not in self.carrying:
            return [statement]
        value = self._tangent_of(statement)(statement.value)
        if value is None or facts.CUT.of(statement):
            value = nodes.constant(0.0)
        target = gast.Subscript(self.dn(array), subscript.slice, gast.Store())
        return [statement, gast.Assign([target], value, None)]

    def _varied(self, statement):
        target, value = statement.targets[0], statement.value
        tangent_of = self._tangent_of(statement)
        if isinstance(value, gast.Name):
            return [statement, nodes.assign(self.d(target.id), tangent_of(value))]
        if isinstance(value, gast.Subscript):
            index = value.slice
            return [statement, nodes.assign(self.d(target.id), gast.Subscript(
                tangent_of(value.value), index, gast.Load()))]
        if isinstance(value, gast.Tuple):
            return [statement, nodes.assign(self.d(target.id), self._tuple(value, tangent_of))]
        if isinstance(value, gast.Call) and facts.USER.of(value):
            return self._user_call(statement, tangent_of)
        return self._rule_call(statement, tangent_of)

    def _tuple(self, value, tangent_of):
        parts = []
        for element in value.elts:
            found = tangent_of(element)
            parts.append(found if found is not None else
                         nodes.call("rt.zeros_like", element) if isinstance(element, gast.Name)
                         else nodes.constant(0.0))
        return gast.Tuple(parts, gast.Load())

    def _user_call(self, statement, tangent_of):
        """`y = g(a, b)` -> `y, dy = jvp_g(a, b, da)` (the tangents of the varied arguments)."""
        call = statement.value
        try:
            args = template.bind_positional(call)
        except TypeError as exc:
            return self._problem(statement, f"cannot bind the call's arguments ({exc})")
        positions = [i for i, a in enumerate(args) if tangent_of(a) is not None]
        names = list(inspect.signature(facts.REF.of(call)).parameters)
        kinds = kinds_module.of_call(names, args, statement)
        callee, outputs = self.link(facts.REF.of(call), tuple(positions), kinds)
        target = statement.targets[0]
        call = gast.Call(nodes.name(callee), [*args, *[tangent_of(args[i]) for i in positions]],
                         [])
        if isinstance(target, gast.Tuple):  # `a, b = g(x)` -> `a, b, da, db = jvp_g(x, dx)`
            elements = [nodes.clone(e) for e in target.elts]
            tangents = [self._tangent_target(e) for e in target.elts]
            return [gast.Assign([gast.Tuple(elements + tangents, gast.Store())], call, None)]
        if not outputs:
            pair = gast.Tuple([nodes.clone(target), self._tangent_target(target)], gast.Store())
            return [gast.Assign([pair], call, None)]
        # a tuple result kept whole: receive its parts, then assemble the value and the tangent
        parts = [self.namer.numbered("_r") for _ in range(2 * outputs)]
        received = gast.Tuple([nodes.name(p, store=True) for p in parts], gast.Store())
        value = gast.Tuple([nodes.name(p) for p in parts[:outputs]], gast.Load())
        tangent = gast.Tuple([nodes.name(p) for p in parts[outputs:]], gast.Load())
        return [gast.Assign([received], call, None), nodes.assign(target.id, value),
                gast.Assign([self._tangent_target(target)], tangent, None)]

    def _tangent_target(self, target):
        """Where a result's tangent goes: d<name>, or a discard for names without one."""
        if isinstance(target, gast.Tuple):
            return gast.Tuple([self._tangent_target(e) for e in target.elts], gast.Store())
        if target.id in self.carrying:
            return self.dn(target.id, store=True)
        if self.discard is None:
            self.discard = self.namer.fresh("_")
        return nodes.name(self.discard, store=True)

    def _rule_call(self, statement, tangent_of):
        target, value = statement.targets[0], statement.value
        if isinstance(value, gast.BinOp):
            primal, args, keywords = BINARY[type(value.op)], [value.left, value.right], {}
        elif isinstance(value, gast.UnaryOp) and type(value.op) in UNARY:
            primal, args, keywords = UNARY[type(value.op)], [value.operand], {}
        elif isinstance(value, gast.Call):
            primal, args = facts.REF.of(value), value.args
            keywords = {k.arg: k.value for k in value.keywords}
        else:
            return self._problem(statement, "cannot differentiate this expression in forward "
                                            "mode")
        rule = templates.rule_for(primal)
        if rule is not None and rule.kind == "nondifferentiable":
            return [statement] + self._zeros(sorted(activity.targets(statement) &
                                                    self.carrying))
        tangent = template.tangent_rule(primal)
        if tangent is None:
            return self._missing(statement, value, primal, rule)
        result = nodes.clone(target)
        result.ctx = gast.Load()
        for node in nodes.walk(result):
            if isinstance(node, (gast.Name, gast.Tuple)):
                node.ctx = gast.Load()
        before, after = [], []
        overwritten = activity.targets(statement) & activity.names_read(value)
        if overwritten and tangent.result in nodes.names(tangent.expression):
            temporary = self.namer.numbered("_t")  # the result is needed with the old arguments
            before.append(nodes.assign(temporary, value))
            after.append(gast.Assign([nodes.clone(target)], nodes.name(temporary), None))
            result = nodes.name(temporary)
        try:
            expression = template.tangent_expression(tangent, args, keywords, result, tangent_of)
        except template.BindError as exc:
            return self._problem(statement, str(exc))
        if expression is not None and template.refused(expression) is not None:
            origin = facts.ORIGIN.of(statement, statement)  # (the user's call: see blocks.py)
            self.problems.append(Diagnostic(
                self.source.loc(origin if origin is not statement else value),
                template.refusal_message(value),
                why=template.refused(expression), fix=REFUSED_FIX))
            return []
        if expression is None:
            expression = nodes.call("rt.zeros_like", result)
        elif rule is not None and rule.broadcasting and templates.tangent_for(primal) is None \
                and not all(tangent_of(a) is not None or is_scalar(a, facts.SCALARS.of(statement))
                            for a in args):
            expression = nodes.call("rt.broadcast_like", expression, result)  # x + array
        if isinstance(expression, (gast.Name, gast.Subscript)) and isinstance(target, gast.Name) \
                and (self.written or target.id in self.returned) \
                and target.id not in facts.SCALARS.of(statement) \
                and aliases.view_source(value) is None:
            # `v = a[:, 0] + s` is a new array, but its tangent `da[:, 0]` (s has none) is a
            # view: an element written into da later, here or by a caller `v` is returned to,
            # must not change dv (unless v is a view too: `v = numpy.asarray(a)`)
            expression = nodes.call("rt.copy", expression)
        tangent_statement = gast.Assign([self._tangent_target(target)], expression, None)
        if before:
            return before + [tangent_statement] + after
        if overwritten:  # the tangent reads the old arguments: it goes first
            return [tangent_statement, statement]
        return [statement, tangent_statement]

    # ---- problems ------------------------------------------------------------------------------

    def _problem(self, statement, message, why="", fix=""):
        origin = facts.ORIGIN.of(statement, statement)
        node = statement.value if hasattr(statement.value, "lineno") else origin
        self.problems.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))
        return []

    def _missing(self, statement, value, primal, rule):
        if facts.DRAW.of(value):
            return self._problem(statement, *template.draw_problem(value))
        name = template.operation_name(value)
        if rule is not None and rule.kind == "not_implemented":
            why = f"the derivative of {name} is not implemented yet" + \
                  (f" ({rule.note})" if rule.note else "")
        elif rule is not None:
            why = f"{name} has a reverse-mode (adjoint) template but no tangent template"
        else:
            why = f"{name} has no derivative template, and its source cannot be differentiated"
        spelled = name if isinstance(value, gast.Call) else f"operator.{primal.__name__}"
        short = spelled.rsplit(".", 1)[-1]
        return self._problem(statement, f"no tangent template for {name}", why=why,
                             fix=f"register one (docs/rules.md: 'Tangent rules, and rules "
                                 f"for your own functions'), e.g.\n"
                                 f"    @s2sad.tangent({spelled})\n"
                                 f"    def {short}_tangent(result, x, ...):\n"
                                 f"        d[result] = ... d[x] ...\n"
                                 "or compute this value outside the differentiated function")

    def _comment(self, statement, origin):
        if isinstance(statement, (gast.If, gast.For, gast.While)) or \
                isinstance(origin, (gast.If, gast.For, gast.While, gast.With)):
            return f"{self.source.header(origin)}   [{self.source.where(origin)}]"
        return f"{self.source.segment(origin)}   [{self.source.where(origin)}]"


def _carrying(body, wrt):
    """The names that hold a varied value somewhere: each gets a tangent variable."""
    found = set(wrt)
    for statement in activity.simple_statements(body):
        if facts.RESULT_VARIED.of(statement):
            array = activity.written_array(statement)
            found |= {array} if array is not None else activity.targets(statement)
    return found
