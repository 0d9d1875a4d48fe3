"""Find where the gradient silently stops ("clogs"), and say so at the right line.

A differentiated value that flows into something without a gradient gives a zero derivative
along that path, and nothing crashes. Tape-based tools stay silent; s2sad reports each place
once, at transform time, with the fix:

    def f(x):
        n = int(x * 10)           -->  f.py:2:9: warning: int(x * 10) depends on x, but its
        y = (x > 0) * x                result carries no gradient
        return y * n               f.py:3:10: warning: the truth value x > 0 depends on x and
                                       is used as a number at line 3, so its gradient is zero

What is reported (templates.RESULTS says which functions are which):
- a "cut" function (int, round, floor, sign, `.item()`, random draws, `//`) reading a varied
  value;
- a "discrete" value (a comparison, `numpy.isnan`, `argmax`) computed from a varied value and
  then used as a number: in arithmetic, as a differentiable argument, or returned. As a branch
  test, an index or `numpy.where`'s condition it is fine;
- a write of a varied value into an array of an integer dtype (the value is truncated; the
  write is marked so that activity analysis does not pretend a gradient flows through it).
`s2sad.stop_gradient(...)` around the call or value says the cut is intended and silences it.
"""
import builtins

import gast
import numpy

from s2sad import templates
from s2sad.errors import Diagnostic
from s2sad.runtime import rt

from .. import facts
from .. import nodes, template
from . import activity

# A better spelling for a few common cuts; the generic advice covers the rest.
ALTERNATIVES = {
    builtins.int: "keep the value a float",
    builtins.round: "keep the value a float",
    rt.item: "index the array instead (x[i] or float(x[i]) keep the gradient)",
    numpy.sign: "x / numpy.sqrt(x * x + eps) is a smooth sign",
}
STOP_FIX = "or wrap it in s2sad.stop_gradient(...) to say the cut is intended (which silences " \
           "this warning)"


def mark_integer_writes(body):
    """Before activity analysis: mark `a[i] = v` into arrays of an integer dtype (`facts.CUT`),
    so no gradient is pretended to flow through the truncated value."""
    _IntegerArrays().block(body)


def find(source, body, wrt):
    """Diagnostics (severity "warning") for every clog in the annotated ANF `body`."""
    finder = _Finder(source, body, wrt)
    finder.block(body, {})
    return finder.found


def zero_gradients(source, wrt, useful_at_entry):
    """A warning per `wrt` parameter the returned value does not depend on."""
    params = {a.id: a for a in nodes.walk(source.tree.args) if isinstance(a, gast.Name)}
    out = []
    for name in wrt:
        if name in useful_at_entry:
            continue
        what = facts.PATH.of(params[name], name)  # a container's leaf: its path
        out.append(Diagnostic(
            source.loc(params[name]), f"the gradient w.r.t. '{what}' is identically zero: the "
            "output does not depend on it",
            why=f"no differentiable path leads from '{what}' to the returned value",
            fix=f"check the function uses '{what}', or do not differentiate w.r.t. it",
            severity="warning"))
    return out


# ---- integer arrays -------------------------------------------------------------------------

INT_MAKERS = {numpy.zeros: 1, numpy.ones: 1, numpy.empty: 1, numpy.full: 2, numpy.array: 1,
              numpy.asarray: 1, numpy.zeros_like: 1, numpy.ones_like: 1, numpy.empty_like: 1,
              numpy.full_like: 2, numpy.arange: None}  # -> position of the dtype argument


class _IntegerArrays:
    def __init__(self):
        self.names = set()

    def block(self, statements):
        for statement in statements:
            if isinstance(statement, gast.If):
                self.block(statement.body)
                self.block(statement.orelse)
            elif isinstance(statement, (gast.For, gast.While)):
                self.block(statement.body)
                self.block(statement.body)  # names made integer late in the body
            elif isinstance(statement, gast.Assign):
                self.assign(statement)

    def assign(self, statement):
        array = activity.written_array(statement)
        if array is not None:
            if array in self.names:
                facts.CUT.put(statement, "integer")
            return
        integer = self.integer(statement.value)
        for target in activity.targets(statement):
            (self.names.add if integer else self.names.discard)(target)

    def integer(self, value):
        if isinstance(value, gast.Name):
            return value.id in self.names
        if not isinstance(value, gast.Call):
            return False
        ref = facts.REF.of(value)
        if ref is numpy.copy:
            return self.integer(value.args[0])
        if ref not in INT_MAKERS:
            return False
        position = INT_MAKERS[ref]
        dtype = next((k.value for k in value.keywords if k.arg == "dtype"), None)
        if dtype is None and position is not None and len(value.args) > position:
            dtype = value.args[position]
        if dtype is not None:
            return _is_integer_dtype(dtype)
        if ref in (numpy.zeros_like, numpy.ones_like, numpy.empty_like, numpy.full_like,
                   numpy.array, numpy.asarray):
            return isinstance(value.args[0], gast.Name) and value.args[0].id in self.names
        if ref is numpy.arange:
            return all(isinstance(a, gast.Constant) and type(a.value) is int for a in value.args)
        return False


def _is_integer_dtype(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, str):
        spelled = node.value
    else:
        parts = nodes.dotted_parts(node)
        if not parts:
            return False
        spelled = getattr(builtins, parts[0], None) if len(parts) == 1 else \
            getattr(numpy, parts[-1], None) if parts[0] == "numpy" else None
    try:
        return numpy.dtype(spelled).kind in "iub"
    except TypeError:
        return False


# ---- the walk ---------------------------------------------------------------------------------

class _Finder:
    """Walks the ANF in execution order with `discrete`: name -> (origin node, the differentiated
    parameters it was computed from), for truth values, indices and counts derived from them."""

    def __init__(self, source, body, wrt):
        self.source = source
        self.found = []
        self.seen = set()
        self.stopped = {a.id for s in activity.simple_statements(body)
                        for a in _stop_gradient_args(s)}
        self.inputs = {name: {name} for name in wrt}  # name -> wrt parameters it may depend on

    def block(self, statements, discrete):
        for statement in statements:
            if isinstance(statement, gast.If):
                one = self.block(statement.body, dict(discrete))
                two = self.block(statement.orelse, dict(discrete))
                discrete = {**one, **two}
            elif isinstance(statement, (gast.For, gast.While)):
                for _ in range(2):  # a second pass sees values carried round the loop
                    discrete = {**discrete, **self.block(statement.body, dict(discrete))}
            else:
                self.statement(statement, discrete)
        return discrete

    def statement(self, statement, discrete):
        value = statement.value
        varied = self._inputs(facts.VARIED.of(statement))
        if facts.RESULT_VARIED.of(statement):
            written = {activity.written_array(statement)} - {None}
            for target in activity.targets(statement) | written:
                self.inputs.setdefault(target, set()).update(varied)
        if isinstance(statement, gast.Return):
            elements = value.elts if isinstance(value, gast.Tuple) else [value]
            self._numbers(elements, discrete, statement, "returned")
            return
        if facts.CUT.of(statement) == "integer" and varied:
            return self._integer_write(statement, varied)
        if activity.written_array(statement) is not None:
            return
        targets = activity.targets(statement)
        made = self._discrete_made(statement, value, varied, discrete)
        for target in targets:
            if made is not None:
                discrete[target] = made
            else:
                discrete.pop(target, None)

    def _discrete_made(self, statement, value, varied, discrete):
        """The (origin, names) of a discrete value `value` makes, or None."""
        if isinstance(value, gast.Name):
            return discrete.get(value.id)
        if isinstance(value, gast.Subscript):
            return discrete.get(value.value.id) if isinstance(value.value, gast.Name) else None
        if isinstance(value, (gast.Compare, gast.BoolOp)) or (
                isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not)):
            return self._truth(value, varied, discrete)
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.FloorDiv):
            self._cut(statement, value, varied, "`//` (floor division)")
            return self._inherited(value, discrete)
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            self._numbers(_operands(value), discrete, statement, "in arithmetic")
            return None
        if isinstance(value, gast.Call):
            return self._call(statement, value, varied, discrete)
        return None

    def _call(self, statement, call, varied, discrete):
        rule = templates.rule_for(facts.REF.of(call))
        if rule is None:
            return None
        if rule.kind == "nondifferentiable":
            if rule.result == "cut":
                self._cut(statement, call, varied, self._text(call))
                return self._inherited(call, discrete)
            if rule.result == "discrete":
                return self._truth(call, varied, discrete)
            return None
        if rule.kind == "adjoint":
            self._numbers(_differentiable_arguments(rule, call), discrete, statement,
                          f"as an argument of {_label(call)}")
        return None

    def _truth(self, value, varied, discrete):
        if varied:
            return value, tuple(sorted(varied))
        return self._inherited(value, discrete)

    def _inputs(self, names):
        """The differentiated parameters the values of `names` may depend on."""
        return {p for n in names for p in self.inputs.get(n, ())}

    def _inherited(self, value, discrete):
        return next((discrete[n] for n in sorted(activity.names_read(value)) if n in discrete),
                    None)

    # ---- reports ------------------------------------------------------------------------------

    def _cut(self, statement, node, varied, what):
        if not varied or set(activity.targets(statement)) & self.stopped:
            return
        names = _quoted(varied)
        alternative = ALTERNATIVES.get(facts.REF.of(node))
        fix = f"{alternative}, {STOP_FIX}" if alternative else \
            f"use a differentiable alternative, {STOP_FIX}"
        located = node if hasattr(node, "lineno") else statement  # ANF operators have none
        self._report(located, f"{what} depends on {names}, but its result carries no gradient",
                     why=f"s2sad differentiates {_label(node)} as a constant (it is piecewise "
                         "constant or not a function of the value), so no gradient flows to "
                         f"{names} through it", fix=fix)

    def _numbers(self, atoms, discrete, statement, how):
        for atom in atoms:
            if isinstance(atom, gast.Name) and atom.id in discrete and \
                    atom.id not in self.stopped:
                origin, names = discrete[atom.id]
                line = self.source.loc(statement).line
                self._report(origin, f"the truth value or index {self.source.segment(origin)} "
                             f"depends on {_quoted(names)} and is used as a number ({how}, "
                             f"line {line}), so its gradient is zero",
                             why="comparisons, masks and indices are piecewise constant",
                             fix="choose between values with numpy.where(condition, a, b), use "
                                 f"a smooth function (e.g. a sigmoid for a step), {STOP_FIX}")

    def _integer_write(self, statement, varied):
        array = activity.written_array(statement)
        self._report(statement, f"a value depending on {_quoted(varied)} is written "
                     f"into '{array}', an array of an integer dtype",
                     why="the value is truncated to an integer, and its gradient is lost",
                     fix=f"create '{array}' with a float dtype (numpy.zeros(n) is float64), "
                         f"{STOP_FIX}")

    def _report(self, node, message, why, fix):
        where = self.source.loc(node)
        key = (where.line, where.col, message)
        if key not in self.seen:
            self.seen.add(key)
            self.found.append(Diagnostic(where, message, why=why, fix=fix,
                                         severity="warning"))

    def _text(self, node):
        return self.source.segment(node) if hasattr(node, "end_col_offset") else _label(node)


def _differentiable_arguments(rule, call):
    """The atoms a call passes to parameters its template differentiates."""
    loaded = template.load(rule.template)
    try:
        bound = loaded.signature.bind(*call.args, **{k.arg: k.value for k in call.keywords})
    except TypeError:
        return []  # blocks.py reports it
    wanted = {name for name, _ in loaded.contributions}
    out = []
    for name, value in bound.arguments.items():
        if name in wanted:
            out.extend(value if isinstance(value, tuple) else [value])
    return [a for atom in out for a in (atom.elts if isinstance(atom, gast.Tuple) else [atom])]


def _stop_gradient_args(statement):
    value = getattr(statement, "value", None)
    if isinstance(value, gast.Call) and facts.REF.of(value) is rt.stop_gradient:
        return [a for a in value.args if isinstance(a, gast.Name)]
    return []


def _operands(value):
    return [value.left, value.right] if isinstance(value, gast.BinOp) else [value.operand]


def _label(node):
    if facts.REF.of(node) is rt.item:
        return ".item()"
    if isinstance(node, gast.Call):
        return ".".join(nodes.dotted_parts(node.func) or ["the call"])
    return "this operation"


def _quoted(names):
    names = sorted(names)
    return ", ".join(f"'{n}'" for n in names)
