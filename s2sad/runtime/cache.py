"""Content-addressed files for generated code.

A generated module is stored as `<cache dir>/<stem>__<digest>.py`, where the digest covers the
module's text and everything that changes what the text means without changing the text: s2sad's
runtime helpers and version, and the Python, NumPy and Numba versions. A callee's file name is
part of its caller's text, so a changed callee gives its caller a new file too; Numba's own cache
(which looks only at one file) can therefore never serve a stale caller.

Files are written atomically (a temporary file, then `os.replace`) so a concurrent process never
reads half a file, and an existing file with the right content is never rewritten (its Numba
cache stays valid); one with other content (truncated, corrupt) is replaced.
"""
import functools
import hashlib
import importlib.metadata
import os
import platform
import re
import sys
import tempfile
import warnings

import numpy

from s2sad.errors import CacheWarning

ENV_DIR = "S2SAD_CACHE_DIR"
MAX_STEM = 96


_fallbacks = {}   # wanted directory -> the temporary one used since it failed


def cache_dir():
    """The directory for generated files: $S2SAD_CACHE_DIR, else the user's cache directory
    (created if missing). When it cannot be created or written, a temporary directory for this
    process, with a CacheWarning naming both and how to fix it."""
    wanted = wanted_dir()
    return _fallbacks.get(wanted) or _usable_dir(wanted)


def wanted_dir():
    return os.environ.get(ENV_DIR) or _default_dir()


@functools.lru_cache(maxsize=None)
def _usable_dir(wanted):
    try:
        os.makedirs(wanted, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=wanted, prefix=".probe-", delete=True)
        probe.close()
        return wanted
    except OSError as exc:
        return _fall_back(wanted, exc)


def _fall_back(wanted, exc):
    if wanted not in _fallbacks:
        _fallbacks[wanted] = tempfile.mkdtemp(prefix="s2sad-")
        reason = exc.strerror or type(exc).__name__
        warnings.warn(f"s2sad: cannot write generated code to {wanted} ({reason}); using "
                      f"{_fallbacks[wanted]} for this process, so compiled code is not kept for "
                      f"the next one. Fix: set {ENV_DIR} to a writable directory, or make "
                      f"{wanted} writable.", CacheWarning, stacklevel=3)
    return _fallbacks[wanted]


def directories():
    """Every directory this process may have put generated files in (a caller's file names
    its callees by file name, and the cache directory may have changed since)."""
    return list(dict.fromkeys([cache_dir(), *_fallbacks.values(),
                               *(os.path.dirname(p) for p in _stored)]))


def _default_dir():
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        return os.path.join(base, "s2sad", "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/s2sad")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "s2sad")


@functools.lru_cache(maxsize=None)
def fingerprint():
    """What, besides a module's text, decides what the module computes."""
    from s2sad.version import __version__
    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for part in (__version__, platform.python_version(), numpy.__version__,
                 importlib.metadata.version("numba")):
        digest.update(part.encode() + b"\0")
    for helper in sorted(f for f in os.listdir(here) if f.endswith(".py")):
        with open(os.path.join(here, helper), "rb") as handle:  # the whole runtime package
            digest.update(handle.read())
    return digest.hexdigest()


def store(stem, text):
    """Write `text` to its content-addressed path (if not already there) and return the path.
    A file there with other content (truncated, corrupt, edited) is replaced; a cache
    directory that vanished is created again, one that cannot be written is given up for a
    temporary one (see cache_dir)."""
    digest = hashlib.sha256((fingerprint() + "\0" + text).encode()).hexdigest()[:16]
    if len(stem) > MAX_STEM:  # file names have a length limit; the digest keeps it unique
        stem = stem[:MAX_STEM].rstrip("_")
    name = f"{stem}__{digest}.py"
    path = os.path.join(cache_dir(), name)
    if not _has_content(path, text):
        try:
            write_atomically(path, text)
        except OSError as exc:
            path = os.path.join(_fall_back(os.path.dirname(path), exc), name)
            if not _has_content(path, text):
                write_atomically(path, text)
    _stored[path] = text
    return path


def text_of(path):
    """The text of a generated file, as this process stored it: a file changed or deleted
    since (truncated by a full disk, removed by `s2sad cache --clear`) is written again."""
    text = _stored.get(path)
    if text is None:  # not stored by this process: what is on disk
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    if not _has_content(path, text):
        try:
            write_atomically(path, text)
        except OSError:
            pass  # the text is right here; only Numba's disk cache needs the file
    return text


def remember(path, text):
    """Take `text`, read from `path` and checked by the caller (the index of generated files),
    as what this process stored there: text_of serves it, and writes it again if it goes."""
    _stored[path] = text


_LINK = re.compile(r"rt\.load\(__name__, '([A-Za-z0-9_]+)', ")


def links(text):
    """The file names a generated module links to (`rt.load(__name__, '<stem>', ...)`), or
    None if it links in another way (then do not guess)."""
    stems = _LINK.findall(text)
    return None if len(stems) != text.count("rt.load(") else [f"{s}.py" for s in stems]


def bundle(path):
    """{file name: text} of the generated file `path` and of every one it links: what a
    gradient function carries when it is pickled (`install` puts it in another cache)."""
    files, todo = {}, [os.path.basename(path)]
    directory = os.path.dirname(path)
    while todo:
        name = todo.pop()
        if name in files:
            continue
        candidates = [os.path.join(d, name) for d in [directory, *directories()]]
        found = next((p for p in candidates if is_known(p)), None)
        if found is None:
            raise FileNotFoundError(f"s2sad: the generated file {name} is gone")
        files[name] = text_of(found)
        todo += links(files[name]) or []
    return files


def install(files):
    """Put the files of a `bundle` (named by their content digest) in this process's cache
    directory (or, if it cannot be written, a temporary one); the directory they are in."""
    directory = cache_dir()
    try:
        _write_all(directory, files)
    except OSError as exc:
        directory = _fall_back(directory, exc)
        _write_all(directory, files)
    return directory


def _write_all(directory, files):
    for name, text in files.items():
        path = os.path.join(directory, name)
        if not _has_content(path, text):
            write_atomically(path, text)
        _stored[path] = text


def is_known(path):
    """Whether `path` is a generated file: stored by this process, or on disk."""
    return path in _stored or os.path.exists(path)


_stored = {}   # path -> text of every file this process stored


def write_atomically(path, text, suffix=".py"):
    """Atomically: a temporary file in the same directory, then os.replace."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)  # deleted while we ran (s2sad cache --clear)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _has_content(path, text):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read() == text
    except (OSError, UnicodeDecodeError):
        return False
