"""The `s2sad` command (also `python -m s2sad`): look at generated code without writing Python.

    s2sad show examples/demo.py:loss --wrt w        # the generated adjoint, coloured on a terminal
    s2sad show mypackage.model:loss --path          # only the file it lives in
    s2sad check examples/clog.py:clogged --fd "(0.7,)"   # where the gradient stops; vs FD
    s2sad templates sum                             # the derivative rules whose name has "sum"
    s2sad cache [--clear]                           # where generated files go; remove them
    s2sad verify [PATTERN] [--tangents|--adjoints]  # check rules against finite differences

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
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = commands.add_parser(
        "show", help="print the generated gradient code of a function",
        description="Print the generated adjoint of TARGET (syntax-coloured on a terminal, plain "
                    "when piped), or with --path the file it lives in.")
    show.add_argument("target", metavar="TARGET",
                      help="path/to/file.py:func, path/to/file.py::func or package.module:func")
    show.add_argument("--wrt", default=None,
                      help="comma-separated parameter names to differentiate (default: the first)")
    show.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                      help="reverse: the adjoint (grad, vjp); forward: the tangent code (jvp)")
    show.add_argument("--no-optimize", action="store_true",
                      help="skip the clean-up pass (literal folding)")
    show.add_argument("--path", action="store_true", help="print the generated file's path only")
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
    func = load_target(options.target)
    positions = _positions(func, options.wrt)
    if options.mode == "forward":
        generated = pipeline.tangent(func, positions)
    else:
        generated = pipeline.adjoint(func, positions, tidy=not options.no_optimize)
    if options.path:
        print(generated.path)
    else:
        text = generated.text
        print(highlight(text) if sys.stdout.isatty() else text, end="")
    return 0


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
