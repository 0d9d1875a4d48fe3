"""The `s2sad` command (also `python -m s2sad`): look at generated code without writing Python.

    s2sad show examples/demo.py:loss --wrt w        # the generated adjoint, coloured on a terminal
    s2sad show mypackage.model:loss --path          # only the file it lives in
    s2sad show model.py:f --wrt x --types "f8, f8[:, :], i8"   # the file run for these types
    s2sad check examples/clog.py:clogged --fd "(0.7,)"   # where the gradient stops; vs FD
    s2sad templates sum                             # the derivative rules whose name has "sum"
    s2sad cache [--clear]                           # where generated files go; remove them
    s2sad verify [PATTERN] [--tangents|--adjoints]  # check rules against finite differences
    s2sad --version                                 # s2sad 0.1.0

Exit status: 0 done, 1 s2sad could not transform the function (the error says why) or `check`
found something, 2 bad usage (unknown target, file or parameter).
"""
import argparse
import difflib
import importlib
import importlib.util
import inspect
import os
import re
import shutil
import sys

from s2sad.version import __version__

USAGE, FAILED = 2, 1


class UsageError(Exception):
    """A bad command line: printed as `s2sad: error: ...`, exit status 2."""


def main(argv=None):
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["verify"]:  # its own options: python -m s2sad verify --help
        from . import verify
        return verify.main(argv[1:])
    options = parser.parse_args(argv)
    try:
        return options.run(options)
    except UsageError as exc:
        print(f"s2sad: error: {exc}", file=sys.stderr)
        return USAGE
    except Exception as exc:
        from s2sad.errors import S2sadError
        if not isinstance(exc, S2sadError):
            raise
        print(exc, file=sys.stderr)
        return FAILED


def _parser():
    parser = argparse.ArgumentParser(
        prog="s2sad", description="Source-to-source automatic differentiation: show generated "
                                  "gradient code, list derivative rules, manage the cache.")
    parser.add_argument("--version", action="version", version=f"s2sad {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = commands.add_parser(
        "show", help="print the generated gradient code of a function",
        description="Print the generated adjoint of TARGET (syntax-coloured on a terminal, plain "
                    "when piped), or with --path the file it lives in. Generated code is "
                    "specialised on the kinds of the arguments (Python scalars, ints, array "
                    "ranks): with --types it is the file a call with arguments of those types "
                    "runs, without it the general one (more shape bookkeeping).",
        epilog="TYPES: one entry per parameter, in order, separated by commas (fewer entries "
               "than parameters: the rest are unknown). An entry is a scalar (f8, float64, "
               "float, f4, float32; i8, int64, int, i4, int32; b1, bool), an array of one of "
               "those with one ':' per dimension (f8[:], f8[:, :], i8[:, :, :]; Numba's ::1 "
               "for contiguous works too) or array(float64, 2d, C), or ? or _ for an unknown "
               "one. Example: --types \"f8, f8[:, :], i8\". Differentiated parameters are "
               "converted to float, so an int there counts as a float.")
    show.add_argument("target", metavar="TARGET",
                      help="path/to/file.py:func, path/to/file.py::func or package.module:func")
    show.add_argument("--wrt", default=None,
                      help="comma-separated parameter names to differentiate (default: the first)")
    show.add_argument("--types", metavar="TYPES", default=None,
                      help="the argument types to show the code for, e.g. \"f8, f8[:, :], i8\" "
                           "(see below; default: unknown, the general code)")
    show.add_argument("--example", metavar="ARGS", default=None,
                      help="example arguments, a Python expression evaluated in the target's "
                           "module (with np and math), e.g. \"({'W': np.ones((3, 2)), 'b': "
                           "np.zeros(2)}, np.ones(3))\": the code a call with arguments like "
                           "these runs (containers, dataclasses and functions given as "
                           "arguments included; instead of --types)")
    show.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                      help="reverse: the adjoint (grad, vjp); forward: the tangent code (jvp)")
    show.add_argument("--no-optimize", action="store_true",
                      help="skip the clean-up pass (literal folding)")
    show.add_argument("--path", action="store_true",
                      help="print the generated file's path only (the one for --types)")
    show.set_defaults(run=_show)

    check = commands.add_parser(
        "check", help="report where the gradient of a function silently stops",
        description="Transform TARGET without running it and print every finding as "
                    "file:line:col: warning|error: ... (values flowing into int(), round, "
                    "comparisons used as numbers, non-differentiable functions, integer arrays; "
                    "parameters the output does not depend on; unsupported code). Exit status: "
                    "0 clean, 1 findings (or --fd disagrees), 2 usage.")
    check.add_argument("target", metavar="TARGET",
                       help="path/to/file.py:func, path/to/file.py::func or package.module:func")
    check.add_argument("--wrt", default=None,
                       help="comma-separated parameter names to differentiate (default: the "
                            "first)")
    check.add_argument("--fd", metavar="ARGS", default=None,
                       help="a Python expression for example arguments, e.g. "
                            "\"(np.ones(3), 0.5)\" (evaluated in the target's module, with np "
                            "and math): also run the gradient and compare it with finite "
                            "differences")
    check.add_argument("--no-jit", action="store_true",
                       help="with --fd, run the gradient as Python instead of compiling it")
    check.set_defaults(run=_check)

    rules = commands.add_parser(
        "templates", help="list the registered derivative rules",
        description="List the derivative rules (name, kind, Numba, template source) whose name "
                    "contains PATTERN.")
    rules.add_argument("pattern", nargs="?", default="", metavar="PATTERN")
    rules.set_defaults(run=_templates)

    # Listed for --help; main() hands `verify ...` to verify.main, which has its own options.
    commands.add_parser("verify", add_help=False,
                        help="verify derivative rules against finite differences, reverse "
                             "and forward mode (slow; --adjoints or --tangents for one mode)")

    cache = commands.add_parser(
        "cache", help="show or clear the cache of generated files",
        description="Show where generated files are kept and how many there are; --clear "
                    "removes them (they are regenerated on demand).")
    cache.add_argument("--clear", action="store_true")
    cache.set_defaults(run=_cache)
    return parser


# ---- show ---------------------------------------------------------------------------------------

def _show(options):
    from s2sad.transform import pipeline
    if options.types is not None and options.example is not None:
        raise UsageError("give --types or --example, not both")
    types = None if options.types is None else parse_types(options.types)
    func = load_target(options.target)
    positions = _positions(func, options.wrt)
    kinds = pipeline.NO_KINDS if types is None else argument_kinds(func, positions, types)
    if options.example is not None:
        positions, kinds = _example_kinds(func, positions, options.example)
    elif types is None and _dict_parameters(func):   # `params["W"]`: keys read from the source
        positions, kinds = _dict_kinds(func, positions)
    if options.mode == "forward":
        generated = pipeline.tangent(func, positions, kinds)
    else:
        generated = pipeline.adjoint(func, positions, kinds, tidy=not options.no_optimize)
    if options.path:
        print(generated.path)
    else:
        text = generated.text
        print(highlight(text) if sys.stdout.isatty() else text, end="")
    return 0


def _example_kinds(func, positions, expression):
    """(positions among the generated function's parameters, kinds) of a call with the
    arguments `expression` gives: worked out as a call would (containers flattened to their
    leaves), without running the gradient."""
    from s2sad.api.gradients import GradientFunction
    from . import check
    try:
        args = check.example_arguments(expression, func)
    except Exception as exc:  # noqa: BLE001 -- the user's own expression
        raise UsageError(f"--example {expression!r}: {type(exc).__name__}: {exc}") from None
    gradient = GradientFunction(func, positions, jit=False, with_value=False)
    gradient.runner(gradient.bind(args, {}))  # (transforms; runs nothing)
    return gradient.leaf_positions(gradient._kinds), gradient._kinds


def _dict_parameters(func):
    """{parameter: its keys in the order the source first reads them} for the parameters the
    function reads only as `p["key"]` (a dict of named leaves, the common model signature)."""
    import gast
    from s2sad.transform import nodes
    from s2sad.transform.front import parse
    try:
        tree = parse.parse_function(func).tree
    except Exception:   # noqa: BLE001 -- the transform reports an unreadable source itself
        return {}
    found = {}
    for name in [a.id for a in tree.args.args]:
        subscripts = [n for n in nodes.walk(tree) if isinstance(n, gast.Subscript) and
                      isinstance(n.value, gast.Name) and n.value.id == name]
        uses = [n for n in nodes.walk(tree) if isinstance(n, gast.Name) and n.id == name]
        keys = [n.slice.value for n in sorted(subscripts, key=lambda n: (n.lineno, n.col_offset))
                if isinstance(n.slice, gast.Constant) and isinstance(n.slice.value, str)]
        if keys and len(keys) == len(subscripts) == len(uses) - 1:  # (and its parameter)
            found[name] = list(dict.fromkeys(keys))
    return found


def _dict_kinds(func, positions):
    """(positions, kinds) of the general file for a function of dicts (`_dict_parameters`):
    the dicts' keys known, nothing known of their values or of the other arguments."""
    import inspect
    from s2sad.api.gradients import GradientFunction
    dicts = _dict_parameters(func)
    args = [{key: 1.0 for key in dicts[name]} if name in dicts else 1.0
            for name in inspect.signature(func).parameters]
    from s2sad.transform import pipeline
    gradient = GradientFunction(func, positions, jit=False, with_value=False)
    kinds = pipeline.NO_KINDS[:3] + (gradient.bind(args, {}).layout.structures,)
    return gradient.leaf_positions(kinds), kinds


def load_target(target):
    """The function named by `file.py:func`, `file.py::func` or `package.module:func`."""
    where, separator, name = target.rpartition(":")
    where = where.rstrip(":")
    if not separator or not where or not name:
        raise UsageError(f"bad target {target!r}: write path/to/file.py:func or "
                         "package.module:func")
    if where.endswith(".py") or os.sep in where:
        module = _load_file(where)
        label = where
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise UsageError(f"cannot import module {where!r} ({exc})") from None
        except Exception as exc:  # the module's own code failed
            raise UsageError(f"importing {where} failed: {_failure(exc)}") from None
        label = where
    func = _function(getattr(module, name, None))
    if func is None:
        functions = [n for n, v in vars(module).items()
                     if _function(v) is not None and _function(v).__module__ == module.__name__]
        close = difflib.get_close_matches(name, functions, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else \
            (f"; it defines {', '.join(sorted(functions))}" if functions else "")
        raise UsageError(f"no function '{name}' in {label}{hint}")
    return func


def _function(value):
    """A plain function, also one decorated with @s2sad.grad."""
    from s2sad.api.gradients import GradientFunction
    if isinstance(value, GradientFunction):
        return value.func
    return value if inspect.isfunction(value) else None


def _load_file(path):
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    path = os.path.abspath(path)
    name = "_s2sad_cli_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    sys.path.insert(0, os.path.dirname(path))  # its own imports of neighbouring modules
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a syntax error, or the file's own code failed
        sys.modules.pop(name, None)
        raise UsageError(f"cannot load {path}: {_failure(exc)}") from None
    return module


def _failure(exc):
    """`SyntaxError: expected ':' (broken.py, line 2)`: the error and where in the user's
    file it happened."""
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} ({os.path.basename(exc.filename or '?')}, line " \
               f"{exc.lineno})"
    tb, where = exc.__traceback__, ""
    while tb is not None:  # the innermost frame outside importlib
        if "importlib" not in tb.tb_frame.f_code.co_filename:
            where = f" ({os.path.basename(tb.tb_frame.f_code.co_filename)}, line {tb.tb_lineno})"
        tb = tb.tb_next
    return f"{type(exc).__name__}: {exc}{where}"


def _positions(func, wrt):
    names = list(inspect.signature(func).parameters)
    if not names:
        raise UsageError(f"{func.__name__} has no parameters to differentiate")
    if wrt is None:
        return (0,)
    positions = []
    for item in (w.strip() for w in wrt.split(",") if w.strip()):
        if item not in names:
            raise UsageError(f"--wrt {item}: {func.__name__} has no parameter '{item}'; its "
                             f"parameters are {', '.join(names)}")
        positions.append(names.index(item))
    return tuple(positions)


_KEYWORDS = r"\b(def|return|for|in|while|if|elif|else|import|from|not|and|or|break|continue)\b"


def highlight(text):
    """ANSI colours for a terminal: comments dim green, keywords bold, the adjoint names cyan."""
    out = []
    for line in text.splitlines(keepends=True):
        code, hashed, comment = line.partition("#")
        code = re.sub(_KEYWORDS, "\033[1m\\1\033[0m", code)
        code = re.sub(r"\b(d\w+)\b", "\033[36m\\1\033[0m", code)
        out.append(code + (f"\033[32m#{comment.rstrip(chr(10))}\033[0m\n" if hashed else ""))
    return "".join(out)


# ---- show --types ------------------------------------------------------------------------------
# Generated code is specialised on what is known of the arguments (calls.py Transformed.runner
# works it out from the values of a call): which are Python or NumPy scalar numbers, which of
# those are ints, and the number of dimensions of arrays. --types states the same for `show`.

_FLOATS = ("f8", "float64", "float", "f4", "float32", "f2", "float16", "double", "single")
_INTS = ("i8", "int64", "int", "i4", "int32", "i2", "int16", "i1", "int8", "intp",
         "u8", "uint64", "u4", "uint32", "u2", "uint16", "u1", "uint8", "uintp")
_BOOLS = ("b1", "bool", "bool_")
_UNKNOWN = ("?", "_")
TYPES_ACCEPTED = ("? or _ (unknown); floats f8, float64, float, f4, float32 (any float); ints "
                  "i8, int64, int, i4, int32 (any int, also u1..u8); bools b1, bool; arrays "
                  "of those with one ':' per dimension: f8[:], f8[:, :], i8[:, :, :] (::1 for "
                  "contiguous), or array(float64, 2d, C)")


class ArgType:
    """One entry of --types: `dtype` "float", "int" or "bool" (None: unknown), `ndim` 0 for a
    scalar, the number of dimensions of an array (None: not an array)."""

    def __init__(self, text, dtype=None, ndim=None):
        self.text, self.dtype, self.ndim = text, dtype, ndim

    def __repr__(self):
        return f"ArgType({self.text!r}, {self.dtype!r}, {self.ndim!r})"


def parse_types(spec):
    """The entries of a --types string, in order (commas inside brackets do not split)."""
    if not spec.strip():
        return []
    entries, depth, start = [], 0, 0
    for i, char in enumerate(spec + ","):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
            if depth < 0:
                raise UsageError(f"--types {spec!r}: unbalanced {char!r}")
        elif char == "," and depth == 0:
            entries.append(spec[start:i].strip())
            start = i + 1
    if depth:
        raise UsageError(f"--types {spec!r}: a bracket is not closed")
    return [_arg_type(text, number) for number, text in enumerate(entries, 1)]


def _dtype(name):
    name = re.sub(r"^(numpy|np)\.", "", name.strip().lower())
    return "float" if name in _FLOATS else "int" if name in _INTS else \
        "bool" if name in _BOOLS else None


def _arg_type(text, number):
    if not text:
        raise UsageError(f"--types: entry {number} is empty (write ? for a parameter of unknown "
                         f"type); accepted: {TYPES_ACCEPTED}")
    if text in _UNKNOWN:
        return ArgType(text)
    dtype, ndim = _dtype(text), 0
    subscript = re.fullmatch(r"([\w.]+)\s*\[(.*)\]", text)
    numba = re.fullmatch(r"array\(\s*([\w.]+)\s*,\s*(\d+)d\s*(?:,\s*[CFA]\s*)?\)", text)
    if subscript:
        dims = [d.replace(" ", "") for d in subscript.group(2).split(",")]
        dtype, ndim = _dtype(subscript.group(1)), len(dims)
        if not all(d in (":", "::1") for d in dims):
            dtype = None
    elif numba:
        dtype, ndim = _dtype(numba.group(1)), int(numba.group(2))
    if dtype is None:
        raise UsageError(f"--types: entry {number} {text!r} is not a type s2sad knows; "
                         f"accepted: {TYPES_ACCEPTED}")
    return ArgType(text, dtype, ndim)


def argument_kinds(func, positions, types):
    """(scalars, ints, ranks) of `pipeline.adjoint` for arguments of these types, as a call
    with such values works them out (calls.py): differentiated arguments are converted to
    float first; bools are not numbers there; unknown ones are in no set."""
    names = list(inspect.signature(func).parameters)
    if len(types) > len(names):
        raise UsageError(f"--types has {len(types)} entries but {func.__name__} takes "
                         f"{len(names)} parameter{'s' * (len(names) != 1)}: {', '.join(names)}")
    wrt = {names[i] for i in positions}
    scalars, ints, ranks = set(), set(), set()
    for name, kind in zip(names, types):
        if kind.dtype == "bool" and name in wrt:
            what = "a bool" if kind.ndim == 0 else "an array of bools"
            raise UsageError(f"--types: '{name}' is {kind.text}, {what}, and cannot be "
                             "differentiated; leave it out of --wrt or give it a float type")
        if kind.dtype is None or kind.dtype == "bool" and kind.ndim == 0:
            continue
        if kind.ndim == 0:
            scalars.add(name)
            if kind.dtype == "int" and name not in wrt:
                ints.add(name)
        elif kind.ndim > 0:
            ranks.add((name, kind.ndim))
    return frozenset(scalars), frozenset(ints), frozenset(ranks), ()


# ---- check -------------------------------------------------------------------------------------

def _check(options):
    from . import check
    func = load_target(options.target)
    positions = _positions(func, options.wrt)
    found = check.findings(func, positions)
    for finding in found:
        print(finding.render())
        print()
    print(check.summary(found, func.__name__))
    status = FAILED if found else 0
    if options.fd is not None and not any(d.severity == "error" for d in found):
        try:
            args = check.example_arguments(options.fd, func)
        except Exception as exc:
            raise UsageError(f"--fd {options.fd!r}: {type(exc).__name__}: {exc}") from None
        for name, error, where in check.against_finite_differences(
                func, positions, args, jit=False if options.no_jit else None):
            verdict = "ok" if error <= check.FD_TOLERANCE else "DISAGREES"
            print(f"finite differences, d/d{name}: worst relative error {error:.2e} at {where} "
                  f"({verdict}, tolerance {check.FD_TOLERANCE:.0e})")
            if error > check.FD_TOLERANCE:
                status = FAILED
    return status


# ---- templates ----------------------------------------------------------------------------------

def _templates(options):
    from s2sad import templates
    from s2sad.templates.methods import METHODS

    from . import verify
    rows = []
    for rule in templates.REGISTRY.values():
        name = verify.label(rule.primal)
        if options.pattern in name:
            kind = {"adjoint": "template", "nondifferentiable": "no gradient",
                    "not_implemented": "not implemented"}[rule.kind]
            numba = "" if rule.kind != "adjoint" else ("numba" if rule.numba else "python")
            source = _relative(rule.origin) if rule.template is not None else rule.note
            rows.append((name, kind, numba, source))
    for method in METHODS.values():
        name = verify.label(method)
        if options.pattern in name:
            rows.append((name, "method", "", f"means {verify.label(method.function)}"))
    if not rows:
        print(f"no rule matches {options.pattern!r}", file=sys.stderr)
        return FAILED
    width = max(len(r[0]) for r in rows)
    for name, kind, numba, source in sorted(rows):
        print(f"{name:<{width}}  {kind:<15}  {numba:<6}  {source}".rstrip())
    return 0


def _relative(origin):
    path, line = origin.rsplit(":", 1)
    return f"templates/{os.path.basename(path)}:{line}"


# ---- cache --------------------------------------------------------------------------------------

def _cache(options):
    from s2sad.runtime.cache import cache_dir
    directory = cache_dir()
    files = [f for f in os.listdir(directory) if f.endswith(".py")]
    if options.clear:
        for entry in os.listdir(directory):
            full = os.path.join(directory, entry)
            if entry.endswith((".py", ".tmp")) or entry == "__pycache__":
                shutil.rmtree(full) if os.path.isdir(full) else os.unlink(full)
        print(f"removed {len(files)} generated files from {directory}")
        return 0
    size = sum(os.path.getsize(os.path.join(directory, f)) for f in files)
    print(f"{directory}: {len(files)} generated files, {size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
