"""Numba's disk cache, made safe to share and used for rt's helpers too.

Generated gradients are compiled with `numba.njit(cache=True)`. Two things are added here:

- **Checked files.** Numba's own cache files trust what they read; `_CheckedCacheFile` verifies
  a sha256 and the key of everything it loads, so a truncated, corrupt or mixed-up file reads as
  "not cached" (details in its docstring).
- **rt's helpers are cached as well** (`install_helper_cache`). Every process used to compile
  each helper a gradient calls (`rt.keep_row`, `rt.unbroadcast`, the matmul adjoints, ...):
  about 3 of the 9.5 s of the GMM benchmark's first call. Numba can cache them, but on its own
  it would (1) check only the helper's own file, while helpers call each other across the
  runtime package, so an edited `core.py` would leave stale machine code in a helper defined in
  `buffers.py`; (2) refuse helpers `dispatch.generate` compiles from source lines, which have no
  file; (3) use its unchecked files in a directory several processes write at once. So a helper
  is cached where Numba caches any function of its file (`s2sad/runtime/__pycache__`, or Numba's
  user-wide cache directory when that is read-only, or $NUMBA_CACHE_DIR): once per
  installation, not per generated function. Its stamp is the fingerprint of the whole runtime
  package and the versions (`cache.fingerprint`); a helper without a file is cached as if in
  dispatch.py, told apart by the digest of its text; the files are checked ones.
"""
import functools
import hashlib
import os
import pickle

from . import cache

_RUNTIME = __name__.rpartition(".")[0] + "."    # "s2sad.runtime."
_helper_cache = []     # [True] once installed, [False] if this Numba cannot have it


def install_helper_cache():
    """Make `numba.jit(cache=True)` on rt's helpers use the cache described above (once per
    process). False if this Numba's caching internals differ: the helpers then compile in every
    process, as they did before."""
    if not _helper_cache:
        _helper_cache.append(_install())
    return _helper_cache[0]


def _install():
    try:
        from numba.core import caching, config, dispatcher
        locator_base = caching._CacheLocator
        impl_base = caching.CompileResultCacheImpl
        function_cache = dispatcher.FunctionCache
    except (ImportError, AttributeError):
        return False
    if getattr(config, "CACHE_LOCATOR_CLASSES", None) or _checked_cache_class() is None:
        return False    # the user chose Numba's locators; theirs would refuse generated helpers

    standard_locators = list(impl_base._locator_classes)
    # Numba's key leaves out how the code was compiled: without this, a helper compiled with
    # NUMBA_OPT=0 (as tools/verify.py does) served later processes, 8x slower (LSTM gradient)
    settings = hashlib.sha256(repr((str(config.OPT), config.BOUNDSCHECK, config.DEBUGINFO_DEFAULT,
                                    config.FULL_TRACEBACKS)).encode()).hexdigest()[:8]

    class HelperLocator(locator_base):
        """Where a helper's compiled code goes, and what makes it stale (see the module
        docstring)."""

        def __init__(self, path, disambiguator, py_file):
            self._path = path
            self._disambiguator = disambiguator
            self._py_file = py_file     # Numba's warnings name it

        def get_cache_path(self):
            return self._path

        def get_source_stamp(self):
            return cache.fingerprint()

        def get_disambiguator(self):
            return self._disambiguator

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.exists(py_file):  # (closures of one `def` differ by what they hold)
                anchor = py_file
                disambiguator = f"{py_func.__code__.co_firstlineno}{_closure_digest(py_func)}"
            else:   # dispatch.generate's "<s2sad.runtime.name.digest>": its text's digest
                anchor = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dispatch.py")
                disambiguator = hashlib.sha256(py_file.encode()).hexdigest()[:16]
            for numbas in standard_locators:    # where Numba would cache a function of `anchor`
                found = numbas.from_function(py_func, anchor)
                if found is not None:
                    return cls(found.get_cache_path(), f"{disambiguator}-{settings}", py_file)
            return None

    class HelperImpl(impl_base):
        _locator_classes = [HelperLocator]

        def check_cachable(self, cres):
            # Numba's check, without its warning: a helper that holds a global array (the
            # sorting networks) is compiled in every process, which is no news to the user
            return (all(lifted.can_cache for lifted in cres.lifted)
                    and not cres.library.has_dynamic_globals)

    class HelperCache(function_cache):
        _impl_class = HelperImpl

        def __init__(self, py_func):
            super().__init__(py_func)
            self._cache_file.__class__ = _checked_cache_class()

    def function_cache_for(py_func):
        """What Numba's Dispatcher.enable_caching makes: ours for rt's helpers, Numba's own
        for every other function."""
        if (getattr(py_func, "__module__", None) or "").startswith(_RUNTIME):
            return HelperCache(py_func)
        return function_cache(py_func)

    dispatcher.FunctionCache = function_cache_for
    return True


def _closure_digest(py_func, depth=0):
    """What tells apart the closures one `def` makes (`elementwise(scalar)` for each special
    function): the functions and values their cells hold, closures in them followed. Without
    it they share one cache entry, and a process loads another closure's machine code."""
    parts = []
    for cell in getattr(py_func, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            value = None
        value = getattr(value, "py_func", value)  # a Numba dispatcher: the function it wraps
        name = getattr(value, "__qualname__", None)
        parts.append(f"{getattr(value, '__module__', '')}.{name}" if name else repr(value)[:200])
        if depth < 3 and getattr(value, "__closure__", None):
            parts.append(_closure_digest(value, depth + 1))
    return "-" + hashlib.sha256("|".join(parts).encode()).hexdigest()[:12] if parts else ""


def check_files(dispatcher):
    """Make the dispatcher's disk cache verify what it loads (see _CheckedCacheFile)."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    checked = _checked_cache_class()
    if checked is not None and type(cache_file) is checked.__bases__[0]:
        cache_file.__class__ = checked


@functools.lru_cache(maxsize=None)
def _checked_cache_class():
    try:
        from numba.core.caching import IndexDataCacheFile
    except ImportError:  # another Numba layout: its own cache files, unchecked
        return None

    class _CheckedCacheFile(IndexDataCacheFile):
        """Numba's cache files, each holding a sha256 of its content; data files are named by
        their key and hold it. Numba's own format trusts the files: a truncated index raised
        an UnpicklingError, and two processes compiling different signatures at once could
        both write `<name>.1.nbc` (numbered data files), so that one key's index entry named
        the other's code. A data file is found by its key's name, so a lost index entry costs
        nothing. Anything that does not verify reads as "not cached"."""

        def save(self, key, data):
            self._index_entry(key)
            self._save_data(self._data_name(key), (key, self._version, self._source_stamp, data))

        def load(self, key):
            # found by its name, not through the index: two processes saving other keys at
            # once can each rewrite the index without the other's entry
            try:
                stored_key, version, stamp, data = self._load_data(self._data_name(key))
            except (OSError, ValueError, EOFError, pickle.UnpicklingError, TypeError):
                return None
            if (stored_key, version, stamp) != (key, self._version, self._source_stamp):
                return None
            self._index_entry(key)  # repairs an index another process or a crash spoiled
            return data

        def _index_entry(self, key):
            overloads = self._load_index()
            if overloads.get(key) != self._data_name(key):
                overloads[key] = self._data_name(key)
                self._save_index(overloads)

        def _data_name(self, key):
            return f"{self._index_name[:-4]}.{_digest(repr(key).encode())[:16]}.nbc"

        def _load_index(self):
            try:
                with open(self._index_path, "rb") as handle:
                    version = pickle.load(handle)
                    stamp, overloads = pickle.loads(_verified(handle.read()))
            except Exception:  # missing, truncated or corrupt: as if there were no index
                return {}
            fresh = version == self._version and stamp == self._source_stamp
            return overloads if fresh else {}

        def _dump(self, obj):
            data = super()._dump(obj)
            return _digest(data).encode() + data

        def _load_data(self, name):
            with open(self._data_path(name), "rb") as handle:
                return pickle.loads(_verified(handle.read()))

    _CheckedCacheFile.__module__ = __name__
    return _CheckedCacheFile


def _digest(data):
    return hashlib.sha256(data).hexdigest()


def _verified(blob):
    """The payload of `digest + payload`, or ValueError if they do not match."""
    digest, data = blob[:64], blob[64:]
    if digest != _digest(data).encode():
        raise ValueError("corrupt s2sad-checked cache file")
    return data


