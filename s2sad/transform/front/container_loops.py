"""Loops containers.py follows (part of containers.py): a loop over a container held now, or
over a range known now whose body reads or grows a container, is unrolled, one copy of the body
per trip, the loop variable bound to the trip's element:

    for name, w in weights.items():          name = 'a'
        if name == "skip":           -->     total = total + 1.0 * x
            continue                         name = 'b'
        total = total + w * x                total = total + 2.0 * x

A `continue` or `break` ends the trip (or the loop) where the tests around it are decided now
(container_tests.py); under a test decided only when the function runs, a loop over a range
stays a loop (its elements read by a conditional), and one over a container is an error.

Each function takes the containers pass (`owner`).
"""
import gast

from .. import nodes
from . import container_values as values

MAX_UNROLLED = 256


class Undecided(Exception):
    """A `break` or `continue` under a test known only when the function runs."""


def loop(owner, node):
    iterable = node.iter
    over = any(isinstance(n, gast.Call) and nodes.dotted_parts(n.func) == ["len"] and
               any(isinstance(i, values.Container) for i in getattr(
                   owner.held.get(nodes.root_name(n.args[0])), "items", ()))
               for n in nodes.walk(iterable))  # (`for k, v in d.items()`, desugared)
    held = owner.container(iterable, node) if owner.is_view(iterable) or \
        nodes.root_name(iterable) is not None else None
    if held is None:
        node.iter = iterable = owner.expression(iterable, node)
    if held is not None:
        if held.kind == "record":
            owner.report(node, "a loop over a dataclass instance",
                         why="a dataclass is not iterable", fix="loop over its fields' "
                         "values: for w in (p.a, p.b)")
            return
        items = list(held.items) if held.kind != "dict" else \
            [gast.Constant(k, None) for k in held.keys]
        return unrolled(owner, node, items)
    trips = owner.static_range(iterable)
    if trips is not None and touches(owner, node) and not node.orelse:
        items = [gast.Constant(k, None) for k in trips]
        if not values.exits_early(node) or over:  # (the rows of tuples: not indexed
            return unrolled(owner, node, items)      # when the loop runs)
        if tentatively_unrolled(owner, node, items):
            return  # (its `break`s and `continue`s under tests known now)
    owner.opaque_loop(node)


def touches(owner, node):
    """Whether a loop body reads or grows a container, or makes one."""
    return any(isinstance(n, gast.Name) and n.id in owner.held or
               isinstance(n, (gast.List, gast.Dict)) for s in node.body for n in nodes.walk(s))


def unrolled(owner, node, items):
    if node.orelse:
        owner.report(node, "a loop over a container with an `else`",
                     why="s2sad unrolls it: one copy of the body per element",
                     fix="use a flag set in the loop and an `if` after it instead")
        return
    if len(items) > MAX_UNROLLED:
        owner.report(node, f"a loop of {len(items)} trips over a container",
                     why=f"s2sad unrolls loops over containers, up to {MAX_UNROLLED} trips",
                     fix="use an array instead of a list")
        return
    outer = owner.out
    owner.deeper(1)  # (a callee put in place cannot `return` from inside)
    for trip, value in enumerate(items):
        owner.out, start = outer, len(outer)
        bind_target(owner, node.target, value, node)
        body = nodes.clone(node.body)
        owner.unrolling.append({"depth": 0, "stop": None, "opaque": False})
        for statement in body:
            outer += owner.statement(statement)
            if owner.unrolling[-1]["stop"]:
                break  # `continue` or `break` reached in this trip (under tests known now)
        stop = owner.unrolling.pop()["stop"]
        if trip < len(items) - 1:  # (the last binding outlives the loop, as in Python)
            values.drop_unread_binding(outer, start, node.target)
        if stop == "break":
            break
    owner.deeper(-1)
    owner.out = outer


def exit_in_trip(owner, node):
    """`continue` or `break` in an unrolled loop: the trip (or the loop) ends here, when no
    test decided only when the function runs is around it."""
    frame = owner.unrolling[-1]
    if frame["depth"] and owner.tentative:
        raise Undecided()
    if frame["depth"]:
        owner.report(node, f"`{'break' if isinstance(node, gast.Break) else 'continue'}` "
                     "under a test known only when the function runs, in a loop over a "
                     "container", why="s2sad unrolls the loop: one copy of the body per "
                     "element, which must end where the element's trip ends",
                     fix="use an `if` around the rest of the body instead")
    frame["stop"] = "break" if isinstance(node, gast.Break) else "continue"
    return []


def tentatively_unrolled(owner, node, items):
    """Unroll a loop with `break` or `continue` if each is reached under tests known now;
    else leave everything as it was (False): the loop stays a loop."""
    state, problems, out, kept = owner.snapshot(), len(owner.problems), owner.out, \
        list(owner.out)
    # the frames and depths the statements left open when Undecided ended them
    stacks = [(stack, len(stack), [f["depth"] for f in stack])
              for stack in (owner.unrolling, owner.opened)]
    frames = len(owner.frames)
    owner.tentative += 1
    try:
        unrolled(owner, node, items)
        return True
    except Undecided:
        owner.restore(state)
        for stack, length, depths in stacks:
            del stack[length:]
            for frame, depth in zip(stack, depths):
                frame["depth"] = depth
        del owner.frames[frames:]
        del owner.problems[problems:]
        out[:] = kept
        owner.out = out
        return False
    finally:
        owner.tentative -= 1


def bind_target(owner, target, value, like):
    if isinstance(value, values.Container):
        if isinstance(target, gast.Name):
            owner.forget(target.id)
            owner.held[target.id] = value
        else:
            owner.unpack(target, value, like)
        return
    if isinstance(target, gast.Name):
        owner.forget(target.id)
        if isinstance(value, gast.Constant) and (type(value.value) in (int, str) or
                                                 values.is_static_value(value.value)):
            owner.known[target.id] = value.value  # an index, or a dict's key
        owner.follow_name(target.id, value)
    owner.emit(gast.Assign([nodes.clone(target)], nodes.clone(value), None), like)
