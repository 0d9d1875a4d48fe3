"""Where each adjoint lives during the backward sweep, and how contributions accumulate.

`env` maps a primal name to the expression holding its adjoint; a name absent from it has a
zero adjoint. The first contribution creates the adjoint (`dz = ...`, never `dz = 0; dz += ...`);
a contribution that is only another adjoint becomes an alias instead of a copy; a later one
accumulates (`dz = dz + ...`). Before a variable is reassigned, every alias of it gets a variable
of its own, so no value is ever lost:

    contribute(x, d_t1)      # env[x] = d_t1                 (alias, no code)
    contribute(y, d_t1)      # env[y] = d_t1
    contribute(x, c)         # dy = d_t1? no: dx = d_t1 + c  (d_t1 itself is not reassigned)
"""
import gast

from .. import facts
from ..nodes import assign, call, constant, name, names


class Adjoints:
    def __init__(self, namer):
        self.namer = namer
        self.env = {}
        self.owned = set()   # adjoint variables holding arrays no other name shares
        self.out = []        # the block being built; the caller swaps it per statement
        self.scalars = frozenset()  # primals known to be numbers in the block being built

    def get(self, primal):
        return self.env.get(primal)

    def take(self, primal):
        """The adjoint of `primal`, which is then zero: the statement that assigned `primal` is
        being reversed, so earlier values of the name start with no adjoint."""
        return self.env.pop(primal, None)

    def contribute(self, primal, expression, alias=True):
        """Add `expression` to the adjoint of `primal` (never as an alias if not `alias`: the
        expression reads memory about to change)."""
        var = self.namer.adjoint(primal)
        current = self.env.get(primal)
        if current is None and alias and _is_reference(expression):
            self.env[primal] = expression  # alias: no copy needed
            return
        value = expression if current is None else gast.BinOp(current, gast.Add(), expression)
        self._set(primal, var, value, fresh=isinstance(value, (gast.BinOp, gast.UnaryOp)))

    def own(self, primal):
        """Make the adjoint of `primal` a private array variable before an in-place update
        (`dx[i] += g`): zeros if it has none, a copy if it may be shared. Returns its name."""
        var = self.namer.adjoint(primal)
        current = self.env.get(primal)
        if current is None:
            self._set(primal, var, call("rt.zeros_like", name(primal)), fresh=True)
        elif not (_is_name(current, var) and var in self.owned):
            self._set(primal, var, call("rt.copy", current), fresh=True)
        return var

    # ---- across branches and loop iterations ---------------------------------------------------

    def snapshot(self):
        return dict(self.env), set(self.owned)

    def restore(self, snapshot):
        self.env, self.owned = dict(snapshot[0]), set(snapshot[1])

    def canonical(self, primals, zero, private, scalars=frozenset()):
        """Put the adjoint of each of `primals` in its own variable `d<name>`, so that every
        path through a branch or loop body leaves it in the same place: absent ones in `zero`
        start at zeros (`0.0` for known `scalars`: no helper, and no read of a primal that
        one path may not assign), ones in `private` get a private copy (they are updated in
        place)."""
        for primal in sorted(primals):
            var = self.namer.adjoint(primal)
            current = self.env.get(primal)
            if current is None:
                if primal in zero and primal in scalars:
                    self._set(primal, var, constant(0.0), fresh=False)
                elif primal in zero:
                    self._set(primal, var, call("rt.zeros_like", name(primal)), fresh=True)
            elif primal in private and not (_is_name(current, var) and var in self.owned):
                self._set(primal, var, call("rt.copy", current), fresh=True)
            elif not _is_name(current, var):
                self._set(primal, var, current, fresh=False)

    def aliases_of(self, primals):
        """Names whose adjoint expression reads the adjoint variable of one of `primals`."""
        variables = {self.namer.adjoint(p) for p in primals}
        return {other for other, expression in self.env.items() if names(expression) & variables}

    def keep_only(self, primals, drop):
        """Forget the adjoints of `drop` (dead past this point) except those in `primals`."""
        for primal in list(self.env):
            if primal in drop and primal not in primals:
                del self.env[primal]

    def _set(self, primal, var, value, fresh):
        self._release(var, keep=primal, busy=names(value))
        statement = assign(var, value)
        facts.SCALAR.put(statement, primal in self.scalars)  # (fold.py may repeat a cheap one)
        self.out.append(statement)
        self.env[primal] = name(var)
        (self.owned.add if fresh else self.owned.discard)(var)

    def protect(self, target, seed, arguments):
        """If `seed` (a taken adjoint) aliases a variable that contributions to `arguments` will
        reassign, copy it first: to the target's adjoint variable, or a fresh one."""
        if names(seed) & {self.namer.adjoint(a) for a in arguments}:
            own = self.namer.numbered("_dout") if isinstance(seed, gast.Tuple) \
                else self._free(target, names(seed))
            self.out.append(assign(own, seed))
            return name(own)
        return seed

    def _release(self, var, keep, busy):
        """Before `var` is reassigned, give every other alias of it a variable of its own."""
        for other, expression in list(self.env.items()):
            if other != keep and var in names(expression):
                own = self._free(other, busy | {var})
                self.out.append(assign(own, expression))
                self.env[other] = name(own)
                self.owned.discard(own)

    def _free(self, primal, busy=frozenset()):
        """`primal`'s adjoint variable, or a fresh one if that variable still holds another
        value (after `a, b = b, a` the adjoint of a can live in db)."""
        own = self.namer.adjoint(primal)
        held = set(busy)
        for other, expression in self.env.items():
            if other != primal:
                held |= names(expression)
        return self.namer.numbered(f"_{own}_") if own in held else own


def _is_name(expression, identifier):
    return isinstance(expression, gast.Name) and expression.id == identifier


def _is_reference(expression):
    """A name or a constant subscript of one (`d_result[0]`): safe to alias."""
    if isinstance(expression, gast.Subscript):
        return isinstance(expression.value, gast.Name) and \
            isinstance(expression.slice, gast.Constant)
    return isinstance(expression, gast.Name)
