"""A library function given to s2sad itself (`s2sad.grad(scipy.special.logsumexp)`,
`s2sad.grad(numpy.sin)`) when s2sad has a derivative rule for it: s2sad differentiates a small
function of its own that calls it, written to a real file (cache.store) so that it has source
like any function of the user's, and the call inside goes through the rule:

    s2sad.grad(scipy.special.logsumexp)
        -->   s2sad.grad(logsumexp), in <cache dir>/library_logsumexp__<digest>.py:

              import scipy.special._logsumexp

              def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
                  return scipy.special._logsumexp.logsumexp(a, axis=axis, b=b, ...)

A function of the user's with a rule of theirs (@s2sad.adjoint) is differentiated by its rule
too, as it is where it is called. A function without a rule is left as it is: one with Python
source is differentiated from its source, anything else is refused by check_function.
"""
import ast
import importlib.util
import inspect
import sys

import numpy

from s2sad import templates
from s2sad.runtime import cache

_made = {}  # library function -> the function s2sad made to differentiate it


def calling(func):
    """The function s2sad differentiates for the library function `func` (one with a rule),
    or None when `func` is no such function."""
    rule = templates.rule_for(func)  # (None for what cannot be hashed)
    ruled = rule is not None and rule.kind == "adjoint" or templates.tangent_for(func) is not None
    if not ruled:
        return None
    if func not in _made:
        _made[func] = _load(func)
    return _made[func]


def _load(func):
    module, path = _location(func)
    name = path.rpartition(".")[2]
    parameters, passed = _parameters(func)
    text = (f"# Made by s2sad: {module}.{path} given to s2sad, called through its derivative "
            f"rule.\nimport {module}\n\n\ndef {name}({', '.join(parameters)}):\n"
            f"    return {module}.{path}({', '.join(passed)})\n")
    file = cache.store(f"library_{name}", text)
    spec = importlib.util.spec_from_file_location(f"library_{name}__made_by_s2sad", file)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # (inspect finds the source through the module)
    spec.loader.exec_module(loaded)
    return getattr(loaded, name)


def _location(func):
    """(module, attribute path) from which `func` is imported: its own, or for a ufunc the
    module that holds it (numpy, scipy.special)."""
    module, path = getattr(func, "__module__", None), getattr(func, "__qualname__", None)
    if isinstance(func, numpy.ufunc) or not module or not path:
        path = func.__name__
        module = next(m for m in ("numpy", "scipy.special", module)
                      if m and getattr(sys.modules.get(m), path, None) is func)
    parts = module.split(".")
    public = next((".".join(parts[:k]) for k in range(1, len(parts)) if "." not in path and
                   getattr(sys.modules.get(".".join(parts[:k])), path, None) is func and
                   not any(p.startswith("_") for p in parts[:k])), None)
    return public or module, path  # (scipy.special, not scipy.special._logsumexp)


def _parameters(func):
    """The parameters of the function made (defaults written as literals), and the arguments
    it passes on."""
    if isinstance(func, numpy.ufunc):
        names = ["x"] if func.nin == 1 else [f"x{k + 1}" for k in range(func.nin)]
        return names, names
    parameters, passed, star = [], [], False
    for p in inspect.signature(func).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue  # (not passed: the function made has the named parameters only)
        if p.default is not p.empty and not _literal(p.default):
            continue  # (numpy's _NoValue: left to the function's own default)
        if p.kind == p.KEYWORD_ONLY and not star:
            parameters.append("*")
            star = True
        written = p.name if p.default is p.empty else f"{p.name}={p.default!r}"
        parameters.append(written)
        passed.append(p.name if p.kind == p.POSITIONAL_ONLY or not passed else
                      f"{p.name}={p.name}")
    return parameters, passed


def _literal(value):
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):
        return False


def is_made(func):
    """Whether s2sad made `func` to call a library function (its None and bool arguments are
    constants it is specialised on, as the rule of the function it calls reads them)."""
    return any(made is func for made in _made.values())
