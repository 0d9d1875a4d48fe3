"""Calls a dict crosses (part of containers.py): a function of yours that writes into a dict
it is given, or passes it on, or returns a dict, or returns a tuple on one path and something
else on another, is put in place of its call while containers.py follows the caller. The dict
is then one container in one function: its entries written in the callee are the caller's,
and the tests that choose what the callee returns are decided with what the caller knows
(container_tests.py):

    def fill(x, out):                           out = {"F": None}
        out["F"] = np.sum(x ** 2)               x_1 = x
                                        -->     out_F = numpy.sum(x_1 ** 2)
    def f(x):                                   return out_F * 2.0
        out = {"F": None}
        fill(x, out)
        return out["F"] * 2.0

The callee is read as the caller is (desugar, fence, resolve with the classes of the objects
it is given, idioms), its names renamed apart, its parameters bound to the call's arguments
(a container argument is the caller's container itself), its positions kept in its own file
(parse.FOREIGN). Its `return v` assigns the call's value and ends it; a `return` that a test
decided only when the function runs (or one in a loop) cannot end it so, and the call is then
left a call, as is a callee that s2sad cannot read, that reads module constants, or that calls
itself.
"""
import sys

import gast

from s2sad.errors import S2sadError

from .. import facts, nodes
from . import constants, container_values as values, desugar, fence, idioms, parse, resolve
from .known_kinds import namespace


class NotOpened(Exception):
    """Raised while a callee's body is followed: the call stays a call."""


def opens(owner, call):
    """Whether the user call `call` is one to put in place (see the module's docstring)."""
    func = facts.REF.of(call)
    if not facts.USER.of(call) or func is None or \
            func in {frame["function"] for frame in owner.opened}:  # (calling itself)
        return False
    tree = _tree(owner, func)
    if tree is None:
        return False
    returns = [n for n in nodes.walk(tree) if isinstance(n, gast.Return)]
    dicts = _dict_names(tree)
    if any(isinstance(r.value, (gast.Dict, gast.DictComp)) or
           isinstance(r.value, gast.Name) and r.value.id in dicts or
           isinstance(r.value, gast.Call) and values.class_fields(_named(func, r.value.func))
           for r in returns):
        return True  # (a dict, a NamedTuple or a dataclass returned)
    tuples = [isinstance(r.value, gast.Tuple) for r in returns]
    if any(tuples) and not all(tuples):
        return True
    bound = _bound(tree, call)
    if bound is None:
        return False
    passed_on = _passed_on(tree)
    return any(getattr(owner.container(arg, None), "kind", None) == "dict" and
               name in passed_on for name, arg in bound.items())


def _named(func, node):
    """What the dotted name `node` names in `func`'s module and closure, or None."""
    chain = nodes.dotted_parts(node) or [None]
    value = namespace(func).get(chain[0])
    for part in chain[1:]:
        value = getattr(value, part, None)
    return value


def open_call(owner, call, like):
    """Put the callee of `call` in place: its statements go to `owner.out`. Returns the call's
    value (a Container, or an expression), or None when it stays a call."""
    func = facts.REF.of(call)
    source = _front(owner, func, call)
    if source is None:
        return None
    bound = _bound(source.tree, call)
    state, problems = owner.snapshot(), len(owner.problems)
    out, items = owner.out, list(owner.out)
    taken = set(owner.taken)
    try:
        return _follow(owner, source, bound, call, like)
    except NotOpened:
        owner.restore(state)
        out[:] = items
        owner.out = out
        del owner.problems[problems:]
        owner.taken.clear()
        owner.taken.update(taken)
        return None


def _follow(owner, source, bound, call, like):
    tree = source.tree
    k = _foreign(owner.source, source)
    for node in nodes.walk(tree):
        if getattr(node, "lineno", parse.FOREIGN) < parse.FOREIGN:
            node.lineno += k * parse.FOREIGN
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += k * parse.FOREIGN
    local = resolve.local_names(tree)
    renames = {}
    for name in sorted(local):  # its own name where it is free, else `<callee>_<name>`
        spelt = f"{tree.name.strip('_')}_{name.strip('_')}"
        renames[name] = name if name not in owner.taken else \
            spelt if spelt not in owner.taken else nodes.fresh(f"{spelt}_", owner.taken)
        owner.taken.add(renames[name])
    nodes.rename(tree, renames)
    for name, argument in bound.items():   # the parameters, bound to the arguments
        if isinstance(argument, gast.Constant) and callable(argument.value):
            continue  # (a function given: resolve.py bound its calls, in _front)
        before = owner.out
        made = owner.statement(gast.copy_location(
            gast.Assign([nodes.name(renames[name], store=True)], argument, None), like))
        owner.out = before + made
    result = nodes.fresh(f"{tree.name.strip('_')}_value", owner.taken)
    owner.taken.add(result)
    owner.opened.append({"function": source.func, "result": result, "returned": False,
                         "depth": 0})
    try:
        body = desugar_body(tree)
        outer = owner.out
        inner = owner.block(body)
        owner.out = outer + inner
        if not owner.opened[-1]["returned"]:
            raise NotOpened()
    finally:
        owner.opened.pop()
    made = owner.held.get(result)
    return made if made is not None else gast.copy_location(nodes.name(result), call)


def returned(owner, node):
    """`return v` in a callee being put in place: the call's value is v (statements for
    `owner.out`); the callee's body ends here."""
    frame = owner.opened[-1]
    if frame["depth"]:
        raise NotOpened()
    frame["returned"] = True
    value = node.value if node.value is not None else gast.Constant(None, None)
    return owner.statement(gast.copy_location(
        gast.Assign([nodes.name(frame["result"], store=True)], value, None), node))


def desugar_body(tree):
    """The function's statements without its docstring."""
    body = list(tree.body)
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
        body = body[1:]
    return body


def classes_of(held):
    """{path: class} of the records `held` ({parameter: Container}) holds, as resolve.py
    reads `self.method(...)` calls."""
    found = {}

    def walk(path, made):
        if not isinstance(made, values.Container) or made.kind != "record":
            return
        module, _, qualname = (made.typename or "").rpartition(".")
        holder = sys.modules.get(module)
        for part in qualname.split(".") if holder is not None and "<" not in qualname else ():
            holder = getattr(holder, part, None)
        if isinstance(holder, type):
            found[path] = holder
            for field, item in zip(made.fields, made.items):
                walk(f"{path}.{field}", item)

    for name, made in held.items():
        walk(name, made)
    return found


def _front(owner, func, call):
    """The callee parsed, desugared, fenced and resolved, or None (it stays a call)."""
    try:
        source = parse.parse_function(func)
        desugar.desugar(source)
    except S2sadError:
        return None
    if fence.find_problems(source) or _reads_constants(func):
        return None
    bound = _bound(source.tree, call)
    if bound is None:
        return None
    held = {name: owner.container(arg, None) for name, arg in bound.items()}
    classes = classes_of({n: m for n, m in held.items() if m is not None})
    functions = {name: arg.value for name, arg in bound.items()
                 if isinstance(arg, gast.Constant) and callable(arg.value)}
    resolution = resolve.resolve(source, classes, functions)
    if resolution.diagnostics or resolution.externals or \
            any(_reads_constants(f) for f in resolution.callees.values()):
        return None
    for node in nodes.walk(source.tree):  # calls it makes: the caller's callees now
        if isinstance(node, gast.Call) and facts.USER.of(node) and \
                isinstance(node.func, gast.Name):
            owner.introduced.setdefault(node.func.id, facts.REF.of(node))
    idioms.rewrite(source.tree)
    return source


def _bound(tree, call):
    """{parameter: the argument node} of `call` to the (desugared) function `tree`; None when
    the arguments do not bind (a default that is not a literal, a keyword it has not)."""
    args = tree.args
    positional = [a.id for a in args.posonlyargs + args.args]
    if len(call.args) > len(positional) or any(isinstance(a, gast.Starred)
                                               for a in call.args):
        return None
    bound = dict(zip(positional, call.args))
    keyword_names = positional + [a.id for a in args.kwonlyargs]
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in keyword_names or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.id: d for a, d in zip(args.kwonlyargs, args.kw_defaults)
                     if d is not None})
    for name in keyword_names:
        if name in bound:
            continue
        default = defaults.get(name)
        if not _literal(default) and not (isinstance(default, gast.Tuple) and
                                          all(_literal(e) for e in default.elts)):
            return None  # (a tuple of literals too: it cannot change between calls)
        bound[name] = nodes.clone(default)
    return {name: bound[name] for name in keyword_names}


def _literal(node):
    return isinstance(node, gast.Constant) or isinstance(node, gast.UnaryOp) and \
        isinstance(node.operand, gast.Constant)


def _dict_names(tree):
    """Names bound to a dict the function makes somewhere (or to such a name)."""
    found, size = set(), -1
    while size != len(found):
        size = len(found)
        for node in nodes.walk(tree):
            if isinstance(node, gast.Assign) and (
                    isinstance(node.value, (gast.Dict, gast.DictComp)) or
                    isinstance(node.value, gast.Call) and
                    nodes.dotted_parts(node.value.func) == ["dict"] or
                    isinstance(node.value, gast.Name) and node.value.id in found):
                found |= {t.id for t in node.targets if isinstance(t, gast.Name)}
    return found


def _passed_on(tree):
    """Names the function writes an element of, or passes to a call (which may write it)."""
    found = set()
    for node in nodes.walk(tree):
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) and \
                isinstance(node.value, gast.Name):
            found.add(node.value.id)
        elif isinstance(node, gast.Call):
            for arg in list(node.args) + [k.value for k in node.keywords]:
                arg = arg.value if isinstance(arg, gast.Starred) else arg
                if isinstance(arg, gast.Name):
                    found.add(arg.id)
    return found


def _tree(owner, func):
    """The function's desugared tree (parsed once per caller), or None."""
    if func not in owner.parsed:
        try:
            source = parse.parse_function(func)
            desugar.desugar(source)
            owner.parsed[func] = source.tree
        except S2sadError:
            owner.parsed[func] = None
    return owner.parsed[func]


def _reads_constants(func):
    """Whether `func` reads module arrays or containers of numbers (inputs of its own)."""
    try:
        return bool(constants.inputs(func)) or any(
            values.leaf_names(spec) for _, spec in constants.containers(func))
    except (S2sadError, TypeError, ValueError):
        return True


def _foreign(source, callee):
    """The k under which `callee`'s positions are kept in `source` (parse.FOREIGN)."""
    k = len(source.foreign) + 1
    source.foreign[k] = callee
    return k
