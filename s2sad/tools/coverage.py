"""The coverage table of the derivative rules, generated from the registry.

    python -m s2sad.tools.coverage           # rewrite docs/coverage.md
    python -m s2sad.tools.coverage --check   # exit 1 if docs/coverage.md is not the registry's

One row per function or array method with a rule: how it is differentiated (a formula in the
template, or a named runtime helper), in forward mode too (its tangent template, or "derived"
from an elementwise adjoint template), whether Numba compiles code using it, how many checks
verify it, and where its template is. Then the functions declared without a gradient and the
known gaps. tests/test_coverage.py fails when the checked-in table is stale.
"""
import argparse
import inspect
import os
import sys
import textwrap

import gast

from s2sad import templates
from s2sad.templates.methods import METHODS

from . import verify

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(CHECKOUT, "docs", "coverage.md")
SECTIONS = {"math_rules": "`math` and builtins", "operators": "Operators",
            "numpy_rules": "NumPy elementwise", "numpy_reductions": "Reductions and scans",
            "numpy_linalg": "Linear algebra", "linalg_more": "Decompositions and norms",
            "numpy_shape": "Shape and indexing", "numpy_more": "More NumPy and math",
            "scipy_special": "scipy.special (compiled as s2sad's own helpers)",
            "scipy_incomplete": "scipy.special's incomplete gamma and beta functions (compiled as "
                                "s2sad's own helpers)",
            "scipy_optimize": "scipy.optimize's Rosenbrock function (compiled as s2sad's own)",
            "scipy_spatial": "scipy.spatial.distance (compiled as s2sad's own helpers)",
            "runtime": "s2sad's runtime helpers (differentiated again for second derivatives)"}


def table():
    """The whole document, as text."""
    templates.load_library_rules(everything=True)
    rules = [r for r in templates.REGISTRY.values() if r.kind == "adjoint"]
    methods = [m for m in METHODS.values() if _has_template(m.function)]
    lines = ["# Derivative rules: coverage", "",
             "Generated from the template registry by `python -m s2sad.tools.coverage` (`make "
             "coverage`); `tests/test_coverage.py` fails when this file is stale. Every row is "
             "verified by `tests/test_templates.py` (central finite differences at random "
             "inputs, Numba on and off), in reverse mode (the gradient w.r.t. every input) and "
             "in forward mode (the derivative along a random direction). \"forward\" is the "
             "tangent rule: its own template, or \"derived\" from the adjoint template of an "
             "elementwise function. \"Numba: no\" means a gradient using it runs as Python, "
             "with a warning; \"partly\" lists the argument forms that do.", "",
             f"**{len(rules) + len(methods)} functions and methods with derivative rules** "
             f"({len(rules)} functions, {len(methods)} array methods and attributes); "
             f"{sum(r.kind == 'nondifferentiable' for r in templates.REGISTRY.values())} declared "
             "without gradient; "
             f"{sum(r.kind == 'not_implemented' for r in templates.REGISTRY.values())} known gaps.",
             ""]
    by_section = {}
    for rule in rules:
        by_section.setdefault(rule.template.__module__.rsplit(".", 1)[-1], []).append(rule)
    for module, title in SECTIONS.items():
        found = by_section.pop(module, [])
        if found:
            lines += _section(title, [(verify.label(r.primal), r.primal, r) for r in found])
    for module, found in sorted(by_section.items()):  # user-registered rules, if any
        lines += _section(f"Registered in {module}",
                          [(verify.label(r.primal), r.primal, r) for r in found])
    lines += _section("Array methods and attributes",
                      [(verify.label(m), m, templates.rule_for(m.function)) for m in methods],
                      methods=True)
    lines += ["## Declared without gradient", "",
              "Zero gradient by declaration (piecewise constant, integer-valued, boolean or "
              "random results):", ""]
    lines += [", ".join(f"`{name}`" for name in sorted(
        verify.label(r.primal) for r in templates.REGISTRY.values()
        if r.kind == "nondifferentiable")),
        ""]
    gaps = sorted((verify.label(r.primal), r.note) for r in templates.REGISTRY.values()
                  if r.kind == "not_implemented")
    if gaps:
        lines += ["## Known gaps", "", "Differentiating these gives an error saying so:", "",
                  "| function | why |", "|---|---|"]
        lines += [f"| `{name}` | {note} |" for name, note in gaps]
        lines.append("")
    return "\n".join(lines)


def _section(title, entries, methods=False):
    head = "| method | means | rule | forward | Numba | checks |" if methods else \
        "| function | rule | forward | Numba | checks | template |"
    lines = [f"## {title}", "", head, "|---|---|---|---|---|---|"]
    for label, primal, rule in sorted(entries, key=lambda e: e[0]):
        found = verify.cases(primal)
        row = [f"`{label}`"]
        if methods:
            row.append(f"`{verify.label(primal.function)}`")
        row += [_kind(rule), _forward(rule), _numba(found, rule), str(len(found))]
        if not methods:
            row.append(_origin(rule))
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def _kind(rule):
    """'formula', or the runtime helpers the template calls."""
    return _kind_of(rule.template)


def _forward(rule):
    """How forward mode differentiates it: its tangent template (formula or helpers, and where
    it is), "derived" from an elementwise adjoint template, or "none"."""
    explicit = templates.tangent_for(rule.primal)
    if explicit is not None:
        code = explicit.__code__
        return f"{_kind_of(explicit)}, {_link(code.co_filename, code.co_firstlineno)}"
    from s2sad.transform.template import tangent_rule
    return "derived" if tangent_rule(rule.primal) is not None else "none"


def _kind_of(template):
    helpers = sorted({".".join(nodes) for nodes in _calls(template) if nodes[0] == "rt"})
    return "formula" if not helpers else "helper " + ", ".join(f"`{h}`" for h in helpers)


def _link(path, line):
    name = os.path.basename(path)
    return f"[{name}:{line}](../templates/{name}#L{line})"


def _calls(template):
    tree = gast.parse(textwrap.dedent(inspect.getsource(template)))
    for node in gast.walk(tree):
        if isinstance(node, gast.Call):
            parts, func = [], node.func
            while isinstance(func, gast.Attribute):
                parts.insert(0, func.attr)
                func = func.value
            if isinstance(func, gast.Name):
                yield [func.id] + parts


def _numba(found, rule):
    if not rule.numba:
        return "no"
    failing = list(dict.fromkeys(c.code.strip().replace("\n", "; ") for c in found
                                 if not c.numba))  # distinct forms, in order
    if not failing:
        return "yes"
    shown = ", ".join(f"`{code}`" for code in failing[:3])
    more = f" and {len(failing) - 3} more" if len(failing) > 3 else ""
    return f"partly; not {shown}{more}"


def _origin(rule):
    path, line = rule.origin.rsplit(":", 1)
    return _link(path, line)


def _has_template(function):
    rule = templates.rule_for(function)
    return rule is not None and rule.kind == "adjoint"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m s2sad.tools.coverage",
                                     description="Write the derivative-rule coverage table.")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if docs/coverage.md is stale, without writing it")
    parser.add_argument("--output", default=DOC, help="where to write (default: %(default)s)")
    options = parser.parse_args(argv)
    text = table()
    if options.check:
        current = open(options.output).read() if os.path.exists(options.output) else ""
        if current != text:
            print(f"{options.output} is stale: run `python -m s2sad.tools.coverage`",
                  file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(options.output), exist_ok=True)
    with open(options.output, "w") as handle:
        handle.write(text)
    print(f"wrote {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
