"""Tuples, lists and dicts whose shape is known when the function is transformed
become one plain variable per element (scalar replacement of aggregates).

Runs after resolve, before exits. A container is followed statement by statement; every use is
spelt with its elements, so generated code has no container to keep or differentiate:

    t = (x * y, x + y)                  t_0 = x * y
    b = [1.0, a, 3.0]                   t_1 = x + y
    b.append(t[0])            -->       b_0 = 1.0 ... b_3 = t_0
    z = t[0] * t[1] + sum(b)            z = t_0 * t_1 + (b_0 + b_1 + b_2 + b_3)
    s, c = np.linalg.slogdet(m)[1], len(b)    _r0, _r1 = numpy.linalg.slogdet(m); s = _r1; c = 4

Elements are read by constant (or negative) subscripts, by a loop variable of an unrolled loop,
or by a run-time index (`t[i]`: a conditional over the elements). `for v in t`, and a `for`
over a range known now whose body indexes or grows a container, are unrolled. `len`, unpacking,
`sum`/`max`/`min`, NumPy's sequence functions (`numpy.stack(t)`, `numpy.sum(t)`...) and `return
t` are spelt with the elements. What would need a container at run time (a list grown in a loop
whose trip count is known only then, a container passed to a function of yours) is a located
error with a fix.
"""
import gast

from s2sad.errors import Diagnostic, UnsupportedError

from .. import facts
from . import container_arguments as arguments
from . import container_calls as calls
from . import container_cells as cells
from . import container_elements as elements
from . import container_loops as loops
from . import container_tests as tests
from . import container_buffers as buffers
from . import container_methods, container_values as values
from .. import nodes
from . import resolve

MAX_UNROLLED = loops.MAX_UNROLLED

def scalarize(source, structures=(), held=(), kinds=()):
    """Rewrite `source.tree` in place. `structures`: (parameter, spec) of the parameters given
    containers (container_arguments.py); each becomes one parameter per leaf, named in its
    spec; `held`: (name, spec) of module containers, whose leaves are parameters already
    (constants.py). Returns {parameter: its leaves' names} and {emitted name: function} of the
    functions of yours specialised on the containers a call passes them."""
    run = _Scalarize(source)
    run.ranks = dict(kinds[2]) if len(kinds) > 2 else {}  # (array parameter, ndim) pairs
    run.held, statics = arguments.expand(source.tree.args, structures)
    source.tree.body[:0] = [gast.copy_location(nodes.assign(name, gast.Constant(value, None)),
                                               source.tree) for name, value in statics]
    run.held.update({name: values.of_spec(spec) for name, spec in held})  # module containers
    run.taken.update(n for _, spec in structures for n in values.leaf_names(spec))
    values.mark_cells(source.tree, tuple(structures) + tuple(held))
    run.maybe_none = tests.may_be_none(source.tree, set(run.ranks) | set(
        kinds[0] if kinds else ()))
    run.run()
    if run.held or run.buffers:
        values.drop_dead_constants(source.tree)
    arguments.check_no_fields_left(source)
    called = {facts.REF.of(n) for n in nodes.walk(source.tree) if isinstance(n, gast.Call)}
    return {name: values.leaf_names(spec) for name, spec in structures}, \
        {**arguments.plain_names(source.tree, run.specialised),
         **{name: f for name, f in run.introduced.items() if f in called}}


class _Scalarize:
    def __init__(self, source):
        self.source = source
        self.taken = nodes.names(source.tree)
        self.held = {}     # name -> Container it holds now
        self.known = {}    # name -> int it holds now (an unrolled loop's variable)
        self.problems = []
        self.specialised = {}  # emitted name -> a callee specialised on containers passed
        self.frames = []       # the opaque loops being rewritten, innermost last
        self.buffers = set()   # lists that became arrays (container_buffers.py)
        self.maybe_none = set()  # names that may be None when it runs (container_tests.py)
        self.values = {}       # name -> the expression last assigned to it (container_tests)
        self.ranks = {}        # name -> ndim of an array parameter (container_tests.py)
        self.opened = []       # the callees being put in place, innermost last (container_calls)
        self.unrolling = []    # the trips of unrolled loops (or opaque loops), innermost last
        self.tentative = 0     # unrolling a loop that stays a loop if an exit is undecided
        self.opened_calls = {}  # id(call) -> (call, its value), once put in place
        self.parsed = {}       # function -> its desugared tree (container_calls.py)
        self.introduced = {}   # emitted name -> function: calls made by callees put in place

    def run(self):
        tree = self.source.tree
        if not self.held and not any(values.interesting(n) or values.tuple_result(n) or
                                     values.assigns_field(n) or
                                     isinstance(n, gast.keyword) and n.arg is None or
                                     isinstance(n, gast.Call) and
                                     facts.USER.of(n) and calls.opens(self, n)
                                     for n in nodes.walk(tree)):
            return  # no container: the tree stays as it is
        tree.body = self.block(tree.body)
        if self.problems:  # (an unrolled loop's body reports once per trip: once is enough)
            raise UnsupportedError(list({(str(d.where), d.message): d
                                         for d in self.problems}.values()))

    def report(self, node, message, why="", fix=""):
        self.problems.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def fresh(self, base):
        return nodes.fresh(f"{base}_", self.taken)

    # ---- statements -----------------------------------------------------------------------

    def block(self, statements):
        out = []
        for statement in statements:
            out += self.statement(statement)
            if out and isinstance(out[-1], (gast.Return, gast.Raise)) or \
                    self.opened and self.opened[-1]["returned"] or \
                    self.unrolling and self.unrolling[-1]["stop"]:
                break  # (what follows is never reached: a branch kept in place of its `if`)
        return out

    def statement(self, node):
        if isinstance(node, gast.Return) and self.opened:  # a callee put in place ends
            return calls.returned(self, node)
        if isinstance(node, (gast.Break, gast.Continue)) and self.unrolling and \
                not self.unrolling[-1]["opaque"]:
            return loops.exit_in_trip(self, node)
        self.out = []
        if isinstance(node, gast.Assign):
            self.assign(node)
        elif isinstance(node, gast.Expr) and values.is_append(node):
            self.append(node)
        elif isinstance(node, gast.For):
            loops.loop(self, node)
        elif isinstance(node, gast.If):
            self.branches(node)
        elif isinstance(node, gast.While):
            node.test = self.expression(node.test, node)
            self.opaque_loop(node)
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            self.forget(node.target.id)
            node.value = self.expression(node.value, node)
            self.out.append(node)
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Attribute):
            cells.assign(self, node)  # self.n_fe += 1  -->  self_n_fe[0] = self_n_fe[0] + 1
        else:
            for field in ("value", "test", "exc"):  # (`raise E(f"{self.k}")` too)
                value = getattr(node, field, None)
                if isinstance(value, gast.expr):
                    setattr(node, field, self.expression(value, node, whole=True))
            for field in ("body", "orelse"):  # `with s2sad.grad_of(...)`
                inner = getattr(node, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(node, field, self.block(inner))
            if not (isinstance(node, gast.Expr) and isinstance(node.value, gast.Name)):
                self.out.append(node)  # (`fill(x, out)`, put in place: its value unread)
        return self.out

    def emit(self, statement, like):
        statement = gast.copy_location(statement, like)
        facts.ORIGIN.put(statement, facts.ORIGIN.of(like, like))
        self.out.append(statement)

    def leaf(self, base, value, like):
        """`value` as an element: a constant as it is, anything else held in a new name."""
        if isinstance(value, values.Container):
            return value
        if isinstance(value, gast.Constant) or (isinstance(value, gast.UnaryOp) and
                                                isinstance(value.operand, gast.Constant)):
            return value
        if isinstance(value, gast.Name) and value.id in self.known:  # a constant now
            return gast.copy_location(gast.Constant(self.known[value.id], None), value)
        name = self.fresh(base)
        self.emit(nodes.assign(name, value), like)
        self.follow_name(name, value)  # (container_tests.py)
        return nodes.name(name)

    def assign(self, node):
        value = node.value
        targets = node.targets
        if len(targets) == 1 and isinstance(targets[0], (gast.Tuple, gast.List)) and \
                values.returns_an_array(value):  # `a, b = numpy.exp(p)`: rows of one array
            node.value = value = self.leaf("_rows", self.expression(value, node, whole=True),
                                           node)
        plain = all(isinstance(t, (gast.Tuple, gast.List)) and
                    all(isinstance(e, gast.Name) for e in t.elts) for t in targets) and \
            (isinstance(value, gast.Call) and nodes.dotted_parts(value.func) != ["zip"] and
             not (facts.USER.of(value) and isinstance(self.open_user_call(value, node),
                                                      values.Container)) or
             isinstance(value, gast.Tuple) and not any(values.makes(e) for e in value.elts))
        made = None if plain else self.container(value, node)
        if made is None:
            node.value = self.expression(value, node, whole=True)
            for target in targets:
                for name in nodes.names(target) if not isinstance(
                        target, (gast.Subscript, gast.Attribute)) else ():
                    self.forget(name)
        keep = made is None
        starred = [n for t in targets for n in nodes.walk(t) if isinstance(n, gast.Starred)]
        if starred and made is None:
            self.report(node, "starred assignment needs a tuple or list known when the "
                        "function is transformed", why="s2sad unpacks a known number of values",
                        fix="index instead: a, rest = x[0], x[1:]")
            return
        if any(isinstance(t, gast.Attribute) for t in targets):
            return cells.assign(self, node, made)
        for target in targets:
            if isinstance(target, gast.Name):
                if made is not None:
                    self.forget(target.id)
                    self.held[target.id] = self.named(made, target.id, node)
                elif self.key(node.value, node) is not None:
                    self.known[target.id] = self.key(node.value, node)  # k = 'W', i = 2
                elif isinstance(node.value, gast.Constant) and \
                        values.is_static_value(node.value.value):
                    self.known[target.id] = node.value.value  # flag = None (container_tests)
                else:
                    self.follow_name(target.id, node.value)
            elif isinstance(target, (gast.Tuple, gast.List)) and made is not None:
                if getattr(made, "fresh", False):
                    made = self.named(made, "_item", node)
                self.unpack(target, made, node)
            elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
                    and target.value.id in self.held:
                self.write(target, made if made is not None else node.value, node)
                keep = False
            elif isinstance(target, gast.Subscript):
                target.slice = self.expression(target.slice, node)
                if made is not None:
                    self.report(node, "a container is assigned to an array element",
                                why="an array element holds one number",
                                fix="assign its elements one by one")
        if keep:
            self.out.append(node)

    def named(self, made, base, like):
        """A container whose elements are held in names `base_k` (new ones for new values)."""
        if isinstance(made, values.Container) and getattr(made, "fresh", False):
            made.items = [self.leaf(f"{base}_{k}" if made.kind != "dict" else
                                    f"{base}_{values.identifier(key)}", item, like)
                          if not isinstance(item, values.Container) else
                          self.named(item, base, like)
                          for k, (key, item) in enumerate(zip(made.keys, made.items))]
            made.fresh = False
        return made

    def unpack(self, target, made, like):
        items = made.items
        starred = [k for k, t in enumerate(target.elts) if isinstance(t, gast.Starred)]
        if len(starred) > 1 or (not starred and len(items) != len(target.elts)) or \
                (starred and len(items) < len(target.elts) - 1):
            self.report(target, f"cannot unpack {len(items)} values into "
                        f"{len(target.elts)} names", why="the number of values is known now",
                        fix="unpack into as many names")
            return
        if starred:
            k = starred[0]
            rest = len(items) - (len(target.elts) - 1)
            parts = items[:k] + [values.Container("list", range(rest), items[k:k + rest])] + \
                items[k + rest:]
            target = gast.Tuple(target.elts[:k] + [target.elts[k].value] +
                                target.elts[k + 1:], gast.Load())
        else:
            parts = items
        parts = [self.named(p, "_item", like) if getattr(p, "fresh", False) else p
                 for p in parts]
        if any(isinstance(t, (gast.Subscript, gast.Attribute)) for t in target.elts):
            # every value read before any element is written (`s[0], s[1] = s[1], s[0]`)
            parts = [self.leaf("_item", p, like) for p in parts]
        for part_target, item in zip(target.elts, parts):
            if isinstance(part_target, gast.Name):
                self.forget(part_target.id)
                if isinstance(item, values.Container):
                    self.held[part_target.id] = item
                    continue
                if isinstance(item, gast.Constant) and (type(item.value) in (int, str) or
                                                        values.is_static_value(item.value)):
                    self.known[part_target.id] = item.value  # a dict's key, from .items()
                self.follow_name(part_target.id, item)
                self.emit(gast.Assign([part_target], nodes.clone(item), None), like)
            elif isinstance(part_target, (gast.Tuple, gast.List)) and \
                    isinstance(item, values.Container):
                self.unpack(part_target, item, like)
            elif isinstance(part_target, gast.Subscript) and \
                    not isinstance(item, values.Container):
                self.emit(gast.Assign([part_target], nodes.clone(item), None), like)
            elif isinstance(part_target, gast.Attribute) and \
                    not isinstance(item, values.Container):  # an object's field (a cell)
                cells.assign(self, gast.copy_location(
                    gast.Assign([part_target], nodes.clone(item), None), like))
            else:
                self.report(part_target, "cannot unpack this value here",
                            fix="unpack into names")

    def write(self, target, value, like):
        """`t[k] = v` for a container held in a name."""
        made = self.held[target.value.id]
        key = self.key(target.slice, like)
        if key is None or made.kind == "tuple":
            self.report(target, "cannot write this element",
                        why="a tuple cannot change, and an element written must be chosen by a "
                            "constant or an unrolled loop's variable",
                        fix="build a new container instead")
            return
        if made.kind == "list":
            key = key + len(made.items) if isinstance(key, int) and key < 0 else key
        item = value if isinstance(value, values.Container) else \
            self.leaf(f"{target.value.id}_{values.identifier(key)}",
                      self.expression(value, like, whole=True), like)
        if key in made.keys:
            made.items[made.keys.index(key)] = item
        elif made.kind == "dict":
            made.keys.append(key)
            made.items.append(item)
        else:
            self.report(target, f"index {key} is out of range", fix="check the index")

    def append(self, node):
        call = node.value
        name = call.func.value.id
        made = self.held.get(name)
        if self.frames and name in self.frames[-1].growing and len(call.args) == 1:
            self.out += buffers.grow(self, self.frames[-1], node, name) or []
            return  # (a second append in the trip)
        if made is None or made.kind != "list" or len(call.args) != 1 or call.keywords:
            self.report(node, f"`{name}.append(...)` on a value s2sad does not hold as a list",
                        why="s2sad follows lists built in the function from a display `[...]`",
                        fix=f"start it as `{name} = []` in the function")
            return
        if self.frames:  # a loop kept as a loop: the list becomes an array
            self.out += buffers.grow(self, self.frames[-1], node, name) or []
            return
        value = self.container(call.args[0], node)
        if value is None:
            value = self.leaf(f"{name}_{len(made.items)}",
                              self.expression(call.args[0], node, whole=True), node)
        elif getattr(value, "fresh", False):
            value = self.named(value, f"{name}_{len(made.items)}", node)
        made.keys.append(len(made.items))
        made.items.append(value)

    def follow_name(self, name, value):
        """`name = other`: what is known of `other` (container_tests.py) is known of `name`."""
        self.values[name] = value
        if isinstance(value, gast.Name):
            self.values[name] = self.values.get(value.id, value)
            if value.id in self.known:
                self.known[name] = self.known[value.id]
            if value.id in self.ranks:
                self.ranks[name] = self.ranks[value.id]
            if value.id in self.maybe_none:
                self.maybe_none.add(name)

    def forget(self, name):
        self.held.pop(name, None)
        self.known.pop(name, None)
        self.ranks.pop(name, None)
        self.values.pop(name, None)

    # ---- calls of callees put in place (container_calls.py) ------------------------------

    def open_user_call(self, call, like):
        """The value of a user call put in place (a Container or an expression), or None."""
        if id(call) in self.opened_calls and self.opened_calls[id(call)][0] is call:
            return self.opened_calls[id(call)][1]
        if any(isinstance(a, gast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            reads = values.Reads(self, like, False)
            call.args = reads.spread(call.args, user=True)
            call.keywords = reads.spread_keywords(call.keywords)
            self.pack_star_arguments(call)
        if not calls.opens(self, call):
            return None
        value = calls.open_call(self, call, like)
        if value is not None:  # (the call kept with it: an id is unique while it lives)
            self.opened_calls[id(call)] = (call, value)
        return value


    # ---- control flow ---------------------------------------------------------------------

    def opaque_loop(self, node):
        """A loop kept as a loop: containers may be read in it, not changed."""
        outer = self.out
        for name in nodes.names(getattr(node, "target", gast.Tuple([], gast.Load()))) | {
                n.id for s in node.body for n in nodes.walk(s)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}:
            self.known.pop(name, None)
            self.ranks.pop(name, None)
        before = {name: values.copy(made) for name, made in self.held.items()}
        self.frames.append(buffers.Frame(node, self.held))
        buffers.begin(self, self.frames[-1])
        self.deeper(1)
        self.unrolling.append({"depth": 0, "stop": None, "opaque": True})  # (its own exits)
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        self.unrolling.pop()
        self.deeper(-1)
        frame = self.frames.pop()
        changed = [name for name, made in before.items() if name not in self.buffers and
                   not values.same_container(self.held.get(name), made)]
        if changed:
            self.report(node, f"'{changed[0]}' (a container) changes in a loop s2sad does not "
                        "unroll", why="each element is a variable of its own, chosen now",
                        fix="loop over range(<number>) so that the loop can be unrolled, or "
                            "use an array")
        self.out = outer + frame.before + [node] + frame.after

    def branches(self, node):
        taken = tests.decide(self, node.test)
        if taken is not tests.UNKNOWN:  # known now: only the branch it takes
            outer = self.out
            inner = self.block(node.body if taken else node.orelse)
            self.out = outer + inner
            return
        node.test = self.expression(node.test, node)
        start = self.snapshot()
        outer = self.out
        self.deeper(1)
        node.body = self.block(node.body)
        after_body = self.snapshot()
        self.restore(start)
        node.orelse = self.block(node.orelse)
        self.deeper(-1)
        after_else = self.snapshot()
        self.merge(node, after_body, after_else)
        self.out = outer + [node]

    def snapshot(self):
        return ({n: values.copy(c) for n, c in self.held.items()}, dict(self.known),
                dict(self.ranks), set(self.maybe_none), dict(self.values))

    def restore(self, state):
        self.held = {n: values.copy(c) for n, c in state[0].items()}
        self.known = dict(state[1])
        self.ranks, self.maybe_none = dict(state[2]), set(state[3])
        self.values = dict(state[4])

    def deeper(self, step):
        """Into (1) or out of (-1) a block run only sometimes, or many times: a callee put in
        place (container_calls.py) cannot end there."""
        if self.opened:
            self.opened[-1]["depth"] += step
        if self.unrolling:
            self.unrolling[-1]["depth"] += step

    def merge(self, node, first, second):
        """After an `if`: a container both branches hold in the same shape, its differing
        elements assigned to one new name in each branch."""
        self.held, self.known = {}, {k: v for k, v in first[1].items()
                                     if second[1].get(k) == v}
        for name, one in first[0].items():
            other = second[0].get(name)
            if other is None:
                continue
            merged = values.merged(self, node, name, one, other)
            if merged is not None:
                self.held[name] = merged

    def static_range(self, iterable):
        return elements.static_range(self, iterable)

    def integer(self, node):
        return elements.integer(self, node)

    def key(self, node, like):
        return elements.key(self, node, like)

    # ---- expressions ----------------------------------------------------------------------

    def container(self, value, like):
        return elements.container(self, value, like)

    def growing_read(self, node):
        """`xs[-1]` or `len(xs)` of a list growing in the loop being rewritten, as its array
        reads it so far; else None."""
        return buffers.read_in_loop(self.frames, node) if self.frames else None

    def grown_array(self, dotted, call):
        """`numpy.stack(ys)` or `sum(ys)` of a list grown in a loop, which is an array now."""
        return buffers.sequence_of(self, dotted, call) if self.buffers else None

    def user_call(self, call, like):
        """A call of a function of yours passing containers, rewritten to pass their leaves;
        None when it passes none."""
        if not any(nodes.root_name(a) in self.held or values.makes(a) or
                   arguments.is_static_literal(a) for a in call.args) and \
                not any(arguments.is_static_literal(k.value) or values.makes(k.value) or
                        nodes.root_name(k.value) in self.held for k in call.keywords):
            return None
        return arguments.pass_leaves(self, call, like)

    def holds_an_array(self, node):
        """Whether `node` names a value known to be an array or a number (container_tests)."""
        return tests.is_array(self, node)

    bound_method = container_methods.bind  # `var.pdf(y)`, var known now

    def specialised_name(self, name, copy):
        """The name calls of `copy` (a specialised function) use: one per copy."""
        for emitted, known in self.specialised.items():
            if known is copy:
                return emitted
        emitted = self.fresh(name.id if isinstance(name, gast.Name) else copy.__name__)
        self.specialised[emitted] = copy
        return emitted

    is_view = values.is_view

    def pack_star_arguments(self, call):
        resolve.pack_star_arguments(call, facts.REF.of(call))

    tuple_count = staticmethod(values.tuple_count)

    def element(self, node, like):
        return elements.element(self, node, like)

    def expression(self, node, like, whole=False):
        """`node` with every read of a container spelt with its elements."""
        return values.Reads(self, like, whole).visit(node)

    def as_value(self, made, node):
        """A container where a value is needed: only where a tuple display can stand (a
        tuple of plain values: `v.reshape(shape)`)."""
        if made.kind == "tuple" and not any(isinstance(i, values.Container)
                                            for i in made.items):
            return gast.copy_location(gast.Tuple([nodes.clone(i) for i in made.items],
                                                 gast.Load()), node)
        argument = getattr(made, "argument", None)
        if argument is not None:
            kind = "dataclass" if made.kind == "record" else made.kind
            self.report(node, f"'{argument}' is a {kind} argument, used here as a value",
                        why="a dict, list, tuple, NamedTuple or dataclass argument is passed "
                            "as its elements (as JAX passes a pytree), so there is no "
                            f"{kind} to compute with",
                        fix="pass an array instead (numpy.asarray(...) before the call), or "
                            "read its elements here")
            return node
        self.report(node, f"a {made.kind} is used as a value here",
                    why="s2sad holds each element in a variable of its own; generated code has "
                        "no container to pass",
                    fix="pass its elements, or use numpy.stack(...) to make an array")
        return node
