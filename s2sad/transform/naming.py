"""Deterministic, readable names for what the generated code introduces.

`dx` is the adjoint of `x`, `_t0` a temporary, `_x_0` a saved value of `x`. A name already used
by the user's function is never reused: the next candidate is taken (`dx` -> `d_x` -> `d_x_1`),
so the same function always gets the same names and the output diffs cleanly.
"""
import itertools


class Namer:
    def __init__(self, taken):
        self.taken = set(taken)
        self.given = frozenset(taken)  # the user's names (and reserved ones), not generated
        self._adjoints = {}
        self._counters = {}

    def fresh(self, *candidates):
        """The first free candidate, else the last one with a numeric suffix."""
        for name in candidates:
            if name not in self.taken:
                self.taken.add(name)
                return name
        for k in itertools.count(1):
            name = f"{candidates[-1]}_{k}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def numbered(self, prefix):
        """`_t0`, `_t1`, ... for a prefix, skipping taken names."""
        while True:
            k = self._counters.get(prefix, 0)
            self._counters[prefix] = k + 1
            name = f"{prefix}{k}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def adjoint(self, name):
        """The adjoint variable of `name` (the same one every time it is asked)."""
        if name not in self._adjoints:
            self._adjoints[name] = self.fresh(f"d{name}", f"d_{name}")
        return self._adjoints[name]
