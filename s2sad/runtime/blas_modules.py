"""Numba's matrix products and np.linalg call BLAS and LAPACK through two small modules,
scipy.linalg.cython_blas and cython_lapack: they only hand out function pointers. Importing them
the usual way first runs the package scipy.linalg (decompositions, array-API helpers...), 0.14 s
that neither needs: in a process that loads a cached gradient with a matrix product, that import
was half of the time to its first result.

`load_alone()` (dispatch.install, 7 ms) loads each of the two from its own file and registers
it under its own name, so that Numba's `import scipy.linalg.cython_blas` (at compile time) and
its C helper (at the first call of compiled code) find it already there. Nothing else changes:
it is the same extension module, and a later `import scipy.linalg` runs the package as usual and
uses these modules. If the files are not where this scipy keeps them, nothing is done and Numba
imports them itself.
"""
import importlib.machinery
import importlib.util
import os
import sys

MODULES = ("scipy.linalg.cython_blas", "scipy.linalg.cython_lapack")


def load_alone():
    if "scipy.linalg" in sys.modules or all(m in sys.modules for m in MODULES):
        return      # the package is there (and imports them itself), or they are
    try:
        import scipy    # its start-up finds the bundled BLAS library the modules link to
    except ImportError:
        return
    folder = os.path.join(os.path.dirname(scipy.__file__), "linalg")
    for name in MODULES:
        if name not in sys.modules:
            _load(name, folder)


def _load(name, folder):
    stem = name.rsplit(".", 1)[1]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, stem + suffix)
        if os.path.isfile(path):
            break
    else:
        return
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except Exception:   # noqa: BLE001 - any failure: leave the import to Numba, as before
        sys.modules.pop(name, None)

