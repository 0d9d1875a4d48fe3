"""The adjoint block of one ANF statement: what `x = f(a, b)` contributes to `da` and `db`.

Operators and library calls fill their derivative template (template.py); calls to user
functions run the callee's own adjoint (joint mode); indexing scatters into the array's adjoint
in place:

    z = numpy.sin(_t0)      -->   d_t0 = dz * numpy.cos(_t0)
    _t1 = x[i]              -->   dx[i] += d_t1                 (dx: zeros or a private copy)
    a[i] = v                -->   dv = da[i]; da[i] = 0.0
    y = g(x)                -->   _, _dx_0 = dg(x, dy); dx = dx + _dx_0
"""
import copy
import inspect
import operator

import gast

from s2sad import templates
from s2sad.errors import Diagnostic

from .. import facts
from ..analysis import kinds as kinds_module
from .. import nodes, template
from ..front import normalize
from ..analysis.kinds import is_int, is_scalar
from . import replay

BINARY = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
          gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
          gast.Mod: operator.mod, gast.FloorDiv: operator.floordiv}
UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos}

# A derivative a rule says s2sad does not have (rt.no_derivative in its template).
REFUSED_FIX = ("keep that argument out of the differentiated inputs (pass it as a constant, or "
               "wrap it in s2sad.stop_gradient(...)), or give the function a rule of your own "
               "with @s2sad.adjoint (docs/rules.md: Adding a derivative)")


class Blocks:
    """Writes adjoint blocks into `adjoints.out`; collects problems instead of raising."""

    def __init__(self, source, namer, link, adjoints, body=None):
        self.source = source
        self.namer = namer
        self.link = link
        self.adjoints = adjoints
        self.problems = []
        self.discard = None      # the name for values a callee's adjoint returns but we ignore
        tree = source.tree
        stored = {n.id for n in nodes.walk(tree) if isinstance(n, gast.Name) and
                  isinstance(n.ctx, gast.Store) and n not in _names_in(tree.args)}
        # parameters never rebound: bound everywhere, with the shape they came with
        self.fixed = {n.id for n in _names_in(tree.args)} - stored
        self.body = body if body is not None else tree.body   # the ANF statements
        self._later = {}

    def summed_later(self, name):
        """Whether the gradient of `name` may keep the broadcast shape it arrives with: `name`
        is a temporary read once, made by `+ - * /` whose own rule sums each varied operand's
        gradient back to that operand's shape (or passes it on to one that may keep it too).
        Summing over the broadcast axes commutes with the products on the way (an operand of
        `name` is constant along them), so it is done once, at the operands:

            c = _t15 + _t16                          dc: c's shape, broadcast of both
            _t15 = f_gate * c_old     d_t15 = dc     (no rt.unbroadcast(dc, _t15))
                                      df_gate = rt.unbroadcast(d_t15 * c_old, f_gate)

        and `_t15` is no longer kept for its shape. Numbers may differ in the last bits from
        summing first where broadcasting did add axes; where it did not, nothing changes."""
        if not self._later:
            self._later.update(_single_use_definitions(self.body))
        definition = self._later.get(name)
        if definition is None or definition is True or definition is False:
            return bool(definition)
        self._later[name] = False   # while deciding (a cycle cannot be: ANF temporaries)
        value = definition.value
        varied = facts.VARIED.of(definition, set())
        answer = facts.SCALARS.on(definition) and all(
            not isinstance(a, gast.Name) or a.id not in varied or
            _summed(a, [o for o in (value.left, value.right) if o is not a], definition) or
            self.summed_later(a.id)
            for a in (value.left, value.right))
        self._later[name] = answer
        return answer

    def adjoint_of(self, statement):
        value = statement.value
        if normalize.is_hook(statement):
            return self._adjoint_of_hook(statement)
        if isinstance(statement.targets[0], gast.Subscript):
            return self._adjoint_of_write(statement)
        if isinstance(value, gast.Subscript):
            return self._adjoint_of_read(statement)
        if isinstance(value, gast.Call) and _is_user_call(value):
            return self._adjoint_of_call(statement)
        if isinstance(value, gast.Name):
            seed = self.adjoints.take(statement.targets[0].id)
            if seed is not None:
                self.adjoints.contribute(value.id, seed)
            return
        if isinstance(value, (gast.Compare, gast.BoolOp)) or (
                isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not)):
            self._take_all(statement.targets[0])
            return  # a truth value carries no gradient
        if isinstance(value, gast.BinOp):
            rule, args, keywords = templates.rule_for(BINARY[type(value.op)]), \
                [value.left, value.right], {}
        elif isinstance(value, gast.UnaryOp):
            rule, args, keywords = templates.rule_for(UNARY[type(value.op)]), [value.operand], {}
        elif isinstance(value, gast.Call):
            rule, args = templates.rule_for(facts.REF.of(value)), value.args
            keywords = {k.arg: k.value for k in value.keywords}
        else:
            return self._problem(statement, "cannot differentiate this expression")
        result, seed = self._result_and_seed(statement.targets[0])
        if seed is None:
            return
        if rule is not None and rule.kind == "nondifferentiable":
            return
        if rule is None or rule.kind != "adjoint":
            return self._missing_rule(statement, value, rule)
        varied = facts.VARIED.of(statement)
        candidates = [n.id for a in [*args, *keywords.values()] for n in _names_in(a)
                      if n.id in varied]
        seed = self.adjoints.protect(_first_name(result), seed, candidates)
        try:
            pairs = template.contributions(rule, args, keywords, result, seed)
        except template.BindError as exc:
            return self._problem(statement, str(exc))
        for argument, expression in pairs:
            _shapes_from_parameters(expression, statement, self.fixed)
            _mark_shapes(expression, statement)
            if isinstance(argument, gast.Tuple):
                self._contribute_each(argument, expression, varied)
                continue
            if not (isinstance(argument, gast.Name) and argument.id in varied):
                continue
            if template.refused(expression) is not None:  # a derivative s2sad does not have
                return self._refused(statement, template.refusal_message(value, argument.id),
                                     template.refused(expression))
            others = [a for a in args if a is not argument]
            if rule.broadcasting and _summed(argument, others, statement) and \
                    not self.summed_later(argument.id):
                expression = _unbroadcast(expression, argument, others, statement,
                                          self.fixed)
            _mark_outer_product(expression, args, statement)
            self.adjoints.contribute(argument.id, expression)

    def _result_and_seed(self, target):
        """The result as the template sees it, and its adjoint: for a tuple of names, the tuple
        of their adjoints (zeros for those without one); None when nothing needs a gradient."""
        if isinstance(target, gast.Name):
            return nodes.name(target.id), self.adjoints.take(target.id)
        names = [n.id for n in target.elts]
        taken = [self.adjoints.take(n) for n in names]
        if all(t is None for t in taken):
            return None, None
        seed = gast.Tuple([t if t is not None else nodes.call("rt.zeros_like", nodes.name(n))
                           for n, t in zip(names, taken)], gast.Load())
        return gast.Tuple([nodes.name(n) for n in names], gast.Load()), seed

    def _take_all(self, target):
        for n in _names_in(target):
            self.adjoints.take(n.id)

    def _contribute_each(self, sequence, expression, varied):
        """A sequence argument (`numpy.stack((a, b))`): its contribution is a tuple, one element
        per item of the sequence."""
        if not any(n.id in varied for n in _names_in(sequence)):
            return
        parts = self.namer.numbered("_parts")
        self.adjoints.out.append(gast.Assign([nodes.name(parts, store=True)], expression, None))
        self._distribute(sequence, nodes.name(parts), varied)

    def _distribute(self, sequence, parts, varied):
        """`parts[k]` to the k-th element; nested sequences (`[[a, b], [c, d]]`) recursively."""
        for k, element in enumerate(sequence.elts):
            part = gast.Subscript(parts, nodes.constant(k), gast.Load())
            if isinstance(element, gast.Name) and element.id in varied:
                self.adjoints.contribute(element.id, part)
            elif isinstance(element, gast.Tuple):
                self._distribute(element, part, varied)

    def _adjoint_of_call(self, statement):
        call = statement.value
        names = [n.id for n in nodes.walk(statement.targets[0]) if isinstance(n, gast.Name)]
        if isinstance(statement.targets[0], gast.Tuple):
            seed = gast.Tuple([self.adjoints.take(n) or nodes.call("rt.zeros_like", nodes.name(n))
                               for n in names], gast.Load())
        else:
            seed = self.adjoints.take(names[0])
            if seed is None:
                return
        try:
            args = template.bind_positional(call)
        except TypeError as exc:
            return self._problem(statement, f"cannot bind the call's arguments ({exc})")
        positions = [i for i, a in enumerate(args)
                     if isinstance(a, gast.Name) and a.id in facts.VARIED.of(statement)]
        if not positions:
            return
        names = list(inspect.signature(facts.REF.of(call)).parameters)
        kinds = kinds_module.of_call(names, args, statement)
        adjoint = self.link(facts.REF.of(call), tuple(positions), kinds)
        if self.discard is None:
            self.discard = self.namer.fresh("_")
        outputs = [self.discard]
        outputs += [self.namer.numbered(f"_{self.namer.adjoint(args[i].id)}_") for i in positions]
        seed = self.adjoints.protect(names[0], seed, [args[i].id for i in positions])
        adjoint_call = gast.Assign(
            [gast.Tuple([nodes.name(o, store=True) for o in outputs], gast.Store())],
            gast.Call(nodes.name(adjoint), [*args, seed], []), None)
        kept = facts.REPLAY.of(call)   # it draws: the same samples again (replay.py)
        self.adjoints.out.extend(replay.wrapped(adjoint_call, kept, self.namer) if kept else
                                 [adjoint_call])
        for i, output in zip(positions, outputs[1:]):
            self.adjoints.contribute(args[i].id, nodes.name(output))

    def _adjoint_of_hook(self, statement):
        """`with s2sad.grad_of(x) as dx: body`: the body runs with dx a private copy of x's
        adjoint; what it leaves in dx is x's adjoint from here on."""
        call = statement.value
        variable, body = facts.HOOK.of(call)
        watched = call.args[0].id
        seed = self.adjoints.take(statement.targets[0].id)
        start = nodes.call("rt.copy", seed) if seed is not None else \
            nodes.call("rt.zeros_like", nodes.name(watched))
        self.adjoints.out.append(nodes.assign(variable, start))
        self.adjoints.out.extend(copy.deepcopy(body))
        self.adjoints.contribute(watched, nodes.name(variable), alias=False)

    def _adjoint_of_read(self, statement):
        """`t = a[index]`: scatter dt into da, in place (da is private to this function)."""
        seed = self.adjoints.take(statement.targets[0].id)
        array = statement.value.value.id
        if seed is None or array not in facts.VARIED.of(statement):
            return
        seed = self.adjoints.protect(statement.targets[0].id, seed, [array])
        var = self.adjoints.own(array)
        index = statement.value.slice
        if _is_basic(index, facts.INTS.of(statement)):
            scatter = gast.AugAssign(gast.Subscript(nodes.name(var), index, gast.Store()),
                                     gast.Add(), seed)
            facts.BASIC.put(scatter, True)   # `var[index]` is a view (or one element)
            self.adjoints.out.append(scatter)
        else:  # integer arrays may repeat an index: every occurrence must add
            self.adjoints.out.append(gast.Expr(nodes.call("rt.add_at", nodes.name(var),
                                                          _as_value(index), seed)))

    def _adjoint_of_write(self, statement):
        """`a[index] = v`: dv takes da[index]; the overwritten elements get no gradient."""
        subscript = statement.targets[0]
        array, index, value = subscript.value.id, subscript.slice, statement.value
        if self.adjoints.get(array) is None:
            return
        var = self.adjoints.own(array)
        held = None
        if isinstance(value, gast.Name) and value.id in facts.VARIED.of(statement):
            part = gast.Subscript(nodes.name(var), index, gast.Load())
            if not _one_element(statement, array, index):
                # a copy: da[index] may be a view (a slice, or a row), zeroed just below
                part = nodes.call("rt.unbroadcast", nodes.call("rt.copy", part), value)
            if value.id == array:  # `a[index] = a`: read before da[index] is zeroed, added after
                held = self.adjoints.namer.numbered("_dpart")
                self.adjoints.out.append(nodes.assign(held, part))
            else:
                self.adjoints.contribute(value.id, part, alias=False)
        self.adjoints.out.append(gast.Assign(
            [gast.Subscript(nodes.name(var), index, gast.Store())], nodes.constant(0.0), None))
        if held is not None:
            self.adjoints.contribute(array, nodes.name(held), alias=False)

    # ---- problems ------------------------------------------------------------------------------

    def _problem(self, statement, message, why="", fix=""):
        origin = facts.ORIGIN.of(statement, statement)
        node = statement.value if hasattr(statement.value, "lineno") else origin
        self.problems.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def _refused(self, statement, message, why):
        """At the user's call when the statement comes from a function s2sad inlined there
        (scipy.stats.t.cdf written out): the statement's origin, not its own line."""
        origin = facts.ORIGIN.of(statement, statement)
        node = origin if origin is not statement else statement.value
        self.problems.append(Diagnostic(self.source.loc(node), message, why=why,
                                        fix=REFUSED_FIX))

    def _missing_rule(self, statement, value, rule):
        if facts.DRAW.of(value):
            self._problem(statement, *template.draw_problem(value))
            return
        name = template.operation_name(value)
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
            try:  # as the user spells it (`sp.gammaln`), not the generated name (`sp_gammaln`)
                name = self.source.segment(value.func) or name
            except (IndexError, AttributeError):
                pass
        if rule is not None and rule.kind == "not_implemented":
            why = f"the derivative of {name} is not implemented yet" + \
                  (f" ({rule.note})" if rule.note else "")
        else:
            why = f"{name} has no derivative template, and its source cannot be differentiated"
        argument = _first_parameter(facts.REF.of(value))
        short = name.rsplit(".", 1)[-1]
        self._problem(statement, f"no derivative template for {name}", why=why,
                      fix=f"register one (docs/rules.md: 'Adding a derivative'), e.g.\n"
                          f"    @s2sad.adjoint({name})\n"
                          f"    def {short}(result, {argument}, ...):\n"
                          f"        d[{argument}] = d[result] * ...\n"
                          "or compute this value outside the differentiated function")




def _one_element(statement, array, index):
    """Whether `array[index]` is known to be one number (ints index every dimension)."""
    rank = facts.RANKS.of(statement, {}).get(array)
    return rank is not None and kinds_module.indexed_rank(
        rank, index, facts.SCALARS.of(statement), facts.INTS.of(statement)) == 0


def _first_parameter(func):
    try:
        return next(iter(inspect.signature(func).parameters))
    except (TypeError, ValueError, StopIteration):
        return "x"


def _names_in(node):
    return [n for n in nodes.walk(node) if isinstance(n, gast.Name)]


def _first_name(result):
    return result.id if isinstance(result, gast.Name) else result.elts[0].id


def _parameter_of_shape(name, statement, fixed):
    """For a temporary, a parameter that is never rebound (`fixed`) of its shape class at
    `statement` (kinds.py), the first in alphabetical order, as a new Name node; else `name`
    itself. A parameter is bound everywhere, and kept for nothing."""
    shapes = facts.SHAPES.of(statement, {})
    if not isinstance(name, gast.Name) or not name.id.startswith("_") or \
            shapes.get(name.id) is None:
        return name
    mates = sorted(n for n in fixed if shapes.get(n) is shapes[name.id])
    return nodes.name(mates[0]) if mates else name


def _shapes_from_parameters(expression, statement, fixed):
    """`rt.unreduce(g, _t0, None)` -> `rt.unreduce(g, x, None)` where `_t0 = r * x`, `r =
    numpy.sqrt(x)`: a helper that reads only an array's shape reads a parameter of that shape,
    so a temporary need not be kept for the backward sweep only for its shape."""
    for node in nodes.walk(expression):
        if isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == ["rt", "unreduce"] \
                and len(node.args) == 3:
            node.args[1] = _parameter_of_shape(node.args[1], statement, fixed)


def _mark_shapes(expression, statement):
    """Each forward value a gradient expression reads, and each `rt.unreduce(g, a, None)` in it,
    gets the shape class kinds.py saw at `statement` (`facts.CLASS`): tidy/spreads.py may then
    multiply by `g` where the spread is multiplied by an array of the same class."""
    shapes = facts.SHAPES.of(statement, {})
    for node in nodes.walk(expression):
        if isinstance(node, gast.Name) and node.id in shapes:
            facts.CLASS.put(node, shapes[node.id])
        elif isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == \
                ["rt", "unreduce"] and len(node.args) == 3 and \
                isinstance(node.args[1], gast.Name) and node.args[1].id in shapes:
            facts.CLASS.put(node, shapes[node.args[1].id])
            facts.RANK.put(node, _axis_reduced_rank(node, statement))
        elif isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == \
                ["rt", "extremum_grad"] and len(node.args) == 4 and \
                isinstance(node.args[1], gast.Name):   # for tidy.in_place.extremum_in_place
            facts.RANK.put(node, facts.RANKS.of(statement, {}).get(node.args[1].id))
        elif _plain_transpose(node, statement):
            node.func, node.args = nodes.dotted("numpy.transpose"), node.args[:1]


def _plain_transpose(node, statement):
    """`rt.transpose_grad(g, a, None)` with `a` a known array: the helper reads `a` only to
    tell an array from a number, so `numpy.transpose(g)` does, and `a` need not be kept for
    the backward sweep (`q.T` in the GMM keeps q's elements no longer)."""
    return isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == \
        ["rt", "transpose_grad"] and len(node.args) == 3 and not node.keywords and \
        isinstance(node.args[1], gast.Name) and \
        (facts.RANKS.of(statement, {}).get(node.args[1].id) or 0) >= 1 and \
        isinstance(node.args[2], gast.Constant) and node.args[2].value is None


def _axis_reduced_rank(unreduce, statement):
    """The rank of `a` in `rt.unreduce(g, a, axis)` when the reduction removed one axis given
    as an int literal (no keepdims) from an array of known rank: g then has one dimension
    fewer, and `numpy.expand_dims(g, axis)` broadcasts like the spread (tidy/spreads.py)."""
    axis = unreduce.args[2]
    if isinstance(axis, gast.UnaryOp) and isinstance(axis.op, gast.USub):
        axis = axis.operand
    call = statement.value
    if not isinstance(call, gast.Call) or len(call.args) > 2:   # keepdims may be positional
        return None
    keepdims = [k for k in call.keywords if k.arg == "keepdims"]
    if not (isinstance(axis, gast.Constant) and type(axis.value) is int) or \
            any(not (isinstance(k.value, gast.Constant) and k.value.value is False)
                for k in keepdims):
        return None
    rank = facts.RANKS.of(statement, {}).get(unreduce.args[1].id)
    return rank if rank is not None and rank >= 1 else None


def _summed(argument, others, statement):
    """Whether a broadcasting rule sums `argument`'s gradient back to its shape: unless every
    other operand is a known scalar or all share its shape class."""
    return not all(is_scalar(a, facts.SCALARS.of(statement)) for a in others) and \
        not kinds_module.same_shape(argument, others, statement)


def _single_use_definitions(statements):
    """{temporary: its assignment} for the transformer's temporaries assigned once by `+`,
    `-`, `*` or `/` and read once in `statements`."""
    stores, loads, definitions = {}, {}, {}
    for node in (n for statement in statements for n in nodes.walk(statement)):
        if isinstance(node, gast.Name) and node.id.startswith("_t"):
            table = loads if isinstance(node.ctx, gast.Load) else stores
            table[node.id] = table.get(node.id, 0) + 1
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.BinOp) \
                and isinstance(node.value.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)):
            definitions[node.targets[0].id] = node
    return {name: d for name, d in definitions.items()
            if stores.get(name) == 1 and loads.get(name) == 1}


def _unbroadcast(expression, argument, others, statement, fixed=()):
    """The gradient of a broadcast operand: summed over what broadcasting added. A known scalar
    next to a known array takes the sum of it all; otherwise rt.unbroadcast finds out."""
    ranks = facts.RANKS.of(statement, {})
    if is_scalar(argument, facts.SCALARS.of(statement)) and any(
            isinstance(o, gast.Name) and ranks.get(o.id, 0) >= 1 for o in others):
        return nodes.call("numpy.sum", expression)
    like = _parameter_of_shape(argument, statement, fixed)
    summed = nodes.call("rt.unbroadcast", expression, nodes.clone(like))
    facts.LIKE_RANK.put(summed, ranks.get(argument.id) if isinstance(argument, gast.Name) else None)
    return summed   # (summed_first.py reads the rank)


def _is_user_call(call):
    return facts.USER.of(call)


def _index_parts(index):
    return index.elts if isinstance(index, gast.Tuple) else [index]


def _is_basic(index, ints):
    """Ints, slices and numpy.newaxis only: no element can be selected twice."""
    return all(isinstance(part, gast.Slice) or is_int(part, ints) or
               (isinstance(part, gast.Constant) and part.value is None)
               for part in _index_parts(index))


def _as_value(index):
    """An index as an argument: `a:b` parts as slice(a, b) (a tuple cannot hold `a:b`)."""
    def value(part):
        if not isinstance(part, gast.Slice):
            return part
        bounds = [b if b is not None else gast.Constant(None, None)
                  for b in (part.lower, part.upper, part.step)]
        return gast.Call(gast.Name("slice", gast.Load(), None, None), bounds, [])
    if isinstance(index, gast.Tuple):
        return gast.Tuple([value(p) for p in index.elts], gast.Load())
    return value(index)


def _mark_outer_product(expression, args, statement):
    """`rt.matmul_grad_a(g, a, b)` of `a @ b` with a a matrix and b a vector is the outer
    product of g and b: defer.py may sum it over a loop as one matrix product."""
    if isinstance(expression, gast.Call) and \
            nodes.dotted_parts(expression.func) in (["rt", "matmul_grad_a"], ["rt", "dot_grad_a"]):
        ranks = facts.RANKS.of(statement, {})
        ranks_of = [ranks.get(a.id) if isinstance(a, gast.Name) else None for a in args]
        facts.OUTER.put(expression, ranks_of == [2, 1])
        facts.OPERAND_RANKS.put(expression, ranks_of)   # for summed_first.py
