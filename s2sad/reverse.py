"""Stage 6: build the adjoint function, forward sweep then backward sweep.

    def f(x, w):                          def df(x, w, d_result):
        z = np.sin(x * w)                     # ---- forward sweep ----
        return np.sum(z * z)      -->         _t0 = x * w
                                              z = numpy.sin(_t0)
                                              _t1 = z * z
                                              _t2 = numpy.sum(_t1)
                                              # ---- backward sweep ----
                                              # grad of: return np.sum(z * z)   [f.py:3]
                                              d_t1 = rt.unreduce(d_result, _t1, None)
                                              dz = rt.unbroadcast(d_t1 * z, z)
                                              dz = dz + rt.unbroadcast(d_t1 * z, z)
                                              # grad of: z = np.sin(x * w)   [f.py:2]
                                              ...
                                              return _t2, dx, dw

Rules that keep the output small and right:
- Adjoints come into existence at their first contribution (`dz = ...`, not `dz = 0; dz += ...`);
  a contribution that is just another adjoint is an alias, not a copy (adjoints.py).
- In the backward sweep every primal name holds the value it had at that point of the forward
  sweep: a name that is overwritten is saved before the overwrite and restored at the end of the
  overwriting statement's adjoint block, but only if some earlier block reads the old value.
- A call to a user function runs that function's own adjoint (`dg(args..., d_out)`, which
  recomputes its forward sweep: "joint" mode), so no saved state crosses a function boundary.
"""
import inspect
import operator

import gast

from . import nodes, normalize, template, templates
from .adjoints import Adjoints
from .errors import Diagnostic, TemplateError

BINARY = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
          gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul}
UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos}


def reverse(source, body, wrt, namer, link, adjoint_name):
    """The adjoint FunctionDef of ANF `body`.

    `wrt`: parameter names to differentiate; `link(func, positions)` returns the emitted name of
    a callee's adjoint for those argument positions; `adjoint_name` names the new function.
    """
    return _Reverse(source, body, wrt, namer, link).build(adjoint_name)


class _Reverse:
    def __init__(self, source, body, wrt, namer, link):
        self.source = source
        self.body = [s for s in body if not isinstance(s, gast.Return)]
        self.returned = next(s for s in body if isinstance(s, gast.Return))
        self.wrt = list(wrt)
        self.namer = namer
        self.link = link
        self.params = [a.id for a in _params(source.tree.args)]
        self.primal_names = set(self.params) | {t for s in self.body for t in _targets(s)}
        self.adjoints = Adjoints(namer)
        self.problems = []
        self.d_result = namer.fresh("d_result")
        self.discard = None      # the name for values a callee's adjoint returns but we ignore

    # ---- assembling the function --------------------------------------------------------------

    def build(self, adjoint_name):
        self._mark_scalars()
        before, after = self._versions()
        blocks, reads = {}, set()
        self.adjoints.out = blocks[len(self.body)] = []
        self._seed_return()
        for k in reversed(range(len(self.body))):
            self.adjoints.out = blocks[k] = []
            if self.body[k].s2sad_active:
                self._adjoint_of(self.body[k])
            reads |= self._reads(blocks[k], {**before[k], **after[k]})
        if self.problems:
            raise TemplateError(sorted(self.problems, key=lambda d: (d.where.line, d.where.col)))
        grads = [self.adjoints.get(p) or nodes.call("rt.zeros_like", nodes.name(p))
                 for p in self.wrt]
        initial = {name: ("param", name) for name in self.params}
        reads |= self._reads([gast.Expr(g) for g in grads], initial)
        forward, saved = self._forward(before, reads)
        value = self.returned.value
        if nodes.names(value) & {target for pairs in saved.values() for target, _ in pairs}:
            value_name = self.namer.fresh("value")  # its name is restored in the backward sweep
            forward.append(nodes.assign(value_name, value))
            value = nodes.name(value_name)
        backward, commented = [nodes.Comment("---- backward sweep ----")], None
        for k in reversed(range(len(self.body) + 1)):
            block = blocks[k]
            for target, save in saved.get(k, ()):
                block.append(nodes.assign(target, nodes.name(save)))
            if block and self._origin(k) is not commented:  # one comment per source statement
                commented = self._origin(k)
                backward.append(nodes.Comment(f"grad of: {self._comment(k)}"))
            backward.extend(block)
        backward.append(gast.Return(gast.Tuple([value] + grads, gast.Load())))
        params = [nodes.name(p) for p in self.params] + [nodes.name(self.d_result)]
        args = gast.arguments(params, [], None, [], [], None, [])
        return gast.FunctionDef(adjoint_name, args, forward + backward, [], None, None, [])

    def _forward(self, versions_before, reads):
        """The primal statements, with a save before each overwrite whose old value is read."""
        forward = [nodes.Comment("---- forward sweep ----")]
        saved = {}
        for k, statement in enumerate(self.body):
            if k == 0 or self._origin(k) is not self._origin(k - 1):
                forward.append(nodes.Comment(self._comment(k)))
            for target in sorted(_targets(statement)):
                old = versions_before[k].get(target)
                if old is not None and (target, old) in reads:
                    save = self.namer.numbered(f"_{target}_")
                    forward.append(nodes.assign(save, nodes.name(target)))
                    saved.setdefault(k, []).append((target, save))
            forward.append(statement)
        return forward, saved

    def _mark_scalars(self):
        """Annotate each statement with the names known to hold scalars before it: results of
        `math` functions, `float`, `int`, `len`, and arithmetic on such values. A broadcasting
        rule needs no `rt.unbroadcast` when every other operand is a known scalar."""
        scalars = set()
        for statement in self.body:
            statement.s2sad_scalars = frozenset(scalars)
            value = statement.value
            if isinstance(value, gast.Call):
                known = (nodes.dotted_parts(value.func) or [None])[0] in \
                    ("math", "float", "int", "len")
            elif isinstance(value, gast.Name):
                known = value.id in scalars
            elif isinstance(value, (gast.BinOp, gast.UnaryOp)):
                known = all(_is_scalar(a, scalars) for a in gast.iter_child_nodes(value)
                            if isinstance(a, gast.expr))
            else:
                known = normalize.is_literal(value)
            targets = _targets(statement)
            for target in targets:
                (scalars.add if known and len(targets) == 1 else scalars.discard)(target)

    def _versions(self):
        """For each statement, the version of every primal name before and after it."""
        current = {name: ("param", name) for name in self.params}
        before, after = [], []
        for k, statement in enumerate(self.body):
            before.append(dict(current))
            for target in _targets(statement):
                current[target] = (k, target)
            after.append(dict(current))
        return before, after

    def _reads(self, block, versions):
        return {(n.id, versions[n.id]) for s in block for n in gast.walk(s)
                if isinstance(n, gast.Name) and n.id in versions and n.id in self.primal_names}

    def _origin(self, k):
        statement = self.body[k] if k < len(self.body) else self.returned
        return getattr(statement, "s2sad_origin", statement)

    def _comment(self, k):
        origin = self._origin(k)
        return f"{self.source.segment(origin)}   [{self.source.where(origin)}]"

    # ---- one statement ------------------------------------------------------------------------

    def _seed_return(self):
        value = self.returned.value
        elements = value.elts if isinstance(value, gast.Tuple) else [value]
        for i, element in enumerate(elements):
            if isinstance(element, gast.Name) and element.id in self.returned.s2sad_varied:
                seed = nodes.name(self.d_result)
                if isinstance(value, gast.Tuple):
                    seed = gast.Subscript(seed, gast.Constant(i, None), gast.Load())
                self.adjoints.contribute(element.id, seed)

    def _adjoint_of(self, statement):
        value = statement.value
        if isinstance(value, gast.Call) and _is_user_call(value):
            return self._adjoint_of_call(statement)
        target = statement.targets[0].id
        seed = self.adjoints.take(target)
        if seed is None:
            return
        varied = statement.s2sad_varied
        if isinstance(value, gast.Name):
            self.adjoints.contribute(value.id, seed)
            return
        if isinstance(value, gast.BinOp):
            rule, args, keywords = templates.rule_for(BINARY[type(value.op)]), \
                [value.left, value.right], {}
        elif isinstance(value, gast.UnaryOp):
            rule, args, keywords = templates.rule_for(UNARY[type(value.op)]), [value.operand], {}
        elif isinstance(value, gast.Call):
            rule, args = templates.rule_for(value.s2sad_ref), value.args
            keywords = {k.arg: k.value for k in value.keywords}
        else:
            return self._problem(statement, "cannot differentiate this expression")
        if rule is None or rule.kind != "adjoint":
            return self._missing_rule(statement, value, rule)
        if any(n.id in varied for a in args if isinstance(a, gast.Tuple) for n in gast.walk(a)
               if isinstance(n, gast.Name)):
            return self._problem(statement, "a tuple of differentiated values is passed as one "
                                 "argument; this is not supported yet")
        candidates = [a.id for a in [*args, *keywords.values()]
                      if isinstance(a, gast.Name) and a.id in varied]
        seed = self.adjoints.protect(target, seed, candidates)
        try:
            pairs = template.contributions(rule, args, keywords, nodes.name(target), seed)
        except template.BindError as exc:
            return self._problem(statement, str(exc))
        for argument, expression in pairs:
            if not (isinstance(argument, gast.Name) and argument.id in varied):
                continue
            others = [a for a in args if a is not argument]
            if rule.broadcasting and not all(_is_scalar(a, statement.s2sad_scalars)
                                             for a in others):
                expression = nodes.call("rt.unbroadcast", expression, argument)
            self.adjoints.contribute(argument.id, expression)

    def _adjoint_of_call(self, statement):
        call = statement.value
        names = [n.id for n in gast.walk(statement.targets[0]) if isinstance(n, gast.Name)]
        if isinstance(statement.targets[0], gast.Tuple):
            seed = gast.Tuple([self.adjoints.take(n) or nodes.call("rt.zeros_like", nodes.name(n))
                               for n in names], gast.Load())
        else:
            seed = self.adjoints.take(names[0])
            if seed is None:
                return
        try:
            args = _bind_positional(call)
        except TypeError as exc:
            return self._problem(statement, f"cannot bind the call's arguments ({exc})")
        positions = [i for i, a in enumerate(args)
                     if isinstance(a, gast.Name) and a.id in statement.s2sad_varied]
        if not positions:
            return
        adjoint = self.link(call.s2sad_ref, tuple(positions))
        if self.discard is None:
            self.discard = self.namer.fresh("_")
        outputs = [self.discard]
        outputs += [self.namer.numbered(f"_{self.namer.adjoint(args[i].id)}_") for i in positions]
        seed = self.adjoints.protect(names[0], seed, [args[i].id for i in positions])
        self.adjoints.out.append(gast.Assign(
            [gast.Tuple([nodes.name(o, store=True) for o in outputs], gast.Store())],
            gast.Call(nodes.name(adjoint), [*args, seed], []), None))
        for i, output in zip(positions, outputs[1:]):
            self.adjoints.contribute(args[i].id, nodes.name(output))

    # ---- problems ------------------------------------------------------------------------------

    def _problem(self, statement, message, why="", fix=""):
        origin = getattr(statement, "s2sad_origin", statement)
        node = statement.value if hasattr(statement.value, "lineno") else origin
        self.problems.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def _missing_rule(self, statement, value, rule):
        name = _spelled(value)
        if rule is not None and rule.kind == "not_implemented":
            why = f"the derivative of {name} is not implemented yet" + \
                  (f" ({rule.note})" if rule.note else "")
        else:
            why = f"{name} has no derivative template, and its source cannot be differentiated"
        argument = _first_parameter(getattr(value, "s2sad_ref", None))
        short = name.rsplit(".", 1)[-1]
        self._problem(statement, f"no derivative template for {name}", why=why,
                      fix=f"register one (README: 'Adding a derivative'), e.g.\n"
                          f"    @s2sad.adjoint({name})\n"
                          f"    def {short}(result, {argument}, ...):\n"
                          f"        d[{argument}] = d[result] * ...\n"
                          "or compute this value outside the differentiated function")


def _first_parameter(func):
    try:
        return next(iter(inspect.signature(func).parameters))
    except (TypeError, ValueError, StopIteration):
        return "x"


def _params(args):
    return list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)


def _targets(statement):
    return [n.id for t in statement.targets for n in gast.walk(t) if isinstance(n, gast.Name)]


def _is_scalar(atom, scalars):
    return normalize.is_literal(atom) or (isinstance(atom, gast.Name) and atom.id in scalars)


def _is_user_call(call):
    return getattr(call, "s2sad_user", False)


def _spelled(value):
    if isinstance(value, gast.Call):
        return ".".join(nodes.dotted_parts(value.func) or ["?"])
    return {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
            gast.MatMult: "@", gast.USub: "unary -", gast.UAdd: "unary +"
            }.get(type(getattr(value, "op", None)), "?")


def _bind_positional(call):
    """The call's arguments in parameter order, defaults filled in as literals."""
    signature = inspect.signature(call.s2sad_ref)
    bound = signature.bind(*call.args, **{k.arg: k.value for k in call.keywords})
    bound.apply_defaults()
    args = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError("*args/**kwargs parameters")
        args.append(template.as_node(bound.arguments[parameter.name]))
    return args
