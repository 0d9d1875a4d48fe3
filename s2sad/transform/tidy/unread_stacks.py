"""A value kept for the backward sweep that the tidied backward sweep no longer reads is kept
no more: its stack, pushes, pops and room checks go, then the trip counters no stack reads.

    _stack_t29 = numpy.empty(_trips0)              for i in range(n):
    for i in range(n):                                 ...
        _stack_t29[i] = _t29               -->     for i in range(n - 1, -1, -1):
    for i in range(n - 1, -1, -1):                     dz = g
        _t29 = _stack_t29[i]
        dz = g                             # was rt.unreduce(g, _t29, None): kept for its shape

A value each pop puts back only for another pop to overwrite it before any read goes too.
"""
import gast

from .. import nodes
from ..generate import counted
from ..nodes import Comment, dotted_parts

def drop_unread_stacks(function):
    """A value kept on a stack that the backward sweep no longer reads once tidied (it was kept
    for its shape: `rt.unreduce(g, _t29, None)` became `g`), or that each pop puts back only
    for another value to be put back before any read (`v = _stack_v_1[i]` in a branch, then
    `v = _stack_v[i]` after it), is kept no more: its pushes, pops (`x = _stack_x.pop()` or
    `x = _stack_x[t]`) and the stack go. Whether any went."""
    body = function.body
    start = next((k for k, s in enumerate(body) if isinstance(s, Comment) and
                  "backward sweep" in s.text), None)
    if start is None:
        return False
    read = {n.id for s in body[start:] for n in nodes.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    own, pops = {}, {}  # stack -> ids of the statements that only handle it; its pops
    for statements in nodes.statement_lists(function):
        for statement in statements:
            stack, popped = _stack_statement(statement)
            if stack is not None:
                own.setdefault(stack, set()).add(id(statement))
                if popped is not None:
                    pops.setdefault(stack, []).append((statement, popped))
    used = set()  # stacks read anywhere else
    for statements in nodes.statement_lists(function):
        for statement in statements:
            if _stack_statement(statement)[0] is None and \
                    not isinstance(statement, (gast.If, gast.For, gast.While)):
                used |= nodes.names(statement) & own.keys()
    overwritten = _Overwritten(function)
    dead = {stack for stack in own if stack not in used and  # no pop left: dead too
            all(popped not in read or overwritten(statement, popped)
                for statement, popped in pops.get(stack, ()))}
    if not dead:
        return False
    gone = set().union(*(own[stack] for stack in dead))
    for statements in nodes.statement_lists(function):
        if any(id(s) in gone for s in statements):
            nodes.keep_only(statements, [s for s in statements if id(s) not in gone])
    return True


def fix_room_checks(function):
    """Room checks (counted.room_check) of tapes that went test the length of one still there,
    or go with their tapes. Whether any went."""
    went = False
    for statements in nodes.statement_lists(function):
        checks = [s for s in statements if counted.is_room_check(s)]
        empty = [c for c in checks if not any(isinstance(s, gast.Assign) for s in c.body)]
        for check in checks:
            if check not in empty:  # test the length of a tape that is still there
                check.body[:] = [s for s in check.body if isinstance(s, gast.Assign)]
                check.test.comparators = [gast.Call(nodes.name("len"), [nodes.name(
                    check.body[0].targets[0].id)], [])]
        if empty:
            nodes.keep_only(statements, [s for s in statements if s not in empty])
            went = True
    return went


class _Overwritten:
    """`overwritten(statement, name)`: whether the value `statement` gives `name` is assigned
    over before anything reads it, on the way from `statement` to the end of its branch and
    after it (not across a loop's next trip)."""

    def __init__(self, function):
        self.function = function
        self.where, self.owner = {}, {}  # id(statement) -> (its list, index); id(list) -> node
        for node in [function] + [n for n in nodes.walk(function)
                                  if isinstance(n, (gast.If, gast.For, gast.While))]:
            for field in ("body", "orelse"):
                statements = getattr(node, field, None)
                if isinstance(statements, list):
                    self.owner[id(statements)] = node
                    for k, statement in enumerate(statements):
                        self.where[id(statement)] = (statements, k)

    def __call__(self, statement, name):
        statements, k = self.where[id(statement)]
        while True:
            for later in statements[k + 1:]:
                if name in nodes.names(later):
                    return isinstance(later, gast.Assign) and len(later.targets) == 1 and \
                        isinstance(later.targets[0], gast.Name) and \
                        later.targets[0].id == name and name not in _names_in(later.value)
            owner = self.owner[id(statements)]
            if not isinstance(owner, gast.If):
                return owner is self.function  # a loop's next trip may read it
            statements, k = self.where[id(owner)]


def _names_in(expression):
    return nodes.names(expression)


def _stack_statement(statement):
    """(the stack, the name a pop assigns or None) of a statement that only declares a stack,
    pushes to it or pops from it: `_stack_x = []`, `_stack_x = numpy.empty(...)`,
    `_stack_x = rt.keep_row(_stack_x, ...)` (or rt.push...), `_stack_x.append(x)`,
    `_stack_x[t] = x`, `x = _stack_x.pop()`, `x = _stack_x[t]`, `x = rt.entry(_stack_x, _n0)`,
    `_stack_x = rt.grown(_stack_x, _n0)` (in a room check, counted.py);
    (None, None) for any other."""
    if isinstance(statement, gast.Expr) and _stack_call(statement.value, "append"):
        return statement.value.func.value.id, None
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1):
        return None, None
    target, value = statement.targets[0], statement.value
    if _is_stack(target):
        return target.id, None
    if isinstance(target, gast.Subscript) and _is_stack(target.value):
        return target.value.id, None
    if isinstance(target, gast.Name):
        if _stack_call(value, "pop"):
            return value.func.value.id, target.id
        if isinstance(value, gast.Subscript) and _is_stack(value.value):
            return value.value.id, target.id
        if isinstance(value, gast.Call) and dotted_parts(value.func) == ["rt", "entry"] and \
                value.args and _is_stack(value.args[0]):
            return value.args[0].id, target.id
    return None, None


def _is_stack(node):
    return isinstance(node, gast.Name) and node.id.startswith("_stack")


def _stack_call(node, method):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == method and isinstance(node.func.value, gast.Name) and \
        node.func.value.id.startswith("_stack")


def drop_idle_counters(function):
    """A trip counter of counted.py (`_n0 = _n0 + 1`) that no stack reads any more (the stacks
    it indexed were dropped) goes."""
    counters = {n.id for n in nodes.walk(function) if isinstance(n, gast.Name) and
                counted.is_counter(n.id)}
    for statement in nodes.walk(function):
        if isinstance(statement, gast.stmt) and not _counter_statement(statement):
            for node in nodes.walk_own(statement):   # (a loop's own counter statement is
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):  # in it)
                    counters.discard(node.id)
    for statements in nodes.statement_lists(function):
        keep = [s for s in statements if _counter_statement(s) not in counters]
        if len(keep) != len(statements):
            nodes.keep_only(statements, keep)


def _counter_statement(statement):
    """The counter a statement sets (`_n0 = 0`, `_n0 = _n0 + 1`, `_n0 = _n0 - 1`), or None."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0], gast.Name) and \
            counted.is_counter(statement.targets[0].id):
        value = statement.value
        if isinstance(value, gast.Constant) or isinstance(value, gast.BinOp) and \
                isinstance(value.left, gast.Name) and \
                value.left.id == statement.targets[0].id:
            return statement.targets[0].id
    return None
