"""Stage 4: one operation per statement (A-normal form).

Every statement becomes `name = <one operation on atoms>` or `return <atom>`, where an atom is a
name, a literal or a tuple of atoms. Each new statement remembers the user statement it came
from (`s2sad_origin`), for comments and error locations.

    z = np.sin(x * w)                  _t0 = x * w
    x += z                      -->    z = numpy.sin(_t0)
    a, b = b, a                        x = x + z
    return np.sum(z * z)               _t1 = b
                                       _t2 = a
                                       a = _t1
                                       b = _t2
                                       _t3 = z * z
                                       _t4 = numpy.sum(_t3)
                                       return _t4
"""
import gast

from .errors import Diagnostic, UnsupportedError


def normalize(source, namer):
    """Return the ANF body of `source.tree` (a list of gast Assign/Return statements)."""
    return _Normalizer(source, namer).run()


def is_atom(node):
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return is_literal(node.operand)
    if isinstance(node, gast.Tuple):
        return all(is_atom(element) for element in node.elts)
    return is_literal(node)


def is_literal(node):
    """Numbers, None, and module constants such as numpy.pi."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return is_literal(node.operand)
    return _is_module_constant(node)


def _is_module_constant(node):
    chain = []
    while isinstance(node, gast.Attribute):
        chain.append(node.attr)
        node = node.value
    return isinstance(node, gast.Name) and node.id in ("numpy", "math") and bool(chain)


class _Normalizer:
    def __init__(self, source, namer):
        self.source = source
        self.namer = namer
        self.out = []
        self.origin = None

    def run(self):
        for statement in self.source.tree.body:
            self.origin = statement
            self._statement(statement)
        return self.out

    def emit(self, statement):
        statement.s2sad_origin = self.origin
        gast.copy_location(statement, self.origin)
        self.out.append(statement)

    def assign(self, name, value):
        self.emit(gast.Assign([gast.Name(name, gast.Store(), None, None)], value, None))

    def _statement(self, node):
        if isinstance(node, gast.Assign):
            self._assign(node.targets, node.value)
        elif isinstance(node, gast.AugAssign):
            target = gast.Name(node.target.id, gast.Load(), None, None)
            self._assign([node.target], gast.BinOp(target, node.op, node.value))
        elif isinstance(node, gast.Return):
            value = node.value
            if isinstance(value, gast.Tuple):
                value = gast.Tuple([self.atom(e) for e in value.elts], gast.Load())
            else:
                value = self.atom(value)
            self.emit(gast.Return(value))
        # docstrings and `pass` vanish

    def _assign(self, targets, value):
        first, rest = targets[0], targets[1:]
        if isinstance(first, gast.Name):
            self._assign_fresh([first.id], self.operation(value))
        elif isinstance(value, gast.Tuple) and len(value.elts) == len(first.elts):
            self._unpack(first.elts, value.elts)
        elif isinstance(value, gast.Call):
            self._assign_fresh([t.id for t in first.elts], self.operation(value))
        else:
            raise UnsupportedError([Diagnostic(
                self.source.loc(value), "tuple unpacking needs a tuple of the same length or a "
                "call on the right-hand side", fix="assign each element separately")])
        source_names = [first] if isinstance(first, gast.Name) else first.elts
        for target in rest:  # a = b = value: later targets copy the first
            if isinstance(target, gast.Name):
                self.assign(target.id, _load(source_names[0].id) if len(source_names) == 1
                            else gast.Tuple([_load(n.id) for n in source_names], gast.Load()))
            else:
                for name, element in zip(source_names, target.elts):
                    self.assign(element.id, _load(name.id))

    def _assign_fresh(self, names, operation):
        """`names = operation`, through a temporary when a target is also read (`x = x * c`
        becomes `_t0 = x * c; x = _t0`): the backward sweep then sees the old and the new value
        under different names."""
        read = {n.id for n in gast.walk(operation) if isinstance(n, gast.Name)}
        if read & set(names):
            temps = [self.namer.numbered("_t") for _ in names]
            self._assign_fresh(temps, operation)
            for name, temp in zip(names, temps):
                self.assign(name, _load(temp))
        elif len(names) == 1:
            self.assign(names[0], operation)
        else:
            target = gast.Tuple([gast.Name(n, gast.Store(), None, None) for n in names],
                                gast.Store())
            self.emit(gast.Assign([target], operation, None))

    def _unpack(self, targets, values):
        """`a, b = e1, e2`: evaluate every value before assigning any target (`a, b = b, a`)."""
        assigned = {t.id for t in targets if isinstance(t, gast.Name)}
        atoms = []
        for value in values:
            atom = self.atom(value)
            if isinstance(atom, gast.Name) and atom.id in assigned:
                copy = self.namer.numbered("_t")
                self.assign(copy, atom)
                atom = _load(copy)
            atoms.append(atom)
        for target, atom in zip(targets, atoms):
            if isinstance(target, gast.Name):
                self.assign(target.id, atom)
            elif isinstance(atom, gast.Tuple) and len(atom.elts) == len(target.elts):
                self._unpack(target.elts, atom.elts)
            else:
                raise UnsupportedError([Diagnostic(
                    self.source.loc(target), "nested tuple unpacking needs a tuple of the same "
                    "length", fix="assign each element separately")])

    def atom(self, node):
        """Reduce `node` to an atom, emitting temporaries for its operations."""
        if is_atom(node):
            if isinstance(node, gast.Tuple):
                return gast.Tuple([self.atom(e) for e in node.elts], gast.Load())
            return node
        if isinstance(node, gast.Tuple):
            return gast.Tuple([self.atom(e) for e in node.elts], gast.Load())
        operation = self.operation(node)  # inner temporaries first: numbers follow execution
        temp = self.namer.numbered("_t")
        self.assign(temp, operation)
        return _load(temp)

    def operation(self, node):
        """Reduce the operands of `node` to atoms; `node` itself stays one operation."""
        if isinstance(node, gast.BinOp):
            return gast.BinOp(self.atom(node.left), node.op, self.atom(node.right))
        if isinstance(node, gast.UnaryOp) and not is_atom(node):
            return gast.UnaryOp(node.op, self.atom(node.operand))
        if isinstance(node, gast.Call):
            call = gast.Call(node.func, [self.atom(a) for a in node.args],
                             [gast.keyword(k.arg, self.atom(k.value)) for k in node.keywords])
            call.s2sad_ref = getattr(node, "s2sad_ref", None)
            call.s2sad_user = getattr(node, "s2sad_user", False)
            return gast.copy_location(call, node)
        if isinstance(node, gast.Attribute):
            return gast.Attribute(self.atom(node.value), node.attr, gast.Load())
        return self.atom(node)


def _load(name):
    return gast.Name(name, gast.Load(), None, None)
