"""Calls of a function of yours that draws random numbers, made safe to differentiate.

A callee's adjoint runs its forward sweep again in the backward sweep, so it would draw other
samples than the forward sweep used (and move the generator on twice). So the generators'
states are kept just before the call, and the backward sweep puts them back for the adjoint
(the same samples again), then puts back what the generators held before it:

    y = sample_loss(p, rs)          _drawn0 = rt.draw_state(p, rs)
                                    y = sample_loss(p, rs)
                            -->     ...
                                    # grad of: y = sample_loss(p, rs)
                                    _now0 = rt.replay(_drawn0)
                                    _, _dp_0 = dsample_loss(p, rs, dy)
                                    rt.replay(_now0)

The generators are numpy.random's own and those among the call's arguments: a generator a
callee holds in a global or a closure is an argument of its generated code (constants.py).
Runs on the ANF body, before the activity analysis (`rt.draw_state` carries no gradient).
"""
import gast

from s2sad.runtime import rt

from s2sad.errors import S2sadError

from .. import facts, nodes
from ..front import container_arguments, desugar, parse, resolve


_draws = {}   # function -> (whether its code draws, the functions it calls): `draws`


def forget():
    """Forget what `draws` found (functions or their globals changed)."""
    _draws.clear()


def mark(body, namer):
    """Keep the generators' states before each call in `body` whose callee draws (or a
    function it calls does)."""
    for block in list(nodes.statement_lists(gast.Module(body, []))):
        for statement in list(block):
            call = getattr(statement, "value", None)
            if not (isinstance(statement, gast.Assign) and isinstance(call, gast.Call) and
                    facts.USER.of(call) and draws(facts.REF.of(call))):
                continue
            kept = namer.fresh("_drawn")
            state = nodes.call("rt.draw_state",
                               *[nodes.clone(a) for a in call.args if isinstance(a, gast.Name)])
            facts.REF.put(state, rt.draw_state)
            facts.REPLAY.put(call, kept)
            index = block.index(statement)
            block.insert(index, gast.copy_location(nodes.assign(kept, state), statement))


def wrapped(adjoint_call, kept, namer):
    """The backward sweep's statements around `adjoint_call` (an assignment) of a call marked
    by `mark`: the states kept put back for it, and the states of then put back after it."""
    now = namer.fresh("_now")
    replay = nodes.call("rt.replay", nodes.name(kept))
    facts.REF.put(replay, rt.replay)
    back = nodes.call("rt.replay", nodes.name(now))
    facts.REF.put(back, rt.replay)
    return [nodes.assign(now, replay), adjoint_call, gast.Expr(back)]


def draws(func, _seen=None):
    """Whether `func`, or a function of the user's it calls, draws random numbers."""
    func = container_arguments.original(func)   # (a copy specialised on containers)
    seen = set() if _seen is None else _seen
    if func in seen or not resolve.is_user_function(func):
        return False
    seen.add(func)
    if func not in _draws:  # parsed and resolved only: that is where draws are found
        try:
            source = parse.parse_function(func)
            desugar.desugar(source)
            resolution = resolve.resolve(source)
        except S2sadError:
            return False    # (its own transformation reports what is wrong)
        _draws[func] = (any(facts.DRAW.of(n) for n in nodes.walk(source.tree)),
                        tuple(resolution.callees.values()))
    own, callees = _draws[func]
    return own or any(draws(c, seen) for c in callees)
