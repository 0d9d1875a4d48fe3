"""The annotations between the transformer's stages are declared in one place,
s2sad/transform/facts.py (issue 34): no code spells an `s2sad_...` attribute itself, every fact
is written and read by exactly the modules its declaration names, and the values put have the
declared types."""
import ast
import os

import numpy as np
import pytest

from s2sad.transform import facts, pipeline

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(CHECKOUT, "s2sad")
TRANSFORM = os.path.join(PACKAGE, "transform")


def _sources():
    for directory, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                yield path, ast.parse(open(path).read())


def _spelled(tree):
    """Lines where a tree spells an annotation's attribute itself."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("s2sad_") or \
                isinstance(node, ast.keyword) and (node.arg or "").startswith("s2sad_") or \
                isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.value.startswith("s2sad_") and node.value[6:].isidentifier():
            found.append(node.lineno)
    return found


def test_no_code_but_facts_spells_an_annotation():
    spelled = [f"{os.path.relpath(path, CHECKOUT)}:{line}" for path, tree in _sources()
               if not path.endswith(os.path.join("transform", "facts.py"))
               for line in _spelled(tree)]
    assert spelled == [], "read and write annotations through s2sad.transform.facts"


def _uses():
    """{(fact name, "put" or "read"): {module relative to s2sad/transform}}"""
    uses = {}
    for path, tree in _sources():
        if not path.startswith(TRANSFORM + os.sep) or path.endswith("facts.py"):
            continue
        module = os.path.relpath(path, TRANSFORM)[:-3].replace(os.sep, "/")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("of", "on", "put") and \
                    isinstance(node.value, ast.Attribute) and \
                    isinstance(node.value.value, ast.Name) and node.value.value.id == "facts":
                how = "put" if node.attr == "put" else "read"
                uses.setdefault((node.value.attr, how), set()).add(module)
    return uses


def test_every_fact_is_used_by_exactly_the_modules_it_declares():
    uses = _uses()
    declared = {name for name, value in vars(facts).items() if isinstance(value, facts.Fact)}
    assert {name for name, _ in uses} <= declared, "a fact used is not declared"
    wrong = []
    for name in sorted(declared):
        fact = getattr(facts, name)
        assert fact.name.upper() == name
        written, read = uses.get((name, "put"), set()), uses.get((name, "read"), set())
        if not read:
            wrong.append(f"{name}: nothing reads it (drop it)")
        if written != set(fact.writers):
            wrong.append(f"{name}: written by {sorted(written)}, declared {sorted(fact.writers)}")
        if read != set(fact.readers):
            wrong.append(f"{name}: read by {sorted(read)}, declared {sorted(fact.readers)}")
    assert wrong == []


def _functions():
    """A few functions of every shape: straight-line code, branches, loops, containers,
    callees, checkpoints (the corpora's)."""
    import corpus_control
    import corpus_language
    import corpus_straight
    cases = corpus_straight.CASES[::4] + corpus_control.CASES[::3] + corpus_language.CASES[::3]
    return [(f, wrt if isinstance(wrt, tuple) else (wrt,), make(np.random.default_rng(0)))
            for f, make, wrt in cases]


def test_values_put_have_the_declared_types(monkeypatch):
    import s2sad
    monkeypatch.setattr(facts, "CHECK", True)
    monkeypatch.setattr(pipeline, "_done", {})
    monkeypatch.setenv("S2SAD_INDEX", "0")
    checked = 0
    for f, wrt, args in _functions():
        try:
            s2sad.grad(f, wrt=wrt, jit=False)(*args)
        except s2sad.ArgumentError:
            pass  # (a container case needs its own call; the other cases cover the types)
        checked += 1
    assert checked > 30
