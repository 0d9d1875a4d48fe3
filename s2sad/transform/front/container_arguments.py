"""Containers passed in (part of containers.py): a parameter given a container (a
pytree: by the API, or by a caller) is one parameter per leaf, named after its path, and the
function holds the container as those names:

    def loss(params, x):              def dloss(params_W, params_b, x, d_result):
        h = params["W"] @ x    -->        h = params_W @ x ...

A call passing a container to a function of yours passes its leaves instead, to a copy of that
function specialised on the container's structure (`specialised`): the copy carries the
structures, and its signature names the leaves, so every later stage sees a call of a function
with plain parameters.

A structure (`spec`) is a leaf's name, ("cell", leaf name) for a record's field its methods
assign (a 1-element array, passed as it is so that the callee writes the same one),
("static", value), or (kind, keys, children, fields, type name): kind is "dict", "list",
"tuple" or "record" (a dataclass), `fields` a NamedTuple's or a dataclass's attribute names
(api/pytrees.py builds them for arguments).
"""
import inspect
import types

import gast

from s2sad.errors import Diagnostic, UnsupportedError

from .. import facts
from . import container_cells as cells
from . import container_values as values
from .. import nodes
from . import unresolved


def expand(args, structures):
    """Replace each container parameter of `args` (a gast.arguments) by its leaves. Returns
    {parameter: the Container it holds} and [(parameter, the constant it is given)] of the
    parameters given a str, None or bool (the function binds them first: static_tests.py
    folds what they decide)."""
    held, statics = {}, []
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    default_of = {p.id: d for p, d in zip(positional, defaults)}
    for name, spec in structures:
        for field in ("posonlyargs", "args", "kwonlyargs"):
            params = getattr(args, field)
            for k, param in enumerate(params):
                if param.id == name:
                    paths = values.leaf_paths(spec, name)
                    params[k:k + 1] = [_leaf_parameter(leaf, paths[leaf], param)
                                       for leaf in values.leaf_names(spec)]
                    if field == "kwonlyargs":
                        args.kw_defaults[k:k + 1] = [None] * len(values.leaf_names(spec))
                    break
        if cells.is_cell_spec(spec):  # (a cell passed alone: not a container)
            continue
        if values.is_static_spec(spec):
            if not callable(spec[1]):  # a literal passed (`sensitivities=False`): bound first
                statics.append((name, spec[1]))
            continue  # a function given as an argument: its calls are bound (resolve.py)
        held[name] = values.of_spec(spec)
        held[name].argument = name
    if structures:  # defaults stay on the parameters after the last one without
        positional = list(args.posonlyargs) + list(args.args)
        kept = []
        for param in reversed(positional):
            if default_of.get(param.id) is None:
                break
            kept.insert(0, default_of[param.id])
        args.defaults = kept
    return held, statics


def _leaf_parameter(leaf, path, like):
    node = gast.copy_location(gast.Name(leaf, gast.Param(), None, None), like)
    facts.PATH.put(node, path)  # for messages: params['W1'], not params_W1
    return node


def unknown_fields(source, structures):
    """With other problems to report: the fields and dict views read where no container can
    be (no container parameter, none made), reported with them."""
    tree = source.tree
    if structures or any(values.interesting(n) for n in nodes.walk(tree)):
        return []
    return fields_left(source)


def check_no_fields_left(source):
    """After containers.py: a field, a dict view or a str key read of something that holds no
    container (a parameter given no container: a file generated before any call)."""
    problems = fields_left(source) + [
        Diagnostic(source.loc(n), f"'{nodes.root_name(n)}' is indexed by a string, but it holds "
                   "no dict s2sad knows of here",
                   why="a dict argument is passed as its leaves: its code is generated for the "
                       "keys of the dict it is called with",
                   fix="call the gradient with the dict first, then read s2sad.source(df) "
                       "(`s2sad show` takes example arguments: --example)")
        for n in nodes.walk(source.tree) if isinstance(n, gast.Subscript) and
        isinstance(n.slice, gast.Constant) and isinstance(n.slice.value, str)]
    if problems:
        raise UnsupportedError(sorted(problems, key=lambda d: (d.where.line, d.where.col)))


def fields_left(source):
    """Fields and method calls of objects (facts.METHOD) no container bound."""
    return [unresolved.unknown_attribute(source, n) for n in nodes.walk(source.tree)
            if facts.FIELD.of(n) or facts.METHOD.of(n)]


# ---- calls passing containers ----------------------------------------------------------------

def structures_of(func):
    """The structures a specialised copy was made for, () for any other function."""
    return facts.STRUCTURES.of(func)


def original(func):
    return facts.ORIGINAL.of(func, func)


_copies = {}  # (function, structures) -> its specialised copy


def specialised(func, structures):
    """A copy of `func` (same code, globals and closure) for arguments of these structures:
    its signature has one parameter per leaf."""
    key = (func, func.__code__, structures)
    copy = _copies.get(key)
    if copy is None:
        specs = dict(structures)
        parameters = []
        for parameter in inspect.signature(func).parameters.values():
            if parameter.name not in specs:
                parameters.append(parameter)
                continue
            kind = {inspect.Parameter.VAR_POSITIONAL: inspect.Parameter.POSITIONAL_OR_KEYWORD,
                    inspect.Parameter.VAR_KEYWORD: inspect.Parameter.KEYWORD_ONLY}.get(
                        parameter.kind, parameter.kind)  # (`**options`: its leaves by name)
            parameters += [inspect.Parameter(leaf, kind)  # (`*inputs`: one leaf each)
                           for leaf in values.leaf_names(specs[parameter.name])]
        copy = _copies[key] = copy_function(func, _defaults_at_the_end(parameters),
                                            structures=structures)
    return copy


def copy_function(func, parameters, structures=None):
    """A copy of `func` (same code, globals and closure: the same source to transform) whose
    signature, for the stages that bind calls of it, has these `parameters` (and whose
    parameters given containers have these `structures`, when given)."""
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__,
                              func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__qualname__, copy.__module__ = func.__qualname__, func.__module__
    copy.__signature__ = inspect.Signature(parameters)
    facts.ORIGINAL.put(copy, original(func))
    facts.STRUCTURES.put(copy, structures_of(func))
    facts.TYPES.put(copy, facts.TYPES.of(func))  # (the kinds a caller passes: kind_tests.py)
    if structures is not None:
        facts.STRUCTURES.put(copy, structures)
    return copy


def _defaults_at_the_end(parameters):
    """Positional parameters with defaults only after the last one without (as Python asks)."""
    out, required = [], False
    for parameter in reversed(parameters):
        if parameter.kind == parameter.KEYWORD_ONLY:
            out.insert(0, parameter)
            continue
        if parameter.default is parameter.empty:
            required = True
        elif required:
            parameter = parameter.replace(default=parameter.empty)
        out.insert(0, parameter)
    return out


def plain_names(tree, specialised):
    """A specialised callee takes its function's own name (`f`, not `f_0`) when nothing calls
    the unspecialised function any more. Returns {emitted name: function}."""
    used = nodes.names(tree)
    renamed = {}
    for emitted in specialised:
        base = emitted.rsplit("_", 1)[0]
        if base not in used and base not in renamed.values():
            renamed[emitted] = base
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    return {renamed.get(name, name): func for name, func in specialised.items()}


def leaves_of(made, base, taken):
    """(spec, leaf atoms) of a Container passed for the parameter `base` of a function whose
    names are `taken` (leaf names avoid them, and are added)."""
    atoms = []

    def walk(item, name, cell=None, field=False):
        if cell is not None:  # the cell itself: the callee writes the same one
            atoms.append(nodes.name(cell))
            return cells.CELL, fresh(name, taken)
        if isinstance(item, gast.Constant) and (values.is_static_value(item.value) or
                                                field and type(item.value) is int):
            return "static", item.value  # a str, None or bool (or an object's int field):
            # a constant of the callee
        if not isinstance(item, values.Container):
            leaf = fresh(name, taken)
            atoms.append(item)
            return leaf
        labels = item.fields or item.keys
        parts = tuple(walk(child, f"{name}_{values.identifier(label) or '_'}",
                           item.cells.get(key), item.kind == "record")
                      for key, label, child in zip(item.keys, labels, item.items))
        return item.kind, tuple(item.keys), parts, item.fields, item.typename

    return walk(made, base), atoms


def _keyword_parameters(func):
    """The parameters a container may be passed to by keyword: keyword-only ones, and the
    `**kwargs` one (resolve.pack_star_arguments packs the keywords into one dict)."""
    try:
        return {p.name for p in inspect.signature(func).parameters.values()
                if p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD)}
    except (TypeError, ValueError):
        return set()


def fresh(base, taken):
    name = base
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def code_names(func):
    """Every name the code of `func` (nested functions included) uses: leaf names avoid them."""
    names = set()
    stack = [func.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_varnames, code.co_names, code.co_freevars, code.co_cellvars)
        stack += [c for c in code.co_consts if hasattr(c, "co_varnames")]
    return names


def is_static_literal(node):
    """`True`, `False`, `None` or a string written in a call, or a function passed
    (resolve.py holds it as a constant): the callee is specialised on it."""
    return values.static_constant(node)


def pass_leaves(owner, call, like):
    """`g(params, x)`, `params` a container held now -> `g_0(params_W, params_b, x)`: `g_0`
    is g specialised on its structure (named in `owner.specialised`)."""
    func = facts.REF.of(call)
    try:
        names = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        names = []
    made = [owner.container(a, like) for a in call.args]
    by_keyword = {k.arg: owner.container(k.value, like) for k in call.keywords}
    if any(by_keyword[k.arg] is not None and k.arg not in _keyword_parameters(func)
           for k in call.keywords) or len(call.args) > len(names):
        owner.report(call, "a container is passed by keyword, or to more parameters than "
                     f"'{func.__name__}' has", why="s2sad passes a container to a function of "
                     "yours as its leaves, one positional argument each",
                     fix="pass containers as positional arguments")
        return call
    taken = code_names(func) | set(names)
    args, structures = [], []
    for name, arg, container in zip(names, call.args, made):
        if is_static_literal(arg):
            structures.append((name, ("static", arg.value)))
            continue
        if container is None:
            args.append(owner.expression(arg, like))
            continue
        spec, atoms = leaves_of(container, name, taken)
        structures.append((name, spec))
        args += [nodes.clone(a) for a in atoms]
    structures += [(k.arg, ("static", k.value.value)) for k in call.keywords
                   if k.arg in names and is_static_literal(k.value)]
    keywords = []
    for keyword in call.keywords:  # a container by keyword (`**kwargs`): its leaves by name
        if is_static_literal(keyword.value):
            continue
        container = by_keyword[keyword.arg]
        if container is None:
            keywords.append(gast.keyword(keyword.arg, owner.expression(keyword.value, like)))
            continue
        spec, atoms = leaves_of(container, keyword.arg, taken)
        structures.append((keyword.arg, spec))
        keywords += [gast.keyword(leaf, nodes.clone(atom))
                     for leaf, atom in zip(values.leaf_names(spec), atoms)]
    copy = specialised(func, tuple(structures))
    emitted = owner.specialised_name(call.func, copy)
    call.func = gast.copy_location(gast.Name(emitted, gast.Load(), None, None), call.func)
    call.args = args
    call.keywords = keywords
    facts.REF.put(call, copy)
    return call
