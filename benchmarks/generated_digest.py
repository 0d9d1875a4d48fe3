"""A digest of the files s2sad generates for the benchmark problems and the test corpora.

    python benchmarks/generated_digest.py [--list]

Generates, in a fresh cache directory with the index off (so every file is transformed, not
looked up), the gradient (reverse mode) and the jvp (forward mode) of every benchmark problem,
loop kernel and corpus function at small sizes, JIT off; prints one sha256 of all the generated
texts, sorted by file name (and with --list, one line per file); the checkout's directory
and the digests in file names (which hash versions) are read as placeholders. A refactoring of the transformer
that changes no behaviour leaves the digest unchanged (issue 34).
"""
import hashlib
import os
import re
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(HERE)
DIGEST = re.compile(rb"__[0-9a-f]{16}(?![0-9a-f])")   # file names hash the text and versions
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "tests")]


def _functions():
    """[(function, wrt, args)] at small sizes: benchmark problems, loop kernels, corpora."""
    import cases
    import corpus_control
    import corpus_language
    import corpus_straight
    import loop_kernels
    rng = np.random.default_rng(0)
    out = [(c.func.py_func if hasattr(c.func, "py_func") else c.func, c.positions,
            c.check_args(rng)) for c in cases.all_cases(quick=True)]
    out += [(f, wrt, sizes["small"](rng)) for f, wrt, sizes in loop_kernels.SIZES.values()]
    for f, make_args, wrt in (corpus_straight.CASES + corpus_control.CASES
                              + corpus_language.CASES):
        out.append((f, wrt if isinstance(wrt, tuple) else (wrt,), make_args(rng)))
    return out


def _portable(text):
    """The text as it would be from any checkout and with any library versions: the checkout's
    directory and the digests in generated file names read as placeholders."""
    return DIGEST.sub(b"__<digest>", text.replace(CHECKOUT.encode(), b"<checkout>"))


def main(argv):
    cache = tempfile.mkdtemp(prefix="s2sad-digest-")
    os.environ["S2SAD_CACHE_DIR"] = cache
    os.environ["S2SAD_INDEX"] = "0"
    import s2sad
    failed = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f, wrt, args in _functions():
            for make in (lambda: s2sad.grad(f, wrt=wrt, jit=False)(*args),
                         lambda: s2sad.jvp(f, wrt=wrt, jit=False)(
                             *args, *[np.ones_like(np.asarray(args[k], dtype=float))
                                      if np.ndim(args[k]) else 1.0 for k in wrt])):
                try:
                    make()
                except Exception as error:  # noqa: BLE001  a refusal is part of the record
                    failed.append(f"{f.__name__}: {type(error).__name__}")
    found = []
    for directory, _, files in os.walk(cache):
        for name in files:
            if name.endswith(".py") and "index" not in directory.split(os.sep):
                text = open(os.path.join(directory, name), "rb").read()
                found.append((_portable(name.encode()), _portable(text)))
    total = hashlib.sha256()
    lines = []
    for name, text in sorted(found):
        total.update(name + b"\0" + text)
        lines.append(f"{hashlib.sha256(text).hexdigest()[:16]}  {name.decode()}")
    if "--list" in argv:
        print("\n".join(lines))
        print("\n".join(sorted(failed)))
    print(f"{len(lines)} generated files, {len(failed)} refusals, sha256 {total.hexdigest()}")


if __name__ == "__main__":
    main(sys.argv[1:])
