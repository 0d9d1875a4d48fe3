"""Content-addressed files for generated code.

A generated module is stored as `<cache dir>/<stem>__<digest>.py`, where the digest covers the
module's text and everything that changes what the text means without changing the text: s2sad's
runtime helpers and version, and the Python, NumPy and Numba versions. A callee's file name is
part of its caller's text, so a changed callee gives its caller a new file too; Numba's own cache
(which looks only at one file) can therefore never serve a stale caller.

Files are written atomically (a temporary file, then `os.replace`) so a concurrent process never
reads half a file, and an existing file with the right content is never rewritten (its Numba
cache stays valid).
"""
import functools
import hashlib
import importlib.metadata
import os
import platform
import sys
import tempfile
import warnings

import numpy

ENV_DIR = "S2SAD_CACHE_DIR"
MAX_STEM = 96


@functools.lru_cache(maxsize=None)
def cache_dir():
    """The directory for generated files: $S2SAD_CACHE_DIR, else the user's cache directory.

    Falls back to a temporary directory, with a warning, when it cannot be created or written.
    """
    wanted = os.environ.get(ENV_DIR) or _default_dir()
    try:
        os.makedirs(wanted, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=wanted, prefix=".probe-", delete=True)
        probe.close()
        return wanted
    except OSError as exc:
        fallback = tempfile.mkdtemp(prefix="s2sad-")
        warnings.warn(f"s2sad: cannot write generated code to {wanted} ({exc.strerror}); using "
                      f"{fallback} for this process. Set {ENV_DIR} to a writable directory.",
                      stacklevel=2)
        return fallback


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
    from . import __version__
    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for part in (__version__, platform.python_version(), numpy.__version__,
                 importlib.metadata.version("numba")):
        digest.update(part.encode() + b"\0")
    for helper in sorted(f for f in os.listdir(here) if f.startswith("rt") and f.endswith(".py")):
        with open(os.path.join(here, helper), "rb") as handle:  # rt.py, rt_numba_linalg.py...
            digest.update(handle.read())
    return digest.hexdigest()


def store(stem, text):
    """Write `text` to its content-addressed path (if not already there) and return the path."""
    digest = hashlib.sha256((fingerprint() + "\0" + text).encode()).hexdigest()[:16]
    if len(stem) > MAX_STEM:  # file names have a length limit; the digest keeps it unique
        stem = stem[:MAX_STEM].rstrip("_")
    path = os.path.join(cache_dir(), f"{stem}__{digest}.py")
    if _has_content(path, text):
        return path
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-",
                                         suffix=".py")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return path


def _has_content(path, text):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read() == text
    except (OSError, UnicodeDecodeError):
        return False
