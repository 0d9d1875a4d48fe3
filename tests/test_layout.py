"""The house rules of the source tree (issues 19 and 34): imports go one way, between packages
and between the transformer's stages; no module reaches for another's private names, no module
grows past 600 lines, every package says what it holds, every tidy pass shows what it does."""
import ast
import os

import pytest

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 600
# Packages from top to bottom: a module may import its own package and those below it only.
LAYERS = ["s2sad", "s2sad.tools", "s2sad.api", "s2sad.transform", "s2sad.templates",
          "s2sad.runtime", "s2sad.errors", "s2sad.version"]
# Inside s2sad.transform: the stages in pipeline order. A stage imports only itself, the stages
# before it and the shared helpers; the helpers import only each other; pipeline.py, which runs
# the stages, imports anything.
STAGES = ["front", "analysis", "generate", "tidy", "emit"]
SHARED = {"nodes", "naming", "template", "facts"}
TRANSFORM = "s2sad.transform"


def _modules():
    """{dotted module name: path} for s2sad/ and templates/ (installed as s2sad.templates)."""
    found = {}
    for top, dotted in (("s2sad", "s2sad"), ("templates", "s2sad.templates")):
        for directory, _, files in os.walk(os.path.join(CHECKOUT, top)):
            relative = os.path.relpath(directory, os.path.join(CHECKOUT, top))
            if "__pycache__" in relative:
                continue
            package = dotted if relative == "." else f"{dotted}.{relative.replace(os.sep, '.')}"
            for name in files:
                if name.endswith(".py"):
                    module = package if name == "__init__.py" else f"{package}.{name[:-3]}"
                    found[module] = os.path.join(directory, name)
    return found


MODULES = _modules()


def _imports(module, path):
    """[(imported module, imported name or None)] of every import in the file, lazy ones too."""
    tree = ast.parse(open(path).read())
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            target = (base + ("." + node.module if node.module else "")) if node.level \
                else (node.module or "")
            if target.startswith("s2sad"):
                out += [(target, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [(alias.name, None) for alias in node.names if alias.name.startswith("s2sad")]
    return out


def _graph():
    graph = {}
    for module, path in MODULES.items():
        edges = set()
        for target, name in _imports(module, path):
            full = f"{target}.{name}" if name else target
            edges.add(full if full in MODULES else target)
        graph[module] = {e for e in edges if e in MODULES and e != module}
    return graph


def _layer(module):
    return max((i for i, layer in enumerate(LAYERS)
                if module == layer or module.startswith(layer + ".")), default=None)


def test_the_layout_is_what_this_test_reads():
    for package in ["s2sad", "s2sad.api", "s2sad.transform", "s2sad.runtime", "s2sad.tools",
                    "s2sad.templates"]:
        assert package in MODULES
    assert len(MODULES) > 40


def test_no_import_cycles():
    graph, state, cycles = _graph(), {}, []

    def visit(module, path):
        state[module] = "open"
        for other in sorted(graph[module]):
            if state.get(other) == "open":
                cycles.append(path[path.index(other):] + [other] if other in path
                              else [module, other])
            elif other not in state:
                visit(other, path + [other])
        state[module] = "done"
    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_packages_import_only_downwards():
    upward = []
    for module, targets in _graph().items():
        for target in targets:
            if module == "s2sad" or _layer(target) >= _layer(module):
                continue
            upward.append(f"{module} imports {target}")
    assert upward == []


def test_no_private_name_is_imported_from_another_module():
    found = []
    for module, path in MODULES.items():
        for target, name in _imports(module, path):
            if name and name.startswith("_") and not name.startswith("__") \
                    and f"{target}.{name}" not in MODULES:
                found.append(f"{module}: from {target} import {name}")
    assert found == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size_and_docstring(module):
    text = open(MODULES[module]).read()
    assert text.count("\n") <= MAX_LINES, f"{module} has over {MAX_LINES} lines: split it"
    assert ast.get_docstring(ast.parse(text)), f"{module} says nothing about what it holds"


def _transform_role(module):
    """("stage", index) / ("shared", None) / ("runner", None) of a module of s2sad.transform."""
    parts = module.split(".")[2:]
    if not parts or parts == ["pipeline"]:
        return "runner", None
    if parts[0] in STAGES:
        return "stage", STAGES.index(parts[0])
    return ("shared", None) if parts[0] in SHARED else ("unknown", None)


def test_the_transformer_holds_only_stage_packages_and_shared_helpers():
    found = {m.split(".")[2] for m in MODULES if m.startswith(TRANSFORM + ".")}
    assert found == set(STAGES) | SHARED | {"pipeline"}, \
        "a new module of s2sad.transform belongs in a stage package (or is a shared helper)"


def test_stages_import_only_earlier_stages_and_shared_helpers():
    wrong = []
    for module, targets in _graph().items():
        if not module.startswith(TRANSFORM + "."):
            continue
        role, stage = _transform_role(module)
        for target in targets:
            if not target.startswith(TRANSFORM + "."):
                continue
            target_role, target_stage = _transform_role(target)
            if role == "runner" or target_role == "shared":
                continue
            if role == "shared" or target_role != "stage" or target_stage > stage:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_code_outside_the_transformer_calls_it_through_the_pipeline_or_shared_helpers():
    """api/ and tools/ may also use the front end's checks (fence, resolve, containers): they
    read user code the way the transformer does. Nothing else of a stage is theirs to call."""
    wrong = []
    for module, targets in _graph().items():
        if module.startswith(TRANSFORM):
            continue
        for target in targets:
            if target.startswith(TRANSFORM + ".") and \
                    _transform_role(target)[0] == "stage" and \
                    not target.startswith(TRANSFORM + ".front.") and \
                    target != TRANSFORM + ".generate.nancheck":
                wrong.append(f"{module} imports {target}")
    assert wrong == []


# the rewrites: every module of front/ and tidy/ but the tidy order, and the facts fold and the
# containers rely on (no rewrite of their own)
REWRITES = sorted(m for m in MODULES if m.startswith((TRANSFORM + ".tidy.", TRANSFORM + ".front."))
                  and m.rpartition(".")[2] not in ("order", "fold_facts", "container_values"))


@pytest.mark.parametrize("module", REWRITES)
def test_every_rewrite_shows_what_it_does(module):
    """A rewrite's docstring holds a before/after example (`before --> after`, side by side or
    on lines of their own); a tidy pass is run by tidy/order.py."""
    doc = ast.get_docstring(ast.parse(open(MODULES[module]).read()))
    assert "-->" in doc, f"{module}: show a before/after example in the docstring"
    if ".tidy." in module:
        order = open(MODULES[TRANSFORM + ".tidy.order"]).read()
        assert f"{module.rpartition('.')[2]}." in order, f"{module} is not run by tidy/order.py"


def test_no_two_runtime_modules_export_one_name():
    """rt re-exports its modules' helpers with `import *`, the later one silently winning: a
    helper named like another (a shape's `broadcast_like` beside the tangents' one) would change
    what generated code calls."""
    import importlib
    import re as _re
    with open(os.path.join(CHECKOUT, "s2sad", "runtime", "rt.py")) as handle:
        text = handle.read()
    owners = {}
    for module in _re.findall(r"^from \.(\w+) import \*", text, _re.M):
        for name in getattr(importlib.import_module(f"s2sad.runtime.{module}"), "__all__", ()):
            owners.setdefault(name, []).append(module)
    assert not {n: m for n, m in owners.items() if len(m) > 1}
