"""A generator of yours that a `for` loops over, put in place of the loop: its body runs with
each `yield v` replaced by the loop's target bound to v, then the loop's body. Runs first in
desugar.py, on the parsed tree:

    def layers(weights):                     weights_0 = w
        for m, n in SHAPES:                  for m_0, n_0 in SHAPES:
            yield weights[:m * n], n             W, k = weights_0[:m_0 * n_0], n_0
            weights = weights[m * n:]   -->      h = np.tanh(h * k) + np.sum(W)
                                                 weights_0 = weights_0[m_0 * n_0:]
    for W, k in layers(w):
        h = np.tanh(h * k) + np.sum(W)

The generator's names are renamed apart from the caller's. It may be a global function of the
caller's module, a closure (a factory's `unpack_layers`) or a function defined inside the
caller; what it reads from its own globals or closure is read as the caller reads it, or, when
the caller has no such name, put in as the constant it is (numbers, strings, and tuples and
lists of them: `shapes`). Not put in place (later stages then report the loop): a loop with
`break`, `continue` or `else`; a generator with a `return`, `yield from`, a `yield` inside an
expression, or a read of something else the caller cannot see.
"""
import inspect
import types

import gast

from s2sad.errors import S2sadError

from .. import nodes
from . import functional, parse

_SHIFT = 900    # foreign marks for generators put in place: apart from inline.py's (1, 2, ...)


def inline(source, taken):
    """Put every generator loop of `source.tree` in place, in place."""
    local = {s.name: s for s in source.tree.body if isinstance(s, gast.FunctionDef) and
             _yields(s)}
    for block in list(nodes.statement_lists(source.tree)):
        for statement in list(block):
            if isinstance(statement, gast.For):
                replacement = _put_in_place(source, statement, local, taken)
                if replacement is not None:
                    at = block.index(statement)
                    block[at:at + 1] = replacement
    for name in local:      # a generator put in place everywhere is no longer needed
        if not any(isinstance(n, gast.Name) and n.id == name for n in nodes.walk(source.tree)
                   if not isinstance(n, gast.FunctionDef)):
            source.tree.body = [s for s in source.tree.body if s is not local[name]]


def _yields(tree):
    return any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in nodes.walk(tree))


def _put_in_place(source, loop, local, taken):
    call = loop.iter
    if not isinstance(call, gast.Call) or loop.orelse or _exits(loop.body) or \
            any(isinstance(a, gast.Starred) for a in call.args):
        return None
    chain = nodes.dotted_parts(call.func)
    if chain is None:
        return None
    if len(chain) == 1 and chain[0] in local:
        tree, generator, owner = nodes.clone(local[chain[0]]), None, source
    else:
        generator = functional.denoted(source.func, chain)
        if not (isinstance(generator, types.FunctionType) and
                inspect.isgeneratorfunction(generator)):
            return None
        try:
            owner = parse.parse_function(generator)
        except S2sadError:
            return None
        tree = owner.tree
    if not _simple(tree):
        return None
    params = [a.id for a in tree.args.args]
    bound = _bind(tree, params, call)
    if bound is None:
        return None
    stores = {n.id for n in nodes.walk(tree) if isinstance(n, gast.Name) and
              isinstance(n.ctx, gast.Store)} | set(params)
    outside = {n.id for n in nodes.walk(tree) if isinstance(n, gast.Name) and
               isinstance(n.ctx, gast.Load)} - stores
    constants = {} if generator is None else _outside(source.func, generator, outside)
    if constants is None:
        return None
    if owner is not source:
        _mark_foreign(source, owner, tree)
    renamed = {name: nodes.fresh(f"{name}_", taken) for name in sorted(stores | set(constants))}
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    out = [gast.copy_location(nodes.assign(renamed[name], _literal(value)), loop)
           for name, value in constants.items()]
    out += [gast.copy_location(nodes.assign(renamed[name], value), loop)
            for name, value in bound]
    return out + _spliced(tree.body, loop)


def _exits(body):
    """A `break` or `continue` of this loop (not of a loop inside it)."""
    for statement in body:
        if isinstance(statement, (gast.Break, gast.Continue)):
            return True
        if not isinstance(statement, (gast.For, gast.While, gast.FunctionDef)):
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) and \
                        _exits(inner):
                    return True
    return False


def _simple(tree):
    """Only statement-level `yield v`, no return, no other generator construct, plain
    parameters."""
    args = tree.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        return False
    for node in nodes.walk(tree):
        if isinstance(node, (gast.Return, gast.YieldFrom, gast.Await, gast.Global,
                             gast.Nonlocal, gast.Lambda)) or \
                (isinstance(node, gast.FunctionDef) and node is not tree):
            return False
    statements = [s for s in nodes.walk(tree) if isinstance(s, gast.stmt)]
    held = {id(s.value) for s in statements if isinstance(s, gast.Expr)}
    return all(id(n) in held and n.value is not None for n in nodes.walk(tree)
               if isinstance(n, gast.Yield))


def _bind(tree, params, call):
    """[(parameter, the expression it is bound to)], or None if the call does not fit."""
    defaults = tree.args.defaults
    given = dict(zip(params, call.args))
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in params or keyword.arg in given:
            return None
        given[keyword.arg] = keyword.value
    for name, default in zip(params[len(params) - len(defaults):], defaults):
        if name not in given:
            if not isinstance(default, gast.Constant):
                return None
            given[name] = default
    if len(call.args) > len(params) or set(given) != set(params):
        return None
    return [(name, given[name]) for name in params]


def _outside(caller, generator, names):
    """{name: value} of the names the generator reads that the caller must be given as
    constants; None if one cannot be."""
    out = {}
    for name in sorted(names):
        value = functional.denoted(generator, [name])
        if value is None and name not in generator.__globals__:
            return None     # a builtin or unknown: left as it is only if the caller sees it
        if functional.denoted(caller, [name]) is value:
            continue        # the caller reads the same object under that name
        if not _static(value):
            return None
        out[name] = value
    return out


def _static(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, (tuple, list)) and all(_static(v) for v in value)


def _literal(value):
    if isinstance(value, (tuple, list)):
        elements = [_literal(v) for v in value]
        return gast.Tuple(elements, gast.Load()) if isinstance(value, tuple) else \
            gast.List(elements, gast.Load())
    return gast.Constant(value, None)


def _mark_foreign(source, owner, tree):
    """The generator's nodes keep their positions in its own source (parse.FOREIGN)."""
    k = _SHIFT + len([key for key in source.foreign if key >= _SHIFT])
    source.foreign[k] = owner
    for node in nodes.walk(tree):
        if getattr(node, "lineno", None) is not None and node.lineno < parse.FOREIGN:
            node.lineno += k * parse.FOREIGN
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += k * parse.FOREIGN


def _spliced(statements, loop):
    """`statements` with each `yield v` replaced by `target = v` and the loop's body."""
    out = []
    for statement in statements:
        if isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Yield):
            out.append(gast.copy_location(gast.Assign([nodes.clone(loop.target)],
                                                      statement.value.value, None), statement))
            out += [nodes.clone(s) for s in loop.body]
            continue
        for field in ("body", "orelse"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(statement, field, _spliced(inner, loop))
        out.append(statement)
    return out
