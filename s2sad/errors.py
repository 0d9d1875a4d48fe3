"""Errors s2sad raises, formatted like a compiler's.

User errors (unsupported syntax, no template, bad arguments) say where, why and how to fix;
internal errors say "this is a bug in s2sad". Both derive from `S2sadError`, so a caller can catch
everything s2sad raises with one clause.

    examples/quad.py:7:11: error: no derivative template for numpy.flip (argument 'm')
        7 |     z = np.flip(y)
          |         ^^^^^^^^^^
      why: numpy.flip has no template, and its source cannot be differentiated
      fix: add one with @s2sad.adjoint(numpy.flip), or wrap the value in s2sad.stop_gradient(...)
"""
import dataclasses
import inspect
import linecache
import os


class S2sadError(Exception):
    """Base class of every error s2sad raises."""


class UserError(S2sadError):
    """The input cannot be differentiated as written; the message says where and how to fix it.

    Takes Diagnostics (one or several, reported together), or for a problem with no place in
    any source a plain message."""

    def __init__(self, diagnostics):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic(None, diagnostics)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__(self._render())

    def _render(self):
        text = "\n\n".join(d.render() for d in self.diagnostics)
        if len(self.diagnostics) > 1:
            text = f"{len(self.diagnostics)} problems found:\n\n" + text
        return text


class UnsupportedError(UserError):
    """Syntax or names s2sad does not differentiate (yet)."""


class TemplateError(UserError):
    """A call has no derivative template, or a template is malformed."""


class GradientCutError(UserError):
    """With `strict=True`: a place where the gradient silently stops (see GradientCutWarning)."""


class NonFiniteError(S2sadError, FloatingPointError):
    """With `check_nan=True`: an adjoint statement produced a NaN or an infinity."""


class S2sadWarning(UserWarning):
    """Base class of the warnings s2sad gives."""


class GradientCutWarning(S2sadWarning):
    """A differentiated value flows into something without a gradient (int(), round, a
    comparison used as a number...): the gradient along that path is zero."""


class ZeroGradientWarning(S2sadWarning):
    """The output does not depend on a parameter the gradient is taken w.r.t."""


class OutputError(UserError, ValueError):
    """The differentiated function returned something `grad` cannot seed (e.g. an array)."""


class ArgumentError(UserError, TypeError):
    """Bad arguments to s2sad's API or to a gradient function (wrt, dtypes, counts)."""


class CacheWarning(S2sadWarning):
    """The cache directory cannot be used; generated code goes to a temporary one."""


class InternalError(S2sadError):
    """A bug in s2sad itself."""

    def __init__(self, message):
        super().__init__(f"{message}\n  this is a bug in s2sad; please report it with the function "
                         "you differentiated")


@dataclasses.dataclass
class Location:
    """A span in a real source file (line is 1-based, columns 0-based as in `ast`)."""

    path: str
    line: int
    col: int = 0
    end_col: int = None

    def __str__(self):
        return f"{_display_path(self.path)}:{self.line}:{self.col + 1}"


def call_site():
    """The Location of the innermost call from outside s2sad (the user's `s2sad.grad(f, ...)`
    or `df(x)`), with its columns; None if there is none."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = inspect.currentframe()
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
    if frame is None:
        return None
    positions = getattr(inspect.getframeinfo(frame, context=0), "positions", None)  # 3.11+
    line = (positions and positions.lineno) or frame.f_lineno
    col = (positions and positions.col_offset) or 0
    end_col = positions.end_col_offset if positions and positions.end_lineno == line else None
    return Location(frame.f_code.co_filename, line, col, end_col)


@dataclasses.dataclass
class Diagnostic:
    """One finding: where, what, why and how to fix it."""

    where: Location
    message: str
    why: str = ""
    fix: str = ""
    severity: str = "error"

    def render(self):
        if self.where is None:  # nowhere in any source: the message alone
            lines = [f"{self.severity}: {self.message}"]
        else:
            lines = [f"{self.where}: {self.severity}: {self.message}"]
            lines += _source_excerpt(self.where)
        for label, text in (("why", self.why), ("fix", self.fix)):
            if text:
                lines.append(f"  {label}: " + text.replace("\n", "\n       "))
        return "\n".join(lines)


def _display_path(path):
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return rel if not rel.startswith("..") else path


def _source_excerpt(where):
    text = linecache.getline(where.path, where.line).rstrip("\n")
    if not text:
        return []
    gutter = f"{where.line:5d} | "
    end = where.end_col if where.end_col and where.end_col > where.col else len(text.rstrip())
    carets = "^" * max(1, end - where.col)
    return [gutter + text, " " * (len(gutter) - 2) + "| " + " " * where.col + carets]
