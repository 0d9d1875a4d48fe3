"""Fold single-use temporaries back into the expression that reads them.

Normalisation builds one operation per statement (ANF, right for analysis); printed as it is,
each source statement comes out as a column of temporaries. Folding each temporary that is
assigned once and read once, by a later statement of the same block, puts the code back in the
shape a person writes:

        # k1u = alpha * u - beta * u * w   [problems.py:82]      # k1u = alpha * u - ...
        _t0 = alpha * u                                          k1u = alpha * u - beta * u * w
        _t1 = beta * u                                 -->
        _t2 = _t1 * w
        k1u = _t0 - _t2

        d_t11 = -dforce                                -->   dv[i] += -dforce * damping
        d_t10 = d_t11 * damping
        dv[i] += d_t10

The expression tree is moved as it is (astor adds the parentheses it needs, emit/printing.py
proves the printing), so every operation keeps its operands and their order: the values are
bit for bit the same, run as Python or compiled by Numba. A wrong fold is a wrong gradient, so the rules
are conservative:

- only the transformer's own names (`_t<N>` temporaries and their adjoints `d_t<N>`), stored
  exactly once and read exactly once in the whole function (a value kept on a tape, pushed and
  restored, is read or stored twice; a value put back from a tape keeps its name);
- the read is in a later statement of the same statement list (not in a nested body), with no
  Comment between (a Comment starts another source statement's block: the `# grad of:` lines
  and the debugger's line mapping, tracing.py, stay true), and not in an assignment's target,
  a `for` loop's target or body (its iterable, evaluated once, may take it), an `if`/`while`
  test, a comprehension, a conditionally evaluated operand, or a save on a tape (`_stack_x[t]
  = _t1`), except that an expression of names and numbers (`i + 1`) goes into the index of
  an element written (`dx[i + 1] += g`);
- a temporary assigned more than once (a value the backward sweep computes again) is folded
  where each assignment is read once, by its own statement list, before the next one, and
  those are all its reads;
- only pure expressions move: arithmetic, comparisons, subscripts, `.shape`-like attributes and
  calls of NumPy ufuncs, `math`, a few NumPy functions and side-effect-free `rt` helpers;
- nothing between the definition and the read (nor what the reading statement evaluates first)
  may change a value the expression reads: a statement there may rebind other names, push to a
  tape, or write in place into an array no other name can see (a tape, a gradient accumulated
  in place by in_place.accumulate_in_place); any other in-place write, any other call and any
  compound statement stops the fold.
"""
import re

import gast

from .. import facts, nodes
from . import fold_facts
from ..nodes import Comment, dotted_parts

TEMPORARY = re.compile(r"d?_t\d+\Z")
WIDTH = 79  # astor wraps longer lines (clumsily): a fold that makes one stays undone
_REPEATS = 3  # a number that is one product is folded into at most this many reads
_TAPE = "_stack"  # tape.py's stacks and preallocated tapes: `_stack_x`, `_stack_trips0`
_SCOPES = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Lambda)
# calls that change no existing value, though not moved: copies and new arrays
_FRESH = frozenset({("rt", "saved"), ("rt", "copy"), ("numpy", "copy"), ("numpy", "empty"),
                    ("numpy", "zeros"), ("numpy", "ones"), ("range",)})


def fold(function, owners=()):
    """Fold the single-use temporaries of a gast FunctionDef, in place; returns it.
    `owners`: gradient arrays no other name can see (in_place.accumulate_in_place)."""
    uses = _Uses(function)
    parameters = nodes.names(function.args)
    private = fold_facts.private_arrays(uses)
    lists = {n for n, kind in private.items() if kind == "list"}
    private = set(private) | (set(owners) - uses.multiple - parameters)
    _Folder(uses, private, lists).block(function.body)
    return function


class _Uses:
    """One walk over the whole function: how often each name is stored and read; for each
    read of a temporary, the statement (an element of some statement list) holding it; and
    what fold_facts.py looks at."""

    def __init__(self, function):
        self.stores, self.loads, self.read_at, self.holder = {}, {}, {}, {}
        self.reads_of = {}       # temporary -> its Name nodes read
        self.multiple = set()    # declared global/nonlocal: never folded, never private
        self.assigned = {}       # name -> the values of its `name = value` statements
        self.simple = set()      # ids of the Name targets of those, and of `for i in range(...)`
        self.stored = []         # every other Name stored (params, tuple targets, ...)
        self.subscripts = []     # `a[...]` with `a` a name
        self.methods = []        # `a.method(...)` with `a` a name
        self.lengths = []        # `len(a)` with `a` a name: the names
        self._expression(function.args, function)
        self._statements(function.body)
        self.local_read = _local_reads(function, self)

    def _statements(self, statements):
        for statement in statements:
            self._note(statement)
            for field in statement._fields:
                value = getattr(statement, field, None)
                if not isinstance(value, list):
                    if isinstance(value, gast.AST):
                        self._expression(value, statement)
                elif value and isinstance(value[0], gast.stmt):
                    self._statements(value)
                else:
                    for item in value:
                        if isinstance(getattr(item, "body", None), list):  # except handlers
                            for part in item._fields:
                                if part != "body" and isinstance(getattr(item, part), gast.AST):
                                    self._expression(getattr(item, part), statement)
                            self._statements(item.body)
                        elif isinstance(item, gast.AST):
                            self._expression(item, statement)

    def _expression(self, node, holder):
        pending = [node]
        while pending:
            node = pending.pop()
            if isinstance(node, gast.Name):
                if isinstance(node.ctx, gast.Load):
                    self.loads[node.id] = self.loads.get(node.id, 0) + 1
                    if node.id.startswith(("_t", "d_t")):
                        self.read_at[node.id] = node
                        self.reads_of.setdefault(node.id, []).append(node)
                        self.holder[id(node)] = holder
                else:
                    self.stores[node.id] = self.stores.get(node.id, 0) + 1
                    if id(node) not in self.simple:
                        self.stored.append(node.id)
                if getattr(node, "annotation", None) is not None:
                    pending.append(node.annotation)
                continue
            self._note(node)
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    pending.extend(v for v in value if isinstance(v, gast.AST))
                elif isinstance(value, gast.AST):
                    pending.append(value)

    def _note(self, node):
        kind = type(node)
        if kind is gast.Assign:
            target = node.targets[0]
            if len(node.targets) == 1 and isinstance(target, gast.Name):
                self.assigned.setdefault(target.id, []).append(node.value)
                self.simple.add(id(target))
        elif kind is gast.For:
            if isinstance(node.target, gast.Name) and isinstance(node.iter, gast.Call) and \
                    dotted_parts(node.iter.func) == ["range"]:
                self.simple.add(id(node.target))
        elif kind is gast.AugAssign:
            if isinstance(node.target, gast.Name):
                self.loads[node.target.id] = self.loads.get(node.target.id, 0) + 1
        elif kind is gast.Subscript:
            if isinstance(node.value, gast.Name):
                self.subscripts.append(node)
        elif kind is gast.Call:
            if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name):
                self.methods.append(node)
            elif isinstance(node.func, gast.Name) and node.func.id == "len" and \
                    len(node.args) == 1 and isinstance(node.args[0], gast.Name):
                self.lengths.append(node.args[0].id)
        elif kind in (gast.Global, gast.Nonlocal):
            self.multiple.update(node.names)

    def single(self, name):
        return self.stores.get(name, 0) == 1 and self.loads.get(name, 0) == 1 and \
            name not in self.multiple

    def never_stored(self, name):
        return not self.stores.get(name) and name not in self.multiple


class _Folder:
    def __init__(self, uses, private, lists):
        self.uses, self.private, self.lists = uses, private, lists

    def block(self, statements, depth=1):
        self._merge(statements, depth)
        index = 0
        while index < len(statements):
            if not self._fold(statements, index, depth):
                index += 1
        for statement in statements:
            for field, value in gast.iter_fields(statement):
                if isinstance(value, list) and value and isinstance(value[0], gast.stmt):
                    self.block(value, depth + 1)
            for handler in getattr(statement, "handlers", ()):
                self.block(handler.body, depth + 1)

    def _merge(self, statements, depth):
        """One block's contributions to a gradient become one sum, in the same order:
        `dw4 = d_t33 * gamma` ... `dw4 = dw4 + d_t47 * _t31` -> `dw4 = d_t33 * gamma + d_t47 *
        _t31` at the second one's place (the same additions: `(a + b)` then `+ c`). Only where
        nothing between reads or assigns the gradient or changes what the first part reads,
        within one block (no Comment between)."""
        index = 0
        while index < len(statements):
            first = statements[index]
            name = _accumulated(first, start=True)
            merged = False
            if name is not None:
                reads = _names_read(first.value)
                for later in range(index + 1, len(statements)):
                    statement = statements[later]
                    if _accumulated(statement) == name:
                        value = gast.BinOp(first.value, gast.Add(), statement.value.right)
                        candidate = gast.Assign(statement.targets, value, None)
                        if 4 * depth + fold_facts.statement_width(candidate) > WIDTH:
                            break
                        statement.value = value
                        del statements[index]
                        self._moved(first, statement)
                        merged = True
                        break
                    if isinstance(statement, Comment) or name in _names_read(statement) or \
                            not self._clear(statement, reads | {name}):
                        break
            if not merged:
                index += 1

    def _moved(self, old, new):
        """What `old` read is now read by `new` (for the folds that follow)."""
        for node in nodes.walk(new.value):
            if self.uses.holder.get(id(node)) is old:
                self.uses.holder[id(node)] = new
        for key, (read, holder) in list(self.uses.local_read.items()):
            if holder is old:
                self.uses.local_read[key] = (read, new)

    def _fold(self, statements, index, depth):
        """Fold the temporary `statements[index]` defines into its reader; whether it did."""
        definition = statements[index]
        if nodes.assigned_name(definition) is None:
            return False
        name = definition.targets[0].id
        if not (TEMPORARY.match(name) and fold_facts.movable(definition.value, self.uses)):
            return False
        if self.uses.single(name):
            read = self.uses.read_at[name]
            holder = self.uses.holder.get(id(read))
        elif id(definition) in self.uses.local_read and not _is_tape(definition.value):
            read, holder = self.uses.local_read[id(definition)]  # (a value put back from a
            # tape keeps its name: the backward block reads as the forward one was written)
        elif _one_product(definition) and self.uses.stores.get(name) == 1 and \
                name not in self.uses.multiple:
            return self._fold_repeated(statements, index, depth)
        else:
            return False
        reads, numbers = _names_read(definition.value), _one_product(definition)
        for later in range(index + 1, len(statements)):
            statement = statements[later]
            if isinstance(statement, Comment):
                return False
            if statement is holder:
                site = self._site(statement, read, reads, definition.value)
                if site is None:
                    return False
                parent, field, position = site
                _put(parent, field, position, definition.value)
                if 4 * depth + fold_facts.statement_width(statement) > WIDTH:
                    _put(parent, field, position, read)  # astor would wrap it: keep the name
                    return False
                del statements[index]
                return True
            if not self._clear(statement, reads, numbers):
                return False
        return False

    def _fold_repeated(self, statements, index, depth):
        """Fold a number that is one product of names into each of its few reads, as the
        single-use rule would fold it into one (`d_t31 = d_t47 * w4` read twice becomes
        `ddelta + d_t47 * w4 * u4` and `d_t47 * w4 * delta`): the product is computed again,
        to the same bits, where a compiler computes it once."""
        definition = statements[index]
        name, value = definition.targets[0].id, definition.value
        pending, reads, placed = list(self.uses.reads_of[name]), _names_read(value), []
        if len(pending) > _REPEATS:
            return False
        for later in range(index + 1, len(statements)):
            statement = statements[later]
            if isinstance(statement, Comment):
                return False
            here = [r for r in pending if self.uses.holder.get(id(r)) is statement]
            for read in here:
                site = self._site(statement, read, reads, value)
                if site is None:
                    return False
                placed.append((statement, site, read))
                pending.remove(read)
            if not pending:
                return self._place_all(statements, index, depth, placed)
            if not self._clear(statement, reads, numbers=True):
                return False
        return False

    def _place_all(self, statements, index, depth, placed):
        value = statements[index].value
        for number, (_, (parent, field, position), _) in enumerate(placed):
            _put(parent, field, position, value if number == 0 else nodes.clone(value))
        if any(4 * depth + fold_facts.statement_width(s) > WIDTH for s, _, _ in placed):
            for _, (parent, field, position), read in placed:
                _put(parent, field, position, read)
            return False
        for read_name in _names_read(value):   # read more often now: never single again
            self.uses.loads[read_name] = self.uses.loads.get(read_name, 0) + len(placed) - 1
        del statements[index]
        return True

    def _site(self, statement, read, reads, value=None):
        """(parent, field, list position or None) of `read` in `statement`, if the value may be
        put there: the value part of an assignment, an expression statement or a return, on a
        path evaluated unconditionally, in the function's own scope; and nothing the statement
        evaluates (calls other than pure ones) may change what the value reads."""
        field = "value"
        if isinstance(statement, gast.Assign):  # (its targets are evaluated after the value)
            if any(_is_tape(t) for t in statement.targets):
                return None  # a save: the temporary is the kept value
        elif isinstance(statement, gast.AugAssign):  # `a[i] += v`: `a[i]` is read first
            if _is_tape(statement.target) or \
                    not self._expression_clear(statement.target, reads):
                return None
        elif isinstance(statement, gast.For):  # `for i in range(j + 1, d)`: evaluated once,
            field = "iter"                      # before the loop, as an assignment's value
        elif not isinstance(statement, (gast.Expr, gast.Return)):
            return None
        expression = getattr(statement, field)
        if expression is None:
            return None
        path = _path(statement, field, expression, read)
        if path is None:
            return None if field == "iter" else self._index_site(statement, read, value)
        on_path = {id(parent) for parent, _, _ in path}
        for parent, field, position in path:
            if isinstance(parent, _SCOPES) or \
                    isinstance(parent, gast.IfExp) and field != "test" or \
                    isinstance(parent, gast.BoolOp) and position != 0:
                return None
        if isinstance(statement, gast.Expr) and _is_push(statement.value):
            return None  # `_stack_x.append(_t1)`: kept on a tape
        for node in nodes.walk(expression):
            if isinstance(node, gast.NamedExpr):
                return None
            if isinstance(node, gast.Call) and id(node) not in on_path and \
                    not self._call_clear(node, reads):
                return None
        return path[-1]

    def _index_site(self, statement, read, value):
        """The place of `read` in the index of an element written (`dx[_t13] += g`), for a
        value of names and numbers only (`i + 1`): evaluated there instead, before or after the
        right-hand side, it gives the same number (no expression can rebind a name)."""
        targets = statement.targets if isinstance(statement, gast.Assign) else \
            [statement.target]
        if not _arithmetic(value):
            return None
        for target in targets:
            if isinstance(target, gast.Subscript) and not _is_tape(target):
                path = _path(target, "slice", target.slice, read)
                if path is not None:
                    return path[-1]
        return None

    def _clear(self, statement, reads, numbers=False):
        """Whether running `statement` (between a definition and its read) leaves every value
        the names `reads` refer to as it was. `numbers`: they all hold numbers, which no write
        into an array can change (only binding the name again)."""
        if isinstance(statement, gast.Pass):
            return True
        if isinstance(statement, gast.Assign):
            value_clear = self._expression_clear(statement.value, reads)
            return value_clear and all(self._target_clear(t, reads, numbers)
                                       for t in statement.targets)
        if isinstance(statement, gast.AugAssign):
            target = statement.target
            if isinstance(target, gast.Name):  # in place when it holds an array
                target_clear = target.id not in reads and (numbers or target.id in self.private)
            else:  # (`stack[k] += v` may change the array in the list in place)
                target_clear = self._target_clear(target, reads, numbers) and \
                    (numbers or getattr(target.value, "id", None) not in self.lists)
            return target_clear and self._expression_clear(statement.value, reads)
        if isinstance(statement, gast.Expr):
            return self._expression_clear(statement.value, reads)
        return False  # compound statements, return, raise, ...

    def _target_clear(self, target, reads, numbers=False):
        if isinstance(target, gast.Name):
            return target.id not in reads
        if isinstance(target, (gast.Tuple, gast.List)):
            return all(self._target_clear(t, reads, numbers) for t in target.elts)
        if isinstance(target, gast.Starred):
            return self._target_clear(target.value, reads, numbers)
        if isinstance(target, gast.Subscript):  # an element write: in place
            base = target.value
            return isinstance(base, gast.Name) and (numbers or base.id in self.private) and \
                base.id not in reads and self._expression_clear(target.slice, reads)
        return False

    def _expression_clear(self, expression, reads):
        for node in nodes.walk(expression):
            if isinstance(node, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)):
                return False
            if isinstance(node, gast.Call) and not self._call_clear(node, reads):
                return False
        return True

    def _call_clear(self, call, reads):
        """A call that changes no value `reads` refer to: pure, a copy or a new array, or a
        push or pop on a private stack they do not read."""
        if fold_facts.pure_call(call, self.uses):
            return True
        parts = dotted_parts(call.func)
        if parts is not None and tuple(parts) in _FRESH and self.uses.never_stored(parts[0]):
            return not any(k.arg == "out" for k in call.keywords)
        if isinstance(call.func, gast.Attribute) and call.func.attr in ("append", "pop") and \
                isinstance(call.func.value, gast.Name):
            stack = call.func.value.id
            return stack in self.private and stack not in reads
        if parts in (["rt", "grown"], ["rt", "keep_row"]) and call.args and \
                isinstance(call.args[0], gast.Name):  # writes into the stack it is given only
            stack = call.args[0].id
            # a row of a keep_row tape is read (as a view) only in the backward sweep, which
            # runs after every keep_row of the forward one: no value read here is such a view
            return (stack in self.private or parts[1] == "keep_row") and stack not in reads
        return False


def _local_reads(function, uses):
    """{id(definition): (its one read, the statement of its list holding it)} for temporaries
    assigned more than once (a value the backward sweep recomputes: `_t42 = h / 6.0` in both
    sweeps) where every read is covered: each assignment, a statement of some list, is read
    exactly once by the statements after it in that list before the name is assigned again,
    and those reads are all the name's reads (none reaches a read elsewhere, such as the next
    iteration of a loop). One pass over each statement list."""
    found, counted, definitions, memo = {}, {}, {}, {}
    for statements in nodes.statement_lists(function):
        open_reads = {}  # name -> (its assignment in this list, the reads seen since)

        def close(name):
            definition, reads = open_reads.pop(name)
            counted[name] = counted.get(name, 0) + len(reads)
            if len(reads) == 1:
                found[id(definition)] = (name, reads[0])

        for statement in statements:
            loads, stores = _temporaries_in(statement, memo)
            simple = nodes.assigned_name(statement) is not None
            for name, nodes_read in loads.items():
                if name in open_reads and (simple or name not in stores):
                    open_reads[name][1].extend((n, statement) for n in nodes_read)
            for name in stores:
                if name in open_reads:
                    close(name)  # assigned again (here, or inside a nested block)
            if simple and statement.targets[0].id in stores:
                name = statement.targets[0].id
                definitions[name] = definitions.get(name, 0) + 1
                open_reads[name] = (statement, [])
        for name in list(open_reads):
            close(name)
    covered = {name for name, count in counted.items()
               if count == uses.loads.get(name, 0) and
               definitions.get(name) == uses.stores.get(name, 0) and
               name not in uses.multiple}
    return {key: read for key, (name, read) in found.items() if name in covered}


def _temporaries_in(statement, memo):
    """({temporary: its Name nodes read}, {temporaries stored}) anywhere in `statement`. The
    statements nested in it are summed up from `memo` (id -> their summary): lists are seen
    outer first, so walking each statement whole would walk a loop nest's body once per level."""
    known = memo.get(id(statement))
    if known is not None:
        return known
    loads, stores, nested = {}, set(), []
    for node in nodes.walk_own(statement):
        if isinstance(node, gast.Name):
            if TEMPORARY.match(node.id):
                if isinstance(node.ctx, gast.Load):
                    loads.setdefault(node.id, []).append(node)
                else:
                    stores.add(node.id)
        elif node is not statement and isinstance(node, gast.stmt):
            nested.append(node)
    for inner in nested:
        inner_loads, inner_stores = _temporaries_in(inner, memo)
        for name, nodes_read in inner_loads.items():
            loads.setdefault(name, []).extend(nodes_read)
        stores |= inner_stores
    memo[id(statement)] = loads, stores
    return loads, stores




def _one_product(definition):
    """`d_t31 = d_t47 * w4`, `d_t29 = -d_t39 * w4`: one product of names and numbers that the
    kinds show is a number (adjoints.py marks it)."""
    value = definition.value
    return facts.SCALAR.of(definition) and isinstance(value, gast.BinOp) and \
        isinstance(value.op, gast.Mult) and _atom(value.left) and _atom(value.right)


def _atom(node):
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Name) or \
        isinstance(node, gast.Constant) and type(node.value) in (int, float)


def _put(parent, field, position, node):
    if position is None:
        setattr(parent, field, node)
    else:
        getattr(parent, field)[position] = node


def _path(parent, field, node, wanted, position=None):
    """[(parent, field, position)] from `parent.field` down to the node `wanted`, the last
    entry holding `wanted` itself; None if it is not there."""
    if node is wanted:
        return [(parent, field, position)]
    if not isinstance(node, gast.AST):
        return None
    for name, value in gast.iter_fields(node):
        items = enumerate(value) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            if isinstance(item, gast.AST):
                found = _path(node, name, item, wanted, index)
                if found is not None:
                    return [(parent, field, position)] + found
    return None


def _accumulated(statement, start=False):
    """The gradient `statement` adds to (`dw = dw + e`), or with `start` also assigns first
    (`dw = e`), e not reading it; else None."""
    if nodes.assigned_name(statement) is None:
        return None
    name, value = statement.targets[0].id, statement.value
    if not name.startswith("d"):
        return None
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and \
            isinstance(value.left, gast.Name) and value.left.id == name and \
            name not in _names_read(value.right):
        return name
    if start and name not in _names_read(value):
        return name
    return None


def _arithmetic(node):
    """Names and number literals under `+`, `-`, `*`, `//`, `%` and negation."""
    if isinstance(node, gast.Name):
        return isinstance(node.ctx, gast.Load)
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float) and not isinstance(node.value, bool)
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, fold_facts.INTEGER_OPS) and _arithmetic(node.left) and \
            _arithmetic(node.right)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, gast.USub) and _arithmetic(node.operand)
    return False


def _names_read(expression):
    return nodes.names(expression)


def _is_tape(target):
    return isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and \
        target.value.id.startswith(_TAPE)


def _is_push(call):
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "append"
