"""The index of generated files: a new process finds what an earlier one generated for a
function without transforming it again.

    key    sha256 of everything that decides the generated text: the function (its file's text,
           its code, names and defaults), what its code reads from globals and closures,
           recursively through the user functions it reaches (numbers by value, modules and
           library functions by name, user functions by their own description), the mode,
           positions, argument kinds and options, s2sad's own source (s2sad/ and templates/)
           and the cache fingerprint (versions, runtime helpers)
    entry  <cache dir>/index/<key>.json: the generated file and its function, what `Generated`
           says about it (python_only, clogs, unused, outputs, scalar) and the sha256 of every
           generated file it links (itself included), written atomically

A lookup is a hit only if the entry reads back whole and every file it names is there with that
sha256; anything else (missing, edited or truncated files, a corrupt entry) is a miss, and the
pipeline transforms as usual and writes the entry again. There is no key, and the index is not
used, when a rule was registered in this process (`@s2sad.adjoint`: its identity is not
described here), when s2sad's own files changed since this process imported them, or when the
function reads a global that cannot be described safely (an array, an object): transforming
is always correct, the index only saves its time. `S2SAD_INDEX=0` turns it off (to measure the
transformation itself).
"""
import functools
import hashlib
import json
import linecache
import numbers
import os
import time
import types

import numpy

from s2sad import templates
from s2sad.errors import Diagnostic, Location
from s2sad.runtime import cache

from ..front import global_state, resolve, resolve_values

ENV_SWITCH = "S2SAD_INDEX"
FORMAT = 1                           # of the entries; bump when their fields change
DIRECTORY = "index"                  # inside the cache directory
_IMPORTED = time.time()              # s2sad's modules were read before this
_BUILT_IN_RULES = templates.user_generation()  # what registering the built-in rules counted


_ABSENT = object()


def _holds_record(value):
    """Whether a module constant holds an object or a function, which the key cannot describe
    (their code is not part of it)."""
    if resolve.is_record_constant(value) or resolve.is_function_value(value):
        return True
    items = value.values() if isinstance(value, dict) else \
        value if isinstance(value, (list, tuple)) else ()
    return any(_holds_record(v) for v in items)


class _Unkeyable(Exception):
    """Something the generated text may depend on that this module cannot describe."""


# ---- the key -----------------------------------------------------------------------------------

def key(func, what):
    """The index key (hex) of generating `what` (a tuple of strings, ints and sorted tuples:
    mode, positions, kinds, options) from `func`, or None when the index must not be used."""
    if os.environ.get(ENV_SWITCH, "").strip().lower() in ("0", "false", "no", "off"):
        return None
    if templates.user_generation() != _BUILT_IN_RULES:
        return None  # a user rule: the text depends on it, and it is not described here
    engine = _engine()
    if engine is None:
        return None
    try:
        described = _Description().of_function(func)
    except _Unkeyable:
        return None
    except (OSError, ValueError, TypeError, AttributeError, RecursionError):
        return None  # not describable either: transform
    text = repr((FORMAT, engine, cache.fingerprint(), what, described))
    return hashlib.sha256(text.encode()).hexdigest()


class _Description:
    """A function and everything its code reads, as nested tuples of strings and ints."""

    def __init__(self):
        self.parts = []
        self.functions = set()   # ids of the functions described (their parts are in parts)
        self.attributes = set()  # (id of module, attribute) already described

    def of_function(self, func):
        self.function(func)
        return tuple(self.parts)

    def function(self, func):
        """The function's identity; its code, file, defaults and what its names denote go to
        `parts` (once)."""
        code = func.__code__
        identity = ("function", func.__module__, func.__qualname__, func.__name__,
                    code.co_filename, code.co_firstlineno, _code_digest(code))
        if id(func) in self.functions:
            return identity
        self.functions.add(id(func))
        if hasattr(func, "__wrapped__"):
            raise _Unkeyable  # a decorator's wrapper: the pipeline reports it
        defaults = tuple(self.value(v, ()) for v in func.__defaults__ or ())
        keywords = tuple((k, self.value(v, ())) for k, v in sorted((func.__kwdefaults__ or
                                                                     {}).items()))
        self.parts.append((identity, _file_digest(code.co_filename), defaults, keywords))
        names = resolve.code_names(code)
        cells = dict(zip(code.co_freevars, func.__closure__ or ()))
        for name in names:
            if name in cells:
                try:
                    value = cells[name].cell_contents
                except ValueError:  # not assigned yet
                    self.parts.append((identity, name, "unassigned"))
                    continue
            elif name in func.__globals__:
                value = func.__globals__[name]
            else:
                self.parts.append((identity, name, "absent"))  # a builtin, or a local
                continue
            self.parts.append((identity, name, self.value(value, names)))
        return identity

    def value(self, value, names):
        """How a value read by code with these `names` is described."""
        if value is None or isinstance(value, bool):
            return ("constant", repr(value))
        if isinstance(value, (numbers.Number, numpy.generic)):
            return ("number", type(value).__module__, type(value).__qualname__, repr(value))
        if isinstance(value, str):
            return ("str", value)
        if resolve_values.is_generator(value):   # an input drawn from: its class matters
            return ("generator", type(value).__qualname__)
        if resolve.is_constant_array(value) or resolve.is_constant_container(value):
            if _holds_record(value):  # (an object: its methods' code is not described)
                raise _Unkeyable(type(value).__name__)
            return global_state.constant_kind(value)  # an input of generated code: its kind
        if isinstance(value, types.ModuleType):
            self.members(value, names, lambda name: vars(value).get(name, _ABSENT))
            return ("module", value.__name__)
        canonical = resolve.canonical_name(value)
        if canonical is not None:
            return ("canonical", canonical)
        if isinstance(value, types.FunctionType):
            if templates.rule_for(value) is not None or templates.tangent_for(value) is not None:
                code = value.__code__  # differentiated by its rule: linked as it is
                return ("ruled", value.__module__, value.__qualname__, _code_digest(code))
            return self.function(value)
        if isinstance(value, type):  # `Config.SCALE` is inlined too
            self.members(value, names, lambda name: getattr(value, name, _ABSENT))
            return ("class", value.__module__, value.__qualname__)
        if isinstance(value, (types.BuiltinFunctionType, numpy.ufunc)):
            return ("named", type(value).__qualname__, getattr(value, "__module__", None),
                    getattr(value, "__qualname__", getattr(value, "__name__", None)))
        raise _Unkeyable(type(value).__name__)  # an array, an object: resolve reports most

    def members(self, holder, names, get):
        """What a module or class holds under the code's names (`config.SCALE`, `helpers.f`)."""
        for name in names:
            if (id(holder), name) in self.attributes:
                continue
            self.attributes.add((id(holder), name))
            member = get(name)
            if member is not _ABSENT:
                label = f"{holder.__module__}.{holder.__qualname__}" \
                    if isinstance(holder, type) else holder.__name__
                self.parts.append((label, name, self.value(member, names)))


_code_digests = {}  # id(code) -> (code, digest)


def _code_digest(code):
    """sha256 of what a code object runs (bytecode, names, constants, positions): two processes
    get the same digest for the same code."""
    known = _code_digests.get(id(code))
    if known is None or known[0] is not code:
        digest = hashlib.sha256()
        _feed_code(code, digest)
        known = _code_digests[id(code)] = (code, digest.hexdigest())
    return known[1]


def _feed_code(code, digest):
    header = (code.co_name, getattr(code, "co_qualname", ""), code.co_filename,
              code.co_firstlineno, code.co_argcount, code.co_posonlyargcount,
              code.co_kwonlyargcount, code.co_flags, code.co_names, code.co_varnames,
              code.co_freevars, code.co_cellvars)
    digest.update(repr(header).encode())
    digest.update(code.co_code)
    digest.update(code.co_linetable)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _feed_code(const, digest)
        elif isinstance(const, frozenset):  # its order varies with string hashing
            digest.update(repr(("frozenset", sorted(map(repr, const)))).encode())
        else:
            digest.update(repr((type(const).__qualname__, const)).encode())


_file_digests = {}  # path -> (the lines linecache holds, their sha256)


def _file_digest(path):
    """sha256 of the source file's text as inspect (and so the pipeline) reads it."""
    linecache.checkcache(path)
    lines = linecache.getlines(path)
    if not lines:
        raise _Unkeyable(f"no source for {path}")
    known = _file_digests.get(path)
    if known is None or known[0] is not lines:
        known = _file_digests[path] = (lines, hashlib.sha256("".join(lines).encode())
                                       .hexdigest())
    return known[1]


@functools.lru_cache(maxsize=None)
def _engine():
    """sha256 of s2sad's own source (the transformer and the rules decide the text), or None
    when a file changed since this process imported s2sad: the code running is then not the
    code on disk, and what it generates must not be filed under the disk's digest."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    digest = hashlib.sha256()
    for root in (package, os.path.dirname(os.path.abspath(templates.__file__))):
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(directory, name)
                try:
                    if os.stat(path).st_mtime > _IMPORTED - 1.0:
                        return None
                    with open(path, "rb") as handle:
                        content = handle.read()
                except OSError:
                    return None
                digest.update(os.path.relpath(path, root).encode() + b"\0" + content + b"\0")
    return digest.hexdigest()


# ---- entries -----------------------------------------------------------------------------------

class Entry:
    """What an index entry says about a generated file (its text verified)."""

    def __init__(self, path, function, text, python_only, clogs, unused, outputs, scalar):
        self.path, self.function, self.text = path, function, text
        self.python_only, self.clogs, self.unused = python_only, clogs, unused
        self.outputs, self.scalar = outputs, scalar


def find(key):
    """The Entry filed under `key`, or None (no entry, or one that does not check out)."""
    directory = cache.cache_dir()
    try:
        with open(_entry_path(directory, key), encoding="utf-8") as handle:
            data = json.load(handle)
        if data["format"] != FORMAT or data["key"] != key:
            return None
        texts = {}
        for name, sha256 in data["files"].items():
            if os.path.basename(name) != name:
                return None
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                texts[name] = handle.read()
            if hashlib.sha256(texts[name].encode()).hexdigest() != sha256:
                return None  # truncated, edited: transform again (and rewrite it)
        found = Entry(os.path.join(directory, data["file"]), data["function"],
                      texts[data["file"]], tuple(data["python_only"]),
                      tuple(map(_diagnostic, data["clogs"])),
                      tuple(map(_diagnostic, data["unused"])), data["outputs"], data["scalar"])
        if not (isinstance(found.function, str) and isinstance(found.outputs, int)
                and all(isinstance(p, str) for p in found.python_only)):
            return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # missing or unreadable (UnicodeDecodeError and bad JSON are ValueErrors)
    for name, text in texts.items():  # as if this process had stored them
        cache.remember(os.path.join(directory, name), text)
    return found


def record(key, generated, scalar=False):
    """File `generated` (a pipeline.Generated) under `key`; quietly nothing when it cannot be
    described (a generated file elsewhere, a finding of another kind) or the directory cannot
    be written: the index only saves time."""
    directory = cache.cache_dir()
    try:
        files = _linked_files(directory, os.path.basename(generated.path))
        if files is None or os.path.dirname(generated.path) != directory:
            return
        data = {"format": FORMAT, "key": key, "file": os.path.basename(generated.path),
                "function": generated.function, "python_only": list(generated.python_only),
                "clogs": [_plain(d) for d in generated.clogs],
                "unused": [_plain(d) for d in generated.unused],
                "outputs": generated.outputs, "scalar": bool(scalar), "files": files}
        cache.write_atomically(_entry_path(directory, key), json.dumps(data, indent=1),
                               suffix=".json")
    except (OSError, _Unkeyable):
        pass


def _linked_files(directory, name):
    """{file name: sha256} of the generated file and of every one it links (rt.load), or None
    if one is not a generated file of `directory` this process knows."""
    files, todo = {}, [name]
    while todo:
        name = todo.pop()
        if name in files:
            continue
        path = os.path.join(directory, name)
        if not cache.is_known(path):
            return None
        text = cache.text_of(path)
        links = cache.links(text)
        if links is None:
            return None  # a link written another way: do not guess
        files[name] = hashlib.sha256(text.encode()).hexdigest()
        todo += links
    return files


def _entry_path(directory, key):
    return os.path.join(directory, DIRECTORY, f"{key}.json")


def _plain(finding):
    """A Diagnostic as JSON-ready data."""
    if type(finding) is not Diagnostic or not (finding.where is None or
                                               type(finding.where) is Location):
        raise _Unkeyable("a finding of another kind")
    where = finding.where
    return {"where": None if where is None else [where.path, where.line, where.col,
                                                 where.end_col],
            "message": finding.message, "why": finding.why, "fix": finding.fix,
            "severity": finding.severity}


def _diagnostic(data):
    where = data["where"]
    return Diagnostic(None if where is None else Location(*where), data["message"],
                      why=data["why"], fix=data["fix"], severity=data["severity"])
