"""In the backward sweep, a value put back that no later block reads is not put back.

The backward sweep puts a kept value back where the forward sweep overwrote it (`total =
_stack_total[i]`), for names some backward block reads. When every block that reads the name
runs before the put-back (the backward sweep runs them in reverse), nothing reads the value put
back: the assignment goes, and the forward sweep's copy with it (unread_stacks.py drops the stacks
nothing reads any more):

    for i in range(_t1 - 1, -1, -1):                  for i in range(_t1 - 1, -1, -1):
        total = _stack_total[i]              -->          dbump_value = dtotal * y[i]
        dbump_value = dtotal * y[i]                        ...

This is liveness over the structured code: a name is live after a statement if some path from
there reads it before binding it again; a loop's body is run until what is live at its head no
longer grows. Only assignments to a name of a value that computing has no effect on (names,
elements, arithmetic, NumPy and math calls, rt's readers) are dropped. A loop with `break`,
`continue` or `return` inside is taken as reading everything it reads at every point of it.
"""
import gast

from .. import nodes

BACKWARD = "---- backward sweep ----"
_PURE_RT = {"entry", "copy", "saved", "zeros_like"}   # rt's helpers that only read


def drop_dead_put_backs(function):
    """Drop the dead assignments of the backward sweep of `function` (in place)."""
    body = function.body
    start = next((i for i, s in enumerate(body)
                  if isinstance(s, nodes.Comment) and s.text == BACKWARD), None)
    if start is None:
        return
    analysis = _Liveness()
    analysis.block(body[start + 1:], set())
    dead = {key for key, is_dead in analysis.dead.items() if is_dead}
    if not dead:
        return
    for statements in nodes.statement_lists(function):
        if any(id(s) in dead for s in statements):
            nodes.keep_only(statements, [s for s in statements if id(s) not in dead])


class _Liveness:
    def __init__(self):
        self.dead = {}      # id(statement) -> dead at its last visit (loops: the final one)

    def block(self, statements, live):
        for statement in reversed(statements):
            live = self.statement(statement, live)
        return live

    def statement(self, s, live):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name) and _no_effect(s.value):
            target = s.targets[0].id
            self.dead[id(s)] = target not in live
            return live if target not in live else (live - {target}) | nodes.names(s.value)
        if isinstance(s, gast.Assign):
            bound = {t.id for t in s.targets if isinstance(t, gast.Name)}
            return (live - bound) | nodes.names(s.value) | set().union(
                *(nodes.names(t) for t in s.targets if not isinstance(t, gast.Name)))
        if isinstance(s, gast.If):
            return self.block(s.body, live) | self.block(s.orelse, live) | nodes.names(s.test)
        if isinstance(s, (gast.For, gast.While)):
            return self._loop(s, live)
        if isinstance(s, gast.Return):
            return nodes.names(s.value) if s.value is not None else set()
        if isinstance(s, (nodes.Comment, gast.Pass)):
            return live
        return live | nodes.names(s)   # AugAssign, Expr, anything else: reads, binds nothing

    def _loop(self, loop, live):
        if any(isinstance(n, (gast.Break, gast.Continue, gast.Return))
               for n in nodes.walk(loop)):
            return live | nodes.names(loop)    # not followed path by path: all of it is live
        header = nodes.names(loop.iter) if isinstance(loop, gast.For) else nodes.names(loop.test)
        bound = nodes.names(loop.target) if isinstance(loop, gast.For) else set()
        after = live | self.block(loop.orelse, live)
        head = set(after)
        while True:     # live at the head: after the loop, or read by the body before bound
            inside = self.block(loop.body, head)
            grown = head | (inside - bound) | (header if isinstance(loop, gast.While) else set())
            if grown == head:
                break
            head = grown
        return head | header


def _no_effect(value):
    """Computing `value` changes nothing and raises nothing a kept value would not."""
    for node in nodes.walk(value):
        if isinstance(node, (gast.NamedExpr, gast.Lambda, gast.Yield, gast.Await)):
            return False
        if isinstance(node, gast.Call):
            parts = nodes.dotted_parts(node.func) or [""]
            if node.keywords or not (parts[0] in ("numpy", "math") or
                                     (parts[0] == "rt" and parts[-1] in _PURE_RT)):
                return False
    return True
