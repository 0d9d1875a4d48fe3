"""Build the adjoint function, forward sweep then backward sweep.

    def f(x, n):                          def df(x, n, d_result):
        s = 0.0                               # ---- forward sweep ----
        for i in range(n):                    _stack_x = []
            x = numpy.sin(x) * 0.5            s = 0.0
            s = s + x                         _trips0 = len(range(n))
        return s                              for i in range(n):
                                                  _t0 = numpy.sin(x)
                                                  _stack_x.append(x)
                                                  x = _t0 * 0.5
                                                  ...
                                              # ---- backward sweep ----
                                              ds = d_result
                                              dx = rt.zeros_like(x)
                                              for i in range(_trips0 - 1, -1, -1):
                                                  ...
                                                  x = _stack_x.pop()
                                                  dx = d_t0 * numpy.cos(x)
                                              return s, dx

How it is built, in three passes:
1. The backward sweep is built from the last statement to the first (blocks.py writes each
   statement's adjoint), with markers where saved values will be restored. Across an `if` or a
   loop every adjoint the construct touches lives in its own variable (`Adjoints.canonical`),
   so all paths agree on where it is.
2. saves.py decides from what the blocks read which values the forward sweep keeps, and where.
3. The markers are expanded; an `if` or loop whose backward part is empty vanishes, and only the
   others record their branch flag or trip count in the forward sweep.
"""
import gast

from s2sad.errors import TemplateError

from .. import facts, nodes
from ..analysis import activity, aliases, returns
from . import checkpoint, defer, effects, nancheck
from ..analysis import kinds as kinds_module
from .adjoints import Adjoints
from .blocks import Blocks
from .saves import Saves


def reverse(source, body, wrt, namer, link, adjoint_name, kinds, check_nan=False):
    """The adjoint FunctionDef of ANF `body`.

    `wrt`: parameter names to differentiate; `link(func, positions, kinds)` returns the emitted
    name of a callee's adjoint for those argument positions; `adjoint_name` names the new
    function; `kinds` = (parameters known to be scalars, those known to be ints); `check_nan`:
    check every gradient the backward sweep writes (nancheck.py).
    """
    return _Reverse(source, body, wrt, namer, link, check_nan).build(adjoint_name, kinds)


class _Marker(gast.stmt):
    """A place in the backward sweep filled in pass 3: `kind` is 'stmt' (a block, to which
    saved values are added), 'restore' (after a loop), 'if' or 'loop'; `statement` is the
    forward statement it belongs to."""
    _fields = ("kind", "statement", "body", "orelse")


class _Reverse:
    def __init__(self, source, body, wrt, namer, link, check_nan=False):
        self.source = source
        self.check_nan = check_nan
        self.body = body[:-1]
        self.returned = body[-1]
        self.wrt = list(wrt)
        self.namer = namer
        self.params = [a.id for a in _params(source.tree.args)]
        self.adjoints = Adjoints(namer)
        self.blocks = Blocks(source, namer, link, self.adjoints, body)
        self.reads = {}          # id(statement) -> primal names its backward block reads
        self.shape_reads = {}    # id(statement) -> those of them it reads for their shape only
        self._loop_bound = None  # names bound in a loop (made once)
        self.d_result = namer.fresh("d_result")
        self.primal_names = set(self.params) | {
            n.id for s in body for n in nodes.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}

    # ---- pass 1: the backward sweep, with markers ----------------------------------------------

    def build(self, adjoint_name, kinds):
        kinds_module.mark(self.body, *kinds[:3], results=returns.of_call)
        # lists made at their first append: the value before it (no rows) has no adjoint to
        # zero where a branch makes them, and rt.zeros_like of None would not type
        self.placeholders = kinds_module.type_placeholders(self.body)
        aliases.check(self.source, self.body + [self.returned], self.namer.given)
        seeded = self._seed_return()
        backward = self._backward_block(self.body)
        if seeded:  # `return x, x`: both parts add up in dx before the backward sweep
            self.reads[id(self.returned)] = self._names_read(seeded)
            backward.insert(0, _Marker("stmt", self.returned, seeded, []))
        if self.blocks.problems:
            raise TemplateError(sorted(self.blocks.problems,
                                       key=lambda d: (d.where.line, d.where.col)))
        self.adjoints.out = finals = []
        grads = [self.adjoints.get(p) or (nodes.constant(0.0) if p in kinds[0] else
                                          nodes.call("rt.zeros_like", nodes.name(p)))
                 for p in self.wrt]
        final_reads = self._names_read(finals + [gast.Expr(g) for g in grads])
        instrument = (lambda block: nancheck.instrument(block, self.blocks.discard)) \
            if self.check_nan else None
        saves = Saves(self.source, self.body, self.reads, final_reads, self.namer, instrument,
                      self.shape_reads)
        backward = saves.expand(backward) + finals
        forward = saves.forward(self.body)
        start, end, copied = effects.cells(self.source, self.body, self.params, self.namer)
        for p in sorted(saves.written & set(self.params) - set(copied),
                        key=self.params.index):
            forward[:0] = [nodes.Comment(f"{p} is written in place: work on a copy"),
                           nodes.assign(p, gast.Call(gast.Attribute(
                               nodes.name(p), "copy", gast.Load()), [], []))]
        value = self.returned.value
        if nodes.names(value) & saves.restored:
            value_name = self.namer.fresh("value")  # its name is reassigned in the backward sweep
            forward.append(nodes.assign(value_name, value))
            value = nodes.name(value_name)
        forward[:0] = start
        forward += end
        statements = forward + [nodes.Comment("---- backward sweep ----")] + backward
        statements.append(gast.Return(gast.Tuple([value] + grads, gast.Load())))
        params = [nodes.name(p) for p in self.params] + [nodes.name(self.d_result)]
        args = gast.arguments(params, [], None, [], [], None, [])
        function = gast.FunctionDef(adjoint_name, args, statements, [], None, None, [])
        saves.preallocate(function)
        counted = saves.count_stacks(function)
        defer.defer(function, self.namer)
        facts.SHAPES.put(function, kinds_module.stable_shapes(self.body))  # for tidy/order.py
        function.body[:0] = [nodes.Comment("---- forward sweep ----")] + saves.stacks() + \
            counted + saves.initial_values()
        return function

    def _seed_return(self):
        value = self.returned.value
        elements = value.elts if isinstance(value, gast.Tuple) else [value]
        self.adjoints.out = []
        for i, element in enumerate(elements):
            if isinstance(element, gast.Name) and element.id in facts.VARIED.of(self.returned):
                seed = nodes.name(self.d_result)
                if isinstance(value, gast.Tuple):
                    seed = gast.Subscript(seed, gast.Constant(i, None), gast.Load())
                self.adjoints.contribute(element.id, seed)
        return self.adjoints.out

    def _backward_block(self, statements):
        out = []
        for statement in reversed(statements):
            out.extend(self._backward(statement))
        return out

    def _backward(self, statement):
        if isinstance(statement, gast.If):
            return self._backward_if(statement)
        if isinstance(statement, (gast.For, gast.While)):
            return self._backward_loop(statement)
        self.adjoints.out = block = []
        if facts.ACTIVE.of(statement):
            self.adjoints.scalars = _scalars_around(statement)
            self.blocks.adjoint_of(statement)
            self.adjoints.scalars = frozenset()
        for name in sorted(facts.KILLS.of(statement, ())):
            self.adjoints.take(name)  # a value without gradient: earlier values get none
        self.reads[id(statement)] = self._names_read(block)
        self.shape_reads[id(statement)] = _read_for_shape_only(block)
        return [_Marker("stmt", statement, block, [])]

    def _backward_if(self, statement):
        if not facts.ACTIVE.of(statement):
            return [_Marker("if", statement, self._backward_block(statement.body),
                            self._backward_block(statement.orelse))]
        touched, live, private = self._carried(statement)
        self.adjoints.out = before = []
        scalars = facts.SCALARS_AFTER.of(statement, frozenset())
        self.adjoints.canonical(touched, zero=live, private=private, scalars=scalars)
        entry = self.adjoints.snapshot()
        branches = []
        for side in (statement.body, statement.orelse):
            self.adjoints.restore(entry)
            code = self._backward_block(side)
            self.adjoints.out = code
            self.adjoints.canonical(live, zero=live - self.placeholders, private=private,
                                    scalars=scalars)
            branches.append(code)
        self.adjoints.keep_only(live, drop=touched)
        return before + [_Marker("if", statement, *branches)]

    def _backward_loop(self, statement):
        if checkpoint.is_checkpointed(statement):  # what its re-runs read: kept like any read
            self.reads[id(statement)] = checkpoint.analyse(self.source, statement) & \
                self.primal_names
        if not facts.ACTIVE.of(statement):
            return [_Marker("loop", statement, self._backward_block(statement.body), []),
                    _Marker("restore", statement, [], [])]
        touched, live, private = self._carried(statement)
        scalars = facts.SCALARS_AFTER.of(statement, frozenset())
        self.adjoints.out = before = []  # touched: already limited to live or present ones
        self.adjoints.canonical(touched, zero=touched, private=private, scalars=scalars)
        code = self._backward_block(statement.body)
        self.adjoints.out = code
        self.adjoints.canonical(touched, zero=touched, private=private, scalars=scalars)
        # `before` (`dhead = rt.zeros_like(head)`) reads values as the loop left them: the
        # loop's own reads, put back before it runs (tape.py: the marker's orelse); only names
        # a loop binds may hold another value there
        read = self._names_read(before) & self._bound_in_loops()
        self.reads[id(statement)] = self.reads.get(id(statement), set()) | read
        self.shape_reads[id(statement)] = self.shape_reads.get(id(statement), set()) | \
            (_read_for_shape_only(before) & read)
        return [_Marker("loop", statement, code, before), _Marker("restore", statement, [], [])]

    def _bound_in_loops(self):
        if self._loop_bound is None:
            loops = [x for s in self.body for x in nodes.walk(s)
                     if isinstance(x, (gast.For, gast.While))]
            self._loop_bound = {n.id for loop in loops for n in nodes.walk(loop)
                                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        return self._loop_bound

    def _carried(self, compound):
        """(names whose adjoints the construct may change, those of them live before it, those
        updated in place). Names whose adjoint is an alias of a touched one are touched too."""
        touched, private = set(), set()
        for node in nodes.walk(compound):
            touched |= facts.KILLS.of(node, set())  # dropped on some path: zero there
            if isinstance(node, gast.Assign) and facts.ACTIVE.of(node):
                touched |= activity.targets(node) | facts.VARIED.of(node)
                array = activity.written_array(node)
                if array is not None:
                    touched.add(array)
                    private.add(array)
                elif isinstance(node.value, gast.Subscript):
                    private.add(node.value.value.id)
        touched |= self.adjoints.aliases_of(touched)
        live = touched & facts.LIVE.of(compound)
        return touched & (live | set(self.adjoints.env)), live, private

    def _names_read(self, block):
        return set().union(*map(nodes.names, block)) & self.primal_names


# Helpers that read only the shape (and type) of one argument, or of each element of a tuple
# argument (the arrays joined): (module, name) -> its position
_SHAPE_ONLY = {("rt", "unbroadcast"): 1, ("rt", "unreduce"): 1, ("rt", "zeros_like"): 0,
               ("rt", "concatenate_grads"): 1}


def _read_for_shape_only(block):
    """The names `block` reads only as the array whose shape a helper takes
    (`rt.unbroadcast(g, like)`): any value of the same shape would do."""
    for_shape, for_value = set(), set()
    shape_nodes = set()
    for statement in block:
        for node in nodes.walk(statement):
            if isinstance(node, gast.Call):
                position = _SHAPE_ONLY.get(tuple(nodes.dotted_parts(node.func) or ()))
                if position is None or len(node.args) <= position:
                    continue
                argument = node.args[position]
                for part in argument.elts if isinstance(argument, gast.Tuple) else [argument]:
                    if isinstance(part, gast.Name):
                        shape_nodes.add(id(part))
    for statement in block:
        for node in nodes.walk(statement):
            if isinstance(node, gast.Name):
                (for_shape if id(node) in shape_nodes else for_value).add(node.id)
    return for_shape - for_value


def _params(args):
    return list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)


def _scalars_around(statement):
    """The names that hold numbers where `statement` reads them and where it assigns them (as
    the kinds say): their adjoints in its backward block are numbers too."""
    before = facts.SCALARS.of(statement, frozenset())
    if not isinstance(statement, gast.Assign):
        return before
    targets = activity.targets(statement)
    scalar = len(targets) == 1 and kinds_module.kind_of(
        statement.value, before, facts.INTS.of(statement), facts.RANKS.of(statement))[0]
    if not scalar:
        return before - targets
    read = nodes.names(statement.value)   # (`x = numpy.sum(x)`: the x read is an array)
    return (before - targets) | {t for t in targets if t not in read or t in before}

